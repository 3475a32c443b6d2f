//! Recurrent layers: ONNX `RNN`, `GRU` and `LSTM`, unrolled over a sequence
//! whose length is known at import (onnx.ai/onnx/operators).
//!
//! The weights are read as gate blocks by reshapes (`W` of `[D, G*H, I]`
//! viewed as `[D, G, H, I]`, `B` as `[D, 2, G, H]`, `P` as `[D, 3, H]`,
//! `D` directions, `G` gates), so they may be graph inputs. Per
//! direction, the input projection of every step is one einsum (`X` with
//! `W`, the biases added); each step then reads its gates at fixed
//! indices (`t,b,g,h`), adds the recurrent product (`H` with `R`) and
//! applies the activations (`act`) as pointwise ops on `[B, H]` (`cell`).
//! The steps' states, each viewed with a size-1 axis, are concatenated
//! into `Y`, `Y_h` and `Y_c`.

mod act;
mod cell;

use super::axes::Layout;
use super::elementwise::with_rank;
use super::shape_values::sym::Sym;
use super::{Attrs, R, Translator, Val};
use crate::proto::{NodeProto, attribute_proto::AttributeType as K};
use crate::tensor::Elem;
use act::Act;

/// The longest sequence unrolled at import: each step is a handful of
/// ops, so a longer one would build a module too large to compile (and a
/// hostile length would exhaust memory before any error).
pub(super) const MAX_STEPS: i64 = 4096;

/// The attributes of the ops this module translates (see
/// `attrs::known`); `None`: not one of them.
pub(super) fn known(op: &str) -> Option<&'static [(&'static str, K)]> {
    use K::{Float, Floats, Int, String, Strings};
    Some(match op {
        "RNN" => &[
            ("activation_alpha", Floats),
            ("activation_beta", Floats),
            ("activations", Strings),
            ("clip", Float),
            ("direction", String),
            ("hidden_size", Int),
            ("layout", Int),
            ("output_sequence", Int),
        ],
        "GRU" => &[
            ("activation_alpha", Floats),
            ("activation_beta", Floats),
            ("activations", Strings),
            ("clip", Float),
            ("direction", String),
            ("hidden_size", Int),
            ("layout", Int),
            ("linear_before_reset", Int),
            ("output_sequence", Int),
        ],
        "LSTM" => &[
            ("activation_alpha", Floats),
            ("activation_beta", Floats),
            ("activations", Strings),
            ("clip", Float),
            ("direction", String),
            ("hidden_size", Int),
            ("input_forget", Int),
            ("layout", Int),
            ("output_sequence", Int),
        ],
        _ => return None,
    })
}

/// Which recurrent op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Rnn,
    Gru,
    Lstm,
}

impl Kind {
    /// The gate blocks of `W`, `R` and each half of `B`.
    fn gates(self) -> u64 {
        match self {
            Kind::Rnn => 1,
            Kind::Gru => 3,
            Kind::Lstm => 4,
        }
    }

    /// The activations of one direction.
    fn acts(self) -> usize {
        match self {
            Kind::Rnn => 1,
            Kind::Gru => 2,
            Kind::Lstm => 3,
        }
    }
}

/// A node's settings and sizes (sizes as spec tokens: a number or a
/// dimension variable).
struct Cell {
    kind: Kind,
    /// Per direction, whether it runs from the last step back.
    reverse: Vec<bool>,
    hidden: u64,
    seq: u64,
    batch: String,
    input: String,
    /// `layout = 1`: `X` is `[B, S, I]`, the states `[B, D, H]`.
    batchwise: bool,
    clip: Option<f64>,
    /// `kind.acts()` per direction, the directions in turn.
    acts: Vec<Act>,
    linear_before_reset: bool,
    input_forget: bool,
    elem: Elem,
}

impl Cell {
    /// The spec of one state, `[B, H]`.
    fn bh(&self) -> String {
        format!("{},{}", self.batch, self.hidden)
    }

    fn dirs(&self) -> u64 {
        self.reverse.len() as u64
    }

    /// The spec of a rank-3 value `[mid, B, H]` (`[B, mid, H]` batchwise).
    fn row3(&self, mid: impl std::fmt::Display) -> String {
        if self.batchwise {
            format!("{},{mid},{}", self.batch, self.hidden)
        } else {
            format!("{mid},{},{}", self.batch, self.hidden)
        }
    }
}

/// The weights, viewed as gate blocks.
struct Weights {
    w: Val,
    r: Val,
    b: Option<Val>,
    p: Option<Val>,
    h0: Option<Val>,
    c0: Option<Val>,
}

