//! `ocannl-runtime`: compile a function on ocannl tensors to machine code
//! and run it on host arrays.
//!
//! The flow (DESIGN.md, "Data flow"):
//!
//! 1. parse the file (diagnostics as `mlir-opt` prints them), run
//!    `ocannl-verify,ocannl-infer-shapes`, and read the entry function's
//!    inferred signature ([`Signature`]): every argument and result must
//!    have a concrete shape;
//! 2. run the rest of the `ocannl-to-llvm` pipeline (projections, lowering
//!    to affine loops, the upstream lowering to the LLVM dialect);
//! 3. either JIT-compile it with MLIR's execution engine (LLVM O3, host
//!    CPU) and call it ([`Program::jit`], [`Jit::run`]), or translate it to an LLVM module
//!    and generate LLVM IR, assembly or an object file with `inkwell` for
//!    the host target machine at O3 ([`Program::emit`]).
//!
//! The compiled function takes one pointer per argument, then one per
//! result (destination passing, bare pointers; see
//! `ocannl_passes::lower_to_affine`): the caller owns every buffer. (The
//! JIT's copy of the entry takes one pointer to the array of those
//! pointers instead: see [`Program::jit`].)

pub mod array;
mod ffi;
pub use ffi::cuda;
pub mod gpu;
mod jit;
mod memory;
mod module;
mod profile;
mod split;

pub use jit::Jit;
use module::*;
pub use profile::{OpTime, Profile, ProfiledOp};

use std::{
    collections::HashSet,
    fmt,
    path::Path,
    time::{Duration, Instant},
};

use array::{Array, Elem};
use inkwell::{
    OptimizationLevel,
    passes::PassBuilderOptions,
    targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine},
};
/// The MLIR context programs are compiled in (see [`context`]).
pub use melior::Context;
use melior::{
    dialect::DialectRegistry,
    ir::{
        BlockLike, Module, RegionLike, attribute::TypeAttribute, operation::OperationLike,
        r#type::FunctionType,
    },
    pass::PassManager,
};
use ocannl_dialect::{
    ir,
    types::{TensorType, shape_spec},
};
use ocannl_passes::{
    pipelines::{self, AFFINE_TO_LLVM, INFERRED_TO_AFFINE},
    source::SourceDiagnostics,
};
use ocannl_shape::{projection::memory_dims, spec::bind};

/// A user-facing error (bad input, bad file, failed compilation): print it
/// and exit with status 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    message: String,
}

impl Error {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// An error about a place in the source: reported as a diagnostic at
    /// `location` (printed as `file:line:col: error:` with the source line
    /// while the program's diagnostics handler lives), summed up by the
    /// returned error.
    fn located(location: melior::ir::Location<'_>, message: &str) -> Self {
        ocannl_dialect::diagnostics::emit_error(location, message, &[]);
        Self::new("the entry function cannot run (see the error above)")
    }
}

/// The data one argument will get: where it comes from (for messages) and
/// its dimensions in memory order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputShape {
    /// Where the data comes from, e.g. `'x.npy'`.
    pub name: String,
    /// The dimensions.
    pub dims: Vec<u64>,
}

/// One argument or result of the entry function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorSig {
    /// The element type.
    pub elem: Elem,
    /// The buffer's dimensions (memory order: batch, output, input).
    pub dims: Vec<u64>,
    /// The inferred shape spec, e.g. `32|784`.
    pub spec: String,
}

impl TensorSig {
    /// The size of the buffer in bytes (saturating).
    pub fn bytes(&self) -> u64 {
        self.dims
            .iter()
            .fold(self.elem.size() as u64, |acc, &d| acc.saturating_mul(d))
    }
}

impl fmt::Display for TensorSig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{:?} (spec \"{}\")", self.elem, self.dims, self.spec)
    }
}

/// The entry function's inferred signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    /// The arguments in order.
    pub inputs: Vec<TensorSig>,
    /// The results in order.
    pub outputs: Vec<TensorSig>,
}

/// What [`Program::emit`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emit {
    /// Optimised LLVM IR text.
    Llvm,
    /// Host assembly.
    Asm,
    /// A host object file.
    Obj,
}

