//! Shared mutable access to the position and multiplier arrays during a parallel batch. Sound only
//! because a schedule's batch never gives two items a common vertex or element (checked by
//! `xpbd_core::graph::partition` in debug builds), so no location is touched by two threads at once.

use std::marker::PhantomData;

pub struct SharedMut<'a, T> {
    ptr: *mut T,
    len: usize,
    _life: PhantomData<&'a mut [T]>,
}

// SAFETY: access is only through the unsafe methods below, whose callers guarantee disjointness.
unsafe impl<T: Send> Send for SharedMut<'_, T> {}
unsafe impl<T: Send> Sync for SharedMut<'_, T> {}

impl<'a, T: Copy> SharedMut<'a, T> {
    pub fn new(s: &'a mut [T]) -> Self {
        SharedMut { ptr: s.as_mut_ptr(), len: s.len(), _life: PhantomData }
    }

    /// # Safety
    /// No other thread may write `i` concurrently.
    #[inline(always)]
    pub unsafe fn get(&self, i: usize) -> T {
        assert!(i < self.len);
        *self.ptr.add(i)
    }

    /// # Safety
    /// No other thread may read or write `i` concurrently.
    #[inline(always)]
    pub unsafe fn update(&self, i: usize, f: impl FnOnce(&mut T)) {
        assert!(i < self.len);
        f(&mut *self.ptr.add(i))
    }

    /// The first element, for unchecked access by a caller that checked its indices against the length.
    #[inline(always)]
    pub fn ptr(&self) -> *mut T {
        self.ptr
    }

    /// # Safety
    /// No other thread may access `start..start + n` concurrently.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice(&self, start: usize, n: usize) -> &mut [T] {
        assert!(start + n <= self.len);
        std::slice::from_raw_parts_mut(self.ptr.add(start), n)
    }
}
