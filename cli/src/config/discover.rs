//! Finding the configuration and deciding how much of it applies ([`Config::discover_trusted`]).
//!
//! | the file | what applies |
//! |---|---|
//! | given with `--config` and outside the workspace root | all of it (the operator's own) |
//! | inside the root, its content trusted (`ptc trust`) | all of it |
//! | inside the root, never trusted | only what narrows: `mode`; `deny` and `ask` policies; `[limits]`, `[tasks]` and `[terminals]` values that lower a limit; `[sandbox]` that is stricter; `[telemetry] max_attribute_chars`; `[web] deny_hosts` and lower `[web]` caps. Ignored, with a notice: `tools`, `[[mcp]]`, `[mcp_start]`, `allow` policies, `unknown_arguments = "allow"`, `[code]`, `[skills]`, wider limits and sandbox settings, `[serve]`, `[telemetry]`'s endpoint and protocol, `[web] allow_hosts`, `allow_private` and higher caps |
//! | inside the root, trusted but changed since | error: ptc refuses to start |
//! | trusted but gone | error: ptc refuses to start |
//! | inside the root through a symbolic link (any component), or not a regular file | error: ptc refuses to start |
//!
//! "Inside the root" is decided by where the file really is (read from the descriptor it was
//! read through) and, for a `--config` path, by where it is written: a path written inside the
//! root is opened with no link followed ([`super::open`]), so a `ptc.toml` that a program
//! linked to a file of its own elsewhere never counts as the operator's.
//!
//! A changed or deleted file is an error, not a reason to ignore it: a program that rewrote
//! `ptc.toml` to drop its deny rules must not gain the power those rules withheld.

use std::path::Path;

use super::trust::{sha256_hex, TrustStore};
use super::{Config, ConfigError, PolicyAction, FILE_NAME};

/// A configuration and what the operator should be told about how it was applied.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The configuration, reduced to what narrows when its file is untrusted.
    pub config: Config,
    /// One line each: what was ignored and why (print them on stderr).
    pub notices: Vec<String>,
}

fn error(path: &Path, message: String) -> ConfigError {
    ConfigError {
        path: Some(path.to_path_buf()),
        line: None,
        message,
    }
}

impl Config {
    /// The configuration for a run in the workspace `root`: `explicit` if given, else
    /// `<root>/ptc.toml` if it exists, applied as far as its trust allows (see the module
    /// docs). `store` is where trust is recorded (`None`: nothing inside the root is trusted).
    pub fn discover_trusted(
        explicit: Option<&Path>,
        root: &Path,
        store: Option<&TrustStore>,
    ) -> Result<Loaded, ConfigError> {
        let root = std::fs::canonicalize(root).map_err(|e| error(root, e.to_string()))?;
        let mut notices = Vec::new();
        let store = match store {
            Some(store) if store.is_inside(&root) => {
                notices.push(format!(
                    "the trust store {} is inside the workspace root, where a program could \
                     forge it: no configuration inside the root is trusted",
                    store.path().display()
                ));
                None
            }
            other => other,
        };
        let candidate = root.join(FILE_NAME);
        let path = explicit.map_or_else(|| candidate.clone(), Path::to_path_buf);
        let file = match Config::read_file(&path, &root)? {
            Some(file) => file,
            None if explicit.is_some() => {
                return Err(error(&path, "no such file".to_string()));
            }
            None => {
                let recorded = match store {
                    Some(store) => store.get(&candidate).map_err(|e| error(&candidate, e))?,
                    None => None,
                };
                if recorded.is_some() {
                    return Err(error(
                        &candidate,
                        format!(
                            "this configuration was trusted but is gone: a program may have \
                             deleted it (dropping its policies). Restore it, or run `ptc trust \
                             --forget --root {}`",
                            root.display()
                        ),
                    ));
                }
                return Ok(Loaded {
                    config: Config::default(),
                    notices,
                });
            }
        };
        let mut config = Config::parse(&file.text, Some(&path))?;
        let (text, canonical) = (file.text, file.real);
        if !canonical.starts_with(&root) {
            // Named by the operator and outside the workspace (never through a link from it).
            return Ok(Loaded { config, notices });
        }
        let hash = sha256_hex(text.as_bytes());
        let recorded = match store {
            Some(store) => store.get(&canonical).map_err(|e| error(&path, e))?,
            None => None,
        };
        let trust_hint = match explicit {
            Some(_) => format!("ptc trust --config {}", canonical.display()),
            None => format!("ptc trust --root {}", root.display()),
        };
        match recorded {
            Some(trusted) if trusted == hash => Ok(Loaded { config, notices }),
            Some(_) => Err(error(
                &path,
                format!(
                    "this configuration changed since you trusted it: a program may have \
                     rewritten it. Review it, then run `{trust_hint}`, or restore the trusted \
                     content"
                ),
            )),
            None => {
                let ignored = config.restrict_untrusted();
                if !ignored.is_empty() {
                    notices.push(format!(
                        "{} is inside the workspace and not trusted (a program could have \
                         written it), so ptc ignored: {}. Review it, then run `{trust_hint}` to \
                         apply it in full",
                        canonical.display(),
                        ignored.join(", ")
                    ));
                }
                Ok(Loaded { config, notices })
            }
        }
    }

