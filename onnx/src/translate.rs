//! ONNX graph → ocannl dialect (MLIR text).
//!
//! # How tensors map to shapes
//!
//! Every ONNX axis is an axis of the **output row**, in ONNX order: an NCHW
//! tensor `[1, 3, 224, 224]` is `!ocannl.tensor<f32, "1,3,224,224">`, and
//! memory order is unchanged. OCANNL's broadcasting of a row (align from the
//! right, extend on the left, size 1 stretches) is then exactly NumPy's, so
//! ONNX's elementwise ops map to the pointwise ops as they are. Ops that
//! address axes by position (`axis`, `perm`, `axes`) become einsums over
//! the output row: a non-negative axis `k` is preceded by `k` labels and
//! followed by a row variable, a negative one is preceded by a row variable,
//! so no rank needs to be known at import.
//!
//! # What the importer states
//!
//! Graph inputs (their ONNX shapes; symbolic dims become dimension
//! variables), constants (their data) and, unless `--erase-shapes`, the
//! shapes ONNX records for intermediates and outputs. Everything else is
//! `"..."`, for `ocannl-infer-shapes` to infer.

mod activations;
mod arg_reduce;
mod attention;
mod attrs;
mod axes;
mod composite;
mod constants;
mod control;
mod conv;
mod cumulative;
mod elementwise;
mod emit;
mod empty;
mod fold;
mod gather;
mod integer_ops;
mod losses;
mod matmul;
mod norm;
mod one_hot;
mod ops;
mod recurrent;
mod scan;
mod scatter;
mod shape_ops;
mod shape_values;
mod split_equal;
mod stateful;
#[cfg(test)]
mod test_graphs;
mod text;
mod typed;

pub(crate) use attrs::Attrs;
use emit::{escape, multichar};
pub use text::ModuleText;

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use crate::proto::{NodeProto, TensorProto, ValueInfoProto, type_proto};
use crate::tensor::{Elem, Tensor};
use crate::{Graph, ImportError, Model, NodeRef};

/// What to erase before translating.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Drop every intermediate and output shape (the graph's `value_info`
    /// and output shapes); keep only graph inputs and constants.
    pub erase_shapes: bool,
    /// Graph inputs whose shapes are erased too (`"..."`), to be inferred
    /// from their uses.
    pub erase_inputs: Vec<String>,
    /// The model's file name, for the ops' locations (`loc("FILE, node
    /// 'NAME' (OP)":N:1)`, `N` the node's position in the file, from 1).
    pub source: String,
    /// Import per-channel affine ops after convolutions and matrix
    /// products as they are, instead of folding them into the weights
    /// (`translate/fold.rs`).
    pub no_fold: bool,
}

/// Translates a checked model to MLIR text: one `func.func @main`.
///
/// # Errors
///
/// An unsupported op, attribute, element type or constant input, naming the
/// node; an erased input that is not a graph input.
pub fn translate(model: &Model, opts: &Options) -> Result<String, ImportError> {
    translate_module(model, opts).map(ModuleText::into_string)
}

/// [`translate`], the text in pieces ([`ModuleText::write_to`] writes them
/// without joining them first).
///
/// # Errors
///
/// As [`translate`].
pub fn translate_module(model: &Model, opts: &Options) -> Result<ModuleText, ImportError> {
    check_erased(&model.graph, opts)?;
    let mut consts = HashMap::new();
    for (name, tp) in initializers(&model.graph) {
        let tensor = Tensor::decode(tp).map_err(ImportError::model)?;
        consts.insert(name.to_owned(), tensor);
    }
    translate_with(model, consts, opts)
}

/// [`translate_module`] of a model given up: the initializers' data is
/// moved into the translation instead of copied (a model's weights are
/// most of its bytes).
///
/// # Errors
///
/// As [`translate`].
pub fn translate_model(mut model: Model, opts: &Options) -> Result<ModuleText, ImportError> {
    check_erased(&model.graph, opts)?;
    // The last initializer of a name is the one read, as in `initializers`.
    let mut consts = HashMap::new();
    for tp in model.graph.initializers.iter_mut().rev() {
        let Some(name) = tp.name.clone() else {
            continue;
        };
        if let std::collections::hash_map::Entry::Vacant(e) = consts.entry(name) {
            e.insert(Tensor::decode_taking(tp).map_err(ImportError::model)?);
        }
    }
    translate_with(&model, consts, opts)
}

