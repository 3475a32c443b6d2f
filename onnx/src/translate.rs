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

mod attrs;
mod nn;
mod ops;
mod shape_ops;

pub(crate) use attrs::Attrs;

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use crate::proto::{NodeProto, TensorProto, ValueInfoProto, type_proto};
use crate::tensor::{Elem, Tensor};
use crate::{ImportError, Model, NodeRef};

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
}

/// Translates a checked model to MLIR text: one `func.func @main`.
///
/// # Errors
///
/// An unsupported op, attribute, element type or constant input, naming the
/// node; an erased input that is not a graph input.
pub fn translate(model: &Model, opts: &Options) -> Result<String, ImportError> {
    let g = &model.graph;
    let inits: HashMap<&str, &TensorProto> = g
        .initializers
        .iter()
        .filter_map(|t| Some((t.name.as_deref()?, t)))
        .collect();
    let input_names: HashSet<&str> = g.inputs.iter().filter_map(|v| v.name.as_deref()).collect();
    for e in &opts.erase_inputs {
        if !input_names.contains(e.as_str()) || inits.contains_key(e.as_str()) {
            return Err(ImportError::model(format!(
                "--erase-input-shapes: '{e}' is not a graph input"
            )));
        }
    }
    let mut t = Translator {
        opset: model.opset,
        out: String::new(),
        next: 0,
        next_var: 0,
        values: HashMap::new(),
        consts: HashMap::new(),
        declared: HashMap::new(),
        undefined: HashMap::new(),
        node: None,
        source: escape(&opts.source),
        attr_at: HashMap::new(),
        checks: Vec::new(),
        mixed: None,
    };
    if !opts.erase_shapes {
        for v in g.value_info.iter().chain(&g.outputs) {
            if let (Some(name), Some(shape)) = (v.name.as_deref(), static_shape(v)) {
                t.declared.insert(name.to_owned(), shape);
            }
        }
    }
    for (name, tp) in &inits {
        let tensor = Tensor::decode(tp).map_err(ImportError::model)?;
        t.consts.insert((*name).to_owned(), tensor);
    }
    // Arguments: the graph inputs that are not initializers, in order.
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
        let spec = if opts.erase_inputs.iter().any(|e| e == name) {
            "...".to_owned()
        } else {
            t.input_spec(v)
        };
        let ssa = format!("%arg{}", args.len());
        let shape = (!opts.erase_inputs.iter().any(|e| e == name))
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
    for (i, node) in g.nodes.iter().enumerate() {
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
    t.node = None;
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
    let mut text = String::new();
    let ty = |v: &Val| v.ty();
    let arg_list: Vec<String> = args
        .iter()
        .map(|a| format!("{}: {}", a.ssa, ty(a)))
        .collect();
    let res_types: Vec<String> = results.iter().map(ty).collect();
    let _ = writeln!(
        text,
        "func.func @main({}) -> ({}) {{",
        arg_list.join(", "),
        res_types.join(", ")
    );
    text.push_str(&t.with_checks());
    let names: Vec<&str> = results.iter().map(|v| v.ssa.as_str()).collect();
    let _ = writeln!(
        text,
        "  return {} : {}\n}}",
        names.join(", "),
        res_types.join(", ")
    );
    Ok(text)
}

/// The element type of a graph input or output.
fn value_elem(v: &ValueInfoProto) -> Result<Elem, String> {
    match v.r#type.as_ref().and_then(|t| t.value.as_ref()) {
        Some(type_proto::Value::TensorType(tt)) => Elem::of_onnx(tt.elem_type.unwrap_or(0)),
        _ => Err("only tensor values are supported".into()),
    }
}

