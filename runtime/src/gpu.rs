//! The CUDA target's host side. `ocannl-to-nvvm` leaves the entry function
//! as a short program on memrefs: an arena (`memref.alloc`) and views into
//! it, constants (`memref.get_global`), copies (`memref.copy`) and kernel
//! launches (`gpu.launch_func`, static sizes), with the kernels in
//! `gpu.binary` ops. [`Plan::read`] turns that program into steps the
//! runner executes on a device through the CUDA driver ([`crate::ffi::cuda`]);
//! upstream's own host lowering would call the `mgpu*` wrappers of
//! `libmlir_cuda_runtime`, which Debian does not ship.

use std::collections::HashMap;

mod run;
pub use run::{Runner, Timing, run};

use melior::ir::{
    BlockLike, BlockRef, Module, RegionLike, Value, ValueLike,
    attribute::{ArrayAttribute, DenseI32ArrayAttribute},
    operation::{OperationLike, OperationRef},
};
use ocannl_dialect::ir;

pub use crate::cuda::Image;
use crate::{Error, ffi};

/// Where a buffer lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Buf {
    /// The entry function's argument `i` (inputs, then results).
    Arg(usize),
    /// Byte `offset` of allocation `id`.
    Alloc { id: usize, offset: u64 },
    /// Constant `id` of [`Plan::constants`] (host data, uploaded where a
    /// step copies it).
    Const(usize),
}

/// One step of the host program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Device memory of `bytes` bytes, known as allocation `id`.
    Alloc { id: usize, bytes: u64 },
    /// `bytes` bytes from `src` to `dst` (an upload when `src` is a
    /// constant).
    Copy { src: Buf, dst: Buf, bytes: u64 },
    /// Kernel `kernel` of module `module` on a `grid` of `block` threads,
    /// one pointer argument per buffer.
    Launch {
        module: String,
        kernel: String,
        grid: [u32; 3],
        block: [u32; 3],
        args: Vec<Buf>,
    },
    /// Allocation `id` is no longer used.
    Free { id: usize },
}

/// The host program of an entry function, and its kernels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub steps: Vec<Step>,
    /// The data of each constant.
    pub constants: Vec<Vec<u8>>,
    /// Each `gpu.binary` by name.
    pub modules: Vec<(String, Image)>,
}

/// The bytes of a statically shaped memref type's buffer.
fn memref_bytes(ty: melior::ir::Type<'_>) -> Result<u64, Error> {
    let dims = ir::shaped_dims(ty).ok_or_else(|| Error::new(format!("{ty} is not a memref")))?;
    let elem =
        ir::shaped_element(ty).ok_or_else(|| Error::new(format!("{ty} has no element type")))?;
    let bits = ir::bit_width(elem).ok_or_else(|| Error::new(format!("{elem} has no bit width")))?;
    let mut cells: u64 = 1;
    for d in dims {
        let d = d
            .filter(|d| *d >= 0)
            .ok_or_else(|| Error::new(format!("{ty} is not static")))?;
        cells = cells
            .checked_mul(d as u64)
            .ok_or_else(|| Error::new(format!("{ty} has more than 2^64 cells")))?;
    }
    cells
        .checked_mul(u64::from(bits).div_ceil(8))
        .ok_or_else(|| Error::new(format!("{ty} has more than 2^64 bytes")))
}

fn key(v: Value<'_, '_>) -> usize {
    v.to_raw().ptr as usize
}

impl Plan {
    /// The plan of `entry` in `module` (lowered by `ocannl-to-nvvm`).
    ///
    /// # Errors
    ///
    /// An op the runner does not execute (a call, control flow other than
    /// a branch, asynchronous launches, clusters), or sizes that are not
    /// constants.
    pub fn read(module: &Module<'_>, entry: &str) -> Result<Self, Error> {
        let body = module.body();
        let mut funcs = HashMap::new();
        let mut modules = vec![];
        let mut globals: HashMap<String, OperationRef<'_, '_>> = HashMap::new();
        let mut next = body.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            let name = ir::op_name(&op);
            let symbol = ir::string_attr(&op, "sym_name");
            match (name.as_str(), symbol) {
                ("func.func", Some(s)) => {
                    funcs.insert(s, op);
                }
                ("memref.global", Some(s)) => {
                    globals.insert(s, op);
                }
                ("gpu.binary", Some(s)) => modules.push((s, binary_image(&op)?)),
                _ => {}
            }
        }
        let mut plan = Plan {
            steps: vec![],
            constants: vec![],
            modules,
        };
        let reader = Reader {
            funcs: &funcs,
            globals: &globals,
        };
        let func = *funcs
            .get(entry)
            .ok_or_else(|| Error::new(format!("no function '@{entry}' after lowering")))?;
        let n = func
            .region(0)
            .ok()
            .and_then(|r| r.first_block())
            .map_or(0, |b| b.argument_count());
        let args: Vec<Buf> = (0..n).map(Buf::Arg).collect();
        reader.function(&mut plan, entry, &args, 0)?;
        // The modules this function launches (the file's other functions
        // have theirs).
        let launched: Vec<String> = plan
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Launch { module, .. } => Some(module.clone()),
                _ => None,
            })
            .collect();
        plan.modules.retain(|(m, _)| launched.contains(m));
        Ok(plan)
    }
}

