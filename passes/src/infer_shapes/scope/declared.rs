//! Declared shapes as checks: an op may carry `ocannl.declared_shape =
//! "SPEC"`, the shape its result must have once solved. The constraint is
//! checked, never added: OCANNL's broadcasting is an inequality (a
//! pointwise result is at least its operands' shapes, reference:
//! ocannl-shape-inference.md, "Broadcasting"), so a stated result type may
//! widen an op (`[1,3] + [1,3]` typed `[4,3]` broadcasts to `[4,3]`), while
//! a declared shape only confirms what the op computes. Importers state
//! the shapes a file records this way (ONNX's `value_info` and graph
//! outputs, see `ocannl-onnx`): a record that contradicts the op's
//! semantics is an error at the op, with a note at each operand's producer
//! and its solved shape, instead of a silently different result.

use melior::ir::operation::{OperationLike, OperationResult};
use ocannl_dialect::{diagnostics::emit_error, ir};
use ocannl_shape::{
    problem::{Namer, ShapeId},
    spec::parse_shape_spec,
};

use super::{Scope, key};

/// The discardable attribute holding a declared result shape.
pub(crate) const DECLARED_SHAPE: &str = "ocannl.declared_shape";

impl<'c, 'a> Scope<'c, 'a> {
    /// The solved spec of `shape` as text, and whether it is concrete
    /// (`namer` built once per check: it indexes every variable's name).
    fn solved_text(&self, namer: &Namer<'_>, shape: ShapeId) -> (String, bool) {
        let text = namer.spec(shape, &self.problem.shape(shape)).to_string();
        let concrete = self.problem.concrete_key(shape, &mut Vec::new());
        (text, concrete)
    }

    /// Checks every op's declared result shape against the solution (after
    /// closing); reports each mismatch and returns whether all held. A
    /// solved shape with variables left (an unbound symbolic size) cannot
    /// be compared and passes.
    pub(super) fn check_declared(&self) -> bool {
        let mut ok = true;
        let mut namer = None;
        for &op in &self.ops {
            let Ok(attr) = op.attribute(DECLARED_SHAPE) else {
                continue;
            };
            let Some(declared) = ir::string_value(attr) else {
                emit_error(
                    op.location(),
                    &format!("attribute '{DECLARED_SHAPE}' must be a string, got {attr}"),
                    &[],
                );
                ok = false;
                continue;
            };
            let want = match parse_shape_spec(&declared) {
                Ok(s) => s.to_string(),
                Err(e) => {
                    emit_error(
                        op.location(),
                        &format!("attribute '{DECLARED_SHAPE}' = \"{declared}\": {e}"),
                        &[],
                    );
                    ok = false;
                    continue;
                }
            };
            let Some(result) = op
                .result(0)
                .ok()
                .and_then(|r| self.by_value.get(&key(r.into())))
            else {
                continue;
            };
            let namer = namer.get_or_insert_with(|| self.problem.namer());
            let (got, concrete) = self.solved_text(namer, self.values[*result].shape);
            if !concrete || got == want {
                continue;
            }
            let mut notes = Vec::new();
            let mut producers = Vec::new();
            for (i, operand) in op.operands().enumerate() {
                let Ok(produced) = OperationResult::try_from(operand) else {
                    continue;
                };
                // One note per producer.
                if producers.contains(&produced.owner()) {
                    continue;
                }
                producers.push(produced.owner());
                let Some(&v) = self.by_value.get(&key(operand)) else {
                    continue;
                };
                let (shape, _) = self.solved_text(namer, self.values[v].shape);
                notes.push((
                    produced.owner().location(),
                    format!("operand #{i} is produced here, with shape \"{shape}\""),
                ));
            }
            emit_error(
                op.location(),
                &format!(
                    "the result's declared shape \"{want}\" is not the shape the op computes, \"{got}\""
                ),
                &notes,
            );
            ok = false;
        }
        ok
    }
}