/// A graph input's dims are sizes of at least 1 (or symbolic), at most
/// [`ops::MAX_AXES`] of them.
fn check_input_dims(v: &ValueInfoProto) -> Result<(), String> {
    use crate::proto::tensor_shape_proto::dimension::Value as D;
    let Some(type_proto::Value::TensorType(tt)) = v.r#type.as_ref().and_then(|t| t.value.as_ref())
    else {
        return Ok(());
    };
    let Some(shape) = &tt.shape else {
        return Ok(());
    };
    if shape.dim.len() as u64 > ops::MAX_AXES {
        return Err(format!(
            "{} dims, more than a tensor's {} axes",
            shape.dim.len(),
            ops::MAX_AXES
        ));
    }
    for d in &shape.dim {
        match d.value {
            Some(D::DimValue(0)) => {
                return Err("empty tensors (a dim of size 0) are not supported".into());
            }
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
    /// Operands of different element types met by `emit` (an error for
    /// the node being translated).
    mixed: Option<String>,
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

    /// `ocannl.constant` for a tensor: a splat as a scalar value, other data
    /// as a hex dense elements attribute (the cells' bytes, exactly).
    fn constant(&mut self, c: &Tensor) -> R<Val> {
        let elem = match Elem::of_onnx(c.data_type) {
            Ok(e) => e,
            Err(m) => return self.err(format!("constant: {m}")),
        };
        let spec = dims_spec(&c.dims);
        let width = c.bytes.len() / c.len().max(1);
        let splat = !c.is_empty()
            && c.bytes
                .chunks_exact(width.max(1))
                .all(|x| x == &c.bytes[..width]);
        let value = if c.is_empty() {
            return self.err("empty constants (a dim of size 0) are not supported");
        } else if splat {
            c.scalar_attr(elem)
        } else {
            let mut hex = String::with_capacity(2 + 2 * c.bytes.len());
            hex.push_str("0x");
            for b in &c.bytes {
                let _ = write!(hex, "{b:02X}");
            }
            let mut shape = String::new();
            for d in &c.dims {
                let _ = write!(shape, "{d}x");
            }
            format!("dense<\"{hex}\"> : tensor<{shape}{}>", elem.mlir())
        };
        Ok(self.emit(
            "constant",
            &[],
            &format!("value = {value}"),
            elem,
            spec,
            Some(c.dims.clone()),
        ))
    }

    /// A scalar constant.
    fn scalar(&mut self, elem: Elem, v: f64) -> Val {
        self.fill(elem, &[], v)
    }

    /// A constant of the given dims filled with `v`.
    fn fill(&mut self, elem: Elem, dims: &[u64], v: f64) -> Val {
        self.fill_attr(elem, dims, &elem.scalar_attr(v))
    }

    /// A constant of the given dims filled with the scalar attribute
    /// `value` (exact: see [`Tensor::scalar_attr`]).
    fn fill_attr(&mut self, elem: Elem, dims: &[u64], value: &str) -> Val {
        self.emit(
            "constant",
            &[],
            &format!("value = {value}"),
            elem,
            dims_spec(dims),
            Some(dims.to_vec()),
        )
    }

    /// Writes one op: `%vN = "ocannl.NAME"(operands) {attrs} : (...) -> T`.
    fn emit(
        &mut self,
        name: &str,
        operands: &[&Val],
        attrs: &str,
        elem: Elem,
        spec: String,
        shape: Option<Vec<u64>>,
    ) -> Val {
        if let Some(w) = operands.windows(2).find(|w| w[0].elem != w[1].elem)
            && self.mixed.is_none()
        {
            self.mixed = Some(format!(
                "operands of element types {} and {} are not supported (ONNX's type constraints tie them)",
                w[0].elem.mlir(),
                w[1].elem.mlir()
            ));
        }
        // An open result gets a row variable of its own name, so that an op
        // whose result is exactly its operand's shape can state it (see
        // `ops::unary`).
        let spec = if spec == "..." {
            self.fresh_row()
        } else {
            spec
        };
        let ssa = format!("%v{}", self.next);
        self.next += 1;
        let rank = shape.as_ref().map(Vec::len);
        let v = Val {
            ssa,
            elem,
            spec,
            shape,
            rank,
        };
        let names: Vec<&str> = operands.iter().map(|o| o.ssa.as_str()).collect();
        let types: Vec<String> = operands.iter().map(|o| o.ty()).collect();
        let head = format!("  {} = \"ocannl.{name}\"({})", v.ssa, names.join(", "));
        // Where attributes go (see `attr_at`).
        let at = self.out.len() + head.len();
        let attrs = if attrs.is_empty() {
            self.attr_at.insert(v.ssa.clone(), (at, false));
            String::new()
        } else {
            self.attr_at
                .insert(v.ssa.clone(), (at + 2 + attrs.len(), true));
            format!(" {{{attrs}}}")
        };
        let loc = match &self.node {
            // `FILE, node 'NAME' (OP):N:1`: diagnostics name the file, the
            // node and its position (line N: the N-th node in the file).
            Some(n) => format!(
                " loc(\"{}, {}\":{}:1)",
                self.source,
                escape(&n.to_string()),
                n.index + 1
            ),
            None => String::new(),
        };
        let _ = writeln!(
            self.out,
            "{head}{attrs} : ({}) -> {}{loc}",
            types.join(", "),
            v.ty()
        );
        v
    }

    /// An einsum (`accum`, `combine`: `None` for the defaults).
    fn einsum(
        &mut self,
        spec: &str,
        operands: &[&Val],
        accum: Option<&str>,
        combine: Option<&str>,
        result: String,
    ) -> Val {
        let mut attrs = format!("spec = \"{}\"", multichar(spec));
        if let Some(a) = accum {
            let _ = write!(attrs, ", accum = \"{a}\"");
        }
        if let Some(c) = combine {
            let _ = write!(attrs, ", combine = \"{c}\"");
        }
        let elem = operands[0].elem;
        self.emit("einsum", operands, &attrs, elem, result, None)
    }

    /// Binds the node's `i`-th output. A shape the file records for it
    /// becomes a check on the op that computes it
    /// (`ocannl.declared_shape`, checked by `ocannl-infer-shapes` once
    /// solved), never a constraint: OCANNL's broadcasting would let a
    /// recorded shape widen a pointwise result.
    fn bind(&mut self, node: &NodeProto, i: usize, v: Val) {
        if let Some(name) = node.output.get(i).filter(|s| !s.is_empty()) {
            if let (Some(d), Some(&(at, dict))) =
                (self.declared.get(name), self.attr_at.get(&v.ssa))
                && !self.checks.iter().any(|c| c.0 == at)
            {
                self.checks.push((at, dict, dims_spec(d)));
            }
            self.values.insert(name.clone(), v);
        }
    }

    /// The spec an op computing the node's `i`-th output states: open
    /// (the shape the file records is checked, see [`Self::bind`]).
    fn out_spec(&self, _node: &NodeProto, _i: usize) -> String {
        "...".into()
    }

    /// The body with each declared shape inserted into its op's attributes.
    fn with_checks(&mut self) -> String {
        self.checks.sort_unstable_by_key(|c| c.0);
        let mut text = String::with_capacity(self.out.len() + 48 * self.checks.len());
        let mut from = 0;
        for (at, dict, spec) in &self.checks {
            text.push_str(&self.out[from..*at]);
            if *dict {
                let _ = write!(text, ", ocannl.declared_shape = \"{spec}\"");
            } else {
                let _ = write!(text, " {{ocannl.declared_shape = \"{spec}\"}}");
            }
            from = *at;
        }
        text.push_str(&self.out[from..]);
        text
    }
}

/// The spec forced into multichar mode (a trailing `,`, as OCANNL's printer
/// does) when nothing else triggers it: the importer's labels (`a0`, `k1`)
/// are several characters long.
pub(crate) fn multichar(spec: &str) -> String {
    let b = spec.as_bytes();
    let triggered = b.iter().enumerate().any(|(i, &c)| match c {
        b',' | b'*' | b'+' | b'^' | b'&' | b'<' | b'@' => true,
        b'=' => b.get(i + 1) != Some(&b'>'),
        _ => false,
    });
    if triggered {
        spec.to_owned()
    } else {
        format!("{spec},")
    }
}

fn escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            c if c.is_control() => vec!['_'],
            c => vec![c],
        })
        .collect()
}
