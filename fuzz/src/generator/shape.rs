//! Concrete shapes and their spec texts, exact or loosened with dimension
//! variables, `_`, row variables and builtin tensor types.

use crate::ir::Ty;
use crate::rng::Rng;

/// Row indices of [`Shape::rows`].
pub const BATCH: usize = 0;
/// The input row.
pub const INPUT: usize = 1;
/// The output row.
pub const OUTPUT: usize = 2;

/// The element types the generator uses for well-formed programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Elem {
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `i1`: comparisons' results, read by `where` (never a function's
    /// element type).
    Bool,
}

impl Elem {
    /// The MLIR name.
    pub fn name(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::F64 => "f64",
            Elem::I32 => "i32",
            Elem::I64 => "i64",
            Elem::Bool => "i1",
        }
    }

    /// Whether it is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, Elem::F32 | Elem::F64)
    }

    /// A random element type, mostly `f32`.
    pub fn random(rng: &mut Rng) -> Elem {
        [Elem::F32, Elem::F64, Elem::I32, Elem::I64][rng.weighted(&[14, 3, 2, 1])]
    }

    /// A scalar attribute of this type, e.g. `1.5 : f32` or `3 : i32`.
    pub fn scalar(self, rng: &mut Rng) -> String {
        if self.is_float() {
            let v = *rng.pick(&["0.0", "1.0", "-2.5", "0.5", "3.25", "-1.0e-3"]);
            format!("{v} : {}", self.name())
        } else if self == Elem::Bool {
            format!("{} : i1", rng.range(0, 1))
        } else {
            format!("{} : {}", rng.range(0, 6) as i64 - 2, self.name())
        }
    }
}

/// A concrete shape: batch, input and output rows of sizes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Shape {
    /// `[batch, input, output]`.
    pub rows: [Vec<u64>; 3],
}

impl Shape {
    /// A shape with only output axes.
    pub fn output(dims: Vec<u64>) -> Shape {
        Shape {
            rows: [Vec::new(), Vec::new(), dims],
        }
    }

    /// The number of cells (saturating).
    pub fn cells(&self) -> u64 {
        self.rows
            .iter()
            .flatten()
            .fold(1u64, |a, &d| a.saturating_mul(d))
    }

    /// The number of axes.
    pub fn rank(&self) -> usize {
        self.rows.iter().map(Vec::len).sum()
    }

    /// The axes in memory order: batch, output, input.
    pub fn memory_order(&self) -> Vec<u64> {
        let mut v = self.rows[BATCH].clone();
        v.extend(&self.rows[OUTPUT]);
        v.extend(&self.rows[INPUT]);
        v
    }

    /// The exact spec, e.g. `2|3->4`.
    pub fn spec(&self) -> String {
        let rows = self.rows.clone().map(|r| RowText {
            beg: r.iter().map(u64::to_string).collect(),
            var: None,
            end: Vec::new(),
        });
        render_spec(&rows)
    }

    /// A random small shape with at most `max_cells` cells.
    pub fn random(rng: &mut Rng, max_cells: u64) -> Shape {
        loop {
            let mut s = Shape::default();
            let counts = [
                rng.weighted(&[5, 3, 1]),
                rng.weighted(&[5, 3, 1]),
                rng.weighted(&[1, 5, 3]),
            ];
            for (k, &n) in counts.iter().enumerate() {
                for _ in 0..n {
                    s.rows[k].push(random_dim(rng));
                }
            }
            // Scalars (empty specs) only now and then: today an empty spec
            // string crashes the tools, which would hide everything else in
            // the program.
            if s.cells() <= max_cells && (s.rank() > 0 || rng.chance(0.15)) {
                return s;
            }
        }
    }

    /// A shape that broadcasts to `self`: per row, leading axes may be left
    /// out and sizes replaced by 1.
    pub fn broadcast_operand(&self, rng: &mut Rng) -> Shape {
        let mut s = self.clone();
        for row in &mut s.rows {
            if !row.is_empty() && rng.chance(0.2) {
                let drop = rng.index(row.len() + 1);
                row.drain(..drop);
            }
            for d in row.iter_mut() {
                if rng.chance(0.2) {
                    *d = 1;
                }
            }
        }
        s
    }
}

