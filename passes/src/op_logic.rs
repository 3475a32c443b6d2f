//! The shape logic of an ocannl op as the engine sees it: the catalog's
//! logic plus the attribute values it needs (einsum and block specs, the
//! `batch_slice` index, a constant's spec and element count), shared by
//! every pass that reads ops (verify, infer-shapes, check-shapes,
//! projections, lowering).

use std::{
    collections::{HashMap, hash_map::Entry},
    rc::Rc,
};

use melior::ir::{
    AttributeLike,
    operation::{OperationLike, OperationRef},
};
use ocannl_dialect::{
    catalog::{self, ShapeLogic},
    ir,
};
use ocannl_shape::{
    problem::{OpLogic, Problem},
    spec::{
        EinsumSpec, ShapeSpec, SpecError, parse_block_spec, parse_einsum_spec, parse_shape_spec,
    },
};

pub(crate) use ir::string_attr;

/// Parsed einsum and block specs by their text: a pass that reads many ops
/// parses each distinct spec once (a model repeats a few).
#[derive(Default)]
pub(crate) struct SpecCache {
    einsum: HashMap<(bool, String), Rc<EinsumSpec>>,
}

impl SpecCache {
    /// The parsed einsum (`block` false) or block spec `text`.
    fn get(&mut self, block: bool, text: String) -> Result<Rc<EinsumSpec>, SpecError> {
        match self.einsum.entry((block, text)) {
            Entry::Occupied(e) => Ok(Rc::clone(e.get())),
            Entry::Vacant(e) => {
                let text = &e.key().1;
                let spec = if block {
                    parse_block_spec(text)?
                } else {
                    parse_einsum_spec(text)?
                };
                Ok(Rc::clone(e.insert(Rc::new(spec))))
            }
        }
    }
}

/// The shape logic of an ocannl op with the attribute values it needs,
/// owned (an einsum spec is borrowed by [`OpLogic`]).
pub(crate) struct OwnedLogic {
    logic: ShapeLogic,
    reshape: bool,
    einsum: Option<Rc<EinsumSpec>>,
    index: u64,
    spec: Option<ShapeSpec>,
    elems: Option<u64>,
    /// The shape of a dense `value` of rank 2 or more (OCANNL's `Exact`).
    exact: Option<Vec<u64>>,
}

impl OwnedLogic {
    /// Reads the logic of `op` (catalog entry `def`) and its attributes.
    pub(crate) fn of(op: OperationRef<'_, '_>, def: &catalog::OpDef) -> Result<Self, String> {
        Self::of_cached(op, def, &mut SpecCache::default())
    }

