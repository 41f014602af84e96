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
}

/// What became of a call left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Left {
    /// Not a tool call: one of the program's own promises rejected with this reason and
    /// nothing handled it.
    Rejected(String),
    /// It had not settled when the program ended; it was cancelled.
    Pending,
    /// It failed with this message, and the program never awaited it.
    Failed(String),
}

impl LeftBehind {
    /// A promise of the program's own (not a tool call) that rejected with `reason` (as
    /// `Name: message`) and that nothing handled.
    pub fn rejection(reason: String) -> Self {
        LeftBehind {
            tool: String::new(),
            site: None,
            left: Left::Rejected(reason),
        }
    }
}

/// A call site as the glue reports it (`"line:col"` in the running program's text).
pub(crate) fn parse_site(site: &str) -> Option<(usize, usize)> {
    let (line, col) = site.split_once(':')?;
    Some((line.parse().ok()?, col.parse().ok()?))
}