/// A context with every upstream dialect, the ocannl dialect, the ocannl
/// passes and pipelines, and the LLVM translations registered.
///
/// # Errors
///
/// The ocannl dialect's IRDL does not load (a build problem).
pub fn context() -> Result<Context, Error> {
    ocannl_passes::register_all();
    let context = Context::new();
    let registry = DialectRegistry::new();
    ocannl_passes::registry::register_upstream(&registry);
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    ffi::register_llvm_translations(&context);
    ocannl_dialect::load(&context)
        .map_err(|e| Error::new(format!("cannot load the ocannl dialect: {e}")))?;
    Ok(context)
}

/// Past this many buffers, [`Program::jit`] folds the lowering's memref
/// descriptors before passing the buffers in an array.
const MANY_ARGUMENTS: usize = 64;

/// A function compiled to the LLVM dialect, with its signature.
pub struct Program<'c> {
    context: &'c Context,
    module: Module<'c>,
    entry: String,
    signature: Signature,
    /// An upper bound of the bytes the compiled code allocates for
    /// intermediates (the sum of each lowered function's peak).
    intermediate_bytes: u64,
    /// OpenMP threads the parallel loops run on (1: no OpenMP).
    threads: usize,
    lowering: Lowering,
    /// The timed ops ([`Lowering::CpuProfiled`]).
    profile: Option<Vec<ProfiledOp>>,
    /// Threads LLVM compiles the code on ([`Program::set_compile_threads`]).
    compile_threads: usize,
    _diagnostics: SourceDiagnostics<'c>,
}

/// The OpenMP runtime the JIT loads for multi-threaded code: LLVM's
/// libomp (Debian's `libomp-22-dev`), or `$OCANNL_LIBOMP`.
fn openmp_runtime() -> Result<std::path::PathBuf, Error> {
    let path = std::env::var_os("OCANNL_LIBOMP")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "/usr/lib/llvm-22/lib/libomp.so".into());
    if path.is_file() {
        Ok(path)
    } else {
        Err(Error::new(format!(
            "multi-threaded code needs LLVM's OpenMP runtime, and '{}' is missing: install libomp-22-dev (or set OCANNL_LIBOMP), or run with --threads 1",
            path.display()
        )))
    }
}

/// Which nests a program is lowered to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lowering {
    /// The CPU schedule (vectorised, tiled; parallel with threads).
    Cpu,
    /// [`Lowering::Cpu`] with each op's loop nests timed
    /// (`ocannl-profile-mark`, `ocannl-profile-ops`; [`Jit::profile`]).
    CpuProfiled,
    /// The GPU target's grids (`ocannl-plan-schedule{target=gpu}`: one
    /// thread per result cell, reductions in registers), run one thread
    /// after another on the CPU: the GPU lowering checked without a GPU.
    GridOnCpu,
    /// Kernels for NVIDIA GPUs and a host program of launches
    /// ([`gpu::Plan`]): `passes` is the rest of `ocannl-to-nvvm` after shape
    /// inference with its options ([`pipelines::inferred_to_nvvm`]).
    Cuda { passes: String },
}

impl Lowering {
    /// The passes after shape inference: to affine loops, then to the
    /// LLVM dialect (with `threads` OpenMP threads on the CPU).
    fn passes(&self, threads: usize) -> Result<(String, String), Error> {
        const GRID: &str =
            "ocannl-infer-projections,ocannl-plan-schedule{target=gpu},ocannl-lower-to-affine";
        let parallel = pipelines::inferred_to_affine_parallel(threads);
        let (to_affine, to_llvm) = match self {
            // The tiled kernels (workgroup memory, barriers) as the same
            // steps in CPU loops.
            Lowering::GridOnCpu => (
                "ocannl-infer-projections,ocannl-plan-schedule{target=gpu shared-tiles=emulate},ocannl-lower-to-affine",
                AFFINE_TO_LLVM.to_owned(),
            ),
            Lowering::Cuda { passes } => (
                GRID,
                passes
                    .strip_prefix(GRID)
                    .map(|rest| rest.trim_start_matches(',').to_owned())
                    .ok_or_else(|| {
                        Error::new("the CUDA pipeline does not start with the GPU lowering")
                    })?,
            ),
            Lowering::Cpu | Lowering::CpuProfiled if threads > 1 => (
                parallel.as_str(),
                pipelines::affine_to_llvm_threads(threads),
            ),
            Lowering::Cpu | Lowering::CpuProfiled => {
                (INFERRED_TO_AFFINE, AFFINE_TO_LLVM.to_owned())
            }
        };
        // Ops whose results nothing reads (an ONNX Dropout's mask) cost
        // nothing: erased before planning (`ocannl-erase-dead-ops`).
        let to_affine = to_affine.replacen(
            "ocannl-infer-projections,",
            "ocannl-infer-projections,ocannl-erase-dead-ops,",
            1,
        );
        if *self == Lowering::CpuProfiled {
            // Each op's nests timed: marked before the lowering, the
            // timer's calls inserted after it.
            let timed = "ocannl-profile-mark,ocannl-lower-to-affine,ocannl-profile-ops";
            return Ok((to_affine.replace("ocannl-lower-to-affine", timed), to_llvm));
        }
        Ok((to_affine, to_llvm))
    }
}

