//! A small, safe wrapper over the CUDA driver API (`cudarc`, loading
//! `libcuda.so` at run time) for the CUDA runner: open a device, load a
//! module (PTX, cubin or fatbin), allocate device buffers, copy to, from and
//! between them, launch kernels taking bare pointers, time with events.
//!
//! Every CUDA failure becomes an [`Error`] naming its cause, never a panic.
//! `cudarc` panics on its first driver call when `libcuda.so` is absent, so
//! [`Gpu::open`] (the way to everything else) first asks [`driver_present`];
//! it also panics when the driver lacks a symbol, so each public entry runs
//! under `guarded` (a panic becomes an error), and `cuFuncGetParamInfo`
//! (CUDA 12.4) is only called on a driver that has it. `cudarc`'s panicking
//! conveniences (`load_function`, `memcpy_*`, `slice_mut`, ...) are not
//! used: copies and launches go through `cudarc::driver::result` once the
//! offsets and lengths are checked here.
//!
//! All the work of one [`Gpu`] goes in order on its one stream: `cudarc`'s
//! cross-stream event tracking is off, and a buffer is only accepted by the
//! [`Gpu`] that allocated it.

use std::{
    ffi::{CString, c_void},
    panic::{AssertUnwindSafe, catch_unwind},
    rc::Rc,
    sync::{Arc, OnceLock},
};

use cudarc::driver::{
    CudaContext, CudaEvent, CudaSlice, CudaStream, DevicePtr, DriverError, result, sys,
};

use crate::Error;

/// The most parameters read back from a kernel (a guard on the loop).
const MAX_PARAMS: usize = 4096;

/// Bytes for the JIT's error log when a module fails to load.
const JIT_LOG_BYTES: usize = 16 * 1024;

/// Whether the CUDA driver library (`libcuda.so`) can be loaded; asked once
/// per process, without panicking.
pub fn driver_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only tries to `dlopen` the driver library by its usual names
    // (running its initialisers, as any use of the driver would).
    *PRESENT.get_or_init(|| unsafe { sys::is_culib_present() })
}

/// Runs `f`, turning a panic inside `cudarc` (a symbol the installed driver
/// lacks) into an error.
fn guarded<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let why = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown reason".to_string());
        Err(Error::new(format!(
            "the CUDA driver library failed ({why}): update the NVIDIA driver"
        )))
    })
}

/// `CUDA_ERROR_NAME (description)`.
fn describe(error: DriverError) -> String {
    match error.error_string() {
        Ok(text) => format!("{:?} ({})", error.0, text.to_string_lossy()),
        Err(_) => format!("{:?}", error.0),
    }
}

/// Maps a driver error to "CUDA error ... while `what`".
fn failed(what: impl FnOnce() -> String) -> impl FnOnce(DriverError) -> Error {
    move |error| Error::new(format!("CUDA error {} while {}", describe(error), what()))
}

/// Runs `f` under [`guarded`] with `ctx` current, its error reported as
/// "CUDA error ... while `what`".
fn run<T>(
    ctx: &CudaContext,
    what: impl FnOnce() -> String,
    f: impl FnOnce() -> Result<T, DriverError>,
) -> Result<T, Error> {
    guarded(|| {
        ctx.bind_to_thread()
            .and_then(|()| f())
            .map_err(failed(what))
    })
}

/// A CUDA device, its (primary) context and the one stream all its work
/// goes on.
#[derive(Debug)]
pub struct Gpu {
    device: usize,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
}

/// A module to load: PTX text, or a cubin (ELF) or fatbin image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Image {
    /// PTX assembly, JIT-compiled by the driver for the device.
    Ptx(String),
    /// A cubin or fatbin image (as `nvcc -cubin`/`-fatbin` or MLIR's
    /// `gpu-module-to-binary` write them).
    Binary(Vec<u8>),
}

/// A loaded module; unloaded once it and all its [`Kernel`]s are dropped.
#[derive(Debug)]
pub struct Module {
    inner: Rc<LoadedModule>,
}

/// The driver's module handle, unloaded on drop.
#[derive(Debug)]
struct LoadedModule {
    handle: sys::CUmodule,
    ctx: Arc<CudaContext>,
}

