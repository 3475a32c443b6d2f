//! The schedule of an op as data: the `ocannl.schedule` attribute that
//! `ocannl-plan-schedule` writes and `ocannl-lower-to-affine` obeys (as
//! IREE's `lowering_config`: chosen by a heuristic, obeyed by the code
//! generator, readable, FileCheckable and overridable in the IR). A
//! builtin dictionary, one of:
//!
//! | `kind` | fields | the op's nests |
//! |---|---|---|
//! | `"loops"` | `parallel`? | plain `affine.for` nests, one scalar per iteration; with `parallel = true`, each nest's outermost loop over distinct result cells an `affine.parallel` |
//! | `"cpu"` | `lanes`, `width`, `vector`, `outer`, `unroll`, `reductions`, `k_tile`?, `outer_tile`?, `outer_in_block`?, `split_outer`?, `parallel`? | a [`Plan`]: vector lanes, register block, cache tiles |
//! | `"grid"` | `block` | GPU grids of `block` threads per block, one result cell per thread |
//! | `"tiled"` | `block`, `emulate`? | a GPU matrix product in workgroup memory ([`tiled`]), its other nests grids |
//! | `"epilogue"` | `operand` | none: computed in the nest of the producer of operand `operand` (a fusion group) |
//!
//! A `"cpu"` plan's fields: `lanes = "result" | "reduction"` (which
//! iterator kind carries the vector lanes), `width` (lanes per vector),
//! `vector` (that iterator), `outer = array<i64: ...>` (the parallel
//! iterators looped outside the block, outermost first), `unroll =
//! [array<i64: iterator, factor, tile>, ...]` (the register block's
//! iterators, the first one's point loop outermost; `factor` copies, vectors
//! for the vector iterator; `tile` a cache tile, 0 for none), `reductions =
//! array<i64: ...>` (outermost first), `k_tile = array<i64: iterator,
//! size>` (a reduction tiled for the caches), `outer_tile = size` (the
//! first outer loop tiled, its tile loop outside the reduction's tile loop,
//! its point loop inside; without it the outer loops run inside the
//! reduction's tile loop), `outer_in_block = true` (instead, the outer
//! loops inside the first block iterator's point loop: one block column's
//! operand read along the vector iterator stays in L1 across them),
//! `split_outer = true` (the `outer_tile` loop outermost, the loop the
//! threads share: each takes whole tiles of the first outer loop),
//! `parallel = true` (the first outer, tile or
//! point loop is an `affine.parallel`).
//!
//! What a schedule may say is checked against the op's projections before
//! anything is emitted ([`legal`]): a hand-written schedule is honoured when
//! it is one the emitters can obey, and is a located error otherwise.

pub(crate) mod epilogue;
pub(crate) mod legal;
pub(crate) mod memory;
pub(crate) mod plan;
#[cfg(test)]
mod tests;
pub(crate) mod tiled;

use melior::{
    Context,
    ir::{
        Attribute, Identifier,
        attribute::{
            ArrayAttribute, BoolAttribute, DenseI64ArrayAttribute, DictionaryAttribute,
            IntegerAttribute, StringAttribute,
        },
        operation::{OperationLike, OperationRef},
        r#type::IntegerType,
    },
};
use ocannl_dialect::ir;

use self::plan::{Lanes, Plan, Unrolled};

/// The attribute's name.
pub(crate) const SCHEDULE: &str = "ocannl.schedule";

/// One op's schedule (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Schedule {
    /// Plain loop nests; `parallel`: each nest's outermost loop over the
    /// result's cells an `affine.parallel` where its iterations write
    /// distinct cells (a nest that accumulates stays sequential).
    Loops { parallel: bool },
    /// A CPU plan, its first loop parallel or not.
    Cpu { plan: Plan, parallel: bool },
    /// GPU grids of `block` threads per block.
    Grid { block: u64 },
    /// A tiled GPU matrix product (its other nests grids of `block`
    /// threads per block); `emulate`: the kernel's steps as CPU loops.
    Tiled { block: u64, emulate: bool },
    /// Computed in its producer's nest as an epilogue step on operand
    /// `operand`.
    Epilogue { operand: usize },
}

