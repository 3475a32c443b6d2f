//! The spec lexer, after OCANNL's `tensor/lexer.mll`.
//!
//! [`is_multichar`] chooses the mode for the whole string; [`lex`] then turns
//! it into tokens. In single-char mode every letter, `_` and run of digits is
//! followed by an implicit [`Tok::Comma`] (a zero-width token), exactly as
//! OCANNL's lexer buffers a `COMMA` after them, so that the parser is the same
//! for both modes.

use super::{Span, SpecError};

/// A token kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tok {
    /// `[a-zA-Z][a-zA-Z0-9_]*` (multichar) or one letter (single-char).
    Ident(String),
    /// `[0-9]+`; `u64::MAX` when the literal does not fit 64 bits (the
    /// parser reports literals above [`super::MAX_SIZE`] by their text).
    Int(u64),
    /// `,`, explicit or implicit.
    Comma,
    /// `|`.
    Pipe,
    /// `->`.
    Arrow,
    /// `=>`.
    DoubleArrow,
    /// `;`.
    Semicolon,
    /// `+`.
    Plus,
    /// `*`.
    Star,
    /// `^`.
    Caret,
    /// `_`.
    Underscore,
    /// `...`.
    Ellipsis,
    /// `..`.
    DotDot,
    /// `=`.
    Equals,
    /// `<`.
    LessThan,
    /// `@`: explicit padding (an extension, see [`super::Padding::Explicit`]).
    At,
    /// The end of input.
    Eof,
}

/// A token with its span in the spec string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) span: Span,
}

impl Tok {
    /// How the token reads in an error message: `` `->` `` or `end of input`.
    pub(super) fn describe(&self) -> String {
        let text = match self {
            Tok::Ident(name) => name.as_str(),
            Tok::Int(n) => return format!("`{n}`"),
            Tok::Comma => ",",
            Tok::Pipe => "|",
            Tok::Arrow => "->",
            Tok::DoubleArrow => "=>",
            Tok::Semicolon => ";",
            Tok::Plus => "+",
            Tok::Star => "*",
            Tok::Caret => "^",
            Tok::Underscore => "_",
            Tok::Ellipsis => "...",
            Tok::DotDot => "..",
            Tok::Equals => "=",
            Tok::LessThan => "<",
            Tok::At => "@",
            Tok::Eof => return "end of input".to_owned(),
        };
        format!("`{text}`")
    }
}

/// Whether `spec` is lexed in multichar mode: it contains any of `,` `*` `+`
/// `^` `&` `<`, or a `=` not followed by `>` (OCANNL's `is_multichar`), or
/// `@` (explicit padding, an extension OCANNL does not have).
pub(super) fn is_multichar(spec: &str) -> bool {
    let bytes = spec.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| match b {
        b',' | b'*' | b'+' | b'^' | b'&' | b'<' | b'@' => true,
        b'=' => bytes.get(i + 1) != Some(&b'>'),
        _ => false,
    })
}

/// Lexes `spec` in the mode [`is_multichar`] picks. The result always ends
/// with [`Tok::Eof`].
pub(super) fn lex(spec: &str) -> Result<Vec<Token>, SpecError> {
    Lexer {
        spec,
        pos: 0,
        multichar: is_multichar(spec),
        tokens: Vec::new(),
    }
    .run()
}

struct Lexer<'a> {
    spec: &'a str,
    pos: usize,
    multichar: bool,
    tokens: Vec<Token>,
}

