//! The heap cap: an allocator that counts QuickJS's bytes and, the first time an allocation would
//! pass the cap, refuses it and records a [`FailureKind::Memory`](crate::FailureKind::Memory) stop.
//!
//! QuickJS's own memory limit only makes allocations fail, which surfaces as a catchable
//! `InternalError: out of memory` (or as a bare `null` exception when even that error cannot be
//! allocated). Recording the stop at the allocator makes the cap final: the interrupt handler ends
//! the program at its next check and the run is reported as `memory`, whatever the program catches.

use std::sync::Arc;

use rquickjs::allocator::{Allocator, RustAllocator};

use crate::{stop::Stop, RunFailure};

/// Counts the bytes QuickJS holds and refuses allocations past `limit`.
pub(super) struct CappedAllocator {
    inner: RustAllocator,
    used: usize,
    limit: usize,
    stop: Arc<Stop>,
}

impl CappedAllocator {
    /// An allocator allowing `limit` bytes, recording the memory failure in `stop`.
    pub(super) fn new(limit: usize, stop: Arc<Stop>) -> Self {
        CappedAllocator {
            inner: RustAllocator,
            used: 0,
            limit,
            stop,
        }
    }

    /// Whether `more` bytes still fit; records the stop when they do not.
    fn admit(&mut self, more: usize) -> bool {
        if self.used.saturating_add(more) <= self.limit {
            return true;
        }
        self.stop.fail(RunFailure::heap_exceeded(self.limit));
        false
    }
}

// SAFETY: every method delegates to `RustAllocator` (a correct `Allocator`) and only adds
// bookkeeping; a refused request returns null, which QuickJS handles as a failed allocation.
unsafe impl Allocator for CappedAllocator {
    fn alloc(&mut self, size: usize) -> *mut u8 {
        if !self.admit(size) {
            return std::ptr::null_mut();
        }
        let ptr = self.inner.alloc(size);
        if !ptr.is_null() {
            // SAFETY: `ptr` was just returned by `RustAllocator`.
            self.used += unsafe { RustAllocator::usable_size(ptr) };
        }
        ptr
    }

    fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
        if !self.admit(count.saturating_mul(size)) {
            return std::ptr::null_mut();
        }
        let ptr = self.inner.calloc(count, size);
        if !ptr.is_null() {
            // SAFETY: `ptr` was just returned by `RustAllocator`.
            self.used += unsafe { RustAllocator::usable_size(ptr) };
        }
        ptr
    }

    unsafe fn dealloc(&mut self, ptr: *mut u8) {
        // SAFETY: QuickJS only frees pointers this allocator returned.
        unsafe {
            self.used = self.used.saturating_sub(RustAllocator::usable_size(ptr));
            self.inner.dealloc(ptr);
        }
    }

    unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        // SAFETY: QuickJS only reallocates non-null pointers this allocator returned (it turns null
        // and zero-size requests into malloc and free before calling here).
        unsafe {
            let old = RustAllocator::usable_size(ptr);
            if new_size > old && !self.admit(new_size - old) {
                return std::ptr::null_mut();
            }
            let new = self.inner.realloc(ptr, new_size);
            if !new.is_null() {
                self.used = self.used - old + RustAllocator::usable_size(new);
            }
            new
        }
    }

    unsafe fn usable_size(ptr: *mut u8) -> usize {
        // SAFETY: forwarded as is.
        unsafe { RustAllocator::usable_size(ptr) }
    }
}
