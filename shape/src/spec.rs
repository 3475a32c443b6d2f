//! The OCANNL shape and einsum *spec grammar*: abstract syntax, parser and
//! canonical printer.
//!
//! Two kinds of strings are covered, both written `batch|input->output`
//! (reference doc, section "Representing shapes and constraints"):
//!
//! * **shape specs**, as in the type `!ocannl.tensor<f32, "SPEC">`, parsed
//!   by [`parse_shape_spec`] into a [`ShapeSpec`]. An axis is a size (`20`),
//!   a labeled size (`rgb=3`), a dimension variable (`n`, `hidden`) or a fresh
//!   dimension (`_`);
//! * **einsum specs**, as in the attribute `spec = "rhs1[;rhs2[;rhs3]]=>lhs"`,
//!   parsed by [`parse_einsum_spec`] into an [`EinsumSpec`]. An axis is a
//!   label, `_`, a fixed index, an affine expression
//!   `[stride*]over[=|<|@lo,hi][+offset][+[dilation*]kernel]` (section
//!   "Affine indexing and convolutions"; `@lo,hi`, explicit padding with
//!   ONNX's rounding, is this project's extension: [`Padding::Explicit`]) or
//!   a concatenation `a^b^c` (section "Concatenation").
//!
//! Each row (batch, input or output) is a list of axes with at most one row
//! variable: `...` ([`RowVar::Anonymous`]) or `..name..` ([`RowVar::Named`]).
//!
//! # Lexer modes
//!
//! As in OCANNL's `tensor/lexer.mll`, a spec is lexed in *multichar mode* when
//! it contains any of `,` `*` `+` `^` `&` `<` (and our `@`), or a `=` that is
//! not the start of `=>`; identifiers are then `[a-zA-Z][a-zA-Z0-9_]*` and axes are separated
//! by commas. Otherwise it is lexed in *single-char mode*: every letter and
//! every `_` is an axis of its own, a run of digits is one integer, and an
//! implicit comma follows each of them. Whitespace is skipped in both modes.
//!
//! # Grammar
//!
//! The grammar is that of OCANNL's `tensor/parser.mly`:
//!
//! ```text
//! einsum   ::= shape (";" shape){0,2} "=>" shape
//! shape    ::= [row "|"] [row "->"] row
//! row      ::= prefix [ellipsis suffix]
//! prefix   ::= [","] | axes ("" | "," | ",,")
//! suffix   ::= ("" | "," | ",,") | [","] axes ("" | "," | ",,")
//! axes     ::= axis ("," axis)*
//! ellipsis ::= "..." | ".." IDENT [","] ".."
//! ```
//!
//! (`prefix` and `suffix` spell out the optional commas of the menhir rules
//! `axes_spec option(COMMA)`, where `axes_spec` may itself end in a comma.)
//! Two deliberate additions: `IDENT=INT` is a labeled size in shape specs
//! (mirroring how OCANNL prints a labeled dimension), and `&` is rejected as
//! reserved. Deliberate restrictions, which the OCaml parser only rejects
//! later or not at all: strides and dilations must be at least 1, a
//! row may hold only one row variable, at most three operands, and a row
//! variable's name must be an identifier (single-char mode's `.._..` is
//! rejected). Every integer literal (size, fixed index, stride, offset,
//! dilation) is at most [`MAX_SIZE`]; a larger one, or one that does not fit
//! 64 bits at all, is an error at the literal:
//! `size 9223372036854775808 is too large (at most 9223372036854775807)`.
//!
//! # Why a hand-written parser
//!
//! The two lexer modes and the implicit commas of single-char mode have to
//! match OCANNL exactly, and every error must carry the byte span of the
//! offending token. A small hand-written lexer plus a recursive-descent
//! parser does both directly; a parser-combinator or parser-generator crate
//! would still need the mode switch and the comma insertion written by hand
//! and would add little else for a grammar this small.
//!
//! # Canonical printing
//!
//! The [`Display`](std::fmt::Display) impls of [`ShapeSpec`], [`SlotSpec`] and
//! [`EinsumSpec`] print a canonical form that the parser reads back to the
//! same value: for every value `v` the parser produces,
//! `parse(&v.to_string()) == Ok(v)`, so printing is a fixed point of
//! parse-then-print. The rules:
//!
//! 1. A slot prints as `batch|input->output`; the batch row and its `|` are
//!    left out when it is the empty closed row, and so are the input row and
//!    its `->`. The scalar prints as the empty string.
//! 2. A row prints its `beg` axes, its row variable (`...` or `..name..`) and
//!    its `end` axes, separated by `,` without spaces: `2,3`, `..r..,64`,
//!    `b,...,c`.
//! 3. Axes: sizes and fixed indices as decimal integers, `_`, names as they
//!    are, labeled sizes as `label=size`, concatenations as `a^b^c`. An affine
//!    axis prints as `stride*over[=|<|@lo,hi][+offset][+[dilation*]kernel]`: the
//!    offset is left out when 0, the dilation when it is `1`, and the stride
//!    when it is `1` *and* there is a kernel (`1*o` keeps its stride, since
//!    `o` alone is a label and `o+2` is not an axis).
//! 4. An einsum joins its operand slots with `"; "` and the result with
//!    `" => "`: `a|i->h; b|h->o => a,b|i->o`.
//! 5. **Forcing multichar mode.** If the printed text has no multichar
//!    trigger but a name (axis label, dimension variable or row variable
//!    name) is longer than one character, a `,` is appended to the last
//!    non-empty row of the text, which the grammar allows as a trailing
//!    comma: `hidden,`, `..batch..|i->o,`, `hidden => h,`. Otherwise
//!    single-char mode would read `hidden` as six axes. Single letters and
//!    integers need nothing: `4|2->3`, `b|i->o => o|b->i`. A [`SlotSpec`]
//!    printed on its own applies this rule to itself; inside an
//!    [`EinsumSpec`] it applies to the whole einsum.
//!
//! Values that break the [`Row`] invariant (`beg` non-empty without a row
//! variable), hold names that are not identifiers (see [`is_ident`]), zero
//! sizes, strides or dilations, integers above [`MAX_SIZE`], or an einsum
//! without operands print, but do not parse back to themselves.
//!
//! # Example
//!
//! ```
//! use ocannl_shape::spec::{EinsumSpec, RowVar, ShapeAxis, ShapeSpec};
//!
//! let shape: ShapeSpec = "batch,seq|..r..,64->128".parse()?;
//! assert_eq!(shape.input.var, Some(RowVar::Named("r".into())));
//! assert_eq!(shape.input.end, [ShapeAxis::Size(64)]);
//! assert_eq!(shape.to_string(), "batch,seq|..r..,64->128");
//!
//! // Single-char mode: every letter is an axis.
//! let einsum: EinsumSpec = "a|i->h; b|h->o => ab|i->o".parse()?;
//! assert_eq!(einsum.rhs.len(), 2);
//! assert_eq!(einsum.lhs.batch.len_known(), 2);
//! assert_eq!(einsum.to_string(), "a|i->h; b|h->o => a,b|i->o");
//! # Ok::<(), ocannl_shape::spec::SpecError>(())
//! ```

