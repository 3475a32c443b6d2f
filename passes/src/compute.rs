//! What an op computes, as data: the scalar function at each point of its
//! product space ([`Compute`], from the catalog's `scalarFn` and the op's
//! `combine` attribute: [`scalar_function`]) and the accumulation operator
//! that brings values to the result ([`Accum`]). `emit/arith.rs` emits
//! them as `arith`/`math` ops.

use melior::ir::{
    Value, ValueLike,
    operation::{OperationLike, OperationRef},
};
use ocannl_dialect::{
    catalog::{self, Accumulator, OpAccum, OpScalarFn, ScalarFn},
    ir,
    types::TensorType,
};

use crate::op_logic::string_attr;

/// How an op's computed value reaches its result cell: an accumulation
/// operator of the catalog (ODS `Ocannl_Accumulator`), on unsigned
/// integers (and `i1`) when the flag says so.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Accum(Accumulator, bool);

impl Accum {
    /// The sum (`fma`'s and `matmul`'s, and the default).
    pub(crate) fn add() -> Self {
        Self(Accumulator::Add, false)
    }

    /// The neutral element (fills cells a store does not cover, and pads
    /// reads outside an operand). Unsigned: 0 for max, all ones (written
    /// -1) for min.
    pub(crate) fn neutral(self) -> f64 {
        match (self.0, self.1) {
            (Accumulator::Max, true) => 0.0,
            (Accumulator::Min, true) => -1.0,
            (a, _) => a.neutral(),
        }
    }

    /// The catalog's operator.
    pub(crate) fn accumulator(self) -> Accumulator {
        self.0
    }

    /// The binary function that combines an old and a new value.
    pub(crate) fn function(self) -> BinaryFn {
        let f = match self.0 {
            Accumulator::Add => BinaryFn::Add,
            Accumulator::Mul => BinaryFn::Mul,
            Accumulator::Max => BinaryFn::Max,
            Accumulator::Min => BinaryFn::Min,
        };
        if self.1 { f.unsigned() } else { f }
    }

    /// The op's operator (ODS `accum`; `attr`: the op's `accum` attribute,
    /// `None`: add), unsigned when its result is.
    pub(crate) fn of(op: OperationRef<'_, '_>, def: &catalog::OpDef) -> Result<Self, String> {
        let unsigned = unsigned(op.result(0).ok().map(Into::into));
        match def.accum {
            OpAccum::Fixed(a) => Ok(Self(a, unsigned)),
            OpAccum::Attr => {
                let name = string_attr(&op, "accum");
                let name = name.as_deref().unwrap_or("add");
                Accumulator::from_name(name)
                    .map(|a| Self(a, unsigned))
                    .ok_or_else(|| format!("unknown accumulation operator '{name}'"))
            }
        }
    }
}

/// A unary scalar function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnaryFn {
    Neg,
    Relu,
    Abs,
    Recip,
    Exp,
    Log,
    Sqrt,
    Tanh,
    Sin,
    Cos,
    Erf,
    Floor,
    Ceil,
    Round,
    Sign,
    Tan,
    Atan,
    Asin,
    Acos,
    Sinh,
    Cosh,
    Asinh,
    Acosh,
    Atanh,
    /// Bitwise complement (logical not of `i1`).
    Not,
    /// The sign of an unsigned integer (0 or 1).
    SignU,
}

impl UnaryFn {
    /// The ODS name, e.g. `relu`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            UnaryFn::Neg => "neg",
            UnaryFn::Relu => "relu",
            UnaryFn::Abs => "abs",
            UnaryFn::Recip => "recip",
            UnaryFn::Exp => "exp",
            UnaryFn::Log => "log",
            UnaryFn::Sqrt => "sqrt",
            UnaryFn::Tanh => "tanh",
            UnaryFn::Sin => "sin",
            UnaryFn::Cos => "cos",
            UnaryFn::Erf => "erf",
            UnaryFn::Floor => "floor",
            UnaryFn::Ceil => "ceil",
            UnaryFn::Round => "round",
            UnaryFn::Sign => "sign",
            UnaryFn::Tan => "tan",
            UnaryFn::Atan => "atan",
            UnaryFn::Asin => "asin",
            UnaryFn::Acos => "acos",
            UnaryFn::Sinh => "sinh",
            UnaryFn::Cosh => "cosh",
            UnaryFn::Asinh => "asinh",
            UnaryFn::Acosh => "acosh",
            UnaryFn::Atanh => "atanh",
            UnaryFn::Not => "not",
            UnaryFn::SignU => "sign",
        }
    }
}