/// The initializers by name (the last of a name).
fn initializers(g: &Graph) -> HashMap<&str, &TensorProto> {
    g.initializers
        .iter()
        .filter_map(|t| Some((t.name.as_deref()?, t)))
        .collect()
}

/// Each input `--erase-input-shapes` names is a graph input that is not an
/// initializer.
fn check_erased(g: &Graph, opts: &Options) -> Result<(), ImportError> {
    let inits = initializers(g);
    let input_names: HashSet<&str> = g.inputs.iter().filter_map(|v| v.name.as_deref()).collect();
    for e in &opts.erase_inputs {
        if !input_names.contains(e.as_str()) || inits.contains_key(e.as_str()) {
            return Err(ImportError::model(format!(
                "--erase-input-shapes: '{e}' is not a graph input"
            )));
        }
    }
    Ok(())
}

/// The translation, the initializers decoded (`consts`).
fn translate_with(
    model: &Model,
    consts: HashMap<String, Tensor>,
    opts: &Options,
) -> Result<ModuleText, ImportError> {
    let g = &model.graph;
    let inits = initializers(g);
    let mut t = Translator {
        opset: model.opset,
        out: String::new(),
        blobs: Vec::new(),
        next: 0,
        next_var: 0,
        values: HashMap::new(),
        consts,
        declared: HashMap::new(),
        outputs: g.outputs.iter().filter_map(|v| v.name.clone()).collect(),
        undefined: HashMap::new(),
        node: None,
        source: escape(&opts.source),
        attr_at: HashMap::new(),
        checks: Vec::new(),
        mixed: None,
        shape_vals: HashMap::new(),
        ranks: HashMap::new(),
        broadcasts: HashMap::new(),
    };
    if !opts.erase_shapes {
        for v in g.value_info.iter().chain(&g.outputs) {
            if let (Some(name), Some(rank)) = (v.name.as_deref(), recorded_rank(v)) {
                t.ranks.insert(name.to_owned(), rank);
            }
            if let (Some(name), Some(shape)) = (v.name.as_deref(), static_shape(v)) {
                t.declared.insert(name.to_owned(), shape);
            }
        }
    }
    let args = arguments(&mut t, g, &inits, &opts.erase_inputs)?;
    let plan = if opts.no_fold {
        fold::Plan::default()
    } else {
        let rank = |name: &str| {
            let arg = t.values.get(name).and_then(|v| v.rank);
            arg.or_else(|| t.ranks.get(name).copied())
        };
        fold::plan(g, &t.consts, &rank)
    };
    t.consts.extend(plan.consts);
    for (i, node) in g.nodes.iter().enumerate() {
        if plan.removed.contains(&i) {
            continue;
        }
        let nodes = plan
            .replaced
            .get(&i)
            .map_or(std::slice::from_ref(node), Vec::as_slice);
        for node in nodes {
            t.node = Some(NodeRef {
                index: g.file_index[i],
                name: node.name.clone().unwrap_or_default(),
                op_type: node.op_type.clone().unwrap_or_default(),
            });
            t.translate_node(node)?;
            if let Some(m) = t.mixed.take() {
                return Err(t.error(m));
            }
        }
    }
    t.node = None;
    function_text(&mut t, g, &args)
}