impl Translator {
    /// Translates `node` when its op is one of this module's; `false`
    /// otherwise.
    pub(super) fn recurrent(&mut self, node: &NodeProto, op: &str) -> R<bool> {
        let kind = match op {
            "RNN" => Kind::Rnn,
            "GRU" => Kind::Gru,
            "LSTM" => Kind::Lstm,
            _ => return Ok(false),
        };
        let c = self.cell(node, kind, op)?;
        let ws = self.weights(node, &c)?;
        let x = self.input(node, 0)?;
        let mut runs = Vec::new();
        for (di, &rev) in c.reverse.iter().enumerate() {
            runs.push(self.direction(&c, &ws, &x, di, rev)?);
        }
        self.outputs(node, &c, &runs)?;
        Ok(true)
    }

    /// Reads the attributes and the sizes, and checks every input's
    /// shape where known.
    fn cell(&mut self, node: &NodeProto, kind: Kind, op: &str) -> R<Cell> {
        let at = Attrs::of(node);
        let dir = at.string("direction").unwrap_or_else(|| "forward".into());
        let reverse = match dir.as_str() {
            "forward" => vec![false],
            "reverse" => vec![true],
            "bidirectional" => vec![false, true],
            d => {
                return self.err(format!(
                    "direction '{d}' (forward, reverse or bidirectional)"
                ));
            }
        };
        let batchwise = match at.int("layout").unwrap_or(0) {
            0 => false,
            1 => true,
            l => return self.err(format!("layout {l} (0 or 1)")),
        };
        let input_forget = match at.int("input_forget").unwrap_or(0) {
            0 => false,
            1 => true,
            v => return self.err(format!("input_forget {v} (0 or 1)")),
        };
        let linear_before_reset = at.int("linear_before_reset").unwrap_or(0) != 0;
        let clip = match at.float("clip") {
            None => None,
            Some(c) if c > 0.0 => Some(f64::from(c)),
            Some(c) => return self.err(format!("clip {c} (a positive threshold)")),
        };
        let hidden = match at.int("hidden_size") {
            // Bounded: the gates' rows (up to 8 * hidden) stay far from
            // 64 bits.
            Some(h) if (1..=1 << 40).contains(&h) => Some(h as u64),
            Some(h) => return self.err(format!("hidden_size {h} (from 1 to 2^40)")),
            None => None,
        };
        let acts = self.activations(node, kind, reverse.len())?;
        let (seq, batch, input) = self.x_sizes(node, batchwise, op)?;
        let x = self.input(node, 0)?;
        if !x.elem.is_float() {
            return self.err(format!(
                "{op} takes floating-point tensors, X is {}",
                x.elem.mlir()
            ));
        }
        let mut c = Cell {
            kind,
            reverse,
            hidden: 0,
            seq,
            batch,
            input,
            batchwise,
            clip,
            acts,
            linear_before_reset,
            input_forget,
            elem: x.elem,
        };
        c.hidden = self.hidden_size(node, &c, hidden)?;
        self.check_shapes(node, &c)?;
        self.check_lengths(node, &c, op)?;
        Ok(c)
    }

    /// The activations of every direction (the `activations` attribute, or
    /// the defaults), with their parameters.
    fn activations(&self, node: &NodeProto, kind: Kind, dirs: usize) -> R<Vec<Act>> {
        let named = |n: &str| node.attribute.iter().find(|a| a.name.as_deref() == Some(n));
        let names: Vec<String> = match named("activations") {
            Some(a) => a
                .strings
                .iter()
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect(),
            None => (0..dirs).flat_map(|_| act::defaults(kind.acts())).collect(),
        };
        if names.len() != kind.acts() * dirs {
            return self.err(format!(
                "{} activations for {dirs} direction(s): {} are needed",
                names.len(),
                kind.acts() * dirs
            ));
        }
        let at = Attrs::of(node);
        let alphas = at.floats("activation_alpha").unwrap_or_default();
        let betas = at.floats("activation_beta").unwrap_or_default();
        act::parse(&names, &alphas, &betas).map_err(|m| self.error(m))
    }