impl Drop for LoadedModule {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_ok() {
            // SAFETY: a module loaded in this context, unloaded once (no
            // kernel of it is left: each holds this value).
            let _ = unsafe { result::module::unload(self.handle) };
        }
    }
}

/// A kernel of a [`Module`] (which it keeps loaded).
#[derive(Debug, Clone)]
pub struct Kernel {
    name: String,
    function: sys::CUfunction,
    /// The byte size of each parameter, where the driver can tell (12.4+).
    params: Option<Vec<usize>>,
    module: Rc<LoadedModule>,
}

/// Device memory of a [`Gpu`], zero-filled when allocated, freed on drop
/// (in order on the stream).
#[derive(Debug)]
pub struct Buffer {
    /// At least one byte: the driver refuses empty allocations.
    slice: CudaSlice<u8>,
    base: u64,
    len: usize,
}

/// A point in a [`Gpu`]'s stream, recorded for timing.
#[derive(Debug)]
pub struct Event {
    inner: CudaEvent,
}

impl Buffer {
    /// The byte length.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address of byte `offset` to byte `offset + bytes`, checked
    /// to lie within the buffer.
    fn address(&self, offset: usize, bytes: usize, what: &str) -> Result<u64, Error> {
        match offset.checked_add(bytes) {
            Some(end) if end <= self.len => Ok(self.base + offset as u64),
            _ => Err(Error::new(format!(
                "{what}: bytes {offset}..{} are out of bounds of a {}-byte device buffer",
                offset as u128 + bytes as u128,
                self.len
            ))),
        }
    }
}

impl Gpu {
    /// Opens CUDA device `device`: checks the driver is present and the
    /// device exists, retains its primary context and creates a stream.
    pub fn open(device: usize) -> Result<Gpu, Error> {
        if !driver_present() {
            return Err(Error::new(
                "no CUDA driver: libcuda.so was not found (install the NVIDIA driver, or run on the CPU)",
            ));
        }
        guarded(|| {
            let count = match CudaContext::device_count() {
                Err(DriverError(sys::CUresult::CUDA_ERROR_NO_DEVICE)) => 0,
                count => count.map_err(failed(|| "initialising the CUDA driver".into()))?,
            };
            let count = usize::try_from(count).unwrap_or(0);
            if count == 0 {
                return Err(Error::new("no CUDA device found on this machine"));
            }
            if device >= count {
                return Err(Error::new(format!(
                    "CUDA device {device} does not exist (this machine has {count})"
                )));
            }
            let what = || format!("opening CUDA device {device}");
            let ctx = CudaContext::new(device).map_err(failed(what))?;
            // SAFETY: event tracking orders work between streams; everything
            // of this `Gpu` (allocations, copies, launches, frees) goes in
            // order on its one stream, and a buffer of another `Gpu` is
            // refused (`Gpu::owns`).
            unsafe { ctx.disable_event_tracking() };
            let stream = ctx.new_stream().map_err(failed(what))?;
            Ok(Gpu {
                device,
                ctx,
                stream,
            })
        })
    }

    /// The device's name (best effort: `CUDA device N` if it cannot be read).
    pub fn name(&self) -> String {
        run(&self.ctx, String::new, || self.ctx.name())
            .unwrap_or_else(|_| format!("CUDA device {}", self.device))
    }

