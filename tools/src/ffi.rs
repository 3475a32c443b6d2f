//! The FFI layer of the tools: mimalloc (version 2, see `Cargo.toml`) as
//! Rust's global allocator, called through `libmimalloc-sys`, and the few C
//! library calls the command-line checks need (`memfd_create`, `dup2`,
//! `getrlimit`).
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

/// Asks mimalloc for large OS pages (2 MiB: transparent huge pages, where
/// the kernel gives them on `madvise`) for the memory it takes from the OS
/// from now on. For a program that fills hundreds of megabytes at once:
/// `ocannl-import-onnx` on ResNet-50 (a 345 MB peak) spent most of its
/// time faulting in 4 KiB pages, 0.40–1.05 s against 0.29–0.41 s with
/// large pages (`docs/performance.md`). Not for the other binaries: their
/// memory is mostly MLIR's (the C library's allocator), and the solver's
/// many small tables gained nothing from huge pages (decision 0004).
pub fn use_large_os_pages() {
    // SAFETY: sets one of mimalloc's options, which it reads when it next
    // asks the OS for memory; called first thing in `main`, before any
    // other thread exists.
    unsafe { mi::mi_option_set(mi::mi_option_large_os_pages, 1) }
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

/// The C library functions the tools call directly (glibc, Linux; linked
/// into every Rust binary anyway).
mod libc_fns {
    use std::ffi::{c_char, c_int, c_uint};

    /// `struct rlimit` (`rlim_t` is `unsigned long`).
    #[repr(C)]
    pub(super) struct Rlimit {
        pub(super) cur: u64,
        pub(super) max: u64,
    }

    unsafe extern "C" {
        pub(super) fn memfd_create(name: *const c_char, flags: c_uint) -> c_int;
        pub(super) fn dup2(old: c_int, new: c_int) -> c_int;
        pub(super) fn getrlimit(resource: c_int, rlim: *mut Rlimit) -> c_int;
        pub(super) fn mallopt(param: c_int, value: c_int) -> c_int;
        pub(super) fn getuid() -> c_uint;
        pub(super) fn geteuid() -> c_uint;
    }

    /// `RLIMIT_NPROC` (Linux).
    pub(super) const RLIMIT_NPROC: c_int = 6;

    /// `M_ARENA_MAX` (glibc's `malloc.h`).
    pub(super) const M_ARENA_MAX: c_int = -8;
    /// `RLIMIT_STACK` (Linux).
    pub(super) const RLIMIT_STACK: c_int = 3;

    /// `MFD_CLOEXEC`.
    pub(super) const MFD_CLOEXEC: c_uint = 1;
    /// `RLIMIT_AS` (Linux).
    pub(super) const RLIMIT_AS: c_int = 9;
    /// `RLIM_INFINITY`.
    pub(super) const RLIM_INFINITY: u64 = u64::MAX;
}

/// A new anonymous file in memory (`memfd_create`, closed on exec): where
/// data read from a pipe or a device is kept so that readers which open a
/// path (the MLIR parser, the `.npy` reader) can seek in it.
///
/// # Errors
///
/// The system's, e.g. too many open files.
pub fn memory_file() -> std::io::Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: a NUL-terminated name and valid flags; the call has no other
    // preconditions.
    let fd = unsafe { libc_fns::memfd_create(c"ocannl-input".as_ptr(), libc_fns::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just created and nothing else owns it.
    Ok(unsafe { std::fs::File::from_raw_fd(fd) })
}

/// Makes descriptor `target` of the process a copy of `file`'s (`dup2`):
/// `/dev/fd/<target>` then opens `file`. The copy is not closed on exec;
/// it stays open until the process exits, like the descriptor it replaced.
///
/// # Errors
///
/// The system's (a target beyond the descriptor limit).
pub fn replace_descriptor(file: &std::fs::File, target: i32) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: `file`'s descriptor is open for the call. `target` is a
    // descriptor the caller read to its end and no longer uses (the process
    // got it from its parent, as `/dev/fd/<target>`): no `File` or other
    // owner in this process reads it afterwards, so replacing it does not
    // break an owner's invariant.
    if unsafe { libc_fns::dup2(file.as_raw_fd(), target) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The soft limit `resource` of the process in bytes; `None` when
/// unlimited.
fn soft_limit(resource: std::ffi::c_int) -> Option<u64> {
    let mut lim = libc_fns::Rlimit { cur: 0, max: 0 };
    // SAFETY: `lim` is a valid, writable `struct rlimit`.
    let ok = unsafe { libc_fns::getrlimit(resource, &mut lim) } == 0;
    (ok && lim.cur != libc_fns::RLIM_INFINITY).then_some(lim.cur)
}

/// The soft limit on the process's address space (`RLIMIT_AS`, what
/// `ulimit -v` and `prlimit --as` set) in bytes; `None` when unlimited.
pub fn address_space_limit() -> Option<u64> {
    soft_limit(libc_fns::RLIMIT_AS)
}

/// The soft limit on the stack (`RLIMIT_STACK`, `ulimit -s`) in bytes;
/// `None` when unlimited. libomp gives its threads stacks of this size by
/// default.
pub fn stack_limit() -> Option<u64> {
    soft_limit(libc_fns::RLIMIT_STACK)
}

/// The limit on the threads and processes of this process's real user
/// (`RLIMIT_NPROC`, `ulimit -u`) and that user's id; `None` when unlimited
/// or when the effective user is root (whom the limit does not bind).
pub fn task_limit() -> Option<(u64, u32)> {
    // SAFETY: `getuid` and `geteuid` cannot fail and touch no memory.
    let (uid, euid) = unsafe { (libc_fns::getuid(), libc_fns::geteuid()) };
    if euid == 0 {
        return None;
    }
    soft_limit(libc_fns::RLIMIT_NPROC).map(|n| (n, uid))
}

/// Caps the number of glibc malloc arenas (`mallopt(M_ARENA_MAX, n)`):
/// each thread that calls `malloc` otherwise gets one of its own, up to
/// eight per core, and each reserves 64 MiB of address space.
pub fn limit_malloc_arenas(n: usize) {
    let n = std::ffi::c_int::try_from(n.max(1)).unwrap_or(std::ffi::c_int::MAX);
    // SAFETY: `mallopt` takes any value for `M_ARENA_MAX` and is
    // thread-safe; it only bounds arenas created later.
    unsafe { libc_fns::mallopt(libc_fns::M_ARENA_MAX, n) };
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
