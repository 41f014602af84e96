//! `[code]`: the static type check of `run_code` programs (see [`ptc::typecheck`]).
//!
//! ```toml
//! [code]
//! typecheck = "warn"         # off | warn | error; --typecheck wins
//! tsc = "/opt/ts7/bin/tsc"   # the TypeScript 7 compiler (PTC_TSC wins; default: found on
//!                            # PATH; never a ./node_modules)
//! ```
//!
//! An untrusted workspace file sets neither: the check runs a compiler outside the sandbox, and
//! such a file could have been written by a program, as could the `node_modules` it would run.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use ptc::typecheck::{Tsc, Typecheck, TypecheckMode};
use serde::Deserialize;
use toml::Spanned;

/// The `[code]` table; unset fields keep the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodeSection {
    /// `off | warn | error`.
    pub typecheck: Option<TypecheckMode>,
    /// The compiler, relative to the file's folder.
    pub tsc: Option<PathBuf>,
}

/// Whether the line saying the check is off for want of a compiler was printed.
static SAID_NO_COMPILER: AtomicBool = AtomicBool::new(false);

impl CodeSection {
    /// The check in force: `flag` (the command line) wins over the file's mode; the compiler is
    /// found as [`Tsc::find`] says. Asked for but without a compiler, it is off and
    /// `warn` gets one line saying why (the first time in this process only).
    pub fn typecheck(
        &self,
        flag: Option<TypecheckMode>,
        warn: impl FnOnce(&str),
    ) -> Option<Typecheck> {
        let mode = flag.or(self.typecheck).unwrap_or_default();
        if mode == TypecheckMode::Off {
            return None;
        }
        match Tsc::find(self.tsc.as_deref()) {
            Ok(tsc) => Some(Typecheck { mode, tsc }),
            Err(why) => {
                if !SAID_NO_COMPILER.swap(true, Ordering::Relaxed) {
                    warn(&format!(
                        "ptc: warning: typecheck = \"{}\" is off: {why}",
                        mode.as_str()
                    ));
                }
                None
            }
        }
    }

    /// Drop what an untrusted file may not set; returns what was dropped, for the notice.
    pub(super) fn restrict_untrusted(&mut self) -> Option<String> {
        let dropped = *self != CodeSection::default();
        *self = CodeSection::default();
        dropped.then(|| "[code] (typecheck runs a compiler outside the sandbox)".to_string())
    }
}

/// `[code]` as written, with positions for error messages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCode {
    typecheck: Option<Spanned<String>>,
    tsc: Option<Spanned<String>>,
}

impl RawCode {
    /// Check the values; `dir` is the file's folder. The error is `(line, message)`.
    pub(super) fn resolve(
        self,
        text: &str,
        dir: Option<&Path>,
    ) -> Result<CodeSection, (usize, String)> {
        let line = |span: std::ops::Range<usize>| super::line_of(text, span.start);
        let typecheck = match &self.typecheck {
            None => None,
            Some(mode) => Some(
                mode.get_ref()
                    .parse::<TypecheckMode>()
                    .map_err(|e| (line(mode.span()), format!("code.typecheck: {e}")))?,
            ),
        };
        let tsc = match &self.tsc {
            None => None,
            Some(path) if path.get_ref().trim().is_empty() => {
                return Err((line(path.span()), "code.tsc must not be empty".into()))
            }
            Some(path) => {
                let written = PathBuf::from(path.get_ref());
                Some(match dir {
                    Some(dir) if written.is_relative() => dir.join(written),
                    _ => written,
                })
            }
        };
        Ok(CodeSection { typecheck, tsc })
    }
}