    /// Loads a module from PTX text or from a cubin/fatbin image; the JIT's
    /// error log, if any, is part of the error.
    pub fn load(&self, image: &Image) -> Result<Module, Error> {
        // The driver reads PTX up to its NUL, and a binary as far as its
        // header says: both copies end in a NUL, the binary's is 8-byte
        // aligned (a vector of u64) and its header checked against its size.
        let (words, kind) = match image {
            Image::Ptx(text) => {
                let text = CString::new(text.as_str()).map_err(|_| {
                    Error::new("cannot load the PTX module: the text contains a NUL byte")
                })?;
                (to_words(text.as_bytes_with_nul()), "PTX")
            }
            Image::Binary(bytes) => {
                check_binary(bytes)
                    .map_err(|why| Error::new(format!("cannot load the CUDA module: {why}")))?;
                (to_words(bytes), "binary")
            }
        };
        guarded(|| {
            let what = || format!("loading the {kind} module");
            self.ctx.bind_to_thread().map_err(failed(what))?;
            let mut log = vec![0u8; JIT_LOG_BYTES];
            let mut options = [
                sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
                sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            ];
            let mut values = [
                log.as_mut_ptr().cast::<c_void>(),
                std::ptr::without_provenance_mut(JIT_LOG_BYTES),
            ];
            let mut handle: sys::CUmodule = std::ptr::null_mut();
            // SAFETY: `words` is a NUL-terminated, 8-byte aligned image the
            // driver reads within its bounds (see above); the log buffer has
            // the size given in the second option, and the module handle is
            // written through a valid pointer. The context is current.
            let status = unsafe {
                sys::cuModuleLoadDataEx(
                    &mut handle,
                    words.as_ptr().cast(),
                    options.len() as u32,
                    options.as_mut_ptr(),
                    values.as_mut_ptr(),
                )
            };
            status.result().map_err(|error| {
                let log = log.split(|&b| b == 0).next().unwrap_or_default();
                let log = String::from_utf8_lossy(log);
                let mut message = format!("CUDA error {} while {}", describe(error), what());
                if !log.trim().is_empty() {
                    message.push_str(":\n");
                    message.push_str(log.trim_end());
                }
                Error::new(message)
            })?;
            Ok(Module {
                inner: Rc::new(LoadedModule {
                    handle,
                    ctx: self.ctx.clone(),
                }),
            })
        })
    }

    /// Allocates `bytes` bytes of zero-filled device memory (0 is allowed).
    pub fn alloc(&self, bytes: usize) -> Result<Buffer, Error> {
        let what = || format!("allocating {bytes} bytes of device memory");
        let slice = run(&self.ctx, what, || {
            self.stream.alloc_zeros::<u8>(bytes.max(1))
        })?;
        let base = slice.device_ptr(&self.stream).0;
        Ok(Buffer {
            slice,
            base,
            len: bytes,
        })
    }

    /// An error unless `buffer` was allocated by this `Gpu`.
    fn owns(&self, buffer: &Buffer, what: &str) -> Result<(), Error> {
        if buffer.slice.stream() == &self.stream {
            Ok(())
        } else {
            Err(Error::new(format!(
                "{what}: the device buffer belongs to another CUDA device or stream"
            )))
        }
    }

    /// Copies `data` to `dst` from byte `offset` on; returns once `data` may
    /// be reused.
    pub fn upload(&self, dst: &Buffer, offset: usize, data: &[u8]) -> Result<(), Error> {
        let what = || format!("uploading {} bytes to the device", data.len());
        self.owns(dst, &what())?;
        let address = dst.address(offset, data.len(), &what())?;
        if data.is_empty() {
            return Ok(());
        }
        run(&self.ctx, what, || {
            // SAFETY: the range lies within `dst`, a live allocation used
            // only on this stream, and the context is current; the stream is
            // synchronised before `data` is released to the caller.
            unsafe { result::memcpy_htod_async(address, data, self.stream.cu_stream()) }?;
            self.stream.synchronize()
        })
    }

    /// Copies bytes `offset..offset + out.len()` of `src` into `out`, once the
    /// work before it on the stream has finished.
    pub fn download(&self, src: &Buffer, offset: usize, out: &mut [u8]) -> Result<(), Error> {
        let bytes = out.len();
        let what = || format!("downloading {bytes} bytes from the device");
        self.owns(src, &what())?;
        let address = src.address(offset, bytes, &what())?;
        if bytes == 0 {
            return Ok(());
        }
        run(&self.ctx, what, || {
            // SAFETY: the range lies within `src`, a live allocation used
            // only on this stream, and the context is current; `out` is
            // borrowed until the stream is synchronised below.
            unsafe { result::memcpy_dtoh_async(out, address, self.stream.cu_stream()) }?;
            self.stream.synchronize()
        })
    }

