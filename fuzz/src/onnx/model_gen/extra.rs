//! The dispatcher of the op families added with issue 40 (element types,
//! composite ops, recurrent ops, shape computations, `If`), with the
//! helpers they share: intermediate nodes that do not join the values,
//! exact values, typed initializers.

use ocannl_onnx::proto::{AttributeProto, tensor_proto::DataType};

use super::{Builder, Value, attr_i, int_tensor};

/// The families and their weights.
const EXTRA: &[(&str, u32)] = &[
    ("compare", 5),
    ("is-special", 2),
    ("mod", 2),
    ("rounding", 3),
    ("bitwise", 4),
    ("cast", 2),
    ("trig", 4),
    ("activation", 5),
    ("slice", 3),
    ("pad", 3),
    ("expand", 2),
    ("tile", 2),
    ("trilu", 2),
    ("eye-like", 1),
    ("space-depth", 5),
    ("reduce", 3),
    ("instance-norm", 2),
    ("group-norm", 2),
    ("rms-norm", 5),
    ("mvn", 1),
    ("lp-norm", 1),
    ("einsum", 3),
    ("conv-transpose", 3),
    ("resize", 3),
    ("recurrent", 4),
    ("range", 2),
    ("shape-reshape", 4),
    ("gather-run-time", 2),
    ("scatter", 3),
    ("stateful", 3),
    ("if", 3),
    ("scan", 2),
    ("integer-ops", 4),
];

/// `DataType` codes.
pub(super) const FLOAT: i32 = DataType::Float as i32;
pub(super) const INT64: i32 = DataType::Int64 as i32;
pub(super) const BOOL: i32 = DataType::Bool as i32;

impl Builder<'_> {
    /// One node of a family added with issue 40; false when it does not
    /// apply.
    pub(super) fn extra(&mut self) -> bool {
        let weights: Vec<u32> = EXTRA.iter().map(|o| o.1).collect();
        match EXTRA[self.rng.weighted(&weights)].0 {
            "compare" => self.compare(),
            "is-special" => self.is_special(),
            "mod" => self.modulo(),
            "rounding" => self.rounding(),
            "bitwise" => self.bitwise(),
            "cast" => self.cast_round_trip(),
            "trig" => self.trig(),
            "activation" => self.activation(),
            "slice" => self.slice(),
            "pad" => self.pad(),
            "expand" => self.expand(),
            "tile" => self.tile(),
            "trilu" => self.trilu(),
            "eye-like" => self.eye_like(),
            "space-depth" => self.space_depth(),
            "reduce" => self.reduce_more(),
            "instance-norm" => self.instance_norm(),
            "group-norm" => self.group_norm(),
            "rms-norm" => self.rms_norm(),
            "mvn" => self.mvn(),
            "lp-norm" => self.lp_norm(),
            "einsum" => self.einsum(),
            "conv-transpose" => self.conv_transpose(),
            "resize" => self.resize(),
            "recurrent" => self.recurrent(),
            "range" => self.range(),
            "shape-reshape" => self.shape_reshape(),
            "gather-run-time" => self.gather_run_time(),
            "scatter" => self.scatter(),
            "stateful" => self.stateful(),
            "integer-ops" => self.integer_ops(),
            "scan" => self.scan(),
            _ => self.if_node(),
        }
    }

    /// A node with one output that does not join the values (an
    /// intermediate of a typed or shape chain).
    pub(super) fn aux(
        &mut self,
        op: &str,
        inputs: Vec<String>,
        attrs: Vec<AttributeProto>,
    ) -> String {
        let out = self.fresh("t");
        self.node(op, inputs, vec![out.clone()], attrs);
        out
    }

    /// `Cast` of `x` to `to`.
    pub(super) fn cast(&mut self, x: String, to: i32) -> String {
        self.aux("Cast", vec![x], vec![attr_i("to", to as i64)])
    }

    /// A value with exact cells (graph inputs, integer results), mostly
    /// one of the latest.
    pub(super) fn pick_exact(&mut self, want: impl Fn(&[i64]) -> bool) -> Option<Value> {
        let ok: Vec<Value> = self
            .values
            .iter()
            .filter(|v| want(&v.shape) && self.exact.contains(&v.name))
            .cloned()
            .collect();
        if ok.is_empty() {
            return None;
        }
        let i = if self.rng.chance(0.6) {
            ok.len() - 1
        } else {
            self.rng.index(ok.len())
        };
        Some(ok[i].clone())
    }

    /// Marks a value exact.
    pub(super) fn mark_exact(&mut self, name: &str) {
        self.exact.push(name.to_string());
    }

    /// An initializer of element type `elem` (integer or bool).
    pub(super) fn init_int(&mut self, dims: &[i64], elem: i32, data: &[i64]) -> String {
        let name = self.fresh("c");
        self.inits.push(int_tensor(&name, dims, elem, data));
        name
    }

    /// A shape broadcasting against `shape`: a suffix with some dims 1.
    pub(super) fn suffix_shape(&mut self, shape: &[i64]) -> Vec<i64> {
        let skip = self.rng.index(shape.len() + 1);
        shape[skip..]
            .iter()
            .map(|&d| if self.rng.chance(0.3) { 1 } else { d })
            .collect()
    }

    /// Draws `n` integers in `lo..=hi`.
    pub(super) fn ints(&mut self, n: i64, lo: i64, hi: i64) -> Vec<i64> {
        (0..n)
            .map(|_| lo + self.rng.below((hi - lo + 1) as u64) as i64)
            .collect()
    }
}
