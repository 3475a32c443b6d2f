//! What an op computes, as data: the scalar function at each point of its
//! product space ([`Compute`], from the catalog's `scalarFn` and the op's
//! `combine` attribute: [`scalar_function`]) and the accumulation operator
//! that brings values to the result ([`Accum`]). `emit/arith.rs` emits
//! them as `arith`/`math` ops.

use melior::ir::operation::OperationRef;
use ocannl_dialect::catalog::{self, Accumulator, OpAccum, OpScalarFn, ScalarFn};

use crate::op_logic::string_attr;

/// How an op's computed value reaches its result cell: an accumulation
/// operator of the catalog (ODS `Ocannl_Accumulator`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Accum(Accumulator);

impl Accum {
    /// The sum (`fma`'s and `matmul`'s, and the default).
    pub(crate) fn add() -> Self {
        Self(Accumulator::Add)
    }

    /// The neutral element (fills cells a store does not cover, and pads
    /// reads outside an operand).
    pub(crate) fn neutral(self) -> f64 {
        self.0.neutral()
    }

    /// The catalog's operator.
    pub(crate) fn accumulator(self) -> Accumulator {
        self.0
    }

    /// The binary function that combines an old and a new value.
    pub(crate) fn function(self) -> BinaryFn {
        match self.0 {
            Accumulator::Add => BinaryFn::Add,
            Accumulator::Mul => BinaryFn::Mul,
            Accumulator::Max => BinaryFn::Max,
            Accumulator::Min => BinaryFn::Min,
        }
    }

    /// The op's operator (ODS `accum`; `attr`: the op's `accum` attribute,
    /// `None`: add).
    pub(crate) fn of(op: OperationRef<'_, '_>, def: &catalog::OpDef) -> Result<Self, String> {
        match def.accum {
            OpAccum::Fixed(a) => Ok(Self(a)),
            OpAccum::Attr => {
                let name = string_attr(&op, "accum");
                let name = name.as_deref().unwrap_or("add");
                Accumulator::from_name(name)
                    .map(Self)
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
            Compute::Identity | Compute::Unary(_) => 1,
            Compute::Binary(_) => 2,
            Compute::Fma | Compute::Where => 3,
        }
    }
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
    let function = |f: ScalarFn| -> Result<Compute, String> {
        let c = Compute::of(f);
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
