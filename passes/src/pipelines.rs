//! The named pass pipelines (`-p 'builtin.module(ocannl-to-llvm)'`).
//!
//! They are registered in MLIR's pass registry next to the ocannl passes,
//! so `ocannl-opt --help` lists them and any pipeline can name them.

/// A named pipeline: a registry name for a textual pass list.
#[derive(Debug)]
pub struct PipelineDef {
    /// The pipeline name.
    pub argument: &'static str,
    /// One line for `--help`.
    pub description: &'static str,
    /// The passes, in MLIR's textual pipeline syntax without an anchor;
    /// `$(name)` stands for the value of option `name`.
    pub passes: &'static str,
    /// The options (`name`, default value).
    pub options: &'static [(&'static str, &'static str)],
    /// Its options `chip` and `features` name an NVPTX target, checked
    /// before any pass runs ([`resolve_nvptx_target`]).
    pub nvptx_target: bool,
}

macro_rules! inferred_to_affine {
    () => {
        "ocannl-infer-projections,ocannl-plan-schedule,ocannl-lower-to-affine"
    };
}

macro_rules! ocannl_to_affine {
    () => {
        concat!("ocannl-verify,ocannl-infer-shapes,", inferred_to_affine!())
    };
}

macro_rules! affine_to_llvm {
    () => {
        "ocannl-outline-nests,arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},\
math-extend-to-supported-types{extra-types=f16 target-type=f32},arith-expand{include-bf16=true},\
ocannl-math-approximation,\
lower-affine,ocannl-loop-hints,convert-scf-to-cf,cse,\
convert-vector-to-llvm,convert-to-llvm{filter-dialects=arith,cf,math,memref},\
convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},reconcile-unrealized-casts,ocannl-loop-hints"
    };
}

/// From ocannl ops with unknown shapes to memrefs and affine loop nests.
pub const TO_AFFINE: PipelineDef = PipelineDef {
    argument: "ocannl-to-affine",
    description: "ocannl ops to affine loop nests: verify, infer shapes and projections, plan schedules, lower to affine",
    passes: ocannl_to_affine!(),
    options: &[],
    nvptx_target: false,
};

/// The upstream part of [`TO_LLVM`]: affine, memref, math, arith and func to
/// the LLVM dialect. `bf16` arithmetic and math functions are computed in
/// `f32` and `bf16` conversions are expanded into integer operations, so
/// the code needs no compiler-rt routine (`__truncsfbf2`, which neither the
/// JIT nor Debian 12's libgcc provides: a module with `bf16` arithmetic
/// could not be loaded); `f16` is left to LLVM (F16C, or libgcc's
/// `__truncsfhf2`). `exp`, `log`, `tanh`, `erf` (and kin) on `f32` become
/// upstream's polynomial approximations (`ocannl-math-approximation`), so
/// vector code stays vector code instead of calling libm once per lane;
/// the vector ops of the scheduled nests convert with
/// `convert-vector-to-llvm`. Functions take bare pointers to their buffers
/// (`use-bare-ptr-memref-call-conv`): every buffer has a static shape.
/// Arith, cf, math and memref convert in one `convert-to-llvm` (one walk of
/// the module instead of one per dialect; the ocannl passes load those
/// dialects as their dependents, which the filter needs); the lowering emits no
/// strided memref metadata, so `expand-strided-metadata` is not needed;
/// `cse` deduplicates, LLVM's optimiser does the rest of the cleaning (a
/// `canonicalize` here cost more than it saved). The pipeline's cost is
/// linear in the program (`tools/bench/compile_scaling.py`). First,
/// `ocannl-outline-nests` moves the loop nests of a function with more
/// than 64 of them into `noinline` helpers of 64 nests each: LLVM's own
/// passes (the JIT's O3, `--emit`) are superlinear in one function's size.
pub const AFFINE_TO_LLVM: &str = affine_to_llvm!();

