//! Tensor types of ocannl ops and their shape specs.
//!
//! Ops accept `!ocannl.tensor<ELEM, "SPEC">` (SPEC is an OCANNL shape spec)
//! and builtin tensors. A ranked builtin tensor `tensor<4x?xf32>` is one
//! output row with a fresh dimension for each `?`; an unranked
//! `tensor<*xf32>` is a fresh output row variable (DESIGN.md, "The dialect").

use melior::{
    StringRef,
    ir::{Type, TypeLike},
};
use mlir_sys::{
    mlirShapedTypeGetDimSize, mlirShapedTypeGetElementType, mlirShapedTypeGetRank,
    mlirShapedTypeIsDynamicDim, mlirTypeIsARankedTensor, mlirTypeIsAUnrankedTensor,
};
use ocannl_shape::spec::{Row, RowVar, ShapeAxis, ShapeSpec, SpecError, parse_shape_spec};

use crate::ffi;

/// What kind of tensor a type is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TensorType<'c> {
    /// `!ocannl.tensor<elem, "spec">`.
    Ocannl {
        /// The element type.
        elem: Type<'c>,
        /// The spec string as written (not yet parsed).
        spec: &'c str,
    },
    /// A ranked builtin tensor.
    Ranked {
        /// The element type.
        elem: Type<'c>,
    },
    /// An unranked builtin tensor.
    Unranked {
        /// The element type.
        elem: Type<'c>,
    },
}

impl<'c> TensorType<'c> {
    /// Classifies `ty`; `None` when it is not a tensor an ocannl op accepts.
    pub fn classify(ty: Type<'c>) -> Option<Self> {
        let raw = ty.to_raw();
        // SAFETY: `raw` is a valid type of a live context for 'c; the shim
        // functions return null results for types that are not ocannl tensors.
        unsafe {
            if ffi::ocannlTypeIsTensor(raw) {
                let spec = ffi::ocannlTensorTypeGetSpec(raw);
                let elem = ffi::ocannlTensorTypeGetElementType(raw);
                if elem.ptr.is_null() {
                    return None;
                }
                // An empty spec (a scalar) may come with a null pointer.
                let spec = if spec.length == 0 {
                    ""
                } else {
                    // The string is uniqued in the context and lives as long as it.
                    StringRef::from_raw(spec).as_str().ok()?
                };
                return Some(Self::Ocannl {
                    elem: Type::from_raw(elem),
                    spec,
                });
            }
            if mlirTypeIsARankedTensor(raw) {
                return Some(Self::Ranked {
                    elem: Type::from_raw(mlirShapedTypeGetElementType(raw)),
                });
            }
            if mlirTypeIsAUnrankedTensor(raw) {
                return Some(Self::Unranked {
                    elem: Type::from_raw(mlirShapedTypeGetElementType(raw)),
                });
            }
        }
        None
    }

    /// The element type.
    pub fn element_type(&self) -> Type<'c> {
        match *self {
            Self::Ocannl { elem, .. } | Self::Ranked { elem } | Self::Unranked { elem } => elem,
        }
    }
}

/// The shape spec of a tensor type: the parsed spec of an `!ocannl.tensor`,
/// or the spec a builtin tensor stands for. `Ok(None)` when `ty` is not a
/// tensor; `Err` when an `!ocannl.tensor` spec does not parse.
pub fn shape_spec(ty: Type<'_>) -> Result<Option<ShapeSpec>, SpecError> {
    let Some(tensor) = TensorType::classify(ty) else {
        return Ok(None);
    };
    let spec = match tensor {
        TensorType::Ocannl { spec, .. } => parse_shape_spec(spec)?,
        TensorType::Ranked { .. } => {
            let raw = ty.to_raw();
            // SAFETY: `raw` is a ranked tensor type (checked by `classify`).
            let rank = unsafe { mlirShapedTypeGetRank(raw) }.max(0) as isize;
            let end = (0..rank)
                .map(|i| unsafe {
                    if mlirShapedTypeIsDynamicDim(raw, i) {
                        ShapeAxis::Fresh
                    } else {
                        ShapeAxis::Size(mlirShapedTypeGetDimSize(raw, i).max(0) as u64)
                    }
                })
                .collect();
            output_only(Row {
                beg: vec![],
                var: None,
                end,
            })
        }
        TensorType::Unranked { .. } => output_only(Row {
            beg: vec![],
            var: Some(RowVar::Anonymous),
            end: vec![],
        }),
    };
    Ok(Some(spec))
}

fn output_only(output: Row<ShapeAxis>) -> ShapeSpec {
    let empty = Row {
        beg: vec![],
        var: None,
        end: vec![],
    };
    ShapeSpec {
        batch: empty.clone(),
        input: empty,
        output,
    }
}

/// `!ocannl.tensor<elem, "spec">` in `elem`'s context; `None` when the
/// ocannl dialect is not loaded there.
pub fn ocannl_tensor_type<'c>(elem: Type<'c>, spec: &str) -> Option<Type<'c>> {
    let spec = StringRef::new(spec);
    // SAFETY: all handles are valid; the shim returns a null type when the
    // dialect is missing.
    let raw = unsafe {
        ffi::ocannlTensorTypeGet(
            mlir_sys::mlirTypeGetContext(elem.to_raw()),
            elem.to_raw(),
            spec.to_raw(),
        )
    };
    (!raw.ptr.is_null()).then(|| unsafe { Type::from_raw(raw) })
}