    /// Copies `bytes` bytes from `src` (from `src_offset` on) to `dst` (from
    /// `dst_offset` on), on the stream; the ranges must not overlap.
    pub fn copy(
        &self,
        src: &Buffer,
        src_offset: usize,
        dst: &Buffer,
        dst_offset: usize,
        bytes: usize,
    ) -> Result<(), Error> {
        let what = || format!("copying {bytes} bytes on the device");
        self.owns(src, &what())?;
        self.owns(dst, &what())?;
        let from = src.address(src_offset, bytes, &format!("{} (source)", what()))?;
        let to = dst.address(dst_offset, bytes, &format!("{} (destination)", what()))?;
        if bytes == 0 {
            return Ok(());
        }
        if from < to + bytes as u64 && to < from + bytes as u64 {
            return Err(Error::new(format!(
                "{}: the source and destination ranges overlap",
                what()
            )));
        }
        run(&self.ctx, what, || {
            // SAFETY: both ranges lie within live allocations used only on
            // this stream and do not overlap; `run` made the context current.
            unsafe { result::memcpy_dtod_async(to, from, bytes, self.stream.cu_stream()) }
        })
    }

    /// Launches `kernel` with `grid` blocks of `block` threads and one
    /// pointer argument per entry of `args` (a buffer's address plus a byte
    /// offset, at most its length), on the stream. A grid or block with a
    /// zero dimension launches nothing.
    pub fn launch(
        &self,
        kernel: &Kernel,
        grid: [u32; 3],
        block: [u32; 3],
        args: &[(&Buffer, usize)],
    ) -> Result<(), Error> {
        let name = &kernel.name;
        if kernel.module.ctx != self.ctx {
            return Err(Error::new(format!(
                "kernel '{name}' was loaded on another CUDA device"
            )));
        }
        let mut addresses = Vec::with_capacity(args.len());
        for (i, &(buffer, offset)) in args.iter().enumerate() {
            let what = format!("argument {i} of kernel '{name}'");
            self.owns(buffer, &what)?;
            addresses.push(buffer.address(offset, 0, &what)?);
        }
        if let Some(sizes) = &kernel.params
            && (sizes.len() != args.len() || sizes.iter().any(|&size| size != 8))
        {
            return Err(Error::new(format!(
                "kernel '{name}' takes parameters of {sizes:?} bytes, not {} pointers",
                args.len()
            )));
        }
        if grid.contains(&0) || block.contains(&0) {
            return Ok(());
        }
        let mut params: Vec<*mut c_void> = addresses
            .iter_mut()
            .map(|address| std::ptr::from_mut(address).cast())
            .collect();
        let what = || format!("launching kernel '{name}'");
        run(&self.ctx, what, || {
            // SAFETY: the function is live (its module is held by `kernel`)
            // and belongs to this context, made current by `run`; `params`
            // holds one pointer to a u64 device address per kernel parameter
            // (checked against the kernel's parameters where the driver can
            // tell), each within a live buffer of this stream; the driver
            // copies the values before returning.
            unsafe {
                result::launch_kernel(
                    kernel.function,
                    (grid[0], grid[1], grid[2]),
                    (block[0], block[1], block[2]),
                    0,
                    self.stream.cu_stream(),
                    &mut params,
                )
            }
        })
    }

    /// Waits until all the work on the stream has finished (reporting the
    /// errors of kernels that failed).
    pub fn synchronize(&self) -> Result<(), Error> {
        run(
            &self.ctx,
            || "waiting for the device".into(),
            || self.stream.synchronize(),
        )
    }

    /// Records an event at the current end of the stream (for timing).
    pub fn record(&self) -> Result<Event, Error> {
        let flags = Some(sys::CUevent_flags::CU_EVENT_DEFAULT); // timing on
        let inner = run(
            &self.ctx,
            || "recording an event".into(),
            || self.stream.record_event(flags),
        )?;
        Ok(Event { inner })
    }

    /// The milliseconds between two recorded events, once both are reached.
    pub fn elapsed_ms(&self, start: &Event, end: &Event) -> Result<f32, Error> {
        run(
            &self.ctx,
            || "timing the device".into(),
            || start.inner.elapsed_ms(&end.inner),
        )
    }
}