pub mod bind;
mod discard;
mod lexer;
mod parser;
mod print;
#[cfg(test)]
mod tests;

use std::fmt;
use std::str::FromStr;

/// The largest size of one axis: `i64::MAX`, since MLIR's dimensions (and
/// the index arithmetic of the lowered loops) are signed 64-bit integers.
///
/// It is also the bound on strides, dilations, offsets and fixed indices
/// (the parser rejects larger literals), on every size the solver derives
/// (strided and convolution dims, concatenations, element counts: the
/// number of elements of a tensor in an element-count constraint is the
/// size of the tensor flattened to one axis), and on the index ranges of
/// projections. Going past it is an error everywhere, never a wrapped or
/// saturated value: a [`SpecError`] from the parser, a
/// [`ShapeErrorKind::Overflow`](crate::solver::ShapeErrorKind::Overflow)
/// from the solver, a
/// [`ProjectionError::Overflow`](crate::projection::ProjectionError::Overflow)
/// from projection inference and a
/// [`CheckError::Overflow`](crate::check::CheckError::Overflow) from the
/// checker. (The reference, `ocannl-shape-inference.md`, uses OCaml's 63-bit
/// `int` for sizes and does not bound them.)
pub const MAX_SIZE: u64 = i64::MAX as u64;

/// The kind of a row of axes (reference doc, "Representing shapes and
/// constraints"): a shape is `batch|input->output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RowKind {
    /// The batch row, before `|`.
    Batch,
    /// The input row, before `->`.
    Input,
    /// The output row, last.
    Output,
}