    /// `X`'s sequence length (a number: required), batch and input sizes
    /// (numbers or dimension variables).
    fn x_sizes(&mut self, node: &NodeProto, batchwise: bool, op: &str) -> R<(u64, String, String)> {
        let x = self.input(node, 0)?;
        let name = node.input[0].clone();
        // Known dims, else the shape the file records (checked against
        // the solved one), else those a shape computation would read.
        let known = x
            .shape
            .clone()
            .or_else(|| self.declared.get(&name).cloned());
        let dims: Vec<Sym> = match known {
            Some(d) => d.iter().map(|&n| Sym::Num(n as i64)).collect(),
            None => self.dims_of(&name).map_err(|_| {
                self.error(format!(
                    "{op} is unrolled over the sequence, whose length must be known at import; X's shape is not known (not supported)"
                ))
            })?,
        };
        if dims.len() != 3 {
            return self.err(format!("X must be 3-D, it has {} axes", dims.len()));
        }
        let (s, b) = if batchwise { (1, 0) } else { (0, 1) };
        let seq = match dims[s].num() {
            Some(n) if n > MAX_STEPS => {
                return self.err(format!(
                    "{op} is unrolled over the sequence; its length {n} is past the limit of {MAX_STEPS} steps (not supported)"
                ));
            }
            Some(n) if n >= 1 => n as u64,
            _ => {
                return self.err(format!(
                    "{op} is unrolled over the sequence, whose length must be known at import; X's axis {s} is {} (a symbolic sequence length is not supported)",
                    dims[s]
                ));
            }
        };
        let mut token = |d: &Sym| match d {
            Sym::Num(n) => n.to_string(),
            Sym::Dim(v) => v.clone(),
            Sym::Op(..) => self.fresh_var(),
        };
        let batch = token(&dims[b]);
        let input = token(&dims[2]);
        Ok((seq, batch, input))
    }

    /// `hidden_size`, else `R`'s last dim (or `W`'s gate rows), when
    /// known.
    fn hidden_size(&mut self, node: &NodeProto, c: &Cell, given: Option<u64>) -> R<u64> {
        if let Some(h) = given {
            return Ok(h);
        }
        let r = self.input(node, 2)?;
        if let Some(d) = r.shape.as_ref().filter(|d| d.len() == 3 && d[2] <= 1 << 40) {
            return Ok(d[2]);
        }
        let w = self.input(node, 1)?;
        if let Some(d) = w.shape.as_ref().filter(|d| d.len() == 3)
            && d[1] % c.kind.gates() == 0
        {
            return Ok(d[1] / c.kind.gates());
        }
        self.err("the hidden size is not known (no hidden_size, and R's shape is not known): not supported")
    }

    /// Each input's rank and known dims against the sizes.
    fn check_shapes(&mut self, node: &NodeProto, c: &Cell) -> R<()> {
        let (d, g, h) = (c.dirs(), c.kind.gates(), c.hidden);
        let num = |s: &str| s.parse::<u64>().ok();
        let (b, i) = (num(&c.batch), num(&c.input));
        let state = if c.batchwise {
            [b, Some(d), Some(h)]
        } else {
            [Some(d), b, Some(h)]
        };
        let expect: [(usize, &str, Vec<Option<u64>>); 7] = [
            (1, "W", vec![Some(d), Some(g * h), i]),
            (2, "R", vec![Some(d), Some(g * h), Some(h)]),
            (3, "B", vec![Some(d), Some(2 * g * h)]),
            (4, "sequence_lens", vec![b]),
            (5, "initial_h", state.to_vec()),
            (6, "initial_c", state.to_vec()),
            (7, "P", vec![Some(d), Some(3 * h)]),
        ];
        for (k, what, want) in expect {
            if (k == 6 || k == 7) && c.kind != Kind::Lstm {
                if node.input.get(k).is_some_and(|n| !n.is_empty()) {
                    return self.err(format!("input #{k} is not an input of this op"));
                }
                continue;
            }
            let Some(v) = self.opt_input(node, k)? else {
                continue;
            };
            let rank = v.shape.as_ref().map(Vec::len).or(v.rank);
            if let Some(r) = rank.filter(|&r| r != want.len()) {
                return self.err(format!("{what} must have {} axes, it has {r}", want.len()));
            }
            if let Some(dims) = &v.shape
                && dims
                    .iter()
                    .zip(&want)
                    .any(|(x, w)| w.is_some_and(|w| w != *x))
            {
                let shown: Vec<String> = want
                    .iter()
                    .map(|w| w.map_or("?".into(), |n| n.to_string()))
                    .collect();
                return self.err(format!(
                    "{what} has dims {dims:?}, expected [{}]",
                    shown.join(", ")
                ));
            }
        }
        Ok(())
    }

    /// `sequence_lens`: absent, or a constant whose every length is the
    /// sequence length (shorter sequences are not supported).
    fn check_lengths(&self, node: &NodeProto, c: &Cell, op: &str) -> R<()> {
        if node.input.get(4).is_none_or(|n| n.is_empty()) {
            return Ok(());
        }
        let unsupported = format!(
            "{op} with sequence_lens other than a constant of lengths {} (the sequence length) is not supported",
            c.seq
        );
        match self.const_ints(node, 4) {
            Ok(Some(l)) if l.iter().all(|&n| n == c.seq as i64) => Ok(()),
            _ => self.err(unsupported),
        }
    }