/// The arguments of `@main`: the graph inputs that are not initializers,
/// in order (bound to their names).
fn arguments(
    t: &mut Translator,
    g: &Graph,
    inits: &HashMap<&str, &TensorProto>,
    erase_inputs: &[String],
) -> Result<Vec<Val>, ImportError> {
    let mut args = Vec::new();
    for v in &g.inputs {
        let Some(name) = v.name.as_deref() else {
            continue;
        };
        if inits.contains_key(name) {
            continue;
        }
        let elem = value_elem(v).map_err(|m| ImportError::model(format!("input '{name}': {m}")))?;
        check_input_dims(v).map_err(|m| ImportError::model(format!("input '{name}': {m}")))?;
        let spec = if erase_inputs.iter().any(|e| e == name) {
            "...".to_owned()
        } else {
            t.input_spec(v)
        };
        let ssa = format!("%arg{}", args.len());
        let shape = (!erase_inputs.iter().any(|e| e == name))
            .then(|| static_shape(v))
            .flatten();
        let rank = shape
            .as_ref()
            .map(Vec::len)
            .or_else(|| (spec != "...").then(|| spec.split(',').filter(|a| !a.is_empty()).count()));
        let val = Val {
            ssa,
            elem,
            spec,
            shape,
            rank,
        };
        args.push(val.clone());
        t.values.insert(name.to_owned(), val);
    }
    Ok(args)
}

/// The function: the graph outputs as its results (a declared element type
/// checked), the body with its declared shapes, the `return`.
fn function_text(t: &mut Translator, g: &Graph, args: &[Val]) -> Result<ModuleText, ImportError> {
    let mut results = Vec::new();
    for v in &g.outputs {
        let name = v.name.as_deref().unwrap_or("");
        let val = t.value(name)?;
        // A declared element type is a check too.
        if let Ok(declared) = value_elem(v)
            && declared != val.elem
        {
            return Err(ImportError::model(format!(
                "graph output '{name}' is declared {}, the graph computes {}",
                declared.mlir(),
                val.elem.mlir()
            )));
        }
        results.push(val);
    }
    let ty = |v: &Val| v.ty();
    let arg_list: Vec<String> = args
        .iter()
        .map(|a| format!("{}: {}", a.ssa, ty(a)))
        .collect();
    let res_types: Vec<String> = results.iter().map(ty).collect();
    let head = format!(
        "func.func @main({}) -> ({}) {{\n",
        arg_list.join(", "),
        res_types.join(", ")
    );
    let names: Vec<&str> = results.iter().map(|v| v.ssa.as_str()).collect();
    let tail = format!(
        "  return {} : {}\n}}\n",
        names.join(", "),
        res_types.join(", ")
    );
    let mut checks = std::mem::take(&mut t.checks);
    checks.sort_unstable_by_key(|c| c.0);
    Ok(ModuleText {
        head,
        body: std::mem::take(&mut t.out),
        checks,
        blobs: std::mem::take(&mut t.blobs),
        tail,
    })
}

/// The element type of a graph input or output.
fn value_elem(v: &ValueInfoProto) -> Result<Elem, String> {
    match v.r#type.as_ref().and_then(|t| t.value.as_ref()) {
        Some(type_proto::Value::TensorType(tt)) => Elem::of_onnx(tt.elem_type.unwrap_or(0)),
        _ => Err("only tensor values are supported".into()),
    }
}

/// A graph input's dims are sizes of at least 1 (or symbolic), at most
/// [`axes::MAX_AXES`] of them.
fn check_input_dims(v: &ValueInfoProto) -> Result<(), String> {
    use crate::proto::tensor_shape_proto::dimension::Value as D;
    let Some(type_proto::Value::TensorType(tt)) = v.r#type.as_ref().and_then(|t| t.value.as_ref())
    else {
        return Ok(());
    };
    let Some(shape) = &tt.shape else {
        return Ok(());
    };
    if shape.dim.len() as u64 > axes::MAX_AXES {
        return Err(format!(
            "{} dims, more than a tensor's {} axes",
            shape.dim.len(),
            axes::MAX_AXES
        ));
    }
    for d in &shape.dim {
        match d.value {
            Some(D::DimValue(n)) if n < 0 => return Err(format!("the dim {n} is negative")),
            _ => {}
        }
    }
    Ok(())
}