impl RowKind {
    /// All row kinds, in spec order.
    pub const ALL: [RowKind; 3] = [RowKind::Batch, RowKind::Input, RowKind::Output];
}

/// A row variable: a row can be extended with more axes in its place.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RowVar {
    /// `...`: an anonymous row variable.
    Anonymous,
    /// `..name..`: a named row variable, shared by every row that names it.
    Named(String),
}

/// A byte range `start..end` in the spec string; `start == end` marks a
/// position (such as the end of input).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// Byte offset of the first byte (always on a char boundary).
    pub start: usize,
    /// Byte offset one past the last byte (always on a char boundary).
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }
}

/// One axis of a [`ShapeSpec`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ShapeAxis {
    /// `20`: an axis of known size (at most [`MAX_SIZE`]). A size may be 0:
    /// an empty axis, which a discardable part of a concatenation closes to
    /// (reference, "Invalid variables in Block specs").
    Size(u64),
    /// `rgb=3`: an axis of known size with a dimension label.
    Labeled {
        /// The label, e.g. `rgb`.
        label: String,
        /// The size (at most [`MAX_SIZE`]).
        size: u64,
    },
    /// `n`, `hidden`: a dimension variable.
    Var(String),
    /// `_`: a fresh anonymous dimension.
    Fresh,
}

/// A row of axes: `beg` axes, then an optional row variable, then `end`
/// axes (`b,...,c` has `beg = [b]`, `end = [c]`).
///
/// **Invariant**: if `var` is `None` then `beg` is empty and all axes are in
/// `end`, as in OCANNL's parser (axes are indexed from the end unless a row
/// variable stands between them and the end).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Row<A> {
    /// The axes before the row variable.
    pub beg: Vec<A>,
    /// The row variable, if the row may grow.
    pub var: Option<RowVar>,
    /// The axes after the row variable (all axes when there is none).
    pub end: Vec<A>,
}

impl<A> Row<A> {
    /// The empty closed row: no axes, no row variable (an absent row).
    pub fn empty() -> Self {
        Row {
            beg: Vec::new(),
            var: None,
            end: Vec::new(),
        }
    }

    /// A closed row with the given axes.
    pub fn closed(axes: Vec<A>) -> Self {
        Row {
            beg: Vec::new(),
            var: None,
            end: axes,
        }
    }

    /// A row with a row variable between `beg` and `end`.
    pub fn open(beg: Vec<A>, var: RowVar, end: Vec<A>) -> Self {
        Row {
            beg,
            var: Some(var),
            end,
        }
    }

    /// Whether this is the empty closed row.
    pub fn is_empty_closed(&self) -> bool {
        self.var.is_none() && self.beg.is_empty() && self.end.is_empty()
    }

    /// The number of given axes (`beg` and `end`).
    pub fn len_known(&self) -> usize {
        self.beg.len() + self.end.len()
    }

    /// The given axes, `beg` then `end`.
    pub fn axes(&self) -> impl Iterator<Item = &A> {
        self.beg.iter().chain(&self.end)
    }