impl Lexer<'_> {
    fn run(mut self) -> Result<Vec<Token>, SpecError> {
        let bytes = self.spec.as_bytes();
        while let Some(&b) = bytes.get(self.pos) {
            let start = self.pos;
            let next = bytes.get(start + 1).copied();
            match b {
                b' ' | b'\t' | b'\r' | b'\n' => self.pos += 1,
                b',' => self.push(Tok::Comma, 1),
                b'|' => self.push(Tok::Pipe, 1),
                b'-' if next == Some(b'>') => self.push(Tok::Arrow, 2),
                b'=' if next == Some(b'>') => self.push(Tok::DoubleArrow, 2),
                b'=' => self.push(Tok::Equals, 1),
                b';' => self.push(Tok::Semicolon, 1),
                b'+' => self.push(Tok::Plus, 1),
                b'*' => self.push(Tok::Star, 1),
                b'^' => self.push(Tok::Caret, 1),
                b'<' => self.push(Tok::LessThan, 1),
                b'@' => self.push(Tok::At, 1),
                b'&' => {
                    return Err(SpecError::new(
                        Span::new(start, start + 1),
                        "`&` is reserved",
                    ));
                }
                b'.' if next == Some(b'.') => {
                    if bytes.get(start + 2) == Some(&b'.') {
                        self.push(Tok::Ellipsis, 3);
                    } else {
                        self.push(Tok::DotDot, 2);
                    }
                }
                b'_' => {
                    self.push(Tok::Underscore, 1);
                    self.implicit_comma();
                }
                b'0'..=b'9' => {
                    let len = bytes[start..]
                        .iter()
                        .take_while(|b| b.is_ascii_digit())
                        .count();
                    // A literal past `u64` reads as `u64::MAX`: the parser
                    // rejects every literal above `MAX_SIZE`, naming it by
                    // its text and saying what it is (a size, a stride...).
                    let n = self.spec[start..start + len]
                        .parse::<u64>()
                        .unwrap_or(u64::MAX);
                    self.push(Tok::Int(n), len);
                    self.implicit_comma();
                }
                b if b.is_ascii_alphabetic() => {
                    let len = if self.multichar {
                        bytes[start..]
                            .iter()
                            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                            .count()
                    } else {
                        1
                    };
                    let name = self.spec[start..start + len].to_owned();
                    self.push(Tok::Ident(name), len);
                    self.implicit_comma();
                }
                _ => {
                    let c = self.spec[start..]
                        .chars()
                        .next()
                        .expect("the lexer position is on a char boundary inside the spec");
                    return Err(SpecError::new(
                        Span::new(start, start + c.len_utf8()),
                        format!("unexpected character `{}`", c.escape_debug()),
                    ));
                }
            }
        }
        self.tokens.push(Token {
            tok: Tok::Eof,
            span: Span::new(self.pos, self.pos),
        });
        Ok(self.tokens)
    }

    /// Pushes a `len`-byte token at the current position and moves past it.
    fn push(&mut self, tok: Tok, len: usize) {
        let start = self.pos;
        self.pos += len;
        self.tokens.push(Token {
            tok,
            span: Span::new(start, self.pos),
        });
    }

    /// In single-char mode, pushes the zero-width comma that follows every
    /// identifier, `_` and integer.
    fn implicit_comma(&mut self) {
        if !self.multichar {
            self.tokens.push(Token {
                tok: Tok::Comma,
                span: Span::new(self.pos, self.pos),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(spec: &str) -> Vec<Tok> {
        lex(spec)
            .expect("test specs lex")
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    #[test]
    fn mode_detection_matches_ocannl() {
        // From OCANNL's test/einsum/test_einsum_parser.ml.
        for (spec, multi) in [
            ("abc", false),
            ("a,b,c", true),
            ("2*a+b", true),
            ("a+b", true),
            ("a*b", true),
            ("a^b", true),
            ("a&b", true),
            ("a|b->c", false),
            ("...a..b", false),
            ("o=+k", true),
            ("a=>b", false),
            ("a=", true),
            ("a<+k", true),
        ] {
            assert_eq!(is_multichar(spec), multi, "{spec}");
        }
    }

    #[test]
    fn single_char_mode_inserts_commas() {
        use Tok::*;
        assert_eq!(
            kinds("a_12..."),
            vec![
                Ident("a".into()),
                Comma,
                Underscore,
                Comma,
                Int(12),
                Comma,
                Ellipsis,
                Eof
            ]
        );
    }

    #[test]
    fn multichar_mode_reads_identifiers() {
        use Tok::*;
        assert_eq!(
            kinds("ab_1, _x"),
            vec![
                Ident("ab_1".into()),
                Comma,
                Underscore,
                Ident("x".into()),
                Eof
            ]
        );
        assert_eq!(
            kinds("....."),
            vec![Ellipsis, DotDot, Eof],
            "longest match, as ocamllex"
        );
    }

    #[test]
    fn spans_are_byte_offsets() {
        let err = lex("ä").expect_err("non-ascii is rejected");
        assert_eq!(err.span, Span::new(0, 2));
        let toks = lex(" ab -> c,").expect("lexes");
        assert_eq!(toks[1].span, Span::new(4, 6));
        assert_eq!(toks.last().map(|t| t.span), Some(Span::new(9, 9)));
        let toks = lex(" ab").expect("lexes");
        assert_eq!(
            toks[1].span,
            Span::new(2, 2),
            "implicit commas are zero-width"
        );
    }
}