impl Schedule {
    /// The GPU's threads per block, for a GPU schedule.
    pub(crate) fn gpu_block(&self) -> Option<u64> {
        match self {
            Self::Grid { block } | Self::Tiled { block, .. } => Some(*block),
            _ => None,
        }
    }

    /// The attribute.
    pub(crate) fn to_attribute<'c>(&self, ctx: &'c Context) -> Attribute<'c> {
        let int = |v: u64| -> Attribute<'c> {
            IntegerAttribute::new(
                IntegerType::new(ctx, 64).into(),
                i64::try_from(v).unwrap_or(i64::MAX),
            )
            .into()
        };
        let s = |v: &str| -> Attribute<'c> { StringAttribute::new(ctx, v).into() };
        let ints = |v: &[u64]| -> Attribute<'c> {
            let v: Vec<i64> = v
                .iter()
                .map(|&x| i64::try_from(x).unwrap_or(i64::MAX))
                .collect();
            DenseI64ArrayAttribute::new(ctx, &v).into()
        };
        let us = |v: &[usize]| ints(&v.iter().map(|&x| x as u64).collect::<Vec<_>>());
        let mut fields: Vec<(&str, Attribute<'c>)> = vec![];
        match self {
            Self::Loops { parallel } => {
                fields.push(("kind", s("loops")));
                if *parallel {
                    fields.push(("parallel", BoolAttribute::new(ctx, true).into()));
                }
            }
            Self::Cpu { plan, parallel } => {
                fields.push(("kind", s("cpu")));
                let lanes = match plan.lanes {
                    Lanes::Result => "result",
                    Lanes::Reduction => "reduction",
                };
                fields.push(("lanes", s(lanes)));
                fields.push(("width", int(plan.width)));
                fields.push(("vector", int(plan.vector as u64)));
                fields.push(("outer", us(&plan.outer)));
                let unroll: Vec<Attribute<'c>> = plan
                    .unrolled
                    .iter()
                    .map(|u| ints(&[u.iter as u64, u.factor, u.tile.unwrap_or(0)]))
                    .collect();
                fields.push(("unroll", ArrayAttribute::new(ctx, &unroll).into()));
                fields.push(("reductions", us(&plan.reductions)));
                if let Some((k, size)) = plan.k_tile {
                    fields.push(("k_tile", ints(&[k as u64, size])));
                }
                if let Some(size) = plan.outer_tile {
                    fields.push(("outer_tile", int(size)));
                }
                if plan.outer_in_block {
                    fields.push(("outer_in_block", BoolAttribute::new(ctx, true).into()));
                }
                if plan.split_outer {
                    fields.push(("split_outer", BoolAttribute::new(ctx, true).into()));
                }
                if *parallel {
                    fields.push(("parallel", BoolAttribute::new(ctx, true).into()));
                }
            }
            Self::Grid { block } => {
                fields.push(("kind", s("grid")));
                fields.push(("block", int(*block)));
            }
            Self::Tiled { block, emulate } => {
                fields.push(("kind", s("tiled")));
                fields.push(("block", int(*block)));
                if *emulate {
                    fields.push(("emulate", BoolAttribute::new(ctx, true).into()));
                }
            }
            Self::Epilogue { operand } => {
                fields.push(("kind", s("epilogue")));
                fields.push(("operand", int(*operand as u64)));
            }
        }
        let named: Vec<(Identifier<'c>, Attribute<'c>)> = fields
            .into_iter()
            .map(|(n, a)| (Identifier::new(ctx, n), a))
            .collect();
        DictionaryAttribute::new(ctx, &named).into()
    }

    /// The schedule `op` carries; `Ok(None)` without one.
    ///
    /// # Errors
    ///
    /// A malformed attribute: not a dictionary, an unknown kind, a missing,
    /// mistyped or unknown field. Whether the schedule suits the op is
    /// [`legal`]'s question.
    pub(crate) fn of(op: OperationRef<'_, '_>) -> Result<Option<Self>, String> {
        let Ok(attr) = op.attribute(SCHEDULE) else {
            return Ok(None);
        };
        let bad = |what: String| format!("malformed {SCHEDULE}: {what}");
        let dict = DictionaryAttribute::try_from(attr)
            .map_err(|_| bad("it must be a dictionary with a 'kind'".into()))?;
        let kind = dict
            .element_by_name("kind")
            .and_then(ir::string_value)
            .ok_or_else(|| bad("no string 'kind'".into()))?;
        let allowed = fields_of(&kind).ok_or_else(|| {
            bad(format!(
                "unknown kind '{kind}' (loops, cpu, grid, tiled or epilogue)"
            ))
        })?;
        for i in 0..dict.len() {
            let (name, _) = dict.element(i).map_err(|_| bad("unreadable".into()))?;
            let name = ir::str_of(name.as_string_ref()).into_owned();
            if !allowed.contains(&name.as_str()) {
                return Err(bad(format!("kind '{kind}' has no field '{name}'")));
            }
        }
        let fields = Fields { dict, bad: &bad };
        Ok(Some(match kind.as_str() {
            "loops" => Self::Loops {
                parallel: fields.flag("parallel")?,
            },
            "cpu" => fields.cpu()?,
            "grid" => Self::Grid {
                block: fields.int("block")?,
            },
            "tiled" => Self::Tiled {
                block: fields.int("block")?,
                emulate: fields.flag("emulate")?,
            },
            _ => Self::Epilogue {
                operand: fields.index("operand")?,
            },
        }))
    }
}