impl Module {
    /// The kernel (`.entry`) called `name`.
    pub fn kernel(&self, name: &str) -> Result<Kernel, Error> {
        let c_name = CString::new(name)
            .map_err(|_| Error::new(format!("invalid kernel name {name:?} (a NUL byte)")))?;
        let what = || format!("looking up kernel '{name}'");
        let (function, params) = run(&self.inner.ctx, what, || {
            // SAFETY: a live module of this context, made current by `run`.
            let function = unsafe { result::module::get_function(self.inner.handle, c_name) }?;
            // The driver's CUDA version, `1000 * major + 10 * minor`.
            let mut version = 0;
            // SAFETY: writes one int through a valid pointer.
            unsafe { sys::cuDriverGetVersion(&mut version) }.result()?;
            Ok((
                function,
                (version >= 12040).then(|| param_sizes(function)).flatten(),
            ))
        })?;
        Ok(Kernel {
            name: name.to_string(),
            function,
            params,
            module: self.inner.clone(),
        })
    }
}

impl Kernel {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// The byte size of each parameter of `function` (`cuFuncGetParamInfo`,
/// which only drivers for CUDA 12.4 and later have); `None` if the driver
/// cannot tell (or the kernel takes none: extra arguments are harmless).
fn param_sizes(function: sys::CUfunction) -> Option<Vec<usize>> {
    let mut sizes = Vec::new();
    while sizes.len() < MAX_PARAMS {
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: a live function of the current context; the offset and
        // size are written through valid pointers.
        let status =
            unsafe { sys::cuFuncGetParamInfo(function, sizes.len(), &mut offset, &mut size) };
        match status.result() {
            Ok(()) => sizes.push(size),
            // Past the last parameter (none found: cannot tell).
            Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE)) => {
                return (!sizes.is_empty()).then_some(sizes);
            }
            Err(_) => return None,
        }
    }
    None
}

/// `bytes` followed by at least one NUL, in 8-byte aligned storage.
fn to_words(bytes: &[u8]) -> Vec<u64> {
    let mut words = vec![0u64; bytes.len() / 8 + 1];
    for (word, chunk) in words.iter_mut().zip(bytes.chunks(8)) {
        let mut raw = [0u8; 8];
        raw[..chunk.len()].copy_from_slice(chunk);
        *word = u64::from_ne_bytes(raw);
    }
    words
}

/// Checks that the sizes in a fatbin's or cubin's (64-bit ELF) header lie
/// within `bytes`; other images are read by the driver as (NUL-terminated)
/// text.
fn check_binary(bytes: &[u8]) -> Result<(), String> {
    // Little-endian field of `n` bytes at `at`.
    let field = |at: usize, n: usize| {
        let mut raw = [0u8; 8];
        raw[..n].copy_from_slice(bytes.get(at..at + n)?);
        Some(u64::from_le_bytes(raw))
    };
    let len = bytes.len() as u64;
    if bytes.is_empty() {
        return Err("the image is empty".into());
    }
    if bytes.starts_with(&0xBA55_ED50u32.to_le_bytes()) {
        let end = field(6, 2)
            .zip(field(8, 8))
            .and_then(|(header, body)| header.checked_add(body));
        if end.is_none_or(|end| end > len) {
            return Err("the fatbin image is truncated".into());
        }
    } else if bytes.starts_with(b"\x7fELF") {
        if bytes.get(4) != Some(&2) {
            return Err("the cubin is not a 64-bit ELF image".into());
        }
        // Program headers (offset, entry size, count), then section headers.
        for (offset, entry, count) in [(0x20, 0x36, 0x38), (0x28, 0x3A, 0x3C)] {
            let end = field(offset, 8)
                .zip(field(entry, 2).zip(field(count, 2)))
                .and_then(|(offset, (entry, count))| offset.checked_add(entry * count));
            if end.is_none_or(|end| end > len) {
                return Err("the cubin (ELF) image is truncated".into());
            }
        }
    }
    Ok(())
}
