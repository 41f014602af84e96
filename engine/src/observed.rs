//! What a program observes from outside besides its tool results: the clock, random numbers,
//! and the order in which settled calls and timers reach it.
//!
//! A program is deterministic given these. The engine takes each from its [`Host`]: the clock
//! ([`Host::clock`]: `Date`, `Date.now()`, `performance.now()`), one seed per run
//! ([`Host::seed`]: `Math.random` and `crypto` draw from generators it seeds), and, for a host
//! that records runs to replay them, the order of deliveries ([`Host::deliveries`]). With
//! [`Deliveries`] the engine hands the program one settled call or timer per turn (the jobs it
//! queued run before the next), so the order of deliveries alone decides how the program's
//! continuations interleave; while replaying, it hands over only the delivery the recording
//! names next, and a timer the recording holds fires at its turn without waiting.
//!
//! [`Host`]: crate::Host
//! [`Host::clock`]: crate::Host::clock
//! [`Host::seed`]: crate::Host::seed
//! [`Host::deliveries`]: crate::Host::deliveries

use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::{FailureKind, RunFailure};

/// The most random bytes one draw returns (as `crypto.getRandomValues` allows).
pub(crate) const MAX_RANDOM_BYTES: usize = 65_536;

/// What a delivery hands the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// A tool call's result or error.
    Tool,
    /// A timer firing.
    Timer,
}

/// The order in which a run's settled calls and timers reach the program, for hosts that record
/// runs and replay them: the engine hands the program one settled call or timer a turn, in
/// the order this keeps.
///
/// Calls and timers are numbered together, from 0, in the order the program made them (the
/// same program given the same deliveries makes them in the same order).
pub trait Deliveries: Send + Sync {
    /// Whether the recording holds a delivery of call `id`: a timer it holds resolves at once
    /// and waits for its turn instead of its delay.
    fn recorded(&self, id: u64) -> bool;

    /// The call the recording delivers next, while replaying; `None` once the recording is
    /// played out (the run is live: whatever settles first goes next). An error (the program
    /// did something else than the recording says it did) ends the run.
    fn next(&self) -> Result<Option<u64>, RunFailure>;

    /// Call `id` is handed to the program now (record it). An error ends the run.
    fn delivered(&self, id: u64, what: Delivery) -> Result<(), RunFailure>;
}

/// The failure of a replay whose program went another way than the recording.
pub fn nondeterminism(message: impl Into<String>) -> RunFailure {
    RunFailure::new(FailureKind::Nondeterminism, message)
}

/// A seed from the operating system's generator (what [`Host::seed`](crate::Host::seed) gives
/// by default).
pub fn os_seed() -> [u8; 32] {
    let mut seed = [0; 32];
    // The OS generator does not fail on Linux once booted; a zero seed is still a seed.
    let _ = getrandom::fill(&mut seed);
    seed
}

/// The system clock: milliseconds since the Unix epoch (what [`Host::clock`](crate::Host::clock)
/// reads by default).
pub fn system_clock() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// The random numbers of one run, from its seed: ChaCha20, a cryptographic generator, so that
/// `crypto.getRandomValues` and `crypto.randomUUID` stay unguessable when the seed is.
pub(crate) struct Entropy(Mutex<ChaCha20Rng>);

impl Entropy {
    /// The generator of a run seeded with `seed`.
    pub(crate) fn new(seed: [u8; 32]) -> Self {
        Entropy(Mutex::new(ChaCha20Rng::from_seed(seed)))
    }

    /// `n` random bytes (at most [`MAX_RANDOM_BYTES`]).
    pub(crate) fn bytes(&self, n: usize) -> Vec<u8> {
        let mut bytes = vec![0; n.min(MAX_RANDOM_BYTES)];
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .fill_bytes(&mut bytes);
        bytes
    }

    /// The seed of `Math.random`'s generator (four 32-bit words, not all zero).
    pub(crate) fn math_seed(&self) -> [u32; 4] {
        let mut rng = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let mut words = [0; 4];
        for word in &mut words {
            *word = rng.next_u32();
        }
        if words == [0; 4] {
            words[0] = 1;
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_seed_gives_one_sequence_and_another_seed_another() {
        let (a, b, c) = (
            Entropy::new([7; 32]),
            Entropy::new([7; 32]),
            Entropy::new([8; 32]),
        );
        assert_eq!(a.math_seed(), b.math_seed());
        assert_eq!(a.bytes(64), b.bytes(64));
        assert_ne!(Entropy::new([7; 32]).bytes(64), c.bytes(64));
        assert_eq!(a.bytes(1 << 20).len(), MAX_RANDOM_BYTES);
    }
}
