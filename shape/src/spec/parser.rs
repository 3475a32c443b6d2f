//! Recursive-descent parser over the tokens of [`super::lexer`], after
//! OCANNL's `tensor/parser.mly` (see the grammar in the [`super`] module
//! docs).
//!
//! Axes are first parsed with one grammar for both spec kinds (a [`RawAxis`]
//! is any einsum axis or a labeled size) and then checked by [`AxisKind`]:
//! shape specs reject affine and concatenated axes, einsum specs reject
//! labeled sizes. This gives clearer errors than two disjoint grammars.

use std::collections::HashMap;

use super::lexer::{Tok, Token, lex};
use super::{
    Conv, EinsumAxis, EinsumSpec, IntOrIdent, MAX_SIZE, Padding, Row, RowVar, ShapeAxis, ShapeSpec,
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

    /// One axis; the next token is an integer, identifier or `_`.
    fn axis(&mut self) -> Result<RawAxis, SpecError> {
        let token = self.peek().clone();
        self.bump();
        match token.tok {
            Tok::Underscore => Ok(RawAxis::Underscore),
            Tok::Int(n) if self.at(&Tok::Star) => {
                let stride = self.positive(n, token.span, "stride")?;
                self.bump();
                let over = self.ident("a label after `*`")?;
                self.affine_rest(IntOrIdent::Int(stride), true, over)
            }
            Tok::Int(n) => Ok(RawAxis::Int(n)),
            Tok::Ident(name) => match self.peek().tok {
                Tok::Star => {
                    self.bump();
                    let over = self.ident("a label after `*`")?;
                    self.affine_rest(IntOrIdent::Ident(name), true, over)
                }
                Tok::Caret => {
                    let mut labels = vec![name];
                    while self.at(&Tok::Caret) {
                        self.bump();
                        labels.push(self.ident("a label after `^`")?);
                    }
                    Ok(RawAxis::Concat(labels))
                }
                Tok::Equals => match self.peek_at(1).tok {
                    Tok::Int(size) => {
                        self.bump();
                        let size_span = self.peek().span;
                        self.bump();
                        let size = self.bounded(size, size_span, "size")?;
                        Ok(RawAxis::Labeled { label: name, size })
                    }
                    Tok::Plus => self.affine_rest(IntOrIdent::Int(1), false, name),
                    _ => {
                        self.bump();
                        Err(self.expected("a size or `+` after `=`"))
                    }
                },
                Tok::LessThan | Tok::At | Tok::Plus => {
                    self.affine_rest(IntOrIdent::Int(1), false, name)
                }
                _ => Ok(RawAxis::Ident(name)),
            },
            _ => unreachable!("`axis` is called only at the start of an axis"),
        }
    }

    /// The rest of an affine axis after `[stride*]over`:
    /// `[=|<][+offset][+[dilation*]kernel]`.
    fn affine_rest(
        &mut self,
        stride: IntOrIdent,
        explicit_stride: bool,
        over: String,
    ) -> Result<RawAxis, SpecError> {
        let padding = match self.peek().tok {
            Tok::Equals => Padding::Pad,
            Tok::LessThan => Padding::Valid,
            Tok::At => {
                self.bump();
                let lo = self.padding_amount("the padding before the axis")?;
                if !self.at(&Tok::Comma) {
                    return Err(self.expected("`,` and the padding after the axis"));
                }
                self.bump();
                let hi = self.padding_amount("the padding after the axis")?;
                let explicit = Padding::Explicit { lo, hi };
                return self.affine_conv(stride, explicit_stride, over, explicit);
            }
            _ => Padding::Unspecified,
        };
        if padding != Padding::Unspecified {
            self.bump();
        }
        self.affine_conv(stride, explicit_stride, over, padding)
    }

    /// A padding amount after `@`: an integer at most [`MAX_SIZE`].
    fn padding_amount(&mut self, what: &str) -> Result<u64, SpecError> {
        let token = self.peek().clone();
        match token.tok {
            Tok::Int(n) => {
                self.bump();
                self.bounded(n, token.span, what)
            }
            _ => Err(self.expected(&format!("an integer for {what}"))),
        }
    }

    /// The rest of an affine axis after its padding marker:
    /// `[+offset][+[dilation*]kernel]`.
    fn affine_conv(
        &mut self,
        stride: IntOrIdent,
        explicit_stride: bool,
        over: String,
        padding: Padding,
    ) -> Result<RawAxis, SpecError> {
        let no_conv = |offset| RawAxis::Affine {
            stride: stride.clone(),
            over: over.clone(),
            offset,
            conv: None,
        };
        if !self.at(&Tok::Plus) {
            if padding != Padding::Unspecified {
                return Err(self.expected("`+` and a kernel after a padding marker"));
            }
            debug_assert!(explicit_stride, "`affine_rest` without a stride needs `+`");
            return Ok(no_conv(0));
        }
        self.bump();
        let mut offset = 0;
        if let Tok::Int(n) = self.peek().tok {
            match self.peek_at(1).tok {
                Tok::Star => {}
                Tok::Plus => {
                    offset = self.bounded(n, self.peek().span, "offset")?;
                    self.bump();
                    self.bump();
                }
                _ if padding == Padding::Unspecified && explicit_stride => {
                    let offset = self.bounded(n, self.peek().span, "offset")?;
                    self.bump();
                    return Ok(no_conv(offset));
                }
                _ => {
                    let span = self.peek().span;
                    let message = if padding == Padding::Unspecified {
                        "an offset without a kernel needs a stride, as in `1*o+2`"
                    } else {
                        "an offset after a padding marker needs a kernel, as in `o=+1+k`"
                    };
                    return Err(SpecError::new(span, message));
                }
            }
        }
        let (dilation, kernel) = self.conv_term()?;
        Ok(RawAxis::Affine {
            stride,
            over,
            offset,
            conv: Some(Conv {
                dilation,
                kernel,
                padding,
            }),
        })
    }

    /// `[dilation*]kernel`.
    fn conv_term(&mut self) -> Result<(IntOrIdent, String), SpecError> {
        let token = self.peek().clone();
        match token.tok {
            Tok::Int(n) => {
                let dilation = self.positive(n, token.span, "dilation")?;
                self.bump();
                if !self.at(&Tok::Star) {
                    return Err(self.expected("`*` after the dilation"));
                }
                self.bump();
                let kernel = self.ident("a kernel label after `*`")?;
                Ok((IntOrIdent::Int(dilation), kernel))
            }
            Tok::Ident(name) => {
                self.bump();
                if self.at(&Tok::Star) {
                    self.bump();
                    let kernel = self.ident("a kernel label after `*`")?;
                    Ok((IntOrIdent::Ident(name), kernel))
                } else {
                    Ok((IntOrIdent::Int(1), name))
                }
            }
            _ => Err(self.expected("an offset, a dilation or a kernel label after `+`")),
        }
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
