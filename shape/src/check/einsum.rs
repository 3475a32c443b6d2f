//! Einsum and block matching for the checker (see the [module docs](super),
//! "Einsum matching"): labels and row variables bind to axes, fixed indices
//! must be in range, strided and convolution axes have the sizes of the
//! reference's formulas, computed exactly (an expected size above
//! [`MAX_SIZE`] is a [`CheckError::Overflow`]), and concatenated axes are the
//! sums of their parts.

use std::collections::{BTreeSet, HashMap};

use super::{
    Axis, AxisAt, CheckError, Concrete, EinsumConflict, RowRef, Tensor, kind_name, overflow,
};
use crate::MAX_SIZE;
use crate::spec::{EinsumAxis, EinsumSpec, IntOrIdent, Padding, Row, RowKind, RowVar, SlotSpec};

/// The key of an einsum row variable: `...` is per row kind, `..name..` per
/// name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum RowKey {
    Ellipsis(RowKind),
    Named(String),
}

impl RowKey {
    fn of(var: &RowVar, kind: RowKind) -> Self {
        match var {
            RowVar::Anonymous => RowKey::Ellipsis(kind),
            RowVar::Named(name) => RowKey::Named(name.clone()),
        }
    }

    fn text(&self) -> String {
        match self {
            RowKey::Ellipsis(kind) => format!("... (of the {} rows)", kind_name(*kind)),
            RowKey::Named(name) => format!("..{name}.."),
        }
    }
}

/// What must be one axis throughout an einsum: a label, or position `j` of a
/// row variable's sequence.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Class {
    Label(String),
    RowVarAxis(RowKey, usize),
}

impl Class {
    fn text(&self) -> String {
        match self {
            Class::Label(label) => format!("label {label}"),
            Class::RowVarAxis(key, j) => {
                format!(
                    "row variable {} (its axis {} from the start)",
                    key.text(),
                    j + 1
                )
            }
        }
    }
}

/// What a class is bound to: its size (and where it was first seen), and its
/// label once one is seen.
struct Binding {
    size: u64,
    size_at: AxisAt,
    label: Option<(String, AxisAt)>,
}

/// The matching state of one einsum: row variable lengths and class bindings.
#[derive(Default)]
struct EinsumMatch {
    row_lens: HashMap<RowKey, (RowRef, usize)>,
    bindings: HashMap<Class, Binding>,
    /// Strided and convolution axes, checked once every label is bound.
    affine: Vec<AffineUse>,
    /// Concatenated axes, checked once every label is bound.
    concat: Vec<ConcatUse>,
}

/// An axis `a^b^...` of size `size`.
struct ConcatUse {
    size: u64,
    at: AxisAt,
    parts: Vec<String>,
}

/// An axis `stride*over[+dilation*kernel]` of size `size`.
struct AffineUse {
    size: u64,
    at: AxisAt,
    stride: u64,
    over: String,
    /// The kernel label and dilation of a valid (unpadded) convolution.
    valid_kernel: Option<(String, u64)>,
    /// Explicit padding `@lo,hi` (our extension): the output counts the
    /// windows that fit the padded input, rounded down.
    pads: Option<(u64, u64)>,
}