    /// [`OwnedLogic::of`], parsing einsum and block specs through `cache`.
    pub(crate) fn of_cached(
        op: OperationRef<'_, '_>,
        def: &catalog::OpDef,
        cache: &mut SpecCache,
    ) -> Result<Self, String> {
        let mut owned = OwnedLogic {
            logic: def.logic,
            reshape: def.computes == catalog::Computes::Reshape,
            einsum: None,
            index: 0,
            spec: None,
            elems: None,
            exact: None,
        };
        match def.logic {
            ShapeLogic::Einsum => match string_attr(&op, "spec").map(|s| cache.get(false, s)) {
                Some(Ok(spec)) => owned.einsum = Some(spec),
                Some(Err(e)) => return Err(format!("invalid einsum spec: {e}")),
                None => return Err("requires attribute 'spec'".into()),
            },
            ShapeLogic::BatchSlice => {
                let index = op.attribute("index").ok().and_then(ir::integer_value);
                owned.index = match index {
                    Some(i) => u64::try_from(i).map_err(|_| {
                        format!("attribute 'index' must be a non-negative integer, got {i}")
                    })?,
                    None => return Err("requires a 64-bit integer attribute 'index'".into()),
                };
            }
            ShapeLogic::Terminal if !owned.reshape => {
                owned.spec = match string_attr(&op, "spec").map(|s| parse_shape_spec(&s)) {
                    Some(Ok(spec)) => Some(spec),
                    Some(Err(e)) => return Err(format!("invalid shape spec: {e}")),
                    None => None,
                };
                let value = op.attribute("value").ok().and_then(ir::elements);
                owned.elems = value.map(|v| v.count);
                // Data of rank 2 or more has a shape of its own: the result's
                // axes in memory order (a flat one fixes only the count).
                owned.exact = value
                    .and_then(|v| ir::shaped_dims(v.attr.r#type()))
                    .filter(|dims| dims.len() >= 2)
                    .map(|dims| dims.iter().map(|d| d.unwrap_or(0).max(0) as u64).collect());
            }
            ShapeLogic::Block => match string_attr(&op, "spec").map(|s| cache.get(true, s)) {
                Some(Ok(spec)) => owned.einsum = Some(spec),
                Some(Err(e)) => return Err(format!("invalid block spec: {e}")),
                None => return Err("requires attribute 'spec'".into()),
            },
            _ => {}
        }
        Ok(owned)
    }

    /// The logic for projection inference (terminal attribute shapes play no
    /// part there).
    pub(crate) fn as_projection_logic(&self) -> OpLogic<'_> {
        match self.logic {
            ShapeLogic::PointwiseUn => OpLogic::PointwiseUn,
            ShapeLogic::PointwiseBin => OpLogic::PointwiseBin,
            ShapeLogic::PointwiseTern => OpLogic::PointwiseTern,
            ShapeLogic::Compose => OpLogic::Compose,
            ShapeLogic::ComposeAccumulate => OpLogic::ComposeAccumulate,
            ShapeLogic::Transpose => OpLogic::Transpose,
            ShapeLogic::Einsum => {
                OpLogic::Einsum(self.einsum.as_deref().expect("set by `of` for einsum"))
            }
            ShapeLogic::BatchSlice => OpLogic::BatchSlice { index: self.index },
            ShapeLogic::Terminal if self.reshape => OpLogic::Reshape,
            ShapeLogic::Block => {
                OpLogic::Block(self.einsum.as_deref().expect("set by `of` for block"))
            }
            ShapeLogic::Terminal => OpLogic::Terminal {
                spec: None,
                elems: self.elems,
                exact: self.exact.as_deref(),
            },
        }
    }

    /// The independent checker's view of the logic.
    pub(crate) fn to_check_logic(&self) -> ocannl_shape::check::CheckLogic {
        use ocannl_shape::check::CheckLogic;
        match self.logic {
            ShapeLogic::PointwiseUn => CheckLogic::PointwiseUn,
            ShapeLogic::PointwiseBin => CheckLogic::PointwiseBin,
            ShapeLogic::PointwiseTern => CheckLogic::PointwiseTern,
            ShapeLogic::Compose => CheckLogic::Compose,
            ShapeLogic::ComposeAccumulate => CheckLogic::ComposeAccumulate,
            ShapeLogic::Transpose => CheckLogic::Transpose,
            ShapeLogic::Einsum => CheckLogic::Einsum(
                self.einsum
                    .as_deref()
                    .cloned()
                    .expect("set by `of` for einsum"),
            ),
            ShapeLogic::BatchSlice => CheckLogic::BatchSlice { index: self.index },
            ShapeLogic::Terminal if self.reshape => CheckLogic::Reshape,
            ShapeLogic::Block => CheckLogic::Block(
                self.einsum
                    .as_deref()
                    .cloned()
                    .expect("set by `of` for block"),
            ),
            ShapeLogic::Terminal => CheckLogic::Terminal {
                spec: self.spec.clone(),
                elems: self.elems,
                exact: self.exact.clone(),
            },
        }
    }

    /// The engine's view: the projection logic plus the `spec` attribute's
    /// shape (registered in `problem`) for terminals.
    pub(crate) fn as_logic<'a>(&'a self, problem: &mut Problem) -> OpLogic<'a> {
        match self.as_projection_logic() {
            OpLogic::Terminal { elems, exact, .. } => OpLogic::Terminal {
                spec: self.spec.as_ref().map(|s| problem.shape_from_spec(s, true)),
                elems,
                exact,
            },
            logic => logic,
        }
    }
}
