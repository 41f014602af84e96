//! The resource limits of one run.

use std::time::Duration;

/// Limits for one run (defaults: wall clock 120 s, heap 256 MiB, output 8 MiB).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// The run ends as [`FailureKind::Timeout`](crate::FailureKind::Timeout) when this much time has
    /// passed, whether the program is computing or waiting on a tool.
    pub wall_clock: Duration,
    /// The JavaScript heap cap; reaching it ends the run as
    /// [`FailureKind::Memory`](crate::FailureKind::Memory).
    pub max_heap_bytes: usize,
    /// The bytes of all console lines plus the serialized returned value; exceeding it ends the run as
    /// [`FailureKind::OutputLimit`](crate::FailureKind::OutputLimit).
    pub max_output_bytes: usize,
}

impl Limits {
    /// The failure a run with these limits ends with before it starts, if any: a heap cap below
    /// `minimum` (the engine's [`Engine::min_heap_bytes`](crate::Engine::min_heap_bytes)).
    pub(crate) fn refusal(&self, minimum: usize) -> Option<crate::RunFailure> {
        (self.max_heap_bytes < minimum).then(|| {
            crate::RunFailure::new(
                crate::FailureKind::Memory,
                format!(
                    "the heap limit of {} is below the minimum of {}",
                    bytes(self.max_heap_bytes),
                    bytes(minimum)
                ),
            )
        })
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            wall_clock: Duration::from_secs(120),
            max_heap_bytes: 256 * 1024 * 1024,
            max_output_bytes: 8 * 1024 * 1024,
        }
    }
}

/// `n` bytes as the guidance states limits: whole MiB as `N MiB`, else `N bytes`.
pub(crate) fn bytes(n: usize) -> String {
    const MIB: usize = 1024 * 1024;
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else {
        format!("{n} bytes")
    }
}