/// A binary scalar function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BinaryFn {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    Pow,
    /// Floored remainder (the divisor's sign).
    Mod,
    /// Truncated remainder (the dividend's sign).
    Rem,
    And,
    Or,
    Xor,
    Shl,
    /// Arithmetic shift right (logical for unsigned: [`BinaryFn::unsigned`]).
    Shr,
    /// Unsigned division (by 0: 0).
    DivU,
    MaxU,
    MinU,
    /// Unsigned remainder (by 0: 0).
    RemU,
    /// Logical shift right.
    ShrU,
}

impl BinaryFn {
    /// The function on unsigned integers of the same width (the memory
    /// holds them as signless integers: [`crate::buffers::scalar`]).
    pub(crate) fn unsigned(self) -> Self {
        use BinaryFn as B;
        match self {
            B::Div => B::DivU,
            B::Max => B::MaxU,
            B::Min => B::MinU,
            B::Mod | B::Rem => B::RemU,
            B::Shr => B::ShrU,
            f => f,
        }
    }
}

/// A comparison's predicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// What an op computes at each point of its product space.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compute {
    /// The single operand's value.
    Identity,
    /// A unary function.
    Unary(UnaryFn),
    /// A binary function.
    Binary(BinaryFn),
    /// `a * b + c`.
    Fma,
    /// `c != 0 ? a : b`.
    Where,
    /// A conversion to the result's element type; the operand's and the
    /// result's integers are unsigned when the flags say so.
    Cast {
        from_unsigned: bool,
        to_unsigned: bool,
    },
    /// A comparison with an `i1` result (unsigned when the flag says so).
    Compare(Cmp, bool),
}

impl Compute {
    /// The catalog's function `f` as a computation. Exhaustive: a function
    /// ODS gains fails the build here until it is emitted.
    pub(crate) fn of(f: ScalarFn) -> Self {
        use ScalarFn as F;
        match f {
            F::Identity => Compute::Identity,
            F::Where => Compute::Where,
            F::Fma => Compute::Fma,
            F::Neg => Compute::Unary(UnaryFn::Neg),
            F::Relu => Compute::Unary(UnaryFn::Relu),
            F::Abs => Compute::Unary(UnaryFn::Abs),
            F::Recip => Compute::Unary(UnaryFn::Recip),
            F::Exp => Compute::Unary(UnaryFn::Exp),
            F::Log => Compute::Unary(UnaryFn::Log),
            F::Sqrt => Compute::Unary(UnaryFn::Sqrt),
            F::Tanh => Compute::Unary(UnaryFn::Tanh),
            F::Sin => Compute::Unary(UnaryFn::Sin),
            F::Cos => Compute::Unary(UnaryFn::Cos),
            F::Erf => Compute::Unary(UnaryFn::Erf),
            F::Floor => Compute::Unary(UnaryFn::Floor),
            F::Ceil => Compute::Unary(UnaryFn::Ceil),
            F::Round => Compute::Unary(UnaryFn::Round),
            F::Sign => Compute::Unary(UnaryFn::Sign),
            F::Tan => Compute::Unary(UnaryFn::Tan),
            F::Atan => Compute::Unary(UnaryFn::Atan),
            F::Asin => Compute::Unary(UnaryFn::Asin),
            F::Acos => Compute::Unary(UnaryFn::Acos),
            F::Sinh => Compute::Unary(UnaryFn::Sinh),
            F::Cosh => Compute::Unary(UnaryFn::Cosh),
            F::Asinh => Compute::Unary(UnaryFn::Asinh),
            F::Acosh => Compute::Unary(UnaryFn::Acosh),
            F::Atanh => Compute::Unary(UnaryFn::Atanh),
            F::Not => Compute::Unary(UnaryFn::Not),
            F::Cast => Compute::Cast {
                from_unsigned: false,
                to_unsigned: false,
            },
            F::Eq => Compute::Compare(Cmp::Eq, false),
            F::Ne => Compute::Compare(Cmp::Ne, false),
            F::Lt => Compute::Compare(Cmp::Lt, false),
            F::Le => Compute::Compare(Cmp::Le, false),
            F::Gt => Compute::Compare(Cmp::Gt, false),
            F::Ge => Compute::Compare(Cmp::Ge, false),
            F::Mod => Compute::Binary(BinaryFn::Mod),
            F::Rem => Compute::Binary(BinaryFn::Rem),
            F::And => Compute::Binary(BinaryFn::And),
            F::Or => Compute::Binary(BinaryFn::Or),
            F::Xor => Compute::Binary(BinaryFn::Xor),
            F::Shl => Compute::Binary(BinaryFn::Shl),
            F::Shr => Compute::Binary(BinaryFn::Shr),
            F::Add => Compute::Binary(BinaryFn::Add),
            F::Sub => Compute::Binary(BinaryFn::Sub),
            F::Mul => Compute::Binary(BinaryFn::Mul),
            F::Div => Compute::Binary(BinaryFn::Div),
            F::Max => Compute::Binary(BinaryFn::Max),
            F::Min => Compute::Binary(BinaryFn::Min),
            F::Pow => Compute::Binary(BinaryFn::Pow),
        }
    }