impl<'c> Program<'c> {
    /// Parses `path` and compiles the function `entry` (the only function
    /// when `None`). `inputs`, the dimensions of the data each argument will
    /// get, settle what shape inference leaves open in the arguments (see
    /// [`Program::compile_for`]).
    ///
    /// # Errors
    ///
    /// Unreadable or malformed files, a missing entry function, failed
    /// shape inference or lowering (the diagnostics are printed to stderr,
    /// located in the file), arguments or results whose shapes stay open,
    /// and input dimensions that contradict an argument's shape.
    pub fn compile(context: &'c Context, path: &Path, entry: Option<&str>) -> Result<Self, Error> {
        Self::compile_for(context, path, entry, None, 1)
    }

    /// As [`Program::compile`], with the data each argument will get (its
    /// name for messages and its dimensions in memory order). Shape
    /// inference first runs without
    /// closing; an argument whose shape is then fully known must match its
    /// data exactly; an open one (`..b..|784`) takes its open sizes from the
    /// data ([`ocannl_shape::spec::bind`]), named variables everywhere in the
    /// function; then inference finishes with closing.
    ///
    /// With `threads > 1` the outermost parallel loop of each op's nest
    /// runs on that many OpenMP threads (libomp is loaded by [`Program::jit`]).
    ///
    /// # Errors
    ///
    /// As [`Program::compile`].
    pub fn compile_for(
        context: &'c Context,
        path: &Path,
        entry: Option<&str>,
        inputs: Option<&[InputShape]>,
        threads: usize,
    ) -> Result<Self, Error> {
        Self::compile_lowered(context, path, entry, inputs, threads, Lowering::Cpu)
    }