/// The module's functions and constants, for reading host programs.
struct Reader<'r, 'c, 'a> {
    funcs: &'r HashMap<String, OperationRef<'c, 'a>>,
    globals: &'r HashMap<String, OperationRef<'c, 'a>>,
}

/// What the values of one call of a host function stand for, by value
/// ([`key`]).
#[derive(Default)]
struct Frame {
    /// The buffer a memref value is.
    bufs: HashMap<usize, Buf>,
    /// The integer constants.
    consts: HashMap<usize, i64>,
    /// The allocation a `memref.alloc` made.
    alloc_ids: HashMap<usize, usize>,
}

impl Frame {
    /// The buffer `v` is, read by op `name`.
    fn buf(&self, v: Value<'_, '_>, name: &str) -> Result<Buf, Error> {
        self.bufs
            .get(&key(v))
            .copied()
            .ok_or_else(|| Error::new(format!("'{name}' reads a buffer the runner does not know")))
    }

    /// The constant `v` is, a size of op `name`.
    fn constant(&self, v: Value<'_, '_>, name: &str) -> Result<i64, Error> {
        self.consts
            .get(&key(v))
            .copied()
            .ok_or_else(|| Error::new(format!("a size of '{name}' is not a constant")))
    }
}

/// Where reading a host function goes after an op.
enum Flow<'c, 'a> {
    /// The next op of the block.
    Next,
    /// The block a branch goes to (`None`: none, the function does not
    /// return).
    Branch(Option<BlockRef<'c, 'a>>),
    /// The function returns.
    Return,
}