    /// The number of operands it reads.
    pub(crate) fn arity(self) -> usize {
        match self {
            Compute::Identity | Compute::Unary(_) | Compute::Cast { .. } => 1,
            Compute::Binary(_) | Compute::Compare(..) => 2,
            Compute::Fma | Compute::Where => 3,
        }
    }

    /// The computation for unsigned integers: `operand` (the first
    /// operand's, or a `where` branch's, element type) and `result` say
    /// which are unsigned. Division, remainders, max and min, shifts and
    /// comparisons differ; `abs` and `relu` are the identity.
    pub(crate) fn with_signedness(self, operand: bool, result: bool) -> Self {
        match self {
            Compute::Cast { .. } => Compute::Cast {
                from_unsigned: operand,
                to_unsigned: result,
            },
            Compute::Compare(c, _) => Compute::Compare(c, operand),
            Compute::Binary(f) if operand => Compute::Binary(f.unsigned()),
            Compute::Unary(UnaryFn::Abs | UnaryFn::Relu) if operand => Compute::Identity,
            Compute::Unary(UnaryFn::Sign) if operand => Compute::Unary(UnaryFn::SignU),
            c => c,
        }
    }
}

/// Whether value `v`'s element type (of an ocannl or builtin tensor) is an
/// unsigned integer type or `i1` (true is 1, not -1: `max` is `or`).
fn unsigned(v: Option<Value<'_, '_>>) -> bool {
    v.and_then(|v| ir::shaped_element(v.r#type()).or_else(|| tensor_elem(v)))
        .is_some_and(|t| ir::is_unsigned_integer(t) || ir::bit_width(t) == Some(1))
}

/// The element type of an ocannl tensor value.
fn tensor_elem<'c>(v: Value<'c, '_>) -> Option<melior::ir::Type<'c>> {
    TensorType::classify(v.r#type()).map(|t| t.element_type())
}

/// What `op` (catalog entry `def`, `n` operands) computes at each point:
/// its ODS `scalarFn`, for `combine` read from the op's `combine`
/// attribute.
pub(crate) fn scalar_function(
    op: OperationRef<'_, '_>,
    def: &catalog::OpDef,
    n: usize,
) -> Result<Compute, String> {
    // The operand the result starts from is not an argument.
    let n = n - usize::from(def.init_operand.is_some());
    // A `where` reads its branches' element type, other ops their first
    // operand's.
    let first = if def.scalar_fn == OpScalarFn::Fixed(ScalarFn::Where) {
        1
    } else {
        0
    };
    let unsigned_operand = unsigned(op.operand(first).ok());
    let unsigned_result = unsigned(op.result(0).ok().map(Into::into));
    let function = |f: ScalarFn| -> Result<Compute, String> {
        let c = Compute::of(f).with_signedness(unsigned_operand, unsigned_result);
        if c.arity() == n {
            Ok(c)
        } else {
            Err(format!("'{}' does not take {n} operands", f.name()))
        }
    };
    let f = match def.scalar_fn {
        OpScalarFn::Fixed(f) => return function(f),
        OpScalarFn::Combine => string_attr(&op, "combine"),
    };
    match (n, f.as_deref()) {
        (1, _) => Ok(Compute::Identity),
        (2, None) => function(ScalarFn::Mul),
        (3, None) => function(ScalarFn::Fma),
        (_, Some(c)) => {
            let f = ScalarFn::from_name(c)
                .ok_or_else(|| format!("unknown combining operator '{c}'"))?;
            function(f).map_err(|_| format!("combine '{c}' does not take {n} operands"))
        }
        _ => Err(format!("{n} operands")),
    }
}