    /// [`Program::compile_for`] with the nests of `lowering`.
    ///
    /// # Errors
    ///
    /// As [`Program::compile`].
    pub fn compile_lowered(
        context: &'c Context,
        path: &Path,
        entry: Option<&str>,
        inputs: Option<&[InputShape]>,
        threads: usize,
        lowering: Lowering,
    ) -> Result<Self, Error> {
        std::fs::File::open(path)
            .map_err(|e| Error::new(format!("cannot read '{}': {e}", path.display())))?;
        let diagnostics = SourceDiagnostics::new(context);
        let mut module = diagnostics
            .parse_file(path)
            .ok_or_else(|| Error::new(format!("cannot parse '{}'", path.display())))?;
        let entry = find_entry(&module, entry, path)?;
        if let Some(inputs) = inputs {
            run_pipeline(
                context,
                &mut module,
                "ocannl-verify,ocannl-infer-shapes{close=false}",
                "shape inference failed",
            )?;
            bind_inputs(&module, &entry, inputs)?;
        }
        let failed = match inputs {
            // The program alone inferred; with the data bound it does not:
            // the data's shapes are what conflicts.
            Some(inputs) if !inputs.is_empty() => format!(
                "shape inference failed once the inputs' shapes were bound ({}): they do not fit '@{entry}'",
                inputs
                    .iter()
                    .enumerate()
                    .map(|(i, x)| format!("argument #{i} from {} has shape {:?}", x.name, x.dims))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            _ => "shape inference failed".to_owned(),
        };
        run_pipeline(
            context,
            &mut module,
            "ocannl-verify,ocannl-infer-shapes",
            &failed,
        )?;
        let signature = signature(&module, &entry)?;
        let (to_affine, to_llvm) = lowering.passes(threads.max(1))?;
        let on_cpu = matches!(lowering, Lowering::Cpu | Lowering::CpuProfiled);
        let threads = if on_cpu { threads.max(1) } else { 1 };
        let profiled = lowering == Lowering::CpuProfiled;
        run_pipeline(context, &mut module, &to_affine, "lowering failed")?;
        let intermediate_bytes = intermediate_bytes(&module);
        run_pipeline(context, &mut module, &to_llvm, "lowering failed")?;
        let profile = profiled.then(|| profile::read_table(module.as_operation()));
        Ok(Self {
            context,
            module,
            entry,
            signature,
            intermediate_bytes,
            threads,
            lowering,
            profile,
            compile_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            _diagnostics: diagnostics,
        })
    }

    /// An error unless the program was lowered to host code.
    fn host_code(&self) -> Result<(), Error> {
        match self.lowering {
            Lowering::Cuda { .. } => Err(Error::new(
                "the program was lowered for CUDA: it has kernels, not host code",
            )),
            _ => Ok(()),
        }
    }

    /// The host program and kernels of a program lowered for CUDA.
    ///
    /// # Errors
    ///
    /// Another lowering, or a host program the runner does not execute.
    pub fn gpu_plan(&self) -> Result<gpu::Plan, Error> {
        if !matches!(self.lowering, Lowering::Cuda { .. }) {
            return Err(Error::new("the program was not lowered for CUDA"));
        }
        gpu::Plan::read(&self.module, &self.entry)
    }

    /// The entry function's inferred signature.
    pub fn signature(&self) -> &Signature {
        &self.signature
    }

    /// Checks that the machine has the memory a run needs: the results,
    /// the intermediates the compiled code allocates, and, when
    /// `with_inputs`, the inputs (which the caller is about to create).
    ///
    /// # Errors
    ///
    /// More memory is needed than is available.
    pub fn check_memory(&self, with_inputs: bool) -> Result<(), Error> {
        let sum = |sigs: &[TensorSig]| {
            sigs.iter()
                .fold(0u64, |acc, s| acc.saturating_add(s.bytes()))
        };
        let mut needed = sum(&self.signature.outputs).saturating_add(self.intermediate_bytes);
        let mut what = "the results and intermediates".to_owned();
        if with_inputs {
            needed = needed.saturating_add(sum(&self.signature.inputs));
            what = "the inputs, results and intermediates".to_owned();
        }
        let located = |e: Error| match entry_function(&self.module, &self.entry) {
            Ok(func) => Error::located(func.location(), &e.to_string()),
            Err(_) => e,
        };
        memory::check(needed, &format!("{what} of '@{}'", self.entry)).map_err(located)?;
        memory::probe(
            self.intermediate_bytes,
            &format!("the intermediates of '@{}'", self.entry),
        )
        .map_err(located)
    }

    /// Sets the threads LLVM compiles the code of [`Program::jit`] on (at
    /// least 1; by default the machine's cores). A module whose nests
    /// were outlined into helpers (more than 64 nests) is split into that
    /// many parts at most, each compiled by its own engine on its own
    /// thread (see `split`); the code is the same.
    pub fn set_compile_threads(&mut self, threads: usize) {
        self.compile_threads = threads.max(1);
    }

    /// The entry function's name.
    pub fn entry(&self) -> &str {
        &self.entry
    }

    /// The module in the LLVM dialect.
    pub fn module(&self) -> &Module<'c> {
        &self.module
    }