    /// Drop what could widen authority; returns what was dropped, for the notice.
    fn restrict_untrusted(&mut self) -> Vec<String> {
        self.trusted = false;
        let mut ignored = Vec::new();
        if let Some(tools) = self.tools.take() {
            ignored.push(format!("tools = {tools:?}"));
        }
        if self.unknown_arguments == ptc::UnknownArguments::Allow {
            self.unknown_arguments = ptc::UnknownArguments::Reject;
            ignored.push("unknown_arguments = \"allow\"".to_string());
        }
        for server in std::mem::take(&mut self.mcp) {
            ignored.push(format!("[[mcp]] `{}` ({})", server.name, server.command));
        }
        for server in std::mem::take(&mut self.lsp) {
            ignored.push(format!("[[lsp]] `{}` ({})", server.name, server.command));
        }
        if self.mcp_start != Default::default() {
            // It only concerns the operator's servers (`--mcp`): theirs to decide.
            self.mcp_start = Default::default();
            ignored.push("[mcp_start]".to_string());
        }
        let before = self.policies.rules.len();
        let allow: Vec<usize> = self
            .policies
            .rules
            .iter()
            .filter(|r| r.action == PolicyAction::Allow)
            .map(|r| r.line)
            .collect();
        self.policies
            .rules
            .retain(|r| r.action != PolicyAction::Allow);
        if self.policies.rules.len() != before {
            ignored.push(format!("allow policies (lines {allow:?})"));
        }
        ignored.extend(self.limits.widening());
        ignored.extend(self.sandbox.widening());
        ignored.extend(self.tasks.narrow());
        ignored.extend(self.terminals.narrow());
        if self.serve != Default::default() {
            // Caps, timeouts and the HTTP token decide who may reach the tools: the operator's.
            self.serve = Default::default();
            ignored.push("[serve]".to_string());
        }
        // An endpoint would send every tool's arguments and results elsewhere.
        ignored.extend(self.telemetry.restrict_untrusted());
        // So would a log URL (a database elsewhere), or a file the workspace chose.
        ignored.extend(self.log.restrict_untrusted());
        ignored.extend(self.code.restrict_untrusted());
        if self.skills != Default::default() {
            // Skills are instructions the model follows as the operator's.
            self.skills = Default::default();
            ignored.push("[skills]".to_string());
        }
        // Reaching private addresses is the operator's to allow.
        ignored.extend(self.web.restrict_untrusted());
        // `[discovery]` stays: it changes what the model is shown, never what may run.
        ignored
    }
}
