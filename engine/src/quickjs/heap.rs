//! The heap cap: an allocator that counts QuickJS's bytes and, the first time an allocation would
//! pass the cap, refuses it and records a [`FailureKind::Memory`](crate::FailureKind::Memory) stop.
//!
//! QuickJS's own memory limit only makes allocations fail, which surfaces as a catchable
//! `InternalError: out of memory` (or as a bare `null` exception when even that error cannot be
//! allocated). Recording the stop at the allocator makes the cap final: the interrupt handler ends
//! the program at its next check and the run is reported as `memory`, whatever the program catches.
//! [`JobArena`] keeps QuickJS's allocator from making and freeing an arena per awaited call.

use std::{ffi::c_void, ptr::NonNull, sync::Arc};

use rquickjs::{
    allocator::{Allocator, RustAllocator},
    qjs, Ctx,
};

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

/// The bytes of the entry QuickJS queues when a promise settles (a `JSJobEntry` with the five
/// arguments of a promise reaction job).
const PROMISE_JOB_BYTES: usize = 40 + 5 * std::mem::size_of::<qjs::JSValue>();

/// One block kept for the whole run in the size class of a promise job.
///
/// QuickJS hands out small blocks from 4 KiB arenas per size class and frees an arena as soon as
/// its last block is freed. A run that awaits one tool call at a time has a single promise job
/// alive at any moment, so without a block that stays, every awaited call would make and free a
/// whole arena: about a tenth of a sub-call's cost.
pub(super) struct JobArena<'js> {
    ctx: Ctx<'js>,
    block: NonNull<c_void>,
}

impl<'js> JobArena<'js> {
    /// Keep a block in `ctx`'s runtime until this is dropped (nothing when the heap is full).
    pub(super) fn keep(ctx: &Ctx<'js>) -> Option<Self> {
        // SAFETY: `ctx` is a live context; the block is freed exactly once, by `drop`, through a
        // clone of the same context, which keeps its runtime alive until then.
        let block = unsafe { qjs::js_malloc(ctx.as_raw().as_ptr(), PROMISE_JOB_BYTES as _) };
        NonNull::new(block).map(|block| JobArena {
            ctx: ctx.clone(),
            block,
        })
    }
}

impl Drop for JobArena<'_> {
    fn drop(&mut self) {
        // SAFETY: the block came from `js_malloc` on this context and is freed only here.
        unsafe { qjs::js_free(self.ctx.as_raw().as_ptr(), self.block.as_ptr()) }
    }
}
