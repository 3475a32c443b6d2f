//! The constant globals of a module in the LLVM dialect (the lowered dense
//! constants: a model's weights), made cheap for LLVM.
//!
//! The memref lowering gives a global of `tensor<64x3x7x7xf32>` the nested
//! type `!llvm.array<64 x array<3 x array<7 x array<7 x f32>>>>`, and the
//! translation to LLVM IR builds one uniqued `ConstantDataArray` per
//! innermost row and one `ConstantArray` per row above: ResNet-50's 25
//! million weights became millions of constants, which the translation,
//! the optimiser (`LazyCallGraph` walks every initializer), the code
//! generator (`getRelocationInfo`) and the LLVM context's destructor each
//! walked: 80 of its 85 seconds of compilation when its 1x1 convolutions'
//! weights had rows of one cell (docs/performance.md, "Compile time of
//! ResNet-50"). [`bind_constants`] is the JIT's way out: a large constant
//! becomes an external declaration bound to a copy of its MLIR attribute's
//! bytes, so neither the translation nor the code generator sees the data
//! at all. [`flatten_constant_globals`] is
//! `--emit`'s (and the JIT's for what stays): a global of many short rows
//! gets the flat type `!llvm.array<N x f32>` (one `ConstantDataArray`) and
//! the same bytes; every `getelementptr` of the code, whose source type is
//! its own, computes the same addresses. Only such globals: LLVM's
//! optimiser does not always make the same code of a flat global.

use std::{alloc::Layout, ffi::c_void};

use melior::{
    Context,
    ir::{
        Attribute, BlockLike, Module, Type, TypeLike,
        attribute::{AttributeLike, StringAttribute, TypeAttribute},
        operation::{OperationLike, OperationRef},
    },
};
use ocannl_dialect::ir;

/// Constants smaller than this keep their initializer in the JIT's module:
/// LLVM may fold their loads (a scalar, a short table).
const BIND_AT_LEAST: usize = 4096;

/// Globals with fewer innermost rows than this keep their nested type: a
/// few microseconds of LLVM's time a row (ResNet-50's 16 million rows,
/// most of one cell, took 60 s), so below this less than about 0.1 s.
const FLATTEN_ROWS: u64 = 16384;

/// The top-level `llvm.mlir.global` ops whose `value` is a dense elements
/// attribute that is no splat (a splat is cheap nested), with that value.
fn dense_globals<'c, 'm>(module: &'m Module<'c>) -> Vec<(OperationRef<'c, 'm>, ir::Elements<'c>)> {
    let mut out = Vec::new();
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if ir::op_name(&op) != "llvm.mlir.global" {
            continue;
        }
        let Some(info) = op.attribute("value").ok().and_then(ir::elements) else {
            continue;
        };
        if ir::is_dense_elements(info.attr) && info.splat.is_none() && info.count > 0 {
            out.push((op, info));
        }
    }
    out
}

