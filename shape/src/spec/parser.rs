//! Recursive-descent parser over the tokens of [`super::lexer`], after
//! OCANNL's `tensor/parser.mly` (see the grammar in the [`super`] module
//! docs).
//!
//! Axes are first parsed with one grammar for both spec kinds (a [`RawAxis`]
//! is any einsum axis or a labeled size) and then checked by [`AxisKind`]:
//! shape specs reject affine and concatenated axes, einsum specs reject
//! labeled sizes. This gives clearer errors than two disjoint grammars.
//! The axis grammar (labels, sizes, strided and convolution axes,
//! concatenations) is in `axis.rs`.

mod axis;

use std::collections::HashMap;

use super::lexer::{Tok, Token, lex};
use super::{
    Conv, EinsumAxis, EinsumSpec, IntOrIdent, MAX_SIZE, Row, RowVar, ShapeAxis, ShapeSpec,
    SlotSpec, Span, SpecError,
};

/// Parses a whole shape spec.
pub(super) fn parse_shape(spec: &str) -> Result<ShapeSpec, SpecError> {
    let mut p = Parser::new(spec)?;
    let (batch, input, output) = p.slot::<ShapeAxis>(&[Tok::Eof])?;
    p.expect_eof()?;
    p.check_names()?;
    Ok(ShapeSpec {
        batch,
        input,
        output,
    })
}

/// Parses a whole einsum spec: OCANNL's einsum takes one to three operands.
pub(super) fn parse_einsum(spec: &str) -> Result<EinsumSpec, SpecError> {
    parse_slots(spec, Some(3))
}

/// Parses a block (concatenation) spec: the einsum grammar with any number
/// of operand slots.
pub(super) fn parse_block(spec: &str) -> Result<EinsumSpec, SpecError> {
    parse_slots(spec, None)
}

/// `rhs1; ...; rhsN => lhs`, with at most `max_operands` operand slots.
fn parse_slots(spec: &str, max_operands: Option<usize>) -> Result<EinsumSpec, SpecError> {
    let mut p = Parser::new(spec)?;
    let mut rhs = Vec::new();
    loop {
        let (batch, input, output) = p.slot::<EinsumAxis>(&[Tok::Semicolon, Tok::DoubleArrow])?;
        rhs.push(SlotSpec {
            batch,
            input,
            output,
        });
        match p.peek().tok {
            Tok::Semicolon if Some(rhs.len()) == max_operands => {
                return Err(SpecError::new(
                    p.peek().span,
                    "einsum takes at most 3 operand specs",
                ));
            }
            Tok::Semicolon => p.bump(),
            Tok::DoubleArrow => {
                p.bump();
                break;
            }
            _ => unreachable!("`slot` stops only at its terminators"),
        };
    }
    let (batch, input, output) = p.slot::<EinsumAxis>(&[Tok::Eof])?;
    p.expect_eof()?;
    p.check_names()?;
    Ok(EinsumSpec {
        rhs,
        lhs: SlotSpec {
            batch,
            input,
            output,
        },
    })
}

/// An axis as parsed, before checking which spec kind allows it.
#[derive(Debug)]
pub(super) enum RawAxis {
    /// `12`.
    Int(u64),
    /// `_`.
    Underscore,
    /// `x`.
    Ident(String),
    /// `rgb=3` (the size is already checked to be at most [`MAX_SIZE`]).
    Labeled { label: String, size: u64 },
    /// `[stride*]over[=|<][+offset][+[dilation*]kernel]`.
    Affine {
        stride: IntOrIdent,
        over: String,
        offset: u64,
        conv: Option<Conv>,
    },
    /// `a^b^c`.
    Concat(Vec<String>),
}

/// The axis type of a spec kind, with the check of which axes it allows.
pub(super) trait AxisKind: Sized {
    /// What a bare integer axis is in this kind of spec, for errors.
    const INT: &'static str;

    /// Converts a parsed axis spanning `span`, or says why it is not allowed.
    fn convert(raw: RawAxis, span: Span) -> Result<Self, SpecError>;
}