/// [`AFFINE_TO_LLVM`] for code whose parallel loops (`affine.parallel`,
/// from `ocannl-plan-schedule{parallel=true}`) run on `threads` OpenMP
/// threads: `convert-scf-to-openmp` after `lower-affine`, and the OpenMP
/// dialect to LLVM. The code then calls libomp (`__kmpc_fork_call`).
/// Memrefs convert before `convert-scf-to-cf`: the OpenMP conversion wraps
/// each parallel body in a `memref.alloca_scope`, which must be lowered
/// while it still has one block.
pub fn affine_to_llvm_threads(threads: usize) -> String {
    AFFINE_TO_LLVM
        .replace(
            "lower-affine,",
            &format!(
                "lower-affine,convert-scf-to-openmp{{num-threads={threads}}},convert-vector-to-llvm,finalize-memref-to-llvm,"
            ),
        )
        .replace(
            "reconcile-unrealized-casts",
            "convert-openmp-to-llvm,reconcile-unrealized-casts",
        )
}

/// [`INFERRED_TO_AFFINE`] with the outermost parallel loop of each nest as
/// `affine.parallel`.
pub const INFERRED_TO_AFFINE_PARALLEL: &str = "ocannl-infer-projections,ocannl-plan-schedule{parallel=true vector-bytes=host},ocannl-lower-to-affine";

/// [`INFERRED_TO_AFFINE_PARALLEL`] for `threads` threads (the planner
/// splits wide contractions into one tile per thread).
pub fn inferred_to_affine_parallel(threads: usize) -> String {
    INFERRED_TO_AFFINE_PARALLEL
        .replace("parallel=true", &format!("parallel=true threads={threads}"))
}

/// The part of [`TO_AFFINE`] after shape inference: projections and the
/// lowering to affine loops (for tools that read the inferred signature in
/// between, such as `ocannl-run`; [`AFFINE_TO_LLVM`] follows it).
/// Plans for the host's vector width (`vector-bytes=host`), as code
/// compiled for the host (the JIT, `--emit`) wants; the named pipelines
/// keep the pass's fixed default, so that their output does not depend on
/// the machine.
pub const INFERRED_TO_AFFINE: &str =
    "ocannl-infer-projections,ocannl-plan-schedule{vector-bytes=host},ocannl-lower-to-affine";

/// From ocannl ops to the LLVM dialect, ready for `mlir-translate
/// --mlir-to-llvmir` or `ocannl-run`: [`TO_AFFINE`] then [`AFFINE_TO_LLVM`].
pub const TO_LLVM: PipelineDef = PipelineDef {
    argument: "ocannl-to-llvm",
    description: "ocannl ops to the LLVM dialect: ocannl-to-affine, then the upstream lowering (bare-pointer calling convention)",
    passes: concat!(ocannl_to_affine!(), ",", affine_to_llvm!()),
    options: &[],
    nvptx_target: false,
};

/// The GPU kernels of a module in the GPU dialect, from each nest's grid
/// (`ocannl-plan-schedule{target=gpu}`) to NVVM and a `gpu.binary`:
/// upstream maps the blocks' and threads' `affine.parallel` loops to
/// `gpu.launch` (`gpu-map-parallel-loops`, `convert-parallel-loops-to-gpu`),
/// outlines the kernels and merges them into one module
/// (`ocannl-merge-gpu-modules`: one PTX module per program), aligns their
/// workgroup buffers to 16 bytes (`ocannl-align-workgroup`: the tiled
/// kernels' 128-bit loads), approximates `exp`, `tanh` and kin on `f32` by
/// polynomials, keeps the math NVPTX has instructions for native
/// (`ocannl-gpu-math`), lowers the kernels to NVVM with
/// bare-pointer arguments and serialises them (`format`: `isa` is PTX and
/// needs nothing; `bin` and `fatbin` need `ptxas`). Functions NVPTX has no
/// instruction for (`sin`, `cos`, `pow`, `f64` `exp`, ...) call libdevice:
/// `toolkit` (a CUDA toolkit, or the `nvidia/cuda_nvcc` directory of PyPI's
/// `nvidia-cuda-nvcc-cu12`) links its `nvvm/libdevice/libdevice.10.bc`;
/// without it the PTX declares them `.extern`. The host side stays in
/// `func`, `memref` and `gpu.launch_func` with static sizes: `ocannl-run
/// --target cuda` runs it through the CUDA driver (upstream's host lowering
/// would call the `mgpu*` wrappers of `libmlir_cuda_runtime`, which Debian
/// does not ship).
macro_rules! affine_to_nvvm {
    () => {
        "ocannl-math-approximation,lower-affine,func.func(gpu-map-parallel-loops),convert-parallel-loops-to-gpu,\
gpu-launch-sink-index-computations,gpu-kernel-outlining,ocannl-merge-gpu-modules,ocannl-align-workgroup,canonicalize,cse,\
nvvm-attach-target{chip=$(chip) features=$(features) O=$(opt-level)},\
gpu.module(ocannl-gpu-math,convert-scf-to-cf,convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1},canonicalize,cse,reconcile-unrealized-casts),\
gpu-module-to-binary{format=$(format) toolkit=$(toolkit)}"
    };
}

