//! Console capture and output accounting, counted on the Rust side so a program cannot exceed
//! [`Limits::max_output_bytes`](crate::Limits::max_output_bytes) unnoticed.

use crate::{FailureKind, LogLevel, RunFailure};

/// The console lines of one run and the bytes counted so far.
#[derive(Debug, Default)]
pub(crate) struct Output {
    pub(crate) logs: Vec<String>,
    pub(crate) levels: Vec<LogLevel>,
    used: usize,
    max: usize,
}

impl Output {
    /// An empty capture that allows `max` bytes.
    pub(crate) fn new(max: usize) -> Self {
        Output {
            max,
            ..Default::default()
        }
    }

    /// Record one console line; `Err` when it does not fit (the line is then not kept).
    pub(crate) fn log(&mut self, level: LogLevel, line: String) -> Result<(), RunFailure> {
        self.charge(line.len())?;
        self.logs.push(line);
        self.levels.push(level);
        Ok(())
    }

    /// Count `bytes` more (e.g. the serialized returned value) against the limit.
    pub(crate) fn charge(&mut self, bytes: usize) -> Result<(), RunFailure> {
        let used = self.used.saturating_add(bytes);
        if used > self.max {
            return Err(self.exceeded());
        }
        self.used = used;
        Ok(())
    }

    /// The failure reported when the limit is exceeded.
    pub(crate) fn exceeded(&self) -> RunFailure {
        RunFailure::new(
            FailureKind::OutputLimit,
            format!(
                "console output and the returned value exceeded {} bytes",
                self.max
            ),
        )
    }
}
