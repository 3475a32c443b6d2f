//! Writing ops: the MLIR text of one op (with its location), constants,
//! einsums, bound outputs and the declared-shape checks.

use std::fmt::Write as _;

use super::{R, Translator, Val, dims_spec};
use crate::proto::NodeProto;
use crate::tensor::{Elem, Tensor};

impl Translator {
    /// `ocannl.constant` for a tensor: a splat as a scalar value, other data
    /// as a hex dense elements attribute (the cells' bytes, exactly).
    pub(super) fn constant(&mut self, c: &Tensor) -> R<Val> {
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
        if c.is_empty() {
            // No cells: any fill of its dims (see `empty`).
            let v = self.fill(elem, &c.dims, 0.0);
            return Ok(super::elementwise::with_rank(v, Some(c.dims.len())));
        }
        let dims = Some(c.dims.clone());
        if splat {
            let value = format!("value = {}", c.scalar_attr(elem));
            return Ok(self.emit("constant", &[], &value, elem, spec, dims));
        }
        // MLIR packs `i1` data 8 cells a byte, the first in the low bit.
        let packed: Vec<u8>;
        let bytes = if elem.is_bool() {
            packed = c
                .bytes
                .chunks(8)
                .map(|k| {
                    k.iter()
                        .rev()
                        .fold(0u8, |acc, &b| acc << 1 | u8::from(b != 0))
                })
                .collect();
            &packed
        } else {
            &c.bytes
        };
        let mut shape = String::new();
        for d in &c.dims {
            let _ = write!(shape, "{d}x");
        }
        let tail = format!("\"> : tensor<{shape}{}>", elem.mlir());
        if bytes.len() < BLOB_BYTES {
            let mut value = String::with_capacity(18 + 2 * bytes.len() + tail.len());
            value.push_str("value = dense<\"0x");
            hex(&mut value, bytes);
            value.push_str(&tail);
            return Ok(self.emit("constant", &[], &value, elem, spec, dims));
        }
        // A model's weights are most of the file: their hex is written with
        // the text, where the marker (a control character, which no
        // escaped name holds) is, not kept in it (see `ModuleText`).
        let data = bytes.to_vec();
        let value = format!("value = dense<\"0x{BLOB_MARK}{tail}");
        let start = self.out.len();
        let v = self.emit("constant", &[], &value, elem, spec, dims);
        let at = start
            + self.out[start..]
                .find(BLOB_MARK)
                .expect("the constant's text holds its marker");
        self.out.remove(at);
        self.blobs.push((at, data));
        Ok(v)
    }

    /// A scalar constant.
    pub(super) fn scalar(&mut self, elem: Elem, v: f64) -> Val {
        self.fill(elem, &[], v)
    }

    /// A constant of the given dims filled with `v`.
    pub(super) fn fill(&mut self, elem: Elem, dims: &[u64], v: f64) -> Val {
        self.fill_attr(elem, dims, &elem.scalar_attr(v))
    }

    /// A constant of the given dims filled with the scalar attribute
    /// `value` (exact: see [`Tensor::scalar_attr`]).
    pub(super) fn fill_attr(&mut self, elem: Elem, dims: &[u64], value: &str) -> Val {
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
    pub(super) fn emit(
        &mut self,
        name: &str,
        operands: &[&Val],
        attrs: &str,
        elem: Elem,
        spec: String,
        shape: Option<Vec<u64>>,
    ) -> Val {
        // A `where`'s condition has its own element type.
        let tied = if name == "where" {
            operands.get(1..).unwrap_or_default()
        } else {
            operands
        };
        if let Some(w) = tied.windows(2).find(|w| w[0].elem != w[1].elem)
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
        // `elementwise::unary`).
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
        if attrs.is_empty() {
            self.attr_at.insert(v.ssa.clone(), (at, false));
        } else {
            self.attr_at
                .insert(v.ssa.clone(), (at + 2 + attrs.len(), true));
        }
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
        // Written piece by piece: a constant's attributes are its data
        // (hundreds of megabytes for a model's weights), copied once.
        self.out.push_str(&head);
        if !attrs.is_empty() {
            self.out.push_str(" {");
            self.out.push_str(attrs);
            self.out.push('}');
        }
        let _ = writeln!(self.out, " : ({}) -> {}{loc}", types.join(", "), v.ty());
        v
    }

    /// [`Self::emit`] for an op whose operands may have different element
    /// types by design (a gather's integer indices, a `where`'s boolean
    /// condition): not the mixed-operands error of the node.
    pub(super) fn emit_mixed(
        &mut self,
        name: &str,
        operands: &[&Val],
        attrs: &str,
        elem: Elem,
        spec: String,
        shape: Option<Vec<u64>>,
    ) -> Val {
        let before = self.mixed.is_some();
        let v = self.emit(name, operands, attrs, elem, spec, shape);
        if !before {
            self.mixed = None;
        }
        v
    }

    /// An einsum (`accum`, `combine`: `None` for the defaults).
    pub(super) fn einsum(
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
    /// recorded shape widen a pointwise result. Once checked that way, the
    /// recorded dims are also what later translations know of the value
    /// (a `Resize` or `Split` sizes itself from them): a record that is
    /// wrong fails that check.
    pub(super) fn bind(&mut self, node: &NodeProto, i: usize, mut v: Val) {
        if let Some(name) = node.output.get(i).filter(|s| !s.is_empty()) {
            if let (Some(d), Some(&(at, dict))) =
                (self.declared.get(name), self.attr_at.get(&v.ssa))
                && !self.checks.iter().any(|c| c.0 == at)
            {
                self.checks.push((at, dict, dims_spec(d)));
                if v.shape.is_none() && v.rank.is_none_or(|r| r == d.len()) {
                    v.rank = Some(d.len());
                    v.shape = Some(d.clone());
                }
            }
            self.values.insert(name.clone(), v);
        }
    }

    /// The spec an op computing the node's `i`-th output states: open
    /// (the shape the file records is checked, see [`Self::bind`]).
    pub(super) fn out_spec(&self, _node: &NodeProto, _i: usize) -> String {
        "...".into()
    }
}

/// Constants of this many bytes or more have their hex written with the
/// text, not kept in it.
const BLOB_BYTES: usize = 4096;

/// Where a large constant's hex goes, in the op's text until it is
/// recorded.
const BLOB_MARK: char = '\u{1}';

/// Appends `bytes` in upper-case hex, two digits a byte (MLIR's hex form of
/// a dense attribute's data). A table instead of `write!(.., "{b:02X}")`,
/// which went through the formatter once a byte: half of the importer's
/// time on ResNet-50's 100 MB of weights.
pub(super) fn hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    out.extend(bytes.iter().flat_map(|&b| {
        [
            char::from(DIGITS[usize::from(b >> 4)]),
            char::from(DIGITS[usize::from(b & 15)]),
        ]
    }));
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

pub(super) fn escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            c if c.is_control() => vec!['_'],
            c => vec![c],
        })
        .collect()
}