impl AxisKind for ShapeAxis {
    const INT: &'static str = "size";
    fn convert(raw: RawAxis, span: Span) -> Result<Self, SpecError> {
        match raw {
            RawAxis::Int(size) => Ok(ShapeAxis::Size(size)),
            RawAxis::Underscore => Ok(ShapeAxis::Fresh),
            RawAxis::Ident(name) => Ok(ShapeAxis::Var(name)),
            RawAxis::Labeled { label, size } => Ok(ShapeAxis::Labeled { label, size }),
            RawAxis::Affine { .. } => Err(SpecError::new(
                span,
                "affine axes are only allowed in einsum specs",
            )),
            RawAxis::Concat(_) => Err(SpecError::new(
                span,
                "concatenated axes are only allowed in einsum specs",
            )),
        }
    }
}

impl AxisKind for EinsumAxis {
    const INT: &'static str = "fixed index";
    fn convert(raw: RawAxis, span: Span) -> Result<Self, SpecError> {
        match raw {
            RawAxis::Int(index) => Ok(EinsumAxis::Fixed(index)),
            RawAxis::Underscore => Ok(EinsumAxis::Fresh),
            RawAxis::Ident(name) => Ok(EinsumAxis::Label(name)),
            RawAxis::Labeled { .. } => Err(SpecError::new(
                span,
                "labeled sizes are only allowed in shape specs",
            )),
            RawAxis::Affine {
                stride,
                over,
                offset,
                conv,
            } => Ok(EinsumAxis::Affine {
                stride,
                over,
                offset,
                conv,
            }),
            RawAxis::Concat(labels) => Ok(EinsumAxis::Concat(labels)),
        }
    }
}

/// Rows of a slot: batch, input, output.
type Rows<A> = (Row<A>, Row<A>, Row<A>);

struct Parser<'a> {
    spec: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    /// Every variable name as written: whether it names a row variable
    /// (`..d..`) or a dimension variable (`d`, an affine term, a
    /// concatenated part), and where.
    names: Vec<(String, bool, Span)>,
}

impl<'a> Parser<'a> {
    fn new(spec: &'a str) -> Result<Self, SpecError> {
        Ok(Parser {
            spec,
            tokens: lex(spec)?,
            pos: 0,
            names: Vec::new(),
        })
    }

