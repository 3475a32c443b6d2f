//! The integers of a shape computation as expressions over dimensions:
//! numbers, dimension variables (a graph input's `dim_param`, or a
//! dimension the importer named on a view of an intermediate), and the
//! integer arithmetic ONNX applies to them (`Add`, `Sub`, `Mul`, `Div`,
//! `Mod`, `Max`, `Min`, `Neg`; onnx.ai/onnx/operators). Numbers fold;
//! an expression over variables stays one, to become a dimension of its
//! own (the element count then decides it) or data computed at run time.

use std::fmt;

use crate::tensor::{Elem, Tensor};

/// One integer of a shape value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Sym {
    /// A known integer.
    Num(i64),
    /// The size of a dimension: a dimension variable's name (at least 1).
    Dim(String),
    /// `lhs OP rhs` for an arithmetic operator.
    Op(Arith, Box<Sym>, Box<Sym>),
}

/// The integer operators of shape computations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arith {
    Add,
    Sub,
    Mul,
    /// Truncating division (ONNX's integer `Div`).
    Div,
    /// The remainder with the divisor's sign (ONNX's `Mod` with `fmod =
    /// 0`).
    Mod,
    Max,
    Min,
}

impl Arith {
    /// The operator of an ONNX op, if it is one.
    pub(crate) fn of(op: &str) -> Option<Self> {
        Some(match op {
            "Add" => Arith::Add,
            "Sub" => Arith::Sub,
            "Mul" => Arith::Mul,
            "Div" => Arith::Div,
            "Mod" => Arith::Mod,
            "Max" => Arith::Max,
            "Min" => Arith::Min,
            _ => return None,
        })
    }

    /// `a OP b`, or why not (a zero divisor, an overflow).
    fn fold(self, a: i64, b: i64) -> Result<i64, String> {
        let v = match self {
            Arith::Add => a.checked_add(b),
            Arith::Sub => a.checked_sub(b),
            Arith::Mul => a.checked_mul(b),
            Arith::Div if b == 0 => return Err(format!("{a} / 0 in a shape computation")),
            Arith::Div => a.checked_div(b),
            Arith::Mod if b == 0 => return Err(format!("{a} mod 0 in a shape computation")),
            Arith::Mod => a.checked_rem(b).map(|r| {
                if r != 0 && (r < 0) != (b < 0) {
                    r + b
                } else {
                    r
                }
            }),
            Arith::Max => Some(a.max(b)),
            Arith::Min => Some(a.min(b)),
        };
        v.ok_or_else(|| format!("{a} {self} {b} overflows 64 bits in a shape computation"))
    }
}

impl fmt::Display for Arith {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Arith::Add => "+",
            Arith::Sub => "-",
            Arith::Mul => "*",
            Arith::Div => "/",
            Arith::Mod => "mod",
            Arith::Max => "max",
            Arith::Min => "min",
        })
    }
}

impl Sym {
    /// `a OP b`: numbers fold, the identities (`x + 0`, `x * 1`, `x / 1`,
    /// `x - x`, `x / x`) simplify, anything else stays an expression.
    pub(crate) fn apply(op: Arith, a: &Sym, b: &Sym) -> Result<Sym, String> {
        use Sym::Num;
        Ok(match (op, a, b) {
            (_, Num(x), Num(y)) => Num(op.fold(*x, *y)?),
            (Arith::Add | Arith::Sub, x, Num(0)) | (Arith::Mul | Arith::Div, x, Num(1)) => {
                x.clone()
            }
            (Arith::Add, Num(0), y) | (Arith::Mul, Num(1), y) => y.clone(),
            (Arith::Sub, x, y) if x == y => Num(0),
            (Arith::Div, x, y) if x == y => Num(1),
            (Arith::Max | Arith::Min, x, y) if x == y => x.clone(),
            // A dimension is at least 1.
            (Arith::Max, Sym::Dim(_), Num(y)) if *y <= 1 => a.clone(),
            (Arith::Max, Num(x), Sym::Dim(_)) if *x <= 1 => b.clone(),
            (Arith::Mul, Num(0), _) | (Arith::Mul, _, Num(0)) => Num(0),
            _ => Sym::Op(op, Box::new(a.clone()), Box::new(b.clone())),
        })
    }

    /// Whether `a == b`, when it can be told without the dimensions'
    /// values: equal expressions are equal; a dimension (at least 1) is
    /// never 0 or negative.
    pub(crate) fn equal(a: &Sym, b: &Sym) -> Option<bool> {
        match (a, b) {
            (Sym::Num(x), Sym::Num(y)) => Some(x == y),
            (x, y) if x == y => Some(true),
            (Sym::Dim(_), Sym::Num(k)) | (Sym::Num(k), Sym::Dim(_)) if *k < 1 => Some(false),
            _ => None,
        }
    }

