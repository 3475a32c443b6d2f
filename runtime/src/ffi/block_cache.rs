//! `malloc`/`free` for JIT-compiled code that keep large freed blocks for
//! the next call. A lowered function allocates its arena of intermediates
//! on entry and frees it on exit; glibc hands blocks past its mmap
//! threshold (at most 32 MiB) back to the OS, so every call of a function
//! with a larger arena paid for fresh pages (a 4096x1024 layer norm spent
//! two thirds of its time in page faults). Blocks below 1 MiB go straight
//! to libc; at most [`KEEP`] blocks are kept, the smallest
//! released first.

use std::{
    collections::HashMap,
    ffi::c_void,
    sync::{Mutex, PoisonError},
};

/// Freed blocks kept.
pub(super) const KEEP: usize = 8;
const LARGE: usize = 1 << 20;

#[derive(Default)]
struct Cache {
    /// Live large blocks: address → size.
    live: HashMap<usize, usize>,
    /// Freed large blocks: (size, address).
    free: Vec<(usize, usize)>,
}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

pub(super) extern "C" fn malloc(size: usize) -> *mut c_void {
    if size < LARGE {
        // SAFETY: libc's allocator.
        return unsafe { libc::malloc(size) };
    }
    let mut guard = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    let cache = guard.get_or_insert_with(Cache::default);
    // The smallest freed block that fits without wasting half of it.
    let best = cache
        .free
        .iter()
        .enumerate()
        .filter(|(_, (s, _))| *s >= size && *s / 2 <= size)
        .min_by_key(|(_, (s, _))| *s)
        .map(|(i, _)| i);
    if let Some(i) = best {
        let (s, p) = cache.free.swap_remove(i);
        cache.live.insert(p, s);
        return p as *mut c_void;
    }
    // SAFETY: libc's allocator.
    let p = unsafe { libc::malloc(size) };
    if !p.is_null() {
        cache.live.insert(p as usize, size);
    }
    p
}

pub(super) extern "C" fn free(p: *mut c_void) {
    let mut guard = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    let cache = guard.get_or_insert_with(Cache::default);
    match cache.live.remove(&(p as usize)) {
        Some(size) => {
            cache.free.push((size, p as usize));
            if cache.free.len() > KEEP {
                let smallest = (0..cache.free.len())
                    .min_by_key(|&i| cache.free[i].0)
                    .expect("more than KEEP blocks");
                let (_, q) = cache.free.swap_remove(smallest);
                // SAFETY: a block from libc's `malloc`, no longer used.
                unsafe { libc::free(q as *mut c_void) };
            }
        }
        // SAFETY: not one of ours: from libc's `malloc` (or null).
        None => unsafe { libc::free(p) },
    }
}
