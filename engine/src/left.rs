//! Work a program left behind: tool calls still pending when it ended, failed calls nothing
//! awaited, and other promises that rejected unhandled (an un-awaited async helper that
//! threw). None changes how the run ends; all are reported after its output so the model
//! learns of them (an un-awaited failing `write` would otherwise look like success).

/// One call a program left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftBehind {
    /// The tool.
    pub tool: String,
    /// Where the program called it (1-based line and column in the program as written).
    pub site: Option<(usize, usize)>,
    /// What became of it.
    pub left: Left,
    /// What it worked on (`file_path "src/a.ts"`), when the host says: calls of one tool
    /// told apart (ptc's bridge sets it).
    pub subject: Option<String>,
}

/// What became of a call left behind.
///
/// An engine knows only whether a call had settled when the program ended; the host that
/// ran the call can say more of a [`Left::Pending`] one once it has wound the run down
/// (ptc's bridge turns it into [`Left::NotStarted`], [`Left::Stopped`], [`Left::Completed`]
/// or [`Left::Failed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Left {
    /// Not a tool call: one of the program's own promises rejected with this reason and
    /// nothing handled it.
    Rejected(String),
    /// It had not settled when the program ended; it was cancelled.
    Pending,
    /// It failed with this message, and the program never awaited it.
    Failed(String),
    /// It completed, and the program never used its result.
    Completed,
    /// It was cancelled before it started: it did not happen.
    NotStarted,
    /// It was running when the program ended and was stopped: it may have taken effect.
    Stopped,
}

impl LeftBehind {
    /// A promise of the program's own (not a tool call) that rejected with `reason` (as
    /// `Name: message`) and that nothing handled.
    pub fn rejection(reason: String) -> Self {
        LeftBehind {
            tool: String::new(),
            site: None,
            left: Left::Rejected(reason),
            subject: None,
        }
    }
}

/// The site in a stack text: the `line:col` after its first `filename:`, or "" when that is not
/// followed by one. The first such frame is the program's innermost.
#[cfg_attr(not(feature = "quickjs"), allow(dead_code))]
pub(crate) fn first_site<'a>(stack: &'a str, filename: &str) -> &'a str {
    // A plain scan: stacks are short, and a substring searcher costs more to set up.
    let (bytes, name) = (stack.as_bytes(), filename.as_bytes());
    let Some(&first) = name.first() else {
        return "";
    };
    let Some(at) = (0..bytes.len()).find(|&at| {
        bytes[at] == first
            && bytes[at..].starts_with(name)
            && bytes.get(at + name.len()) == Some(&b':')
    }) else {
        return "";
    };
    let rest = &stack[at + name.len() + 1..];
    let mut colons = 0;
    let end = rest
        .find(|c: char| match c {
            ':' if colons == 0 => {
                colons += 1;
                false
            }
            c => !c.is_ascii_digit(),
        })
        .unwrap_or(rest.len());
    if colons == 1 {
        &rest[..end]
    } else {
        ""
    }
}

/// A call site as the glue reports it (`"line:col"` in the running program's text).
pub(crate) fn parse_site(site: &str) -> Option<(usize, usize)> {
    let (line, col) = site.split_once(':')?;
    Some((line.parse().ok()?, col.parse().ok()?))
}