/// `!llvm.array<n x elem>`.
fn llvm_array(elem: Type<'_>, n: u64) -> Option<Type<'_>> {
    let n = u32::try_from(n).ok()?;
    // SAFETY: a live type; the array type is uniqued in its context.
    Some(unsafe { Type::from_raw(mlir_sys::mlirLLVMArrayTypeGet(elem.to_raw(), n)) })
}

/// The global's type (`global_type`).
fn global_type<'c>(op: &OperationRef<'c, '_>) -> Option<Type<'c>> {
    let attr = op.attribute("global_type").ok()?;
    TypeAttribute::try_from(attr).ok().map(|t| t.value())
}

/// Gives each global whose value is a dense attribute of rank 2 or more
/// with at least [`FLATTEN_ROWS`] innermost rows, and whose type is the
/// nested array of its dims, the flat array type and the same data as a
/// one-dimensional attribute. Returns how many it changed.
pub(crate) fn flatten_constant_globals(module: &Module<'_>) -> usize {
    let mut changed = 0;
    for (op, info) in dense_globals(module) {
        let Some(dims) = ir::shaped_dims(info.attr.r#type())
            .and_then(|d| d.into_iter().collect::<Option<Vec<i64>>>())
        else {
            continue;
        };
        let rows = dims[..dims.len().saturating_sub(1)]
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(u64::try_from(d).ok()?));
        if dims.len() < 2 || rows.is_none_or(|r| r < FLATTEN_ROWS) {
            continue;
        }
        let nested = dims.iter().rev().try_fold(info.elem, |inner, &d| {
            llvm_array(inner, u64::try_from(d).ok()?)
        });
        if nested.is_none() || nested != global_type(&op) {
            continue;
        }
        let (Some(flat_type), Ok(n)) =
            (llvm_array(info.elem, info.count), i64::try_from(info.count))
        else {
            continue;
        };
        let Some(flat) = ir::reshape_dense(info.attr, &[n], info.elem) else {
            continue;
        };
        ir::set_attribute(op, "value", flat);
        ir::set_attribute(op, "global_type", TypeAttribute::new(flat_type).into());
        changed += 1;
    }
    changed
}

/// The bytes the compiled code reads in place of the bound constants'
/// initializers: one buffer, each constant at an offset aligned as its
/// global asks.
pub(crate) struct BoundConstants {
    /// The symbol of each bound global and the address of its bytes.
    pub(crate) symbols: Vec<(String, *mut c_void)>,
    /// The buffer (freed on drop), when there is one.
    buffer: Option<(*mut u8, Layout)>,
}

impl Drop for BoundConstants {
    fn drop(&mut self) {
        if let Some((p, layout)) = self.buffer {
            // SAFETY: allocated by `std::alloc::alloc` with this layout in
            // `bind_constants`, freed once.
            unsafe { std::alloc::dealloc(p, layout) };
        }
    }
}

/// A constant to bind: its global, name, bytes and alignment.
struct ToBind<'c, 'm> {
    op: OperationRef<'c, 'm>,
    name: String,
    data: *const u8,
    bytes: usize,
    align: usize,
}

/// The constant globals of at least [`BIND_AT_LEAST`] bytes whose value is
/// a dense attribute (no splat, cells of whole bytes).
fn to_bind<'c, 'm>(module: &'m Module<'c>) -> Vec<ToBind<'c, 'm>> {
    let mut out = Vec::new();
    for (op, info) in dense_globals(module) {
        let cell = match ir::bit_width(info.elem) {
            Some(w) if w % 8 == 0 => (w / 8) as usize,
            _ => continue,
        };
        let bytes = usize::try_from(info.count)
            .ok()
            .and_then(|n| n.checked_mul(cell));
        let (Some(bytes), Some(name)) = (bytes, ir::string_attr(&op, "sym_name")) else {
            continue;
        };
        if op.attribute("constant").is_err() || bytes < BIND_AT_LEAST {
            continue;
        }
        let align = op
            .attribute("alignment")
            .ok()
            .and_then(ir::integer_value)
            .and_then(|a| usize::try_from(a).ok())
            .unwrap_or(1)
            .max(cell)
            .next_power_of_two();
        // SAFETY: a dense elements attribute that is no splat, of cells of
        // `cell` bytes (checked above): its raw data holds `bytes` bytes and
        // lives as long as the context.
        let data = unsafe { mlir_sys::mlirDenseElementsAttrGetRawData(info.attr.to_raw()) };
        if !data.is_null() && align <= 4096 {
            out.push(ToBind {
                op,
                name,
                data: data.cast(),
                bytes,
                align,
            });
        }
    }
    out
}

/// Turns each constant global of at least [`BIND_AT_LEAST`] bytes whose
/// value is a dense attribute (no splat, cells of whole bytes) into an
/// external declaration named `__ocannl_const<k>`, and returns the
/// addresses the JIT binds those names to: copies of the attributes'
/// bytes, one after the other in one page-aligned buffer, as the JIT's
/// data section would have held them. (Bound in place, in the context's
/// attribute storage, or each in its own allocation, ResNet-50 ran 1.5x
/// slower: its weights' streams then start at the same offset in their
/// pages.) Nothing is bound when the buffer cannot be allocated.
pub(crate) fn bind_constants(context: &Context, module: &Module<'_>) -> BoundConstants {
    let mut bound = BoundConstants {
        symbols: Vec::new(),
        buffer: None,
    };
    let found = to_bind(module);
    let mut offsets = Vec::with_capacity(found.len());
    let mut total = 0usize;
    for c in &found {
        let Some(at) = total.checked_next_multiple_of(c.align) else {
            return bound;
        };
        offsets.push(at);
        total = at + c.bytes;
    }
    let Ok(layout) = Layout::from_size_align(total, 4096) else {
        return bound;
    };
    if total == 0 {
        return bound;
    }
    // SAFETY: a layout of `total` > 0 bytes, checked for null; each
    // constant's `bytes` bytes go to its own range of the buffer (offsets
    // increasing by at least the previous constant's size).
    let buffer = unsafe {
        let p = std::alloc::alloc(layout);
        if p.is_null() {
            return bound;
        }
        for (c, &at) in found.iter().zip(&offsets) {
            std::ptr::copy_nonoverlapping(c.data, p.add(at), c.bytes);
        }
        p
    };
    bound.buffer = Some((buffer, layout));
    let mut renamed = std::collections::HashMap::new();
    let external = Attribute::parse(context, "#llvm.linkage<external>").expect("a linkage");
    for (c, at) in found.into_iter().zip(offsets) {
        let new = format!("__ocannl_const{}", bound.symbols.len());
        ir::set_attribute(c.op, "sym_name", StringAttribute::new(context, &new).into());
        ir::set_attribute(c.op, "linkage", external);
        for name in ["value", "dso_local"] {
            // SAFETY: a live op; removing an absent attribute is a no-op.
            unsafe {
                mlir_sys::mlirOperationRemoveAttributeByName(
                    c.op.to_raw(),
                    melior::StringRef::new(name).to_raw(),
                )
            };
        }
        renamed.insert(c.name, new.clone());
        // SAFETY: `at` is within the buffer (see above).
        bound
            .symbols
            .push((new, unsafe { buffer.add(at) }.cast::<c_void>()));
    }
    super::rename_symbol_refs(context, module, &renamed);
    bound
}