/// The fields a schedule of `kind` may have; `None` for an unknown kind.
fn fields_of(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "loops" => &["kind", "parallel"],
        "cpu" => &[
            "kind",
            "lanes",
            "width",
            "vector",
            "outer",
            "unroll",
            "reductions",
            "k_tile",
            "outer_tile",
            "outer_in_block",
            "split_outer",
            "parallel",
        ],
        "grid" => &["kind", "block"],
        "tiled" => &["kind", "block", "emulate"],
        "epilogue" => &["kind", "operand"],
        _ => return None,
    })
}

/// Typed reads of a schedule dictionary's fields.
struct Fields<'d, 'c> {
    dict: DictionaryAttribute<'c>,
    bad: &'d dyn Fn(String) -> String,
}

impl Fields<'_, '_> {
    /// A `cpu` schedule: its plan and parallel flag.
    fn cpu(&self) -> Result<Schedule, String> {
        let bad = self.bad;
        let lanes = match self.string("lanes")?.as_str() {
            "result" => Lanes::Result,
            "reduction" => Lanes::Reduction,
            other => {
                return Err(bad(format!(
                    "'lanes' must be \"result\" or \"reduction\" (got \"{other}\")"
                )));
            }
        };
        let vector = self.index("vector")?;
        let unrolled = self
            .arrays("unroll")?
            .into_iter()
            .map(|u| match u[..] {
                [iter, factor, tile] => Ok(Unrolled {
                    iter: usize::try_from(iter).unwrap_or(usize::MAX),
                    factor,
                    lanes: lanes == Lanes::Result && iter == vector as u64,
                    tile: (tile > 0).then_some(tile),
                }),
                _ => Err(bad(
                    "each 'unroll' entry must be array<i64: iterator, factor, tile>".into(),
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let k_tile = match self.optional_ints("k_tile")? {
            None => None,
            Some(v) => match v[..] {
                [k, size] => Some((usize::try_from(k).unwrap_or(usize::MAX), size)),
                _ => return Err(bad("'k_tile' must be array<i64: iterator, size>".into())),
            },
        };
        let plan = Plan {
            lanes,
            width: self.int("width")?,
            vector,
            outer: self.indices("outer")?,
            unrolled,
            reductions: self.indices("reductions")?,
            k_tile,
            outer_tile: self.optional_int("outer_tile")?,
            outer_in_block: self.flag("outer_in_block")?,
            split_outer: self.flag("split_outer")?,
            // Derived from the projections by `legal::check_plan`.
            block_contiguous: false,
        };
        Ok(Schedule::Cpu {
            plan,
            parallel: self.flag("parallel")?,
        })
    }

    fn get(&self, name: &str) -> Result<Attribute<'_>, String> {
        self.dict
            .element_by_name(name)
            .ok_or_else(|| (self.bad)(format!("no '{name}'")))
    }

    fn string(&self, name: &str) -> Result<String, String> {
        ir::string_value(self.get(name)?)
            .ok_or_else(|| (self.bad)(format!("'{name}' must be a string")))
    }

    /// A non-negative integer.
    fn int(&self, name: &str) -> Result<u64, String> {
        IntegerAttribute::try_from(self.get(name)?)
            .ok()
            .and_then(|i| u64::try_from(i.value()).ok())
            .ok_or_else(|| (self.bad)(format!("'{name}' must be a non-negative integer")))
    }

    fn optional_int(&self, name: &str) -> Result<Option<u64>, String> {
        match self.dict.element_by_name(name) {
            None => Ok(None),
            Some(_) => self.int(name).map(Some),
        }
    }

    fn index(&self, name: &str) -> Result<usize, String> {
        self.int(name)
            .map(|v| usize::try_from(v).unwrap_or(usize::MAX))
    }

    fn flag(&self, name: &str) -> Result<bool, String> {
        match self.dict.element_by_name(name) {
            None => Ok(false),
            Some(a) => BoolAttribute::try_from(a)
                .map(|b| b.value())
                .map_err(|_| (self.bad)(format!("'{name}' must be true or false"))),
        }
    }

    fn ints_of(&self, name: &str, a: Attribute<'_>) -> Result<Vec<u64>, String> {
        let arr = DenseI64ArrayAttribute::try_from(a)
            .map_err(|_| (self.bad)(format!("'{name}' must be an array<i64: ...>")))?;
        (0..arr.len())
            .map(|i| {
                arr.element(i)
                    .ok()
                    .and_then(|v| u64::try_from(v).ok())
                    .ok_or_else(|| (self.bad)(format!("'{name}' holds a negative number")))
            })
            .collect()
    }

    fn optional_ints(&self, name: &str) -> Result<Option<Vec<u64>>, String> {
        self.dict
            .element_by_name(name)
            .map(|a| self.ints_of(name, a))
            .transpose()
    }

    fn indices(&self, name: &str) -> Result<Vec<usize>, String> {
        Ok(self
            .ints_of(name, self.get(name)?)?
            .into_iter()
            .map(|v| usize::try_from(v).unwrap_or(usize::MAX))
            .collect())
    }

    fn arrays(&self, name: &str) -> Result<Vec<Vec<u64>>, String> {
        let arr = ArrayAttribute::try_from(self.get(name)?)
            .map_err(|_| (self.bad)(format!("'{name}' must be an array")))?;
        (0..arr.len())
            .map(|i| {
                let a = arr
                    .element(i)
                    .map_err(|_| (self.bad)(format!("unreadable '{name}'")))?;
                self.ints_of(name, a)
            })
            .collect()
    }
}

/// Sets `op`'s schedule.
pub(crate) fn attach<'c>(ctx: &'c Context, op: OperationRef<'c, '_>, s: &Schedule) {
    ir::set_discardable_attribute(op, SCHEDULE, s.to_attribute(ctx));
}