/// The dimension variable of an ONNX `dim_param`: one per name, distinct
/// names distinct (`N-1` and `N_1` too): `s_` and the name, each character
/// other than a letter or a digit written `_XX` (its code point in hex),
/// `_` as `__`.
fn symbolic_dim(p: &str) -> String {
    let mut out = String::from("s_");
    for c in p.chars() {
        match c {
            c if c.is_ascii_alphanumeric() => out.push(c),
            '_' => out.push_str("__"),
            c => {
                let _ = write!(out, "_{:X}_", u32::from(c));
            }
        }
    }
    out
}

/// The rank of a value's recorded shape (symbolic dims included).
fn recorded_rank(v: &ValueInfoProto) -> Option<usize> {
    let Some(type_proto::Value::TensorType(tt)) = v.r#type.as_ref()?.value.as_ref() else {
        return None;
    };
    Some(tt.shape.as_ref()?.dim.len())
}

/// The dims of a value whose every dim is a known size.
fn static_shape(v: &ValueInfoProto) -> Option<Vec<u64>> {
    use crate::proto::tensor_shape_proto::dimension::Value as D;
    let Some(type_proto::Value::TensorType(tt)) = v.r#type.as_ref()?.value.as_ref() else {
        return None;
    };
    tt.shape
        .as_ref()?
        .dim
        .iter()
        .map(|d| match d.value {
            Some(D::DimValue(n)) if n >= 0 => Some(n as u64),
            _ => None,
        })
        .collect()
}

/// A value of the translated function.
#[derive(Debug, Clone)]
pub(crate) struct Val {
    /// `%vN` or `%argN`.
    pub(crate) ssa: String,
    pub(crate) elem: Elem,
    /// The shape spec of its type.
    pub(crate) spec: String,
    /// Its dims, when the importer knows them (constants, inputs).
    pub(crate) shape: Option<Vec<u64>>,
    /// Its rank, when the importer knows it (from the ops that made it).
    pub(crate) rank: Option<usize>,
}

impl Val {
    pub(crate) fn ty(&self) -> String {
        let spec = if self.spec.bytes().any(|c| c.is_ascii_alphabetic()) {
            multichar(&self.spec)
        } else {
            self.spec.clone()
        };
        format!("!ocannl.tensor<{}, \"{spec}\">", self.elem.mlir())
    }
}

