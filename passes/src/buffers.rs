//! Buffers: the memref a tensor type lowers to, which element types the
//! lowering supports, how many bytes a buffer takes, and a buffer's dims
//! and element type read back.

use melior::ir::{Type, TypeLike, Value, ValueLike, r#type::MemRefType};
use ocannl_dialect::{ir, types::TensorType, types::shape_spec};

use crate::{compute::Compute, layout};
use ocannl_shape::projection::{cell_count, memory_dims};

/// The kind of a supported element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scalar {
    /// `f16`, `bf16`, `f32`, `f64`.
    Float,
    /// An integer of 1, 8, 16, 32 or 64 bits (signless, or unsigned in a
    /// tensor type: its buffer holds the signless type, and the op's
    /// [`Compute`] carries the signedness).
    Int(u32),
}

impl Scalar {
    /// Bytes per element in memory.
    pub(crate) fn bytes(self, elem: Type<'_>) -> u64 {
        match self {
            Scalar::Float => u64::from(ir::bit_width(elem).unwrap_or(64) / 8),
            Scalar::Int(w) => u64::from(w.div_ceil(8)),
        }
    }
}

/// The element types the lowering (and LLVM's code generation for every
/// host) supports: `f16`, `bf16`, `f32`, `f64`, signless `i1`, `i8`,
/// `i16`, `i32`, `i64`, and unsigned `ui8`, `ui16`, `ui32`, `ui64`
/// (docs/decisions/0047-unsigned-integers.md). Others (`f80`, `f128`,
/// `tf32`, 8-bit floats, `i128`, `si32`, `ui1`, `index`, ...) are errors: LLVM's instruction selection
/// aborts on some of them, and `arith`/`math` do not define every op on
/// signed/unsigned integers or `index`.
/// A vector type is judged by its element type.
pub(crate) fn scalar(elem: Type<'_>) -> Result<Scalar, String> {
    let elem = if ir::shaped_dims(elem).is_some() {
        ir::shaped_element(elem).unwrap_or(elem)
    } else {
        elem
    };
    let unsupported = || {
        format!(
            "element type {elem} is not supported by the lowering (f16, bf16, f32, f64, i1, i8, i16, i32, i64, ui8, ui16, ui32 and ui64 are)"
        )
    };
    if elem.is_f16() || elem.is_bf16() || elem.is_f32() || elem.is_f64() {
        return Ok(Scalar::Float);
    }
    if ir::is_signless_integer(elem) || ir::is_unsigned_integer(elem) {
        return match ir::bit_width(elem) {
            Some(1) if ir::is_unsigned_integer(elem) => Err(unsupported()),
            Some(w @ (1 | 8 | 16 | 32 | 64)) => Ok(Scalar::Int(w)),
            _ => Err(unsupported()),
        };
    }
    Err(unsupported())
}

/// The largest buffer the lowering allocates or indexes, in bytes: sizes
/// and addresses are computed in 64-bit signed arithmetic.
pub(crate) const MAX_BUFFER_BYTES: u64 = i64::MAX as u64;

/// The most axes a lowered buffer may have. Inference takes any rank; the
/// generated code does not scale with it (a reshape's delinearising map is
/// quadratic in the rank, memref descriptors carry every size and stride),
/// and no real tensor comes near.
pub(crate) const MAX_RANK: usize = 1024;

/// The buffer of a tensor type: its memref type, dimensions (memory order
/// batch, output, input) and size in bytes.
pub(crate) fn buffer_type<'c>(
    ty: Type<'c>,
    what: &str,
) -> Result<(Type<'c>, Vec<u64>, u64), String> {
    let tensor = TensorType::classify(ty).ok_or_else(|| format!("{what} {ty} is not a tensor"))?;
    let spec = shape_spec(ty)
        .map_err(|e| format!("{what} has an invalid shape spec: {e}"))?
        .ok_or_else(|| format!("{what} {ty} is not a tensor"))?;
    let dims = memory_dims(&spec).map_err(|_| {
        format!("{what} {ty} does not have a concrete shape: run ocannl-infer-shapes first")
    })?;
    if dims.len() > MAX_RANK {
        return Err(format!(
            "{what} has {} axes: the lowering supports tensors of at most {MAX_RANK} axes",
            dims.len()
        ));
    }
    let elem = tensor.element_type();
    let kind = scalar(elem).map_err(|e| format!("{what}: {e}"))?;
    let bytes = cell_count(&dims)
        .and_then(|cells| cells.checked_mul(kind.bytes(elem)))
        .filter(|&b| b <= MAX_BUFFER_BYTES)
        .ok_or_else(|| {
            format!("{what} {ty} is too large: its buffer would exceed {MAX_BUFFER_BYTES} bytes")
        })?;
    let shape: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    Ok((
        MemRefType::new(ir::signless(elem), &shape, None, None).into(),
        dims,
        bytes,
    ))
}

/// The buffer of value `v` (an op result or argument): [`buffer_type`]
/// with its dims in the order of the producer's layout
/// ([`crate::layout`]).
pub(crate) fn value_buffer<'c>(
    v: Value<'c, '_>,
    what: &str,
) -> Result<(Type<'c>, Vec<u64>, u64), String> {
    let (mty, dims, bytes) = buffer_type(v.r#type(), what)?;
    let Some(perm) = layout::of_value(v, dims.len()) else {
        return Ok((mty, dims, bytes));
    };
    let dims = layout::permute(&dims, &perm);
    let shape: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let elem = ir::shaped_element(mty).expect("a memref");
    Ok((
        MemRefType::new(elem, &shape, None, None).into(),
        dims,
        bytes,
    ))
}

/// The element type of a buffer.
pub(crate) fn element_of<'c>(buf: Value<'c, '_>) -> Type<'c> {
    ir::shaped_element(buf.r#type()).expect("buffers are memrefs")
}

/// The static sizes of a buffer.
pub(crate) fn buffer_dims(buf: Value<'_, '_>) -> Vec<u64> {
    ir::shaped_dims(buf.r#type())
        .expect("buffers are ranked memrefs")
        .into_iter()
        .map(|d| d.unwrap_or(0).max(0) as u64)
        .collect()
}

/// The operands' element types against the result's `elem`, as `compute`
/// reads them: a cast's operand has any type, a comparison's operands one
/// type and its result `i1`, a `where`'s condition any type and its
/// branches the result's; other ops' operands have the result's type.
pub(crate) fn check_elements(
    operands: &[Value<'_, '_>],
    elem: Type<'_>,
    compute: &Compute,
) -> Result<(), String> {
    let (expected, from) = match compute {
        Compute::Cast { .. } => return Ok(()),
        Compute::Compare(..) => {
            if !(ir::is_signless_integer(elem) && ir::bit_width(elem) == Some(1)) {
                return Err(format!(
                    "a comparison's result has element type {elem}, not i1"
                ));
            }
            match operands.first() {
                Some(o) => (element_of(*o), 1),
                None => return Ok(()),
            }
        }
        Compute::Where => (elem, 1),
        _ => (elem, 0),
    };
    for (i, o) in operands.iter().enumerate().skip(from) {
        if element_of(*o) != expected {
            return Err(format!(
                "operand #{i} has element type {} but {} {expected}",
                element_of(*o),
                if expected == elem {
                    "the result has"
                } else {
                    "operand #0 has"
                }
            ));
        }
    }
    Ok(())
}