impl<'c, 'a> Reader<'_, 'c, 'a> {
    /// Appends the steps of function `name` called with buffers `args`
    /// (calls inlined, `depth` deep).
    fn function(
        &self,
        plan: &mut Plan,
        name: &str,
        args: &[Buf],
        depth: usize,
    ) -> Result<(), Error> {
        let block = self.entry_block(name, args.len(), depth)?;
        let mut frame = Frame::default();
        for (i, b) in args.iter().enumerate() {
            let arg = block
                .argument(i)
                .map_err(|_| Error::new("a missing argument"))?;
            frame.bufs.insert(key(arg.into()), *b);
        }
        let mut current = Some(block);
        let mut seen_blocks = 0usize;
        while let Some(block) = current.take() {
            seen_blocks += 1;
            if seen_blocks > 1_000_000 {
                return Err(Error::new("the host function's branches loop"));
            }
            let mut next = block.first_operation();
            while let Some(op) = next {
                next = op.next_in_block();
                match self.step(plan, &mut frame, &op, name, depth)? {
                    Flow::Next => {}
                    Flow::Branch(to) => {
                        current = to;
                        break;
                    }
                    Flow::Return => return Ok(()),
                }
            }
        }
        Err(Error::new(format!("'@{name}' does not return")))
    }

    /// The entry block of function `name`, checked to take `args` buffers
    /// and to be called at most 64 deep.
    fn entry_block(
        &self,
        name: &str,
        args: usize,
        depth: usize,
    ) -> Result<BlockRef<'c, 'a>, Error> {
        if depth > 64 {
            return Err(Error::new(format!(
                "calls nest more than 64 deep at '@{name}'"
            )));
        }
        let func = self
            .funcs
            .get(name)
            .ok_or_else(|| Error::new(format!("no function '@{name}' after lowering")))?;
        let block = func
            .region(0)
            .ok()
            .and_then(|r| r.first_block())
            .ok_or_else(|| Error::new(format!("'@{name}' has no body")))?;
        if block.argument_count() != args {
            return Err(Error::new(format!(
                "'@{name}' takes {} buffers but is given {}",
                block.argument_count(),
                args
            )));
        }
        Ok(block)
    }

    /// Reads one op of the host function `function` into `plan` (or into
    /// `frame`, for the values it defines).
    fn step(
        &self,
        plan: &mut Plan,
        frame: &mut Frame,
        op: &OperationRef<'c, 'a>,
        function: &str,
        depth: usize,
    ) -> Result<Flow<'c, 'a>, Error> {
        let name = ir::op_name(op);
        let unsupported = || {
            Error::new(format!(
                "the CUDA runner does not execute '{name}' in the host function '@{function}'"
            ))
        };
        match name.as_str() {
            "arith.constant" => {
                if let (Ok(r), Ok(a)) = (op.result(0), op.attribute("value"))
                    && let Some(v) = ir::integer_value(a)
                {
                    frame.consts.insert(key(r.into()), v);
                }
            }
            "memref.alloc" => {
                let r: Value<'_, '_> = op.result(0).map_err(|_| unsupported())?.into();
                let id = plan
                    .steps
                    .iter()
                    .filter(|s| matches!(s, Step::Alloc { .. }))
                    .count();
                plan.steps.push(Step::Alloc {
                    id,
                    bytes: memref_bytes(r.r#type())?,
                });
                frame.alloc_ids.insert(key(r), id);
                frame.bufs.insert(key(r), Buf::Alloc { id, offset: 0 });
            }
            "memref.view" => view(frame, op, &name, unsupported)?,
            "memref.get_global" => {
                let global = op
                    .attribute("name")
                    .ok()
                    .and_then(ir::symbol_ref_value)
                    .and_then(|g| self.globals.get(&g).copied())
                    .ok_or_else(unsupported)?;
                let r: Value<'_, '_> = op.result(0).map_err(|_| unsupported())?.into();
                plan.constants.push(global_bytes(&global, r)?);
                frame
                    .bufs
                    .insert(key(r), Buf::Const(plan.constants.len() - 1));
            }
            "memref.copy" => {
                let src = op.operand(0).map_err(|_| unsupported())?;
                let dst = op.operand(1).map_err(|_| unsupported())?;
                plan.steps.push(Step::Copy {
                    src: frame.buf(src, &name)?,
                    dst: frame.buf(dst, &name)?,
                    bytes: memref_bytes(dst.r#type())?,
                });
            }
            "memref.dealloc" => {
                let v = op.operand(0).map_err(|_| unsupported())?;
                if let Some(&id) = frame.alloc_ids.get(&key(v)) {
                    plan.steps.push(Step::Free { id });
                }
            }
            "gpu.launch_func" => plan.steps.push(launch(
                op,
                &|v| frame.buf(v, &name),
                &|v| frame.constant(v, &name),
                unsupported,
            )?),
            "cf.br" => return Ok(Flow::Branch(op.successor(0).ok())),
            "func.call" => {
                let callee = op
                    .attribute("callee")
                    .ok()
                    .and_then(ir::symbol_ref_value)
                    .ok_or_else(unsupported)?;
                let operands = op
                    .operands()
                    .map(|v| frame.buf(v, &name))
                    .collect::<Result<Vec<_>, _>>()?;
                self.function(plan, &callee, &operands, depth + 1)?;
            }
            "func.return" => return Ok(Flow::Return),
            _ => return Err(unsupported()),
        }
        Ok(Flow::Next)
    }
}

/// A `memref.view` (`op`, named `name`): the view of an allocation at a
/// constant byte shift, recorded in `frame`.
fn view(
    frame: &mut Frame,
    op: &OperationRef<'_, '_>,
    name: &str,
    unsupported: impl Fn() -> Error,
) -> Result<(), Error> {
    let src = frame.buf(op.operand(0).map_err(|_| unsupported())?, name)?;
    let shift = frame.constant(op.operand(1).map_err(|_| unsupported())?, name)?;
    let Buf::Alloc { id, offset } = src else {
        return Err(unsupported());
    };
    let r: Value<'_, '_> = op.result(0).map_err(|_| unsupported())?.into();
    let offset = offset
        .checked_add(u64::try_from(shift).map_err(|_| unsupported())?)
        .ok_or_else(unsupported)?;
    frame.bufs.insert(key(r), Buf::Alloc { id, offset });
    Ok(())
}

/// A `gpu.launch_func` as a [`Step::Launch`].
fn launch<'c, 'a>(
    op: &OperationRef<'c, 'a>,
    buf: &dyn Fn(Value<'c, 'a>) -> Result<Buf, Error>,
    constant: &dyn Fn(Value<'c, 'a>) -> Result<i64, Error>,
    unsupported: impl Fn() -> Error,
) -> Result<Step, Error> {
    // Segments: async dependencies, grid x/y/z, block x/y/z, cluster
    // x/y/z, dynamic shared memory, kernel operands, async object.
    let segments = op
        .attribute("operandSegmentSizes")
        .ok()
        .and_then(|a| DenseI32ArrayAttribute::try_from(a).ok())
        .ok_or_else(&unsupported)?;
    let seg: Vec<usize> = (0..segments.len())
        .map(|i| segments.element(i).map(|n| n.max(0) as usize))
        .collect::<Result<_, _>>()
        .map_err(|_| unsupported())?;
    if seg.len() != 13
        || seg[0] != 0
        || seg[7..10].iter().any(|&n| n != 0)
        || seg[10] != 0
        || seg[12] != 0
    {
        return Err(unsupported());
    }
    let size = |i: usize| -> Result<u32, Error> {
        let v = constant(op.operand(i).map_err(|_| unsupported())?)?;
        u32::try_from(v)
            .map_err(|_| Error::new(format!("a launch size ({v}) does not fit a CUDA launch")))
    };
    let grid = [size(0)?, size(1)?, size(2)?];
    let block = [size(3)?, size(4)?, size(5)?];
    let args = (6..6 + seg[11])
        .map(|i| buf(op.operand(i).map_err(|_| unsupported())?))
        .collect::<Result<Vec<_>, _>>()?;
    let kernel = op
        .attribute("kernel")
        .map(|a| a.to_string())
        .map_err(|_| unsupported())?;
    // `@module::@kernel`.
    let mut parts = kernel
        .split("::")
        .map(|p| p.trim().trim_start_matches('@').to_owned());
    let (Some(module), Some(kernel)) = (parts.next(), parts.next()) else {
        return Err(unsupported());
    };
    Ok(Step::Launch {
        module,
        kernel,
        grid,
        block,
        args,
    })
}

/// The image of a `gpu.binary` (its first object).
fn binary_image(op: &OperationRef<'_, '_>) -> Result<Image, Error> {
    let objects = op
        .attribute("objects")
        .ok()
        .and_then(|a| ArrayAttribute::try_from(a).ok())
        .ok_or_else(|| Error::new("a gpu.binary without objects"))?;
    let first = objects
        .element(0)
        .map_err(|_| Error::new("a gpu.binary without objects"))?;
    match ffi::gpu_object(first) {
        Some((2, bytes)) => String::from_utf8(bytes)
            .map(Image::Ptx)
            .map_err(|_| Error::new("a gpu.binary's PTX is not text")),
        Some((3 | 4, bytes)) => Ok(Image::Binary(bytes)),
        Some((f, _)) => Err(Error::new(format!(
            "a gpu.binary in format {f} (offload): lower with format=isa, bin or fatbin"
        ))),
        None => Err(Error::new("a gpu.binary whose object is not a #gpu.object")),
    }
}

/// The bytes of a constant `memref.global` read through `r`.
fn global_bytes(global: &OperationRef<'_, '_>, r: Value<'_, '_>) -> Result<Vec<u8>, Error> {
    let ty = r.r#type();
    let bytes = memref_bytes(ty)?;
    let elem =
        ir::shaped_element(ty).ok_or_else(|| Error::new("a constant without element type"))?;
    let bits = ir::bit_width(elem).unwrap_or(0);
    if !bits.is_multiple_of(8) || bits == 0 {
        return Err(Error::new(format!(
            "the CUDA runner cannot upload constants of {elem}"
        )));
    }
    let elem_bytes = (bits / 8) as usize;
    let count = usize::try_from(bytes)
        .map_err(|_| Error::new("a constant larger than the address space"))?
        / elem_bytes;
    let value = global
        .attribute("initial_value")
        .map_err(|_| Error::new("a constant global without a value"))?;
    ffi::dense_bytes(value, count, elem_bytes)
        .ok_or_else(|| Error::new("a constant global whose value is not dense data"))
}