impl EinsumMatch {
    /// Checks the strided and convolution axes against the reference's size
    /// formulas ("Affine indexing and convolutions"): `stride * o` when
    /// strided or padded, `stride * (o - 1) + (k - 1) * dilation + 1` for a
    /// valid convolution.
    fn check_affine(&self) -> Result<(), CheckError> {
        for u in &self.affine {
            let size_of = |label: &str| {
                self.bindings
                    .get(&Class::Label(label.to_owned()))
                    .map(|b| b.size)
                    .ok_or(CheckError::Unsupported(
                        "strided axes whose labels appear in no other axis",
                    ))
            };
            let o = size_of(&u.over)?;
            // Sizes, strides and dilations are at most `MAX_SIZE` (checked):
            // the products are exact in u128.
            let wide = u128::from;
            if let (Some((lo, hi)), Some((k, dilation))) = (u.pads, &u.valid_kernel) {
                // The input fits `o` windows of the padded axis, and fewer
                // than `stride` cells are left over: `min <= input < min +
                // stride` with `min = stride * (o - 1) + span - lo - hi`.
                let k = size_of(k)?;
                let span = i128::from(k.saturating_sub(1)) * i128::from(*dilation) + 1;
                let min = i128::from(u.stride) * i128::from(o.saturating_sub(1)) + span
                    - i128::from(lo)
                    - i128::from(hi);
                let i = i128::from(u.size);
                if o == 0 || i < min || i >= min + i128::from(u.stride) {
                    return Err(CheckError::EinsumStride {
                        at: u.at,
                        size: u.size,
                        expected: u64::try_from(min.max(0)).unwrap_or(u64::MAX),
                    });
                }
                continue;
            }
            let (expected, formula) = match &u.valid_kernel {
                None => (wide(u.stride) * wide(o), format!("{} * {o}", u.stride)),
                Some((k, dilation)) => {
                    let k = size_of(k)?;
                    (
                        wide(u.stride) * wide(o.saturating_sub(1))
                            + wide(k.saturating_sub(1)) * wide(*dilation)
                            + 1,
                        format!("{} * ({o} - 1) + ({k} - 1) * {dilation} + 1", u.stride),
                    )
                }
            };
            let Some(expected) = u64::try_from(expected).ok().filter(|e| *e <= MAX_SIZE) else {
                return Err(overflow(format!(
                    "{} needs size {formula} = {expected} for its strided or convolution iteration",
                    u.at
                )));
            };
            if u.size != expected {
                return Err(CheckError::EinsumStride {
                    at: u.at,
                    size: u.size,
                    expected,
                });
            }
        }
        Ok(())
    }
}

