//! The FFI layer of the tools: mimalloc (version 2, see `Cargo.toml`) as
//! Rust's global allocator, called through `libmimalloc-sys`.
//!
//! The `mimalloc` crate's allocator asks for every block through
//! `mi_malloc_aligned`, whose three nested calls and checks cost more than
//! the allocation itself for the small blocks the shape solver and the IR
//! translation ask for (about 47 instructions a call against 22 for
//! `mi_malloc`; 1.6% of `ocannl-infer-shapes`, counted by callgrind on the
//! 48-layer stack of `tools/bench/infer_vs_onnx.py`). This one calls the
//! plain functions whenever they are guaranteed to give the alignment asked
//! for, as `std`'s `System` allocator does with `malloc`.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as mi;

/// The alignment every block of `mi_malloc` has when it is at least that
/// large: mimalloc's `MI_MAX_ALIGN_SIZE` (16 on the targets it supports;
/// `mi_malloc_is_naturally_aligned` in its `src/alloc-aligned.c` is the
/// rule this copies: an alignment no larger than the size or than this).
const PLAIN_ALIGN: usize = 16;

/// Whether `mi_malloc(size)` is aligned to `align`.
fn plain(size: usize, align: usize) -> bool {
    align <= PLAIN_ALIGN && align <= size
}

/// A block for `layout` from `plain_fn` where that is aligned enough (see
/// [`plain`]), else from `aligned_fn`: `mi_malloc`/`mi_malloc_aligned` or
/// their zeroing pair.
///
/// # Safety
///
/// The two functions must be one of those pairs.
#[inline]
unsafe fn pick(
    layout: Layout,
    plain_fn: unsafe extern "C" fn(usize) -> *mut c_void,
    aligned_fn: unsafe extern "C" fn(usize, usize) -> *mut c_void,
) -> *mut u8 {
    // SAFETY: mimalloc's allocation functions, valid for any size and (the
    // aligned ones) any power-of-two alignment, which `Layout` is.
    unsafe {
        if plain(layout.size(), layout.align()) {
            plain_fn(layout.size()).cast()
        } else {
            aligned_fn(layout.size(), layout.align()).cast()
        }
    }
}

/// mimalloc as a [`GlobalAlloc`]: `#[global_allocator] static GLOBAL:
/// ocannl_tools::MiMalloc = ocannl_tools::MiMalloc;`.
pub struct MiMalloc;

// SAFETY: every block comes from mimalloc, aligned as the layout asks
// (through the plain functions only where mimalloc guarantees that, see
// `plain`), and goes back to it through `mi_free` or a mimalloc realloc;
// mimalloc is thread-safe. Null on failure, as `GlobalAlloc` requires.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: an allocation pair (see `pick`).
        unsafe { pick(layout, mi::mi_malloc, mi::mi_malloc_aligned) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: an allocation pair (see `pick`).
        unsafe { pick(layout, mi::mi_zalloc, mi::mi_zalloc_aligned) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: the caller passes a block this allocator gave, which came
        // from mimalloc (whatever the function, `mi_free` takes it back).
        unsafe { mi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` is a live block of this allocator with `layout`'s
        // alignment; the new block keeps that alignment (the plain function
        // only where, as in `alloc`, it is guaranteed for the new size).
        unsafe {
            if plain(new_size, layout.align()) {
                mi::mi_realloc(ptr.cast::<c_void>(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of every alignment and size class keep their alignment and
    /// contents through growth and shrinking, and zeroed ones are zero.
    #[test]
    fn blocks_are_aligned_and_kept() {
        let a = MiMalloc;
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1usize, 3, 8, 15, 16, 24, 40, 100, 4096, 1 << 20] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: nonzero sizes; each block is used within its size
                // and freed once, with the layout it has.
                unsafe {
                    let z = a.alloc_zeroed(layout);
                    assert!(!z.is_null() && z.addr().is_multiple_of(align));
                    assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0));
                    a.dealloc(z, layout);
                    let p = a.alloc(layout);
                    assert!(
                        !p.is_null() && p.addr().is_multiple_of(align),
                        "{size} {align}"
                    );
                    for i in 0..size {
                        *p.add(i) = i as u8;
                    }
                    let mut p = p;
                    let mut len = size;
                    for new in [size * 3, size.div_ceil(2)] {
                        p = a.realloc(p, Layout::from_size_align(len, align).unwrap(), new);
                        assert!(
                            !p.is_null() && p.addr().is_multiple_of(align),
                            "{len}->{new} {align}"
                        );
                        for i in 0..len.min(new) {
                            assert_eq!(*p.add(i), i as u8);
                        }
                        len = new;
                    }
                    a.dealloc(p, Layout::from_size_align(len, align).unwrap());
                }
            }
        }
    }
}
