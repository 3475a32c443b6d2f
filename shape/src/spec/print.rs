//! The canonical printer: [`Display`] for [`ShapeSpec`], [`SlotSpec`] and
//! [`EinsumSpec`].
//!
//! The printing rules, and the fixed-point property they guarantee, are
//! listed in the [`super`] module docs under "Canonical printing"; the rule
//! numbers in comments here refer to that list.

use std::fmt::{self, Display, Write as _};

use super::lexer::is_multichar;
use super::{
    Conv, EinsumAxis, EinsumSpec, IntOrIdent, Padding, Row, RowVar, ShapeAxis, ShapeSpec, SlotSpec,
};

/// An axis type the printer can write.
trait PrintAxis {
    /// Appends the axis text.
    fn write(&self, out: &mut String);
    /// Whether the axis holds a name that single-char mode would split.
    fn has_long_name(&self) -> bool;
}

impl PrintAxis for ShapeAxis {
    fn write(&self, out: &mut String) {
        match self {
            ShapeAxis::Size(n) => push_display(out, n),
            ShapeAxis::Labeled { label, size } => {
                push_display(out, format_args!("{label}={size}"));
            }
            ShapeAxis::Var(name) => out.push_str(name),
            ShapeAxis::Fresh => out.push('_'),
        }
    }

    fn has_long_name(&self) -> bool {
        match self {
            ShapeAxis::Var(name) | ShapeAxis::Labeled { label: name, .. } => name.len() > 1,
            ShapeAxis::Size(_) | ShapeAxis::Fresh => false,
        }
    }
}

impl PrintAxis for EinsumAxis {
    fn write(&self, out: &mut String) {
        match self {
            EinsumAxis::Label(name) => out.push_str(name),
            EinsumAxis::Fresh => out.push('_'),
            EinsumAxis::Fixed(n) => push_display(out, n),
            EinsumAxis::Affine {
                stride,
                over,
                offset,
                conv,
            } => write_affine(out, stride, over, *offset, conv.as_ref()),
            EinsumAxis::Concat(labels) => out.push_str(&labels.join("^")),
        }
    }

    fn has_long_name(&self) -> bool {
        // Affine and concatenated axes print a multichar trigger anyway.
        matches!(self, EinsumAxis::Label(name) if name.len() > 1)
    }
}

/// `stride*over[=|<][+offset][+[dilation*]kernel]` (rule 3).
fn write_affine(
    out: &mut String,
    stride: &IntOrIdent,
    over: &str,
    offset: u64,
    conv: Option<&Conv>,
) {
    if conv.is_none() || *stride != IntOrIdent::Int(1) {
        push_display(out, stride);
        out.push('*');
    }
    out.push_str(over);
    if let Some(conv) = conv {
        match conv.padding {
            Padding::Pad => out.push('='),
            Padding::Valid => out.push('<'),
            Padding::Explicit { lo, hi } => push_display(out, format_args!("@{lo},{hi}")),
            Padding::Unspecified => {}
        }
    }
    if offset > 0 {
        push_display(out, format_args!("+{offset}"));
    }
    if let Some(conv) = conv {
        out.push('+');
        if conv.dilation != IntOrIdent::Int(1) {
            push_display(out, &conv.dilation);
            out.push('*');
        }
        out.push_str(&conv.kernel);
    }
}

fn push_display(out: &mut String, value: impl Display) {
    write!(out, "{value}").expect("writing to a String cannot fail");
}

impl Display for IntOrIdent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntOrIdent::Int(n) => write!(f, "{n}"),
            IntOrIdent::Ident(name) => f.write_str(name),
        }
    }
}

impl Display for RowVar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowVar::Anonymous => f.write_str("..."),
            RowVar::Named(name) => write!(f, "..{name}.."),
        }
    }
}

/// The printed pieces of one or more slots: row texts, each followed by its
/// separator (`|`, `->`, `; `, ` => ` or nothing).
#[derive(Default)]
struct Pieces {
    rows: Vec<(String, &'static str)>,
    long_name: bool,
}

impl Pieces {
    /// Adds a slot (rule 1), followed by `after`.
    fn slot<A: PrintAxis>(&mut self, rows: [&Row<A>; 3], after: &'static str) {
        let [batch, input, output] = rows;
        if !batch.is_empty_closed() {
            self.row(batch, "|");
        }
        if !input.is_empty_closed() {
            self.row(input, "->");
        }
        self.row(output, after);
    }

    /// Adds a row (rule 2), followed by `after`.
    fn row<A: PrintAxis>(&mut self, row: &Row<A>, after: &'static str) {
        let mut text = String::new();
        let mut sep = "";
        for axis in &row.beg {
            text.push_str(sep);
            axis.write(&mut text);
            sep = ",";
        }
        if let Some(var) = &row.var {
            text.push_str(sep);
            push_display(&mut text, var);
            sep = ",";
            self.long_name |= matches!(var, RowVar::Named(name) if name.len() > 1);
        }
        for axis in &row.end {
            text.push_str(sep);
            axis.write(&mut text);
            sep = ",";
        }
        self.long_name |= row.axes().any(PrintAxis::has_long_name);
        self.rows.push((text, after));
    }

    /// Joins the pieces, forcing multichar mode where needed (rule 5).
    fn finish(mut self) -> String {
        let mut out = self.join();
        if self.long_name && !is_multichar(&out) {
            if let Some((text, _)) = self.rows.iter_mut().rev().find(|(t, _)| !t.is_empty()) {
                text.push(',');
            }
            out = self.join();
        }
        out
    }

    fn join(&self) -> String {
        self.rows
            .iter()
            .flat_map(|(text, after)| [text.as_str(), after])
            .collect()
    }
}

impl Display for ShapeSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut pieces = Pieces::default();
        pieces.slot([&self.batch, &self.input, &self.output], "");
        f.write_str(&pieces.finish())
    }
}

/// Prints the slot as a standalone spec, so that `parse_shape_spec` could
/// read it back if it holds no einsum-only axes; inside an [`EinsumSpec`]
/// rule 5 applies to the whole einsum instead.
impl Display for SlotSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut pieces = Pieces::default();
        pieces.slot([&self.batch, &self.input, &self.output], "");
        f.write_str(&pieces.finish())
    }
}

impl Display for EinsumSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut pieces = Pieces::default();
        let n = self.rhs.len();
        for (i, slot) in self.rhs.iter().enumerate() {
            let after = if i + 1 == n { " => " } else { "; " };
            pieces.slot([&slot.batch, &slot.input, &slot.output], after);
        }
        if n == 0 {
            // Not a valid einsum; print the arrow so that the result stays
            // recognisable.
            pieces.rows.push((String::new(), " => "));
        }
        let lhs = &self.lhs;
        pieces.slot([&lhs.batch, &lhs.input, &lhs.output], "");
        f.write_str(&pieces.finish())
    }
}
