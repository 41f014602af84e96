//! The optional static type check of `run_code` programs ([`Typecheck`], `[code] typecheck`).
//!
//! Before a program runs (or while, in `warn`), the TypeScript 7 native compiler ([`Tsc`]) checks it against the SDK
//! declarations of the caller's visible tools (the text `ptc sdk --mode code` shows) and the
//! sandbox's globals. The program is shaped as the engines shape it (fence, final arrow
//! function, `main`…; [`ptc_engine::shape_program`]) so each diagnostic points at the model's own
//! line and column. In [`TypecheckMode::Error`] a program with diagnostics does not run: the
//! result is an error listing them; in [`TypecheckMode::Warn`] it runs while it is checked, and a
//! `[typecheck]` block follows its output. A check that cannot be made (the compiler failed or took too long) never
//! stops a run: a one-line `[typecheck]` note says why.
//!
//! One `tsc` process per run: a median 73–80 ms on a 2-core machine at load 11–13, well inside
//! the 150 ms budget, so no checker is kept warm (`benches/typecheck.sh` measures it).
//!
//! ```no_run
//! use ptc::typecheck::{Tsc, Typecheck, TypecheckMode};
//!
//! let mut config = ptc::CodeConfig::default();
//! match Tsc::find(None) {
//!     Ok(tsc) => config.typecheck = Some(Typecheck { mode: TypecheckMode::Warn, tsc }),
//!     Err(why) => eprintln!("unchecked: {why}"),
//! }
//! ```

mod check;
mod compiler;
mod message;

pub use check::Diagnostic;
pub use compiler::{Tsc, TSC_ENV};

use tokio_util::sync::CancellationToken;

/// The most diagnostics shown; the rest are counted.
const MAX_SHOWN: usize = 5;

/// What the type check does with a program's diagnostics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TypecheckMode {
    /// No check (the default).
    #[default]
    Off,
    /// The program runs; its diagnostics follow the output in a `[typecheck]` block.
    Warn,
    /// A program with diagnostics does not run: the result is an error listing them.
    Error,
}

impl TypecheckMode {
    /// `off`, `warn` or `error`.
    pub fn as_str(&self) -> &'static str {
        match self {
            TypecheckMode::Off => "off",
            TypecheckMode::Warn => "warn",
            TypecheckMode::Error => "error",
        }
    }
}

impl std::str::FromStr for TypecheckMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "off" => Ok(TypecheckMode::Off),
            "warn" => Ok(TypecheckMode::Warn),
            "error" => Ok(TypecheckMode::Error),
            other => Err(format!(
                "unknown typecheck mode `{other}` (expected off, warn or error)"
            )),
        }
    }
}

/// A type check in force: [`TypecheckMode::Warn`] or [`TypecheckMode::Error`] with the compiler.
#[derive(Debug, Clone)]
pub struct Typecheck {
    /// What diagnostics do (a check whose mode is `Off` checks nothing).
    pub mode: TypecheckMode,
    /// The compiler.
    pub tsc: Tsc,
}

/// What a check decided about one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Run, and append nothing.
    Clean,
    /// Run, and append this block to the result.
    Append(String),
    /// Do not run: the run's error is this text.
    Refuse(String),
}

impl Typecheck {
    /// Whether a program with diagnostics is refused ([`TypecheckMode::Error`]): the check then
    /// comes before the run; otherwise it runs beside it.
    pub(crate) fn refuses(&self) -> bool {
        self.mode == TypecheckMode::Error
    }

    /// Check `source` against `declarations` (see the module docs).
    pub(crate) async fn verdict(
        &self,
        source: &str,
        declarations: &str,
        cancel: &CancellationToken,
    ) -> Verdict {
        if self.mode == TypecheckMode::Off {
            return Verdict::Clean;
        }
        match check::check(&self.tsc, source, declarations, cancel).await {
            Ok(None) => Verdict::Clean,
            Ok(Some(found)) if found.is_empty() => Verdict::Clean,
            Ok(Some(found)) => match self.mode {
                TypecheckMode::Error => Verdict::Refuse(format!(
                    "The program did not run: {} (typecheck = \"error\"); fix and run again.{}",
                    count(found.len()),
                    listing(&found, source)
                )),
                _ => Verdict::Append(format!(
                    "[typecheck] {} (the program ran):{}",
                    count(found.len()),
                    listing(&found, source)
                )),
            },
            Err(why) => Verdict::Append(format!("[typecheck] not checked: {why}")),
        }
    }
}

/// `1 type error`, `3 type errors`.
fn count(n: usize) -> String {
    match n {
        1 => "1 type error".to_string(),
        n => format!("{n} type errors"),
    }
}

/// Each shown diagnostic on its line, with the source line and a caret; then how many more.
fn listing(found: &[Diagnostic], source: &str) -> String {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let mut out = String::new();
    for d in found.iter().take(MAX_SHOWN) {
        out.push_str(&format!(
            "\nrun_code.ts:{}:{} TS{}: {}{}",
            d.line,
            d.col,
            d.code,
            message::for_model(d.code, &d.message),
            ptc_engine::source_snippet(source, d.line, d.col)
        ));
    }
    if found.len() > MAX_SHOWN {
        out.push_str(&format!("\n… and {} more", found.len() - MAX_SHOWN));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_and_name_themselves() {
        for mode in [
            TypecheckMode::Off,
            TypecheckMode::Warn,
            TypecheckMode::Error,
        ] {
            assert_eq!(mode.as_str().parse::<TypecheckMode>(), Ok(mode));
        }
        assert!("on".parse::<TypecheckMode>().unwrap_err().contains("`on`"));
    }
}
