//! Disposers: the handle every registration returns to undo exactly itself.

use std::fmt;

/// Undoes exactly one registration (a tool, a restriction, a hook, a guard, an executor).
///
/// Dropping a disposer does *not* undo anything, like the seed's `() => void`: the
/// registration lives until [`Disposer::dispose`] is called.
pub struct Disposer(Option<Box<dyn FnOnce() + Send + Sync>>);

impl Disposer {
    pub(crate) fn new(f: impl FnOnce() + Send + Sync + 'static) -> Self {
        Disposer(Some(Box::new(f)))
    }

    /// Undo the registration. Calling it twice is impossible (it consumes the handle).
    pub fn dispose(mut self) {
        if let Some(f) = self.0.take() {
            f();
        }
    }
}

impl fmt::Debug for Disposer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Disposer")
    }
}
