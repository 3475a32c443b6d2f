//! The shape logic of an ocannl op as the engine sees it: the shape
//! crate's one logic type ([`ocannl_shape::logic::Logic`]) built from the
//! catalog's kind and the attribute values it needs (einsum and block
//! specs, the `batch_slice` index, a constant's spec, element count and
//! data shape), shared by every pass that reads ops (verify, infer-shapes,
//! check-shapes, projections, lowering).

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
    check::CheckLogic,
    logic::Logic,
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
/// owned: the shape crate's one [`Logic`] type, read from the op once and
/// lent to the problem builder, projection inference and the checker.
pub(crate) struct OwnedLogic(Logic<ShapeSpec, Rc<EinsumSpec>, Vec<u64>>);

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
        let logic = match def.logic {
            ShapeLogic::PointwiseUn => Logic::PointwiseUn,
            ShapeLogic::PointwiseBin => Logic::PointwiseBin,
            ShapeLogic::PointwiseTern => Logic::PointwiseTern,
            ShapeLogic::Compose => Logic::Compose,
            ShapeLogic::ComposeAccumulate => Logic::ComposeAccumulate,
            ShapeLogic::Transpose => Logic::Transpose,
            ShapeLogic::Einsum => match string_attr(&op, "spec").map(|s| cache.get(false, s)) {
                Some(Ok(spec)) => Logic::Einsum(spec),
                Some(Err(e)) => return Err(format!("invalid einsum spec: {e}")),
                None => return Err("requires attribute 'spec'".into()),
            },
            ShapeLogic::Block => match string_attr(&op, "spec").map(|s| cache.get(true, s)) {
                Some(Ok(spec)) => Logic::Block(spec),
                Some(Err(e)) => return Err(format!("invalid block spec: {e}")),
                None => return Err("requires attribute 'spec'".into()),
            },
            ShapeLogic::BatchSlice => {
                let index = op.attribute("index").ok().and_then(ir::integer_value);
                let index = match index {
                    Some(i) => u64::try_from(i).map_err(|_| {
                        format!("attribute 'index' must be a non-negative integer, got {i}")
                    })?,
                    None => return Err("requires a 64-bit integer attribute 'index'".into()),
                };
                Logic::BatchSlice { index }
            }
            // ODS: a reshape is a terminal whose shape comes from its operand.
            ShapeLogic::Terminal if def.computes == catalog::Computes::Reshape => Logic::Reshape,
            ShapeLogic::Terminal => terminal(op)?,
        };
        Ok(OwnedLogic(logic))
    }

    /// The logic for projection inference (terminal attribute shapes play no
    /// part there).
    pub(crate) fn as_projection_logic(&self) -> Logic<&ShapeSpec, &EinsumSpec, &[u64]> {
        self.0.as_ref().map(|s| s, |e| &**e, |d| d.as_slice())
    }

    /// The independent checker's view of the logic.
    pub(crate) fn to_check_logic(&self) -> CheckLogic {
        self.0
            .as_ref()
            .map(ShapeSpec::clone, |e| EinsumSpec::clone(e), Vec::clone)
    }

    /// The engine's view: the `spec` attribute's shape of a terminal
    /// registered in `problem`.
    pub(crate) fn as_logic<'a>(&'a self, problem: &mut Problem) -> OpLogic<'a> {
        self.0.as_ref().map(
            |s| problem.shape_from_spec(s, true),
            |e| &**e,
            |d| d.as_slice(),
        )
    }
}

/// A terminal's `spec` attribute and the element count and shape of its
/// `value`.
fn terminal(
    op: OperationRef<'_, '_>,
) -> Result<Logic<ShapeSpec, Rc<EinsumSpec>, Vec<u64>>, String> {
    let spec = match string_attr(&op, "spec").map(|s| parse_shape_spec(&s)) {
        Some(Ok(spec)) => Some(spec),
        Some(Err(e)) => return Err(format!("invalid shape spec: {e}")),
        None => None,
    };
    let value = op.attribute("value").ok().and_then(ir::elements);
    // Data of rank 2 or more has a shape of its own: the result's axes in
    // memory order (a flat one fixes only the count).
    let exact = value
        .and_then(|v| ir::shaped_dims(v.attr.r#type()))
        .filter(|dims| dims.len() >= 2)
        .map(|dims| dims.iter().map(|d| d.unwrap_or(0).max(0) as u64).collect());
    Ok(Logic::Terminal {
        spec,
        elems: value.map(|v| v.count),
        exact,
    })
}
