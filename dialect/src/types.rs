//! Tensor types of ocannl ops and their shape specs.
//!
//! Ops accept `!ocannl.tensor<ELEM, "SPEC">` (SPEC is an OCANNL shape spec)
//! and builtin tensors. A ranked builtin tensor `tensor<4x?xf32>` is one
//! output row with a fresh dimension for each `?`; an unranked
//! `tensor<*xf32>` is a fresh output row variable (DESIGN.md, "The dialect").

use std::borrow::Cow;

use melior::ir::{Type, TypeLike};
use ocannl_shape::spec::{Row, RowVar, ShapeAxis, ShapeSpec, SpecError, parse_shape_spec};

use crate::ffi;

/// What kind of tensor a type is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TensorType<'c> {
    /// `!ocannl.tensor<elem, "spec">`.
    Ocannl {
        /// The element type.
        elem: Type<'c>,
        /// The spec string as written (not yet parsed).
        spec: Cow<'c, str>,
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
        if let Some((elem, spec)) = ffi::ocannl_tensor_parts(ty) {
            return Some(Self::Ocannl { elem, spec });
        }
        if ty.is_ranked_tensor() {
            return Some(Self::Ranked {
                elem: ffi::shaped_element(ty)?,
            });
        }
        if ty.is_unranked_tensor() {
            return Some(Self::Unranked {
                elem: ffi::shaped_element(ty)?,
            });
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
        TensorType::Ocannl { spec, .. } => parse_shape_spec(&spec)?,
        TensorType::Ranked { .. } => {
            // `?` is a fresh variable.
            let end = ffi::shaped_dims(ty)
                .unwrap_or_default()
                .into_iter()
                .map(|d| match d {
                    Some(size) => ShapeAxis::Size(size.max(0) as u64),
                    None => ShapeAxis::Fresh,
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
    ffi::ocannl_tensor_type(elem, spec)
}
