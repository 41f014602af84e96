//! Terminal approval and questions: answers `ask` decisions and `ask_user_question` by
//! prompting on the controlling terminal.
//!
//! When no terminal is attached (CI, pipes, servers) every request is denied, so an
//! `ask` policy never silently allows.
//!
//! What the prompt shows is what will run: the tool's name, its arguments as JSON and the
//! reason, each rendered by [`visible_line`] (no escape sequence in them can move the cursor,
//! erase or conceal a line); a call too large to show in full is denied rather than asked
//! about. Input typed before the question is shown is discarded (`tcflush`) right before it
//! is written, so nothing typed ahead, or pushed into the terminal's input, answers it.
//! Console lines a program prints while a prompt waits are held until it is answered.

use std::io::{BufRead, BufReader, IsTerminal, Write};

use futures::future::{BoxFuture, FutureExt};

use ptc::policy::approval::{ApprovalAnswer, ApprovalRequest, ApprovalService};
use ptc::policy::question::{Answer, Question, QuestionService, NO_ONE_TO_ASK};
use ptc::ToolExecution;

use ptc::visible::{visible, visible_line};

/// The most text a prompt shows for one call; a larger call is denied without asking.
pub const MAX_PROMPT_CHARS: usize = 16 * 1024;

/// Prompts `Allow <tool> <args>? [y/N]` on `/dev/tty`.
#[derive(Debug, Clone, Default)]
pub struct TerminalApproval;

impl TerminalApproval {
    /// Whether a terminal is attached (standard input and error are terminals).
    pub fn available() -> bool {
        std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    }
}

/// One prompt at a time: parallel calls asking at once must not interleave, and nothing else
/// ptc streams to the terminal ([`console_line`]) is written while a prompt waits.
static PROMPT: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Write a program's console line to standard error (control characters visible on a
/// terminal). While an approval prompt or a question waits for its answer the line waits too,
/// so a program cannot print a look-alike prompt under the real one, or scroll it away.
pub fn console_line(line: &str) {
    let _turn = PROMPT.lock().unwrap_or_else(|e| e.into_inner());
    let stderr = std::io::stderr();
    let _ = writeln!(stderr.lock(), "{}", ptc::visible::for_stream(line, &stderr));
}

fn prompt(request: &ApprovalRequest) -> ApprovalAnswer {
    let _turn = PROMPT.lock().unwrap_or_else(|e| e.into_inner());
    let open = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty");
    let Ok(tty) = open else {
        return ApprovalAnswer::Other("no terminal to ask on".into());
    };
    let exec = &request.execution;
    let reason = request
        .display_reason
        .as_ref()
        .map(|d| d.en.clone())
        .or_else(|| request.reason.clone())
        .unwrap_or_default();
    let call = format!("{} {}", exec.name(), exec.arguments());
    if call.chars().count() > MAX_PROMPT_CHARS {
        return ApprovalAnswer::Other(format!(
            "the call is too large to show on a terminal ({} characters, at most \
             {MAX_PROMPT_CHARS} are shown): approve it with an allow rule instead",
            call.chars().count()
        ));
    }
    discard_typed_ahead(&tty);
    let mut writer = &tty;
    let _ = write!(
        writer,
        "\nptc: {}\n  {}\nAllow this call once? [y/N] ",
        visible_line(&reason),
        visible_line(&call)
    );
    let _ = writer.flush();
    let mut line = String::new();
    match BufReader::new(&tty).read_line(&mut line) {
        Ok(_) if matches!(line.trim(), "y" | "Y" | "yes") => ApprovalAnswer::AllowedOnce,
        Ok(_) => ApprovalAnswer::Denied,
        Err(e) => ApprovalAnswer::Other(format!("could not read the answer: {e}")),
    }
}

impl ApprovalService for TerminalApproval {
    fn request(&self, request: ApprovalRequest) -> BoxFuture<'static, ApprovalAnswer> {
        async move {
            if !TerminalApproval::available() {
                return ApprovalAnswer::Other("no terminal is attached".into());
            }
            tokio::task::spawn_blocking(move || prompt(&request))
                .await
                .unwrap_or_else(|e| ApprovalAnswer::Other(format!("the prompt failed: {e}")))
        }
        .boxed()
    }
}

/// Asks `ask_user_question` on `/dev/tty`: each question with its numbered options; the
/// person answers with numbers (comma-separated when several may be chosen) or text.
#[derive(Debug, Clone, Default)]
pub struct TerminalQuestions;

fn ask_on_tty(questions: &[Question]) -> Result<Vec<Answer>, String> {
    let _turn = PROMPT.lock().unwrap_or_else(|e| e.into_inner());
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .map_err(|e| format!("no user is attached: the terminal cannot be opened ({e})"))?;
    let mut reader = BufReader::new(&tty);
    let mut writer = &tty;
    let mut answers = Vec::with_capacity(questions.len());
    for q in questions {
        discard_typed_ahead(&tty);
        let heading = q
            .header
            .as_deref()
            .map(|h| format!("[{h}] "))
            .unwrap_or_default();
        let _ = writeln!(
            writer,
            "\nptc asks: {}{}",
            visible_line(&heading),
            visible(&q.question)
        );
        for (i, o) in q.options.iter().enumerate() {
            let note = o
                .description
                .as_deref()
                .map(|d| format!(" — {d}"))
                .unwrap_or_default();
            let _ = writeln!(
                writer,
                "  {}. {}{}",
                i + 1,
                visible_line(&o.label),
                visible_line(&note)
            );
        }
        let hint = match (q.options.is_empty(), q.multi_select) {
            (true, _) => "> ",
            (false, false) => "number or text> ",
            (false, true) => "numbers, comma-separated, or text> ",
        };
        let _ = write!(writer, "{hint}");
        let _ = writer.flush();
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) => return Err("the user closed the terminal without answering".into()),
            Ok(_) => {}
            Err(e) => return Err(format!("could not read the answer: {e}")),
        }
        answers.push(Answer {
            id: q.id.clone(),
            answer: chosen(q, line.trim()),
        });
    }
    Ok(answers)
}

/// Drop every byte typed so far, right before a question is written: only what is typed once
/// it shows answers it. (Discarding after writing it would race with a quick answer: a reply
/// typed as soon as the question appears could be thrown away, leaving the prompt waiting.)
fn discard_typed_ahead(tty: &std::fs::File) {
    use rustix::termios::{tcdrain, tcflush, QueueSelector};
    let _ = tcdrain(tty);
    let _ = tcflush(tty, QueueSelector::IFlush);
}

/// The labels a typed answer picks (numbers of options), else the text itself.
fn chosen(q: &Question, typed: &str) -> Vec<String> {
    let picks: Option<Vec<String>> = typed
        .split(',')
        .map(|p| {
            let n: usize = p.trim().parse().ok()?;
            q.options.get(n.checked_sub(1)?).map(|o| o.label.clone())
        })
        .collect();
    match picks {
        Some(labels) if !q.options.is_empty() && (q.multi_select || labels.len() == 1) => labels,
        _ => vec![typed.to_string()],
    }
}

impl QuestionService for TerminalQuestions {
    fn ask(
        &self,
        _call: &ToolExecution,
        questions: Vec<Question>,
    ) -> BoxFuture<'static, Result<Vec<Answer>, String>> {
        async move {
            if !TerminalApproval::available() {
                return Err(NO_ONE_TO_ASK.into());
            }
            tokio::task::spawn_blocking(move || ask_on_tty(&questions))
                .await
                .unwrap_or_else(|e| Err(format!("the prompt failed: {e}")))
        }
        .boxed()
    }
}