    /// OCANNL's rule (`test_einsum_capture`): one name in one spec is a row
    /// variable or a dimension variable, not both. The error is at the
    /// second use, naming the first.
    fn check_names(&self) -> Result<(), SpecError> {
        // Per name: the first use as a dimension and as a row variable.
        let mut firsts: HashMap<&str, [Option<Span>; 2]> = HashMap::new();
        for (name, row, span) in &self.names {
            let uses = firsts.entry(name.as_str()).or_default();
            uses[usize::from(*row)].get_or_insert(*span);
            if let Some(first) = uses[usize::from(!*row)] {
                let then = if *row {
                    "a dimension variable"
                } else {
                    "a row variable"
                };
                return Err(SpecError::new(
                    *span,
                    format!(
                        "name '{name}' is used as both a dimension variable and a row variable (as {then} at position {})",
                        first.start
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Records the variable names of an axis (see [`Parser::names`]).
    fn note_names(&mut self, raw: &RawAxis, span: Span) {
        let mut note = |n: &str| self.names.push((n.to_owned(), false, span));
        match raw {
            RawAxis::Ident(n) => note(n),
            RawAxis::Affine {
                stride, over, conv, ..
            } => {
                if let IntOrIdent::Ident(n) = stride {
                    note(n);
                }
                note(over);
                if let Some(c) = conv {
                    if let IntOrIdent::Ident(n) = &c.dilation {
                        note(n);
                    }
                    note(&c.kernel);
                }
            }
            RawAxis::Concat(parts) => parts.iter().for_each(|n| note(n)),
            RawAxis::Int(_) | RawAxis::Underscore | RawAxis::Labeled { .. } => {}
        }
    }

    /// The token as written: integers by their text (a literal past `u64`
    /// is lexed as `u64::MAX`).
    fn describe(&self, token: &Token) -> String {
        match token.tok {
            Tok::Int(_) => format!("`{}`", self.text(token.span)),
            _ => token.tok.describe(),
        }
    }

    fn text(&self, span: Span) -> &'a str {
        self.spec.get(span.start..span.end).unwrap_or_default()
    }

    /// Checks that the integer literal `n` at `span` (a `what`: size,
    /// stride...) is at most [`MAX_SIZE`].
    fn bounded(&self, n: u64, span: Span, what: &str) -> Result<u64, SpecError> {
        if n > MAX_SIZE {
            Err(SpecError::new(
                span,
                format!(
                    "{what} {} is too large (at most {MAX_SIZE})",
                    self.text(span)
                ),
            ))
        } else {
            Ok(n)
        }
    }

    /// A literal that must be at least 1 and at most [`MAX_SIZE`].
    fn positive(&self, n: u64, span: Span, what: &str) -> Result<u64, SpecError> {
        positive(self.bounded(n, span, what)?, span, what)
    }

    fn peek(&self) -> &Token {
        self.peek_at(0)
    }

    /// The token `n` places ahead; past the end, the final `Eof`.
    fn peek_at(&self, n: usize) -> &Token {
        let last = self.tokens.len() - 1;
        &self.tokens[(self.pos + n).min(last)]
    }

    fn bump(&mut self) {
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
    }

    /// The span of the token just consumed.
    fn prev_span(&self) -> Span {
        self.tokens[self.pos.saturating_sub(1)].span
    }

    fn at(&self, tok: &Tok) -> bool {
        &self.peek().tok == tok
    }

    fn at_axis_start(&self) -> bool {
        matches!(
            self.peek().tok,
            Tok::Int(_) | Tok::Ident(_) | Tok::Underscore
        )
    }

    fn at_row_var(&self) -> bool {
        matches!(self.peek().tok, Tok::Ellipsis | Tok::DotDot)
    }

    /// An error at the next token: "expected {what}, found {token}".
    fn expected(&self, what: &str) -> SpecError {
        let token = self.peek();
        SpecError::new(
            token.span,
            format!("expected {what}, found {}", self.describe(token)),
        )
    }

    fn expect_eof(&self) -> Result<(), SpecError> {
        if self.at(&Tok::Eof) {
            Ok(())
        } else {
            Err(self.expected("end of input"))
        }
    }

    /// `[row "|"] [row "->"] row`, stopping at one of `terminators`.
    fn slot<A: AxisKind>(&mut self, terminators: &[Tok]) -> Result<Rows<A>, SpecError> {
        let first = self.row::<A>()?;
        if self.at(&Tok::Pipe) {
            self.bump();
            let second = self.row::<A>()?;
            if self.at(&Tok::Arrow) {
                self.bump();
                let third = self.row::<A>()?;
                self.check_terminator(&[], terminators)?;
                Ok((first, second, third))
            } else {
                self.check_terminator(&[Tok::Arrow], terminators)?;
                Ok((first, Row::empty(), second))
            }
        } else if self.at(&Tok::Arrow) {
            self.bump();
            let second = self.row::<A>()?;
            self.check_terminator(&[], terminators)?;
            Ok((Row::empty(), first, second))
        } else {
            self.check_terminator(&[Tok::Pipe, Tok::Arrow], terminators)?;
            Ok((Row::empty(), Row::empty(), first))
        }
    }

    /// Succeeds when the next token is one of `terminators`; otherwise an
    /// error listing the row `separators` still possible and the terminators.
    fn check_terminator(&self, separators: &[Tok], terminators: &[Tok]) -> Result<(), SpecError> {
        if terminators.contains(&self.peek().tok) {
            return Ok(());
        }
        let all: Vec<String> = separators
            .iter()
            .chain(terminators)
            .map(Tok::describe)
            .collect();
        Err(self.expected(&one_of(&all)))
    }

    /// One row: `prefix [ellipsis suffix]` (see the module docs of
    /// [`super`] for where commas may go).
    fn row<A: AxisKind>(&mut self) -> Result<Row<A>, SpecError> {
        let mut first = Vec::new();
        if self.at_axis_start() {
            self.axis_list(&mut first)?;
        } else {
            self.commas(1)?;
        }
        if !self.at_row_var() {
            return Ok(Row::closed(first));
        }
        let var = self.row_var()?.0;
        let mut end = Vec::new();
        let leading = self.commas(2)?;
        if self.at_axis_start() {
            if leading == 2 {
                return Err(SpecError::new(self.prev_span(), "unexpected `,`"));
            }
            self.axis_list(&mut end)?;
        }
        if self.at_row_var() {
            let (second, span) = self.row_var()?;
            let message = match (&var, &second) {
                (RowVar::Named(a), RowVar::Named(b)) if a == b => {
                    format!("duplicate row variable `..{a}..` in one row")
                }
                _ => "a row may have only one row variable".to_owned(),
            };
            return Err(SpecError::new(span, message));
        }
        Ok(Row::open(first, var, end))
    }

    /// Consumes up to `max` commas; a further comma is an error.
    fn commas(&mut self, max: usize) -> Result<usize, SpecError> {
        let mut n = 0;
        while self.at(&Tok::Comma) {
            if n == max {
                return Err(SpecError::new(self.peek().span, "unexpected `,`"));
            }
            self.bump();
            n += 1;
        }
        Ok(n)
    }

    /// `axis ("," axis)*` followed by up to two commas.
    fn axis_list<A: AxisKind>(&mut self, axes: &mut Vec<A>) -> Result<(), SpecError> {
        loop {
            let start = self.peek().span.start;
            let raw = self.axis()?;
            let span = Span::new(start, self.prev_span().end);
            if let RawAxis::Int(n) = raw {
                self.bounded(n, span, A::INT)?;
            }
            self.note_names(&raw, span);
            axes.push(A::convert(raw, span)?);
            let n = self.commas(2)?;
            if !self.at_axis_start() {
                return Ok(());
            }
            match n {
                0 => return Err(self.expected("`,` between axes")),
                1 => continue,
                _ => return Err(SpecError::new(self.prev_span(), "unexpected `,`")),
            }
        }
    }

    /// `...` or `..name..`, with the span of the whole of it.
    fn row_var(&mut self) -> Result<(RowVar, Span), SpecError> {
        let start = self.peek().span.start;
        if self.at(&Tok::Ellipsis) {
            self.bump();
            return Ok((RowVar::Anonymous, self.prev_span()));
        }
        self.bump(); // `..`
        let Tok::Ident(name) = self.peek().tok.clone() else {
            return Err(self.expected("a row variable name after `..`"));
        };
        self.names.push((name.clone(), true, self.peek().span));
        self.bump();
        if self.at(&Tok::Comma) {
            self.bump();
        }
        if !self.at(&Tok::DotDot) {
            return Err(self.expected(&format!("`..` to close `..{name}`")));
        }
        self.bump();
        Ok((RowVar::Named(name), Span::new(start, self.prev_span().end)))
    }

    /// An identifier, or an error saying `what` was expected.
    fn ident(&mut self, what: &str) -> Result<String, SpecError> {
        match &self.peek().tok {
            Tok::Ident(name) => {
                let name = name.clone();
                self.bump();
                Ok(name)
            }
            _ => Err(self.expected(what)),
        }
    }
}

/// Checks that a stride or dilation `n` at `span` is at least 1.
fn positive(n: u64, span: Span, what: &str) -> Result<u64, SpecError> {
    if n == 0 {
        Err(SpecError::new(span, format!("{what} must be at least 1")))
    } else {
        Ok(n)
    }
}

/// "`a`", "`a` or `b`", "`a`, `b` or `c`".
fn one_of(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}