    /// JIT-compiles the module (O3, host CPU).
    ///
    /// The JIT links against the running process, where the C library and
    /// libm live: every function is first renamed (`__ocannl_fn<k>`) in a
    /// copy of the module, so that no function name a user picks (`@expf`,
    /// `@memset`) can meet one of their symbols, which LLVM's generated code
    /// calls by name. In that copy the entry function (unless the module
    /// calls it too) takes one pointer to the array of its buffers' pointers
    /// instead of one pointer per buffer: the engine's wrapper then calls it
    /// with one argument instead of thousands (LLVM was quadratic in that
    /// call). `--emit` keeps the C signature, one pointer per buffer. The
    /// large constants are not compiled: the code reads a copy of their
    /// attributes' bytes (see `ffi::bind_constants`). The code is generated
    /// before this returns.
    ///
    /// # Errors
    ///
    /// The execution engine cannot be created.
    pub fn jit(&self) -> Result<Jit<'_, 'c>, Error> {
        self.host_code()?;
        let mut module = ffi::clone_module(&self.module);
        let entry = rename_functions(self.context, &module, &self.entry)?;
        let array_arguments = !is_called(&module, &entry) && {
            if self.signature.inputs.len() + self.signature.outputs.len() > MANY_ARGUMENTS {
                // The memref descriptors the lowering builds from each
                // argument at the top of the function fold away, so that
                // an argument's uses are where its pointer is needed (see
                // `take_arguments_as_array`).
                run_pipeline(
                    self.context,
                    &mut module,
                    "llvm.func(canonicalize{region-simplify=disabled})",
                    "internal error: cannot simplify the lowered module",
                )?;
            }
            ffi::take_arguments_as_array(self.context, entry_function(&module, &entry)?)
        };
        // The large constants are bound to a copy of their bytes, the rest
        // flattened where they have many rows (see `ffi::globals`).
        let constants = ffi::bind_constants(self.context, &module);
        ffi::flatten_constant_globals(&module);
        let library = (self.threads > 1).then(openmp_runtime).transpose()?;
        let profile = self.profile.is_some();
        let (engine, helpers, parts) = match split::parts(&module, &entry, self.compile_threads) {
            None => {
                let engine = ffi::Engine::new(&module, library, profile)?;
                engine.bind(&constants);
                (engine, Vec::new(), Vec::new())
            }
            Some(groups) => {
                // Each helper part is a copy; the module itself becomes the
                // entry's part.
                let parts: Vec<(Module<'c>, Vec<String>)> = groups
                    .into_iter()
                    .map(|names| {
                        let part = ffi::clone_module(&module);
                        let keep = names.iter().map(String::as_str).collect();
                        split::restrict(self.context, &part, &keep);
                        (part, names)
                    })
                    .collect();
                split::restrict(self.context, &module, &HashSet::from([entry.as_str()]));
                let (engine, helpers) =
                    ffi::compile_parts(&module, &parts, library, profile, &constants)?;
                let parts = parts.into_iter().map(|(m, _)| m).collect();
                (engine, helpers, parts)
            }
        };
        // The engine generates the code on the first lookup: now, so that
        // the time to compile includes it.
        let _ = engine.packed(&entry);
        Ok(Jit {
            program: self,
            engine,
            entry,
            array_arguments,
            helpers,
            _module: module,
            _parts: parts,
            _constants: constants,
        })
    }

    /// Generates `what` for the host (O3) and writes it to `out`.
    ///
    /// # Errors
    ///
    /// Translation to LLVM IR, target selection or writing fails.
    pub fn emit(&self, what: Emit, out: &Path) -> Result<(), Error> {
        self.host_code()?;
        Target::initialize_native(&InitializationConfig::default())
            .map_err(|e| Error::new(format!("cannot initialise the host target: {e}")))?;
        let llvm = inkwell::context::Context::create();
        // A global of many short rows as one flat array (see
        // `ffi::globals`), in a copy: the program's module stays as lowered.
        let flat = ffi::clone_module(&self.module);
        ffi::flatten_constant_globals(&flat);
        let module = ffi::translate_to_llvm_ir(&flat, &llvm)?;
        let triple = TargetMachine::get_default_triple();
        let target = Target::from_triple(&triple)
            .map_err(|e| Error::new(format!("no target for {triple}: {e}")))?;
        let machine = target
            .create_target_machine(
                &triple,
                &TargetMachine::get_host_cpu_name().to_string(),
                &TargetMachine::get_host_cpu_features().to_string(),
                OptimizationLevel::Aggressive,
                RelocMode::PIC,
                CodeModel::Default,
            )
            .ok_or_else(|| Error::new(format!("cannot create a target machine for {triple}")))?;
        module.set_triple(&triple);
        module.set_data_layout(&machine.get_target_data().get_data_layout());
        module
            .run_passes("default<O3>", &machine, PassBuilderOptions::create())
            .map_err(|e| Error::new(format!("LLVM optimisation failed: {e}")))?;
        let write = |e: String| Error::new(format!("cannot write '{}': {e}", out.display()));
        match what {
            Emit::Llvm => module.print_to_file(out).map_err(|e| write(e.to_string())),
            Emit::Asm => machine
                .write_to_file(&module, FileType::Assembly, out)
                .map_err(|e| write(e.to_string())),
            Emit::Obj => machine
                .write_to_file(&module, FileType::Object, out)
                .map_err(|e| write(e.to_string())),
        }
    }
}