/// The spec of known dims: `1,3,224,224`; the scalar is `""`.
pub(crate) fn dims_spec(dims: &[u64]) -> String {
    dims.iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

struct Translator {
    opset: i64,
    /// The function body.
    out: String,
    next: usize,
    next_var: usize,
    /// ONNX value name → translated value.
    values: HashMap<String, Val>,
    /// Initializers and `Constant` outputs, materialised on first use.
    consts: HashMap<String, Tensor>,
    /// Shapes ONNX records for intermediates and outputs (kept unless
    /// `--erase-shapes`).
    declared: HashMap<String, Vec<u64>>,
    /// The graph's outputs (by name).
    outputs: HashSet<String>,
    /// Outputs the importer does not compute, with the reason.
    undefined: HashMap<String, String>,
    node: Option<NodeRef>,
    source: String,
    /// Where each emitted op's attributes go in `out`: the offset of the
    /// `}` closing its dictionary, or of the end of its operand list when
    /// it has none (`true`: a dictionary is there).
    attr_at: HashMap<String, (usize, bool)>,
    /// Declared shapes to check: (offset, has a dictionary, spec), one per
    /// op at most.
    checks: Vec<(usize, bool, String)>,
    /// Where in `out` each large constant's data goes, as hex (written with
    /// the text, not kept in it: see `ModuleText`), and the data.
    blobs: Vec<(usize, Vec<u8>)>,
    /// Operands of different element types met by `emit` (an error for
    /// the node being translated).
    mixed: Option<String>,
    /// Values of shape computations, held as expressions over dims (see
    /// `shape_values`) and materialised on first use as data.
    shape_vals: HashMap<String, shape_values::sym::ShapeVal>,
    /// The ranks ONNX records for intermediates (`value_info`, symbolic
    /// dims included; kept unless `--erase-shapes`).
    ranks: HashMap<String, usize>,
    /// The operands of each broadcasting pointwise result (by SSA name):
    /// its dims are their broadcast, exactly, while OCANNL only bounds
    /// them from below (a use could widen the solved type).
    broadcasts: HashMap<String, Vec<Val>>,
}

type R<T> = Result<T, ImportError>;

impl Translator {
    fn err<T>(&self, message: impl Into<String>) -> R<T> {
        Err(self.error(message))
    }

    fn error(&self, message: impl Into<String>) -> ImportError {
        ImportError {
            message: message.into(),
            nodes: self.node.iter().cloned().collect(),
        }
    }

    /// A graph input's spec: its dims, symbolic dims as dimension variables
    /// (one per name), `...` without a shape.
    fn input_spec(&mut self, v: &ValueInfoProto) -> String {
        use crate::proto::tensor_shape_proto::dimension::Value as D;
        let Some(type_proto::Value::TensorType(tt)) =
            v.r#type.as_ref().and_then(|t| t.value.as_ref())
        else {
            return "...".into();
        };
        let Some(shape) = tt.shape.as_ref() else {
            return "...".into();
        };
        let axes: Vec<String> = shape
            .dim
            .iter()
            .map(|d| match &d.value {
                Some(D::DimValue(n)) if *n >= 0 => n.to_string(),
                Some(D::DimParam(p)) if !p.is_empty() => symbolic_dim(p),
                _ => self.fresh_var(),
            })
            .collect();
        axes.join(",")
    }

    /// A fresh named row variable (`..vN..`): an open shape another type
    /// can name.
    fn fresh_row(&mut self) -> String {
        self.next_var += 1;
        format!("..v{}..", self.next_var)
    }

    /// A fresh dimension-variable name.
    fn fresh_var(&mut self) -> String {
        self.next_var += 1;
        format!("d{}", self.next_var)
    }

    /// The translated value of an ONNX name (constants are materialised).
    fn value(&mut self, name: &str) -> R<Val> {
        if let Some(v) = self.values.get(name) {
            return Ok(v.clone());
        }
        if let Some(sv) = self.shape_vals.get(name).cloned() {
            let v = self.materialize(&sv)?;
            self.values.insert(name.to_owned(), v.clone());
            return Ok(v);
        }
        let Some(c) = self.consts.get(name).cloned() else {
            if let Some(why) = self.undefined.get(name) {
                return self.err(format!("'{name}' is not computed ({why})"));
            }
            return self.err(format!("'{name}' is not defined"));
        };
        let v = self.constant(&c)?;
        self.values.insert(name.to_owned(), v.clone());
        Ok(v)
    }

    /// An optional input: `None` when absent or empty.
    fn opt_input(&mut self, node: &NodeProto, i: usize) -> R<Option<Val>> {
        match node.input.get(i).filter(|s| !s.is_empty()) {
            Some(name) => Ok(Some(self.value(name)?)),
            None => Ok(None),
        }
    }

    fn input(&mut self, node: &NodeProto, i: usize) -> R<Val> {
        match self.opt_input(node, i)? {
            Some(v) => Ok(v),
            None => self.err(format!("input #{i} is required")),
        }
    }

    /// A constant input's data (shapes, axes, indices): an initializer or
    /// a `Constant` node's output.
    fn const_input(&self, node: &NodeProto, i: usize) -> R<Option<Tensor>> {
        let Some(name) = node.input.get(i).filter(|s| !s.is_empty()) else {
            return Ok(None);
        };
        if let Some(t) = self
            .shape_vals
            .get(name.as_str())
            .and_then(|v| v.to_tensor())
        {
            return Ok(Some(t));
        }
        match self.consts.get(name.as_str()) {
            Some(t) => Ok(Some(t.clone())),
            None => self.err(format!(
                "input #{i} ('{name}') must be a constant (an initializer or a Constant's output)"
            )),
        }
    }

    fn const_ints(&self, node: &NodeProto, i: usize) -> R<Option<Vec<i64>>> {
        match self.const_input(node, i)? {
            None => Ok(None),
            Some(t) => match t.to_i64() {
                Some(v) => Ok(Some(v)),
                None => self.err(format!("input #{i} must hold integers")),
            },
        }
    }
}