    /// The weights as gate blocks, and the initial states.
    fn weights(&mut self, node: &NodeProto, c: &Cell) -> R<Weights> {
        let (d, g, h) = (c.dirs(), c.kind.gates(), c.hidden);
        let view = |t: &mut Self, k: usize, spec: String| -> R<Option<Val>> {
            let Some(v) = t.opt_input(node, k)? else {
                return Ok(None);
            };
            let rank = spec.split(',').count();
            let r = t.emit("reshape", &[&v], "", c.elem, spec, None);
            Ok(Some(with_rank(r, Some(rank))))
        };
        let w = view(self, 1, format!("{d},{g},{h},{}", c.input))?;
        let r = view(self, 2, format!("{d},{g},{h},{h}"))?;
        let b = view(self, 3, format!("{d},2,{g},{h}"))?;
        let p = if c.kind == Kind::Lstm {
            view(self, 7, format!("{d},3,{h}"))?
        } else {
            None
        };
        let (Some(w), Some(r)) = (w, r) else {
            return self.err("W and R are required");
        };
        let h0 = self.opt_input(node, 5)?;
        let c0 = if c.kind == Kind::Lstm {
            self.opt_input(node, 6)?
        } else {
            None
        };
        Ok(Weights { w, r, b, p, h0, c0 })
    }

    /// Binds `Y`, `Y_h` and `Y_c` (those the node names) from each
    /// direction's run.
    fn outputs(&mut self, node: &NodeProto, c: &Cell, runs: &[cell::Run]) -> R<()> {
        let named = |i: usize| node.output.get(i).is_some_and(|n| !n.is_empty());
        // The axis of steps and directions in the rank-3 views.
        let lay3 = Layout::new(&[i64::from(c.batchwise)], Some(3)).map_err(|m| self.error(m))?;
        let lay4 =
            Layout::new(&[i64::from(c.batchwise) + 1], Some(4)).map_err(|m| self.error(m))?;
        if named(0) {
            let mut parts = Vec::new();
            for run in runs {
                let steps: Vec<Val> = run.hs.iter().map(|h| self.lift(c, h)).collect();
                let refs: Vec<&Val> = steps.iter().collect();
                let y = self.join(&lay3, &refs, c.row3(c.seq));
                let (from, to, spec) = if c.batchwise {
                    (
                        "b,s,h",
                        "b,s,0,h",
                        format!("{},{},1,{}", c.batch, c.seq, c.hidden),
                    )
                } else {
                    (
                        "s,b,h",
                        "s,0,b,h",
                        format!("{},1,{},{}", c.seq, c.batch, c.hidden),
                    )
                };
                let v = self.einsum(&format!("{from} => {to}"), &[&y], None, None, spec);
                parts.push(v);
            }
            let refs: Vec<&Val> = parts.iter().collect();
            let spec = if c.batchwise {
                format!("{},{},{},{}", c.batch, c.seq, c.dirs(), c.hidden)
            } else {
                format!("{},{},{},{}", c.seq, c.dirs(), c.batch, c.hidden)
            };
            let y = self.join(&lay4, &refs, spec.clone());
            self.bind(node, 0, sized(y, &spec));
        }
        for (i, last) in [(1, false), (2, true)] {
            if !named(i) || (last && c.kind != Kind::Lstm) {
                continue;
            }
            let mut parts = Vec::new();
            for run in runs {
                let v = if last { run.c.as_ref() } else { run.h.as_ref() };
                let Some(v) = v else {
                    return self.err("a state with no step (not supported)");
                };
                parts.push(self.lift(c, v));
            }
            let refs: Vec<&Val> = parts.iter().collect();
            let spec = c.row3(c.dirs());
            let v = self.join(&lay3, &refs, spec.clone());
            self.bind(node, i, sized(v, &spec));
        }
        Ok(())
    }

    /// A state `[B, H]` viewed as `[1, B, H]` (`[B, 1, H]` batchwise).
    fn lift(&mut self, c: &Cell, h: &Val) -> Val {
        let to = if c.batchwise { "b,0,h" } else { "0,b,h" };
        let v = self.einsum(&format!("b,h => {to}"), &[h], None, None, c.row3(1));
        with_rank(v, Some(3))
    }

    /// `parts` concatenated along the selected axis of `lay` (one part:
    /// itself).
    fn join(&mut self, lay: &Layout, parts: &[&Val], spec: String) -> Val {
        if let [one] = parts {
            return (*one).clone();
        }
        self.concat_along(lay, parts, spec)
    }
}

/// `v` with the rank of `spec`, and its dims when every one is a number
/// (for the ops that read them at import).
fn sized(mut v: Val, spec: &str) -> Val {
    let dims: Vec<Option<u64>> = spec.split(',').map(|d| d.parse().ok()).collect();
    v.rank = Some(dims.len());
    v.shape = dims.into_iter().collect();
    v
}