/// A random axis size, small and often 1 or 2.
pub fn random_dim(rng: &mut Rng) -> u64 {
    [1, 2, 3, 4, 5, 6, 8][rng.weighted(&[2, 4, 4, 3, 2, 1, 1])]
}

/// The NumPy-style broadcast of two shapes, row by row (right-aligned), or
/// `None` when two sizes differ and neither is 1.
pub fn broadcast(a: &Shape, b: &Shape) -> Option<Shape> {
    let mut out = Shape::default();
    for k in 0..3 {
        let (x, y) = (&a.rows[k], &b.rows[k]);
        let n = x.len().max(y.len());
        let mut row = vec![0; n];
        for (i, slot) in row.iter_mut().enumerate() {
            let dx = (i + x.len()).checked_sub(n).map(|j| x[j]);
            let dy = (i + y.len()).checked_sub(n).map(|j| y[j]);
            *slot = match (dx, dy) {
                (Some(p), Some(q)) if p == q || q == 1 => p,
                (Some(1), Some(q)) => q,
                (Some(_), Some(_)) => return None,
                (Some(p), None) | (None, Some(p)) => p,
                (None, None) => 1,
            };
        }
        out.rows[k] = row;
    }
    Some(out)
}

/// One row of a spec being printed: leading axes, an optional row
/// variable (`...` or `..name..`), trailing axes.
#[derive(Debug, Clone, Default)]
pub struct RowText {
    /// Axes before the row variable (all axes when there is none).
    pub beg: Vec<String>,
    /// The row variable's text.
    pub var: Option<String>,
    /// Axes after the row variable.
    pub end: Vec<String>,
}

impl RowText {
    fn is_empty_closed(&self) -> bool {
        self.beg.is_empty() && self.var.is_none() && self.end.is_empty()
    }

    fn render(&self) -> String {
        let mut parts = self.beg.clone();
        if let Some(v) = &self.var {
            parts.push(v.clone());
        }
        parts.extend(self.end.iter().cloned());
        parts.join(",")
    }
}

/// Prints `batch|input->output`, leaving out empty closed batch and input
/// rows, and forcing multichar mode with a trailing comma when a name is
/// longer than one character and nothing else triggers it.
pub fn render_spec(rows: &[RowText; 3]) -> String {
    let mut texts: Vec<String> = rows.iter().map(RowText::render).collect();
    let all = texts.join("|");
    if !is_multichar(&all)
        && has_long_ident(&all)
        && let Some(last) = texts.iter_mut().rev().find(|t| !t.is_empty())
    {
        last.push(',');
    }
    let mut s = String::new();
    if !rows[BATCH].is_empty_closed() {
        s.push_str(&texts[BATCH]);
        s.push('|');
    }
    if !rows[INPUT].is_empty_closed() {
        s.push_str(&texts[INPUT]);
        s.push_str("->");
    }
    s.push_str(&texts[OUTPUT]);
    s
}

/// OCANNL's multichar trigger: any of `,*+^&<`, or `=` not starting `=>`.
pub fn is_multichar(s: &str) -> bool {
    let b = s.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        matches!(c, b',' | b'*' | b'+' | b'^' | b'&' | b'<')
            || (c == b'=' && b.get(i + 1) != Some(&b'>'))
    })
}

/// Whether `s` holds an identifier longer than one character.
pub fn has_long_ident(s: &str) -> bool {
    let mut run = 0;
    let mut in_ident = false;
    for c in s.chars() {
        if in_ident && (c.is_ascii_alphanumeric() || c == '_') {
            run += 1;
        } else if c.is_ascii_alphabetic() {
            in_ident = true;
            run = 1;
        } else {
            in_ident = false;
            run = 0;
        }
        if run > 1 {
            return true;
        }
    }
    false
}

/// A dimension variable's name standing for `size` (the same name always
/// stands for the same size, so every use agrees).
fn dim_var(size: u64) -> String {
    format!("d{size}")
}

/// A named row variable standing for `dims` (likewise consistent).
fn row_var(dims: &[u64]) -> String {
    let body: Vec<String> = dims.iter().map(u64::to_string).collect();
    format!("..r{}..", body.join("_"))
}

/// How much of a type is left for inference to find.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Looseness {
    /// Every size written down.
    Exact,
    /// Some sizes replaced by dimension variables or `_`.
    Dims,
    /// Some rows replaced (partly) by row variables.
    Rows,
    /// `...|...->...` (or `tensor<*x..>`).
    Open,
}