impl EinsumMatch {
    /// Checks the concatenated axes: each is the sum of its parts
    /// (reference, "Concatenation"). A label seen in a plain axis has that
    /// axis's size; a label seen only in concatenations takes what a
    /// concatenation leaves when it is its only unknown part. Labels that no
    /// concatenation determines exist if what is left covers their minimum
    /// sizes (1, or 0 for discardable labels).
    fn check_concat(&self, discardable: &BTreeSet<String>) -> Result<(), CheckError> {
        let mut sizes: HashMap<&str, u64> = self
            .bindings
            .iter()
            .filter_map(|(c, b)| match c {
                Class::Label(l) => Some((l.as_str(), b.size)),
                _ => None,
            })
            .collect();
        let fail = |u: &ConcatUse, sum: String| CheckError::EinsumConcat {
            at: u.at,
            size: u.size,
            parts: u.parts.join("^"),
            sum,
        };
        let mut progress = true;
        while progress {
            progress = false;
            for u in &self.concat {
                // Exact: every size is a u64, and there are fewer than 2^64
                // parts.
                let known: u128 = u
                    .parts
                    .iter()
                    .filter_map(|p| sizes.get(p.as_str()))
                    .map(|&d| u128::from(d))
                    .sum();
                let unknown: Vec<&str> = u
                    .parts
                    .iter()
                    .map(String::as_str)
                    .filter(|p| !sizes.contains_key(p))
                    .collect();
                let min: u128 = unknown
                    .iter()
                    .map(|p| u128::from(!discardable.contains(*p)))
                    .sum();
                let size = u128::from(u.size);
                if size < known + min {
                    return Err(fail(u, format!("need at least {}", known + min)));
                }
                // `known <= size`: what is left is a u64.
                let left = u.size - u64::try_from(known).unwrap_or(u.size);
                match unknown.as_slice() {
                    [] if known != size => return Err(fail(u, format!("sum to {known}"))),
                    [first, rest @ ..] if rest.iter().all(|p| p == first) => {
                        let k = unknown.len() as u64;
                        if !left.is_multiple_of(k) {
                            return Err(fail(u, format!("leave {left} for {k} parts of one size")));
                        }
                        sizes.insert(first, left / k);
                        progress = true;
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// Matches one slot row against a concrete row.
    fn row(
        &mut self,
        slot: &Row<EinsumAxis>,
        row: RowRef,
        axes: &[Axis],
    ) -> Result<(), CheckError> {
        let key = slot.var.as_ref().map(|var| RowKey::of(var, row.kind));
        let var_len = self.row_var_len(slot, key.as_ref(), row, axes.len())?;
        // The slot's items, left to right: `beg`, the row variable's axes,
        // `end` (a slot without a row variable has all axes in `end`).
        let slot_items = slot
            .beg
            .iter()
            .map(Some)
            .chain(std::iter::repeat_n(None, var_len))
            .chain(slot.end.iter().map(Some));
        let mut var_pos = 0;
        for (i, (item, axis)) in slot_items.zip(axes).enumerate() {
            let at = AxisAt {
                row,
                axis: axes.len() - i,
            };
            let class = match item {
                Some(item) => match self.slot_axis(item, at, axis)? {
                    Some(class) => class,
                    None => continue,
                },
                None => {
                    let key = key
                        .clone()
                        .expect("row variable axes only with a row variable");
                    var_pos += 1;
                    Class::RowVarAxis(key, var_pos - 1)
                }
            };
            self.bind(class, at, axis)?;
        }
        Ok(())
    }

    /// The number of axes the row variable `key` of `slot` stands for in a
    /// concrete row of `len` axes: what the slot's known axes leave, the
    /// same in every row the variable is in.
    fn row_var_len(
        &mut self,
        slot: &Row<EinsumAxis>,
        key: Option<&RowKey>,
        row: RowRef,
        len: usize,
    ) -> Result<usize, CheckError> {
        let known = slot.len_known();
        let var_len = match &slot.var {
            None if len != known => None,
            Some(_) if len < known => None,
            _ => Some(len - known),
        };
        let Some(var_len) = var_len else {
            return Err(CheckError::EinsumRank {
                row,
                len,
                known,
                open: slot.var.is_some(),
            });
        };
        if let Some(key) = key {
            let (first, first_len) = *self.row_lens.entry(key.clone()).or_insert((row, var_len));
            if first_len != var_len {
                return Err(CheckError::EinsumRowVarLength {
                    var: key.text(),
                    first,
                    first_len,
                    row,
                    len: var_len,
                });
            }
        }
        Ok(var_len)
    }

    /// One written axis of a slot against a concrete axis: the class a
    /// label binds, or `None` for an axis checked here (a fixed index) or
    /// later (strided, convolution and concatenated axes), or unchecked
    /// (`_`).
    fn slot_axis(
        &mut self,
        item: &EinsumAxis,
        at: AxisAt,
        axis: &Axis,
    ) -> Result<Option<Class>, CheckError> {
        match item {
            EinsumAxis::Label(label) => return Ok(Some(Class::Label(label.clone()))),
            EinsumAxis::Fresh => {}
            EinsumAxis::Fixed(index) => {
                if axis.size <= *index {
                    return Err(CheckError::EinsumFixedIndex {
                        index: *index,
                        at,
                        size: axis.size,
                    });
                }
            }
            EinsumAxis::Affine {
                stride, over, conv, ..
            } => {
                // `check_einsum` rejects symbolic strides, and strides and
                // dilations above `MAX_SIZE`, before matching.
                let int = |v: &IntOrIdent| match v {
                    IntOrIdent::Int(n) => *n,
                    IntOrIdent::Ident(_) => 1,
                };
                self.affine.push(AffineUse {
                    size: axis.size,
                    at,
                    stride: int(stride),
                    over: over.clone(),
                    valid_kernel: conv
                        .as_ref()
                        .filter(|c| c.padding != Padding::Pad)
                        .map(|c| (c.kernel.clone(), int(&c.dilation))),
                    pads: match conv.as_ref().map(|c| c.padding) {
                        Some(Padding::Explicit { lo, hi }) => Some((lo, hi)),
                        _ => None,
                    },
                });
            }
            EinsumAxis::Concat(parts) => {
                // `check_einsum` rejects these outside block specs.
                self.concat.push(ConcatUse {
                    size: axis.size,
                    at,
                    parts: parts.clone(),
                });
            }
        }
        Ok(None)
    }

    fn bind(&mut self, class: Class, at: AxisAt, axis: &Axis) -> Result<(), CheckError> {
        let conflict = |class: &Class, first: AxisAt, first_axis: Axis| {
            CheckError::EinsumBinding(Box::new(EinsumConflict {
                what: class.text(),
                first,
                first_axis,
                at,
                axis: axis.clone(),
            }))
        };
        match self.bindings.get_mut(&class) {
            None => {
                self.bindings.insert(
                    class,
                    Binding {
                        size: axis.size,
                        size_at: at,
                        label: axis.label.clone().map(|label| (label, at)),
                    },
                );
            }
            Some(binding) => {
                if binding.size != axis.size {
                    let first = Axis {
                        size: binding.size,
                        label: None,
                    };
                    return Err(conflict(&class, binding.size_at, first));
                }
                match (&binding.label, &axis.label) {
                    (Some((label, label_at)), Some(new)) if label != new => {
                        let first = Axis {
                            size: binding.size,
                            label: Some(label.clone()),
                        };
                        return Err(conflict(&class, *label_at, first));
                    }
                    (None, Some(new)) => binding.label = Some((new.clone(), at)),
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

/// Einsum: operand `i`'s rows equal slot `i`, the result's rows equal `lhs`;
/// in a block spec (`block`), concatenated axes are the sums of their parts.
pub(super) fn check_einsum(
    spec: &EinsumSpec,
    ops: &[Concrete],
    res: &Concrete,
    block: bool,
) -> Result<(), CheckError> {
    let axes = spec
        .rhs
        .iter()
        .chain(std::iter::once(&spec.lhs))
        .flat_map(|slot| slot.rows().flat_map(|(_, row)| row.axes()));
    for axis in axes {
        match axis {
            EinsumAxis::Affine { stride, conv, .. } => {
                let symbolic = matches!(stride, IntOrIdent::Ident(_))
                    || conv
                        .as_ref()
                        .is_some_and(|c| matches!(c.dilation, IntOrIdent::Ident(_)));
                if symbolic {
                    return Err(CheckError::Unsupported("symbolic strides and dilations"));
                }
                let ints = [Some(stride), conv.as_ref().map(|c| &c.dilation)];
                if let Some(n) = ints.into_iter().flatten().find_map(|v| match v {
                    IntOrIdent::Int(n) if *n > MAX_SIZE => Some(*n),
                    _ => None,
                }) {
                    return Err(overflow(format!(
                        "the einsum spec has a stride or dilation of {n}"
                    )));
                }
            }
            EinsumAxis::Concat(_) if !block => {
                return Err(CheckError::Unsupported(
                    "concatenated axes outside block specs",
                ));
            }
            _ => {}
        }
    }
    let mut matching = EinsumMatch::default();
    let slots: Vec<(&SlotSpec, Tensor, &Concrete)> = spec
        .rhs
        .iter()
        .zip(ops)
        .enumerate()
        .map(|(i, (slot, shape))| (slot, Tensor::Operand(i), shape))
        .chain(std::iter::once((&spec.lhs, Tensor::Result, res)))
        .collect();
    for (slot, tensor, shape) in slots {
        for kind in RowKind::ALL {
            matching.row(slot.row(kind), RowRef::new(tensor, kind), shape.row(kind))?;
        }
    }
    matching.check_affine()?;
    matching.check_concat(&spec.discardable_labels())
}
