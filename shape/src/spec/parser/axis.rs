//! One axis of a spec: `_`, a size, a label, a labeled size `l=3`, a
//! concatenation `a^b`, or an affine (strided or convolution) axis
//! `[stride*]over[=|<|@lo,hi][+offset][+[dilation*]kernel]`.

use super::super::lexer::Tok;
use super::super::{Conv, IntOrIdent, Padding, SpecError};
use super::{Parser, RawAxis};

impl Parser<'_> {
    /// One axis; the next token is an integer, identifier or `_`.
    pub(super) fn axis(&mut self) -> Result<RawAxis, SpecError> {
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
}