impl Looseness {
    /// A random looseness with weights for exact, dims, rows, open.
    pub fn random(rng: &mut Rng, weights: &[u32; 4]) -> Looseness {
        [
            Looseness::Exact,
            Looseness::Dims,
            Looseness::Rows,
            Looseness::Open,
        ][rng.weighted(weights)]
    }
}

/// The spec text of `shape` at the given looseness.
pub fn loose_spec(shape: &Shape, how: Looseness, rng: &mut Rng) -> String {
    let rows: [RowText; 3] = std::array::from_fn(|k| {
        let dims = &shape.rows[k];
        let exact = || RowText {
            beg: dims.iter().map(u64::to_string).collect(),
            var: None,
            end: Vec::new(),
        };
        match how {
            Looseness::Exact => exact(),
            Looseness::Dims => RowText {
                beg: dims
                    .iter()
                    .map(|&d| match rng.weighted(&[3, 2, 1]) {
                        0 => d.to_string(),
                        1 => dim_var(d),
                        _ => "_".to_string(),
                    })
                    .collect(),
                var: None,
                end: Vec::new(),
            },
            Looseness::Rows => {
                if rng.chance(0.5) {
                    exact()
                } else {
                    let keep = rng.index(dims.len() + 1);
                    let (head, tail) = dims.split_at(dims.len() - keep);
                    let var = if rng.chance(0.3) && !head.is_empty() {
                        row_var(head)
                    } else {
                        "...".to_string()
                    };
                    RowText {
                        beg: Vec::new(),
                        var: Some(var),
                        end: tail.iter().map(u64::to_string).collect(),
                    }
                }
            }
            Looseness::Open => RowText {
                beg: Vec::new(),
                var: Some("...".to_string()),
                end: Vec::new(),
            },
        }
    });
    render_spec(&rows)
}

/// A type for `shape`: an ocannl tensor at the given looseness, or, for a
/// shape of output axes only and with probability `builtin`, a builtin
/// tensor (`?` dims, or unranked when open).
pub fn loose_type(shape: &Shape, elem: Elem, how: Looseness, builtin: f64, rng: &mut Rng) -> Ty {
    let output_only = shape.rows[BATCH].is_empty() && shape.rows[INPUT].is_empty();
    if output_only && rng.chance(builtin) {
        let dims = match how {
            Looseness::Open => None,
            Looseness::Exact => Some(shape.rows[OUTPUT].iter().map(|&d| Some(d)).collect()),
            Looseness::Dims | Looseness::Rows => Some(
                shape.rows[OUTPUT]
                    .iter()
                    .map(|&d| (!rng.chance(0.4)).then_some(d))
                    .collect(),
            ),
        };
        return Ty::Builtin {
            elem: elem.name().to_string(),
            dims,
        };
    }
    Ty::ocannl(elem.name(), &loose_spec(shape, how, rng))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(b: &[u64], i: &[u64], o: &[u64]) -> Shape {
        Shape {
            rows: [b.to_vec(), i.to_vec(), o.to_vec()],
        }
    }

    #[test]
    fn exact_specs() {
        assert_eq!(sh(&[2], &[3], &[4]).spec(), "2|3->4");
        assert_eq!(sh(&[], &[], &[2, 3]).spec(), "2,3");
        assert_eq!(sh(&[], &[], &[]).spec(), "");
        assert_eq!(sh(&[], &[3], &[]).spec(), "3->");
    }

    #[test]
    fn long_names_force_multichar_mode() {
        let rows = [
            RowText::default(),
            RowText::default(),
            RowText {
                beg: vec!["d5".into()],
                var: None,
                end: vec![],
            },
        ];
        assert_eq!(render_spec(&rows), "d5,");
        assert!(is_multichar("a=+k"));
        assert!(!is_multichar("a => b"));
    }

    #[test]
    fn broadcasting_aligns_from_the_end() {
        let a = sh(&[2], &[], &[3, 4]);
        let b = sh(&[], &[], &[1, 4]);
        assert_eq!(broadcast(&a, &b), Some(a.clone()));
        assert_eq!(broadcast(&b, &sh(&[], &[], &[4])), Some(b.clone()));
        assert_eq!(broadcast(&a, &sh(&[], &[], &[5])), None);
    }
}
