//! A fusion group's epilogue ([`Step`]s) applied to a value before it is
//! stored: each step's function, a binary step's other operand loaded at
//! the result's cell (a vector of it along the contiguous axis, else a
//! cell broadcast to the lanes), each such cell loaded once.

use std::collections::{HashMap, hash_map::Entry};

use melior::ir::{Location, Type, Value, ValueLike};
use ocannl_shape::projection::AxisIndex;

use super::{At, Cell, Emitter};
use crate::{buffers::element_of, schedule::epilogue::Step};

impl<'c> Emitter<'c> {
    /// `v` (of type `ty`: an element or a vector along the result's
    /// contiguous axis) through `steps`, at the result's cell `result`.
    pub(in crate::lower_to_affine) fn epilogue<'a>(
        &self,
        at: At<'c, 'a>,
        steps: &[Step<'c, 'a>],
        result: Cell<'_, 'c, 'a>,
        mut v: Value<'c, 'a>,
        ty: Type<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        // An operand cell read by several steps (`x + b + b + ...`) is loaded
        // once: the chain stores nothing, so the cell cannot change. (Left
        // to upstream `cse`, thousands of identical loads in one block cost
        // it a scan between each pair: quadratic.)
        let mut loaded: HashMap<(usize, bool, Vec<AxisIndex>), Value<'c, 'a>> = HashMap::new();
        for s in steps {
            let Some(o) = &s.other else {
                v = self.compute(at, &s.f, ty, &[v], loc)?;
                continue;
            };
            // The other operand's indices at the result's cell.
            let indices: Vec<AxisIndex> = o
                .indices
                .iter()
                .map(|a| match a {
                    AxisIndex::Iter(j) => result.indices[*j].clone(),
                    a => a.clone(),
                })
                .collect();
            let elem = element_of(o.value);
            let lanes = ty != elem;
            let pad = self.scalar_attr(elem, 0.0);
            let w = match loaded.entry((o.value.to_raw().ptr as usize, o.along, indices)) {
                Entry::Occupied(e) => *e.get(),
                Entry::Vacant(e) => {
                    let cell = Cell {
                        indices: &e.key().2,
                        ..result
                    };
                    let w = if lanes && o.along {
                        self.operand_load(at, o.value, cell, pad, Some(ty), loc)
                    } else {
                        let w = self.operand_load(at, o.value, cell, pad, None, loc);
                        if lanes {
                            self.broadcast(at, w, ty, loc)
                        } else {
                            w
                        }
                    };
                    *e.insert(w)
                }
            };
            let args = if o.first { [w, v] } else { [v, w] };
            v = self.compute(at, &s.f, ty, &args, loc)?;
        }
        Ok(v)
    }
}