/// From ocannl ops to GPU kernels for NVIDIA GPUs: verify, infer shapes
/// and projections, one grid per nest, then the upstream
/// passes.
pub const TO_NVVM: PipelineDef = PipelineDef {
    argument: "ocannl-to-nvvm",
    description: "ocannl ops to NVVM kernels in a gpu.binary (PTX with format=isa) and a host function of gpu.launch_func with static sizes; options chip, features (+ptxNN, or auto: the chip's lowest PTX version, at least 8.0), format (isa|bin|fatbin), opt-level, toolkit (links libdevice)",
    passes: concat!(
        "ocannl-verify,ocannl-infer-shapes,ocannl-infer-projections,ocannl-plan-schedule{target=gpu},ocannl-lower-to-affine,",
        affine_to_nvvm!()
    ),
    options: &[
        ("chip", "sm_80"),
        ("features", "auto"),
        ("format", "isa"),
        ("opt-level", "3"),
        ("toolkit", ""),
    ],
    nvptx_target: true,
};

/// Checks an NVPTX `chip` and `features` against the processors and PTX
/// versions of the linked LLVM (22), and returns the features to use:
/// `features` is `+ptxNN`, a PTX ISA version LLVM knows and at least the
/// lowest the chip allows (`sm_100` needs `+ptx86`), or `auto`, that lowest
/// version but at least 8.0. LLVM itself would abort the process on a PTX
/// version too old for the chip, and warn and go on with another target
/// given a chip it does not know.
///
/// # Errors
///
/// An unknown chip (`compute_80`, `foo`), features that are not a PTX
/// version LLVM knows, or a PTX version older than the chip needs.
pub fn resolve_nvptx_target(chip: &str, features: &str) -> Result<String, String> {
    crate::ffi::pass::resolve_nvptx_target(chip, features)
}

/// Every named pipeline.
pub static PIPELINES: &[PipelineDef] = &[TO_AFFINE, TO_LLVM, TO_NVVM];

/// The part of [`TO_NVVM`] after shape inference with its options' values
/// (`(name, value)`; absent ones take their default), for tools that read
/// the inferred signature in between (`ocannl-run --target cuda`).
///
/// # Errors
///
/// An unknown option, a value with spaces, commas or braces, or a chip and
/// features [`resolve_nvptx_target`] rejects.
pub fn inferred_to_nvvm(options: &[(&str, &str)]) -> Result<String, String> {
    if let Some((n, _)) = options
        .iter()
        .find(|(n, _)| !TO_NVVM.options.iter().any(|(o, _)| o == n))
    {
        return Err(format!("unknown option '{n}'"));
    }
    let mut values: Vec<(&str, String)> = Vec::new();
    for (name, default) in TO_NVVM.options {
        let value = match options.iter().find(|(n, _)| n == name) {
            Some((_, v)) => {
                if v.is_empty() || v.contains([' ', ',', '{', '}', '$', '\t']) {
                    return Err(format!(
                        "option '{name}' needs a value without spaces, commas or braces"
                    ));
                }
                *v
            }
            None => default,
        };
        values.push((name, value.to_owned()));
    }
    let value = |name: &str| values.iter().position(|(n, _)| *n == name);
    let (chip, features) = (
        value("chip").expect("ocannl-to-nvvm has a chip option"),
        value("features").expect("ocannl-to-nvvm has a features option"),
    );
    values[features].1 = resolve_nvptx_target(&values[chip].1, &values[features].1)?;
    let mut text = TO_NVVM
        .passes
        .trim_start_matches("ocannl-verify,ocannl-infer-shapes,")
        .to_owned();
    for (name, value) in &values {
        text = text.replace(&format!("$({name})"), value);
    }
    Ok(text)
}
