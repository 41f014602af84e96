//! Terminal approval: answers `ask` decisions by prompting on the controlling terminal.
//!
//! When no terminal is attached (CI, pipes, servers) every request is denied, so an
//! `ask` policy never silently allows.

use std::io::{BufRead, BufReader, IsTerminal, Write};

use futures::future::{BoxFuture, FutureExt};

use super::approval::{ApprovalAnswer, ApprovalRequest, ApprovalService};

/// Prompts `Allow <tool> <args>? [y/N]` on `/dev/tty`.
#[derive(Debug, Clone, Default)]
pub struct TerminalApproval;

impl TerminalApproval {
    /// Whether a terminal is attached (standard input and error are terminals).
    pub fn available() -> bool {
        std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    }
}

/// One prompt at a time: parallel calls asking at once must not interleave.
static PROMPT: std::sync::Mutex<()> = std::sync::Mutex::new(());

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
    let mut writer = &tty;
    let _ = write!(
        writer,
        "\nptc: {reason}\n  {} {}\nAllow this call once? [y/N] ",
        exec.name(),
        exec.arguments()
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
