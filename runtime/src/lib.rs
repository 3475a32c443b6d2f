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
//! `ocannl_passes::lower_to_affine`): the caller owns every buffer.

pub mod array;

use std::{
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
use melior::{
    Context,
    dialect::DialectRegistry,
    ir::{
        BlockLike, Module, RegionLike,
        attribute::{StringAttribute, TypeAttribute},
        operation::OperationLike,
        r#type::FunctionType,
    },
    pass::PassManager,
};
use ocannl_dialect::types::{TensorType, shape_spec};
use ocannl_passes::{pipelines::INFERRED_TO_LLVM, source::SourceDiagnostics};
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
    // SAFETY: a live context.
    unsafe { mlir_sys::mlirRegisterAllLLVMTranslations(context.to_raw()) };
    ocannl_dialect::load(&context)
        .map_err(|e| Error::new(format!("cannot load the ocannl dialect: {e}")))?;
    Ok(context)
}

/// A function compiled to the LLVM dialect, with its signature.
pub struct Program<'c> {
    module: Module<'c>,
    entry: String,
    signature: Signature,
    _diagnostics: SourceDiagnostics<'c>,
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
        Self::compile_for(context, path, entry, None)
    }

    /// As [`Program::compile`], with the dimensions of the data each
    /// argument will get (memory order). Shape inference first runs without
    /// closing; an argument whose shape is then fully known must match its
    /// data exactly; an open one (`..b..|784`) takes its open sizes from the
    /// data ([`ocannl_shape::spec::bind`]), named variables everywhere in the
    /// function; then inference finishes with closing.
    ///
    /// # Errors
    ///
    /// As [`Program::compile`].
    pub fn compile_for(
        context: &'c Context,
        path: &Path,
        entry: Option<&str>,
        inputs: Option<&[Vec<u64>]>,
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
        run_pipeline(
            context,
            &mut module,
            "ocannl-verify,ocannl-infer-shapes",
            "shape inference failed",
        )?;
        let signature = signature(&module, &entry)?;
        run_pipeline(context, &mut module, INFERRED_TO_LLVM, "lowering failed")?;
        Ok(Self {
            module,
            entry,
            signature,
            _diagnostics: diagnostics,
        })
    }

    /// The entry function's inferred signature.
    pub fn signature(&self) -> &Signature {
        &self.signature
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
    /// # Errors
    ///
    /// The execution engine cannot be created.
    pub fn jit(&self) -> Result<Jit<'_, 'c>, Error> {
        Ok(Jit {
            program: self,
            engine: Engine::new(&self.module)?,
        })
    }

    /// Generates `what` for the host (O3) and writes it to `out`.
    ///
    /// # Errors
    ///
    /// Translation to LLVM IR, target selection or writing fails.
    pub fn emit(&self, what: Emit, out: &Path) -> Result<(), Error> {
        Target::initialize_native(&InitializationConfig::default())
            .map_err(|e| Error::new(format!("cannot initialise the host target: {e}")))?;
        let llvm = inkwell::context::Context::create();
        // SAFETY: the module is live; the LLVM context outlives the LLVM
        // module, which takes ownership of the translation's result.
        let module = unsafe {
            let raw = mlirTranslateModuleToLLVMIR(
                self.module.as_operation().to_raw(),
                inkwell::context::AsContextRef::as_ctx_ref(&&llvm).cast(),
            );
            if raw.is_null() {
                return Err(Error::new("cannot translate the module to LLVM IR"));
            }
            inkwell::module::Module::new(raw.cast())
        };
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

unsafe extern "C" {
    /// `mlir-c/Target/LLVMIR.h` (not in mlir-sys' bindings).
    fn mlirTranslateModuleToLLVMIR(
        module: mlir_sys::MlirOperation,
        context: *mut std::ffi::c_void,
    ) -> *mut std::ffi::c_void;
}

/// MLIR's execution engine (melior's wrapper does not report a failed
/// creation, which then crashes on lookup).
struct Engine(mlir_sys::MlirExecutionEngine);

impl Engine {
    /// Translates and JIT-compiles `module` at LLVM O3 for the host CPU.
    fn new(module: &Module<'_>) -> Result<Self, Error> {
        // SAFETY: a live module in the LLVM dialect; no shared libraries.
        let raw = unsafe {
            mlir_sys::mlirExecutionEngineCreate(
                module.to_raw(),
                3,
                0,
                std::ptr::null(),
                false,
                false,
            )
        };
        if raw.ptr.is_null() {
            return Err(Error::new(
                "cannot JIT-compile the module (see the errors above)",
            ));
        }
        Ok(Self(raw))
    }

    /// The address of `name`, or null.
    fn lookup(&self, name: &str) -> *mut () {
        // SAFETY: a live engine; the name is copied.
        unsafe {
            mlir_sys::mlirExecutionEngineLookup(self.0, melior::StringRef::new(name).to_raw())
                .cast()
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // SAFETY: created by `mlirExecutionEngineCreate`, destroyed once.
        unsafe { mlir_sys::mlirExecutionEngineDestroy(self.0) }
    }
}

/// A JIT-compiled program.
pub struct Jit<'p, 'c> {
    program: &'p Program<'c>,
    engine: Engine,
}

impl Jit<'_, '_> {
    /// Checks `inputs` against the signature, calls the function, and
    /// returns its results.
    ///
    /// # Errors
    ///
    /// Wrong number of inputs, or an input whose element type or shape
    /// differs from the argument's inferred one.
    pub fn run(&self, inputs: &mut [Array]) -> Result<Vec<Array>, Error> {
        check_inputs(&self.program.signature, inputs)?;
        let mut outputs = self.outputs();
        self.call(inputs, &mut outputs)?;
        Ok(outputs)
    }

    /// Zeroed result buffers.
    pub fn outputs(&self) -> Vec<Array> {
        self.program
            .signature
            .outputs
            .iter()
            .map(|o| Array::zeros(o.elem, &o.dims))
            .collect()
    }

    /// Runs the function `times` times on the same buffers; returns the
    /// time of each run.
    ///
    /// # Errors
    ///
    /// As [`Jit::run`].
    pub fn bench(&self, inputs: &mut [Array], times: usize) -> Result<Vec<Duration>, Error> {
        check_inputs(&self.program.signature, inputs)?;
        let mut outputs = self.outputs();
        (0..times)
            .map(|_| {
                let start = Instant::now();
                self.call(inputs, &mut outputs)?;
                Ok(start.elapsed())
            })
            .collect()
    }

    /// Calls the function; `inputs` have been checked against the signature
    /// and `outputs` allocated from it.
    fn call(&self, inputs: &mut [Array], outputs: &mut [Array]) -> Result<(), Error> {
        let mut pointers: Vec<*mut u8> = inputs
            .iter_mut()
            .chain(outputs.iter_mut())
            .map(Array::as_mut_ptr)
            .collect();
        let mut args: Vec<*mut ()> = pointers
            .iter_mut()
            .map(|p| p as *mut *mut u8 as *mut ())
            .collect();
        // MLIR's C API invokes only `_mlir_ciface_` wrappers (functions
        // with `llvm.emit_c_interface`); the engine's packed wrapper
        // `_mlir_<name>(void **args)` exists for every function.
        let packed = self.engine.lookup(&format!("_mlir_{}", self.program.entry));
        if packed.is_null() {
            return Err(Error::new(format!(
                "cannot find '@{}' in the compiled code",
                self.program.entry
            )));
        }
        // SAFETY: `packed` is the engine's `void(void **)` wrapper of the
        // entry, which takes one pointer per argument and result
        // (bare-pointer convention); every buffer has the element type and
        // number of cells of its signature entry (checked by `run`/`bench`, outputs
        // allocated from it) and outlives the call.
        unsafe {
            let f: unsafe extern "C" fn(*mut *mut ()) = std::mem::transmute(packed);
            f(args.as_mut_ptr());
        }
        Ok(())
    }
}

/// Checks the inputs' count, element types and shapes.
fn check_inputs(signature: &Signature, inputs: &[Array]) -> Result<(), Error> {
    if inputs.len() != signature.inputs.len() {
        return Err(Error::new(format!(
            "the entry function takes {} argument(s) but {} input(s) were given",
            signature.inputs.len(),
            inputs.len()
        )));
    }
    for (i, (sig, input)) in signature.inputs.iter().zip(inputs).enumerate() {
        if input.elem() != sig.elem {
            return Err(Error::new(format!(
                "argument #{i} has element type {} but its input has dtype {}",
                sig.elem,
                input.elem()
            )));
        }
        if input.shape != sig.dims {
            return Err(Error::new(format!(
                "argument #{i} has the inferred shape {:?} (spec \"{}\") but its input has shape {:?}",
                sig.dims, sig.spec, input.shape
            )));
        }
    }
    Ok(())
}

fn functions<'c, 'm>(
    module: &'m Module<'c>,
) -> Vec<(String, melior::ir::operation::OperationRef<'c, 'm>)> {
    let mut out = Vec::new();
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        if op.name().as_string_ref().as_str() == Ok("func.func")
            && let Ok(name) = op.attribute("sym_name")
            && let Ok(name) = StringAttribute::try_from(name)
        {
            out.push((name.value().to_owned(), op));
        }
        next = op.next_in_block();
    }
    out
}

/// The function `@entry` (found by [`find_entry`]).
fn entry_function<'c, 'm>(
    module: &'m Module<'c>,
    entry: &str,
) -> Result<melior::ir::operation::OperationRef<'c, 'm>, Error> {
    functions(module)
        .into_iter()
        .find(|(n, _)| n == entry)
        .map(|(_, f)| f)
        .ok_or_else(|| Error::new(format!("no function '@{entry}'")))
}

fn find_entry(module: &Module<'_>, entry: Option<&str>, path: &Path) -> Result<String, Error> {
    let names: Vec<String> = functions(module).into_iter().map(|(n, _)| n).collect();
    let listed = || {
        if names.is_empty() {
            "it has no functions".to_owned()
        } else {
            format!(
                "its functions: {}",
                names
                    .iter()
                    .map(|n| format!("@{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    };
    match entry {
        Some(e) => {
            let e = e.trim_start_matches('@');
            if names.iter().any(|n| n == e) {
                Ok(e.to_owned())
            } else {
                Err(Error::new(format!(
                    "no function '@{e}' in '{}' ({})",
                    path.display(),
                    listed()
                )))
            }
        }
        None if names.len() == 1 => Ok(names[0].clone()),
        None => Err(Error::new(format!(
            "name the entry function with --entry ({})",
            listed()
        ))),
    }
}

/// Settles the open parts of the entry's argument shapes from the data's
/// dimensions (after inference without closing).
fn bind_inputs(module: &Module<'_>, entry: &str, inputs: &[Vec<u64>]) -> Result<(), Error> {
    let func = entry_function(module, entry)?;
    let body = func
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or_else(|| Error::new(format!("'@{entry}' has no body")))?;
    if inputs.len() != body.argument_count() {
        return Err(Error::new(format!(
            "the entry function takes {} argument(s) but {} input(s) were given",
            body.argument_count(),
            inputs.len()
        )));
    }
    for (i, dims) in inputs.iter().enumerate() {
        let arg: melior::ir::Value<'_, '_> = body.argument(i).expect("counted").into();
        use melior::ir::ValueLike;
        let Some(spec) = shape_spec(arg.r#type()).ok().flatten() else {
            return Err(Error::new(format!(
                "argument #{i} of '@{entry}' is not a tensor ({})",
                arg.r#type()
            )));
        };
        if let Ok(known) = memory_dims(&spec) {
            if &known != dims {
                return Err(Error::new(format!(
                    "argument #{i} has the inferred shape {known:?} (spec \"{spec}\") but its input has shape {dims:?}"
                )));
            }
            continue;
        }
        let (bound, bindings) = match bind::bind_memory_dims(&spec, dims) {
            Ok(b) => b,
            // Several row variables could take the data's axes: closing
            // decides, and the data is checked against the result.
            Err(bind::BindError::Ambiguous(_)) => continue,
            Err(e) => {
                return Err(Error::new(format!(
                    "argument #{i} has the shape \"{spec}\" after inference, which its input of shape {dims:?} does not fit: {e}"
                )));
            }
        };
        ocannl_passes::infer_shapes::set_value_spec(arg, &bound);
        ocannl_passes::infer_shapes::map_function_specs(func, &|s| bind::substitute(s, &bindings));
    }
    Ok(())
}

fn run_pipeline(
    context: &Context,
    module: &mut Module<'_>,
    passes: &str,
    what: &str,
) -> Result<(), Error> {
    let pm = PassManager::new(context);
    melior::utility::parse_pass_pipeline(
        pm.as_operation_pass_manager(),
        &format!("builtin.module({passes})"),
    )
    .map_err(|e| Error::new(format!("internal error: bad pipeline '{passes}': {e}")))?;
    pm.run(module)
        .map_err(|_| Error::new(format!("{what} (see the errors above)")))
}

fn signature(module: &Module<'_>, entry: &str) -> Result<Signature, Error> {
    let func = entry_function(module, entry)?;
    let ftype = func
        .attribute("function_type")
        .ok()
        .and_then(|a| TypeAttribute::try_from(a).ok())
        .and_then(|t| FunctionType::try_from(t.value()).ok())
        .ok_or_else(|| Error::new(format!("'@{entry}' has no function type")))?;
    let sig = |ty: melior::ir::Type<'_>, what: String| -> Result<TensorSig, Error> {
        let tensor = TensorType::classify(ty)
            .ok_or_else(|| Error::new(format!("{what} of '@{entry}' is not a tensor ({ty})")))?;
        let elem_name = tensor.element_type().to_string();
        let elem = Elem::from_mlir(&elem_name).ok_or_else(|| {
            Error::new(format!(
                "{what} of '@{entry}' has element type {elem_name}: ocannl-run exchanges f32, f64, i32 and i64"
            ))
        })?;
        let spec = shape_spec(ty)
            .ok()
            .flatten()
            .ok_or_else(|| Error::new(format!("{what} of '@{entry}' has an invalid shape")))?;
        let dims = memory_dims(&spec).map_err(|_| {
            Error::new(format!(
                "{what} of '@{entry}' has the shape \"{spec}\" after inference: give its sizes in the function"
            ))
        })?;
        Ok(TensorSig {
            elem,
            dims,
            spec: spec.to_string(),
        })
    };
    Ok(Signature {
        inputs: (0..ftype.input_count())
            .map(|i| sig(ftype.input(i).expect("in range"), format!("argument #{i}")))
            .collect::<Result<_, _>>()?,
        outputs: (0..ftype.result_count())
            .map(|i| sig(ftype.result(i).expect("in range"), format!("result #{i}")))
            .collect::<Result<_, _>>()?,
    })
}