    /// The name of the row variable, if it is named.
    pub fn row_var_name(&self) -> Option<&str> {
        match &self.var {
            Some(RowVar::Named(name)) => Some(name),
            _ => None,
        }
    }
}

impl<A> Default for Row<A> {
    fn default() -> Self {
        Row::empty()
    }
}

/// A parsed shape spec `batch|input->output`, as used in the type
/// `!ocannl.tensor<f32, "SPEC">`. Absent rows are empty closed rows.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ShapeSpec {
    /// The batch row.
    pub batch: Row<ShapeAxis>,
    /// The input row.
    pub input: Row<ShapeAxis>,
    /// The output row.
    pub output: Row<ShapeAxis>,
}

impl ShapeSpec {
    /// The row of the given kind.
    pub fn row(&self, kind: RowKind) -> &Row<ShapeAxis> {
        match kind {
            RowKind::Batch => &self.batch,
            RowKind::Input => &self.input,
            RowKind::Output => &self.output,
        }
    }

    /// The rows with their kinds, in spec order.
    pub fn rows(&self) -> impl Iterator<Item = (RowKind, &Row<ShapeAxis>)> {
        RowKind::ALL.into_iter().map(|kind| (kind, self.row(kind)))
    }

    /// Whether the shape is fully known: no dimension variables, no `_`, no
    /// row variables.
    pub fn is_concrete(&self) -> bool {
        self.rows().all(|(_, row)| {
            row.var.is_none()
                && row
                    .axes()
                    .all(|axis| matches!(axis, ShapeAxis::Size(_) | ShapeAxis::Labeled { .. }))
        })
    }

    /// The names of the dimension variables, in spec order, with repeats.
    pub fn dim_vars(&self) -> impl Iterator<Item = &str> {
        self.rows()
            .flat_map(|(_, row)| row.axes())
            .filter_map(|axis| match axis {
                ShapeAxis::Var(name) => Some(name.as_str()),
                _ => None,
            })
    }

    /// The names of the named row variables, in spec order, with repeats.
    pub fn row_vars(&self) -> impl Iterator<Item = &str> {
        self.rows().filter_map(|(_, row)| row.row_var_name())
    }
}

/// A stride or dilation: an integer, or an identifier resolved later.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum IntOrIdent {
    /// A literal, at least 1 (at most [`MAX_SIZE`]).
    Int(u64),
    /// A name standing for an integer.
    Ident(String),
}

/// Whether a convolution pads its input (reference doc, "Affine indexing and
/// convolutions").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Padding {
    /// `=`: `use_padding = true`, the input is as large as `stride * output`.
    Pad,
    /// `<`: `use_padding = false`, a valid convolution.
    Valid,
    /// `@lo,hi`: explicit padding, an extension for ONNX's and PyTorch's
    /// convolutions and pools (OCANNL has no such marker). The input is
    /// read at `stride * over + dilation * kernel - lo` (cells outside it
    /// read as the neutral element), and the output is as large as the
    /// windows that fit the padded input: `output = (input + lo + hi -
    /// span) / stride + 1`, rounded down, where `span = (kernel - 1) *
    /// dilation + 1`; the input's last cells may go unread.
    Explicit {
        /// The padding before the axis.
        lo: u64,
        /// The padding after the axis.
        hi: u64,
    },
    /// No marker: decided elsewhere.
    Unspecified,
}

/// The convolution part `+[dilation*]kernel` of an affine axis.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Conv {
    /// The dilation, `Int(1)` when omitted.
    pub dilation: IntOrIdent,
    /// The kernel label.
    pub kernel: String,
    /// The padding marker written after the `over` label.
    pub padding: Padding,
}