    /// The number, if known.
    pub(crate) fn num(&self) -> Option<i64> {
        match self {
            Sym::Num(n) => Some(*n),
            _ => None,
        }
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sym::Num(n) => write!(f, "{n}"),
            Sym::Dim(d) => f.write_str(d),
            Sym::Op(op, a, b) => write!(f, "({a} {op} {b})"),
        }
    }
}

/// A tensor of shape integers: its element type (an integer type, or a
/// float type after a `Cast`), its dims (rank 0 or 1 in practice) and its
/// cells in order.
#[derive(Debug, Clone)]
pub(crate) struct ShapeVal {
    pub(crate) elem: Elem,
    pub(crate) dims: Vec<u64>,
    pub(crate) items: Vec<Sym>,
    /// Booleans (an `Equal`'s result) held as 0 and 1.
    pub(crate) logical: bool,
}

impl ShapeVal {
    /// A 1-D shape value.
    pub(crate) fn vector(items: Vec<Sym>) -> Self {
        Self {
            elem: Elem::I64,
            dims: vec![items.len() as u64],
            items,
            logical: false,
        }
    }

    /// The numbers, when every cell is one.
    pub(crate) fn numbers(&self) -> Option<Vec<i64>> {
        self.items.iter().map(Sym::num).collect()
    }

    /// The value as constant data, when every cell is a number.
    pub(crate) fn to_tensor(&self) -> Option<Tensor> {
        use crate::proto::tensor_proto::DataType as D;
        let nums = self.numbers()?;
        let (data_type, bytes): (D, Vec<u8>) = match self.elem {
            _ if self.logical => (D::Bool, nums.iter().map(|&v| u8::from(v != 0)).collect()),
            Elem::I64 => (
                D::Int64,
                nums.iter().flat_map(|v| v.to_le_bytes()).collect(),
            ),
            Elem::I32 => (
                D::Int32,
                nums.iter()
                    .flat_map(|v| (*v as i32).to_le_bytes())
                    .collect(),
            ),
            Elem::F32 => (
                D::Float,
                nums.iter()
                    .flat_map(|v| (*v as f32).to_le_bytes())
                    .collect(),
            ),
            Elem::F64 => (
                D::Double,
                nums.iter()
                    .flat_map(|v| (*v as f64).to_le_bytes())
                    .collect(),
            ),
            _ => return None,
        };
        Some(Tensor {
            data_type: data_type as i32,
            dims: self.dims.clone(),
            bytes,
        })
    }

    /// A constant integer tensor as a shape value (at most `limit` cells).
    pub(crate) fn of_tensor(t: &Tensor, limit: usize) -> Option<Self> {
        let elem = Elem::of_onnx(t.data_type).ok()?;
        if elem.is_float() || t.len() > limit {
            return None;
        }
        Some(Self {
            elem,
            dims: t.dims.clone(),
            items: t.to_i64()?.into_iter().map(Sym::Num).collect(),
            logical: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(n: &str) -> Sym {
        Sym::Dim(n.into())
    }

    #[test]
    fn numbers_fold_and_identities_simplify() {
        use Sym::Num;
        assert_eq!(Sym::apply(Arith::Mul, &Num(6), &Num(7)), Ok(Num(42)));
        assert_eq!(Sym::apply(Arith::Div, &Num(-7), &Num(2)), Ok(Num(-3)));
        assert_eq!(Sym::apply(Arith::Mod, &Num(-7), &Num(3)), Ok(Num(2)));
        assert_eq!(Sym::apply(Arith::Mod, &Num(7), &Num(-3)), Ok(Num(-2)));
        assert!(Sym::apply(Arith::Div, &Num(1), &Num(0)).is_err());
        assert!(Sym::apply(Arith::Mul, &Num(i64::MAX), &Num(2)).is_err());
        assert_eq!(Sym::apply(Arith::Mul, &d("n"), &Num(1)), Ok(d("n")));
        assert_eq!(Sym::apply(Arith::Sub, &d("n"), &d("n")), Ok(Num(0)));
        assert_eq!(Sym::apply(Arith::Max, &d("n"), &Num(1)), Ok(d("n")));
        let e = Sym::apply(Arith::Mul, &d("n"), &Num(3)).unwrap();
        assert_eq!(e.to_string(), "(n * 3)");
    }

    #[test]
    fn equality_is_told_only_when_certain() {
        assert_eq!(Sym::equal(&d("n"), &d("n")), Some(true));
        assert_eq!(Sym::equal(&d("n"), &d("m")), None);
        assert_eq!(Sym::equal(&d("n"), &Sym::Num(0)), Some(false));
        assert_eq!(Sym::equal(&d("n"), &Sym::Num(-1)), Some(false));
        assert_eq!(Sym::equal(&d("n"), &Sym::Num(4)), None);
    }
}
