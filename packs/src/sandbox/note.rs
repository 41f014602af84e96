//! How the model learns that the sandbox stopped a command.
//!
//! The kernel's refusals reach the command as ordinary errors (`EACCES`, `EPERM`, `EROFS`,
//! `EBUSY` for a protected file's mount points, `ENETUNREACH`), which ptc cannot tell apart
//! from outside. The rule: when a sandboxed command's standard error carries the text of such
//! an error, the result ends with `[sandbox: file access denied under <mode> mode]`, whether
//! or not the command failed (`cmd > /tmp/x; echo saved` exits 0 having saved nothing); when
//! the network is denied and a command that failed (non-zero exit or a signal) shows a failed
//! connection or name lookup, with `[sandbox: network access denied under <mode> mode]`. A
//! note may so appear for a refusal the sandbox did not cause (the mode it names is still the
//! one in force); a refusal whose message the command hid gets none.

use super::SandboxMode;

/// Error texts of file refusals (glibc's `strerror`, as shells and coreutils print them).
const FILE_DENIALS: &[&str] = &[
    "permission denied",
    "operation not permitted",
    "read-only file system",
    "device or resource busy",
];

/// Error texts of network failures under a denied network.
const NETWORK_DENIALS: &[&str] = &[
    "network is unreachable",
    "could not resolve host",
    "temporary failure in name resolution",
    "name or service not known",
    "couldn't connect to server",
    "connection refused",
    "address family not supported",
];

/// The notes for a failed command's `stderr` (and, for the network, its `stdout`: a test
/// runner reports a refused connection there), one per line, or `None`.
pub(super) fn denial(
    mode: SandboxMode,
    network: bool,
    (stderr, stdout): (&str, &str),
) -> Option<String> {
    let lower = stderr.to_lowercase();
    let out = stdout.to_lowercase();
    let net = !network
        && NETWORK_DENIALS
            .iter()
            .any(|t| lower.contains(t) || out.contains(t));
    let file = FILE_DENIALS.iter().any(|t| lower.contains(t));
    let mut notes = Vec::new();
    if file {
        notes.push(format!("file access denied under {mode} mode"));
    }
    if net {
        notes.push(format!("network access denied under {mode} mode"));
    }
    (!notes.is_empty()).then(|| notes.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_name_the_mode_and_the_kind() {
        let ww = SandboxMode::WorkspaceWrite;
        assert_eq!(
            denial(
                ww,
                false,
                ("touch: cannot touch '/x': Permission denied", "")
            )
            .as_deref(),
            Some("file access denied under workspace-write mode")
        );
        assert_eq!(
            denial(ww, false, ("curl: (7) Couldn't connect to server", "")).as_deref(),
            Some("network access denied under workspace-write mode")
        );
        assert_eq!(
            denial(
                ww,
                false,
                ("bash: socket: Address family not supported by protocol", "")
            )
            .as_deref(),
            Some("network access denied under workspace-write mode")
        );
        assert_eq!(denial(ww, true, ("Connection refused", "")), None);
        assert_eq!(denial(ww, false, ("no such file", "")), None);
        // A test runner's report on stdout: the network, not files (tests print "permission
        // denied" for their own reasons).
        let pytest = "E   OSError: [Errno 97] Address family not supported by protocol";
        assert_eq!(
            denial(ww, false, ("", pytest)).as_deref(),
            Some("network access denied under workspace-write mode")
        );
        assert_eq!(denial(ww, false, ("", "Permission denied")), None);
    }
}