/// One axis of an einsum slot spec.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EinsumAxis {
    /// `i`, `hidden`: an axis label, local to the spec.
    Label(String),
    /// `_`: an axis matching anything, tied to nothing.
    Fresh,
    /// `0`, `12`: a fixed index (in einsum, integers are indices, not sizes),
    /// at most [`MAX_SIZE`].
    Fixed(u64),
    /// `[stride*]over[=|<][+offset][+[dilation*]kernel]`.
    Affine {
        /// The stride, `Int(1)` when omitted.
        stride: IntOrIdent,
        /// The iterated (output) label.
        over: String,
        /// The constant offset, 0 when omitted (at most [`MAX_SIZE`]).
        offset: u64,
        /// The convolution part, if any.
        conv: Option<Conv>,
    },
    /// `a^b^c`: the concatenation of two or more labels.
    Concat(Vec<String>),
}

/// The spec of one operand or of the result of an einsum.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SlotSpec {
    /// The batch row.
    pub batch: Row<EinsumAxis>,
    /// The input row.
    pub input: Row<EinsumAxis>,
    /// The output row.
    pub output: Row<EinsumAxis>,
}

impl SlotSpec {
    /// The row of the given kind.
    pub fn row(&self, kind: RowKind) -> &Row<EinsumAxis> {
        match kind {
            RowKind::Batch => &self.batch,
            RowKind::Input => &self.input,
            RowKind::Output => &self.output,
        }
    }

    /// The rows with their kinds, in spec order.
    pub fn rows(&self) -> impl Iterator<Item = (RowKind, &Row<EinsumAxis>)> {
        RowKind::ALL.into_iter().map(|kind| (kind, self.row(kind)))
    }
}

/// A parsed einsum spec `rhs1[;rhs2[;rhs3]]=>lhs`. Note that, as in OCANNL,
/// the "right-hand sides" (operands) come first.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EinsumSpec {
    /// The operand specs, 1 to 3 of them.
    pub rhs: Vec<SlotSpec>,
    /// The result spec.
    pub lhs: SlotSpec,
}

/// A syntax error in a spec, at the span of the offending token (or at the
/// end of input).
///
/// It displays as `"{message} at position {start}"`, where `start` is the
/// 0-based byte offset of the span's start.
#[derive(Debug, Clone, PartialEq, Eq, Hash, thiserror::Error)]
#[error("{message} at position {}", span.start)]
pub struct SpecError {
    /// Where the error is.
    pub span: Span,
    /// What is wrong, lowercase, without a trailing period.
    pub message: String,
}

impl SpecError {
    pub(crate) fn new(span: Span, message: impl Into<String>) -> Self {
        SpecError {
            span,
            message: message.into(),
        }
    }
}

/// Whether `s` is an identifier in multichar mode: `[a-zA-Z][a-zA-Z0-9_]*`.
/// Names in well-formed specs (labels, variables, row variables) are
/// identifiers.
pub fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Parses a shape spec such as `2,3|4->5` or `batch,seq|..r..,64->128`.
///
/// # Errors
///
/// A [`SpecError`] at the first offending token; einsum-only axes (fixed
/// indices are sizes here, but affine and concatenated axes are rejected).
pub fn parse_shape_spec(s: &str) -> Result<ShapeSpec, SpecError> {
    parser::parse_shape(s)
}

/// Parses an einsum spec such as `a|i->h; b|h->o => ab|i->o`.
///
/// # Errors
///
/// A [`SpecError`] at the first offending token, e.g. when `=>` is missing
/// or there are more than three operands.
pub fn parse_einsum_spec(s: &str) -> Result<EinsumSpec, SpecError> {
    parser::parse_einsum(s)
}

/// Parses a block (concatenation) spec such as `a; b => a^b`: the einsum
/// grammar with any number of operand slots (OCANNL's `Block` logic, see
/// the reference document, "Concatenation").
///
/// # Errors
///
/// A [`SpecError`] at the first offending token.
pub fn parse_block_spec(s: &str) -> Result<EinsumSpec, SpecError> {
    parser::parse_block(s)
}

impl FromStr for ShapeSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_shape_spec(s)
    }
}

impl FromStr for EinsumSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_einsum_spec(s)
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}
