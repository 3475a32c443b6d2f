//! What an op computes, as data: the scalar function at each point of its
//! product space ([`Compute`], from the catalog's `scalarFn` and the op's
//! `combine` attribute: [`scalar_function`]) and the accumulation operator
//! that brings values to the result ([`Accum`]). `emit/arith.rs` emits
//! them as `arith`/`math` ops.

use melior::ir::operation::OperationRef;
use ocannl_dialect::catalog;

use crate::op_logic::string_attr;

/// How an op's computed value reaches its result cell: an accumulation
/// operator of the catalog (ODS `Ocannl_Accumulator`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Accum(&'static catalog::AccumDef);

impl Accum {
    /// The sum (`fma`'s and `matmul`'s, and the default).
    pub(super) fn add() -> Self {
        Self(catalog::accumulator("add").expect("the catalog declares add"))
    }

    /// The neutral element (fills cells a store does not cover, and pads
    /// reads outside an operand).
    pub(super) fn neutral(self) -> f64 {
        self.0.neutral
    }

    /// The binary function that combines an old and a new value.
    pub(super) fn function(self) -> &'static str {
        self.0.function
    }

    /// The operator named `name` (an `accum` attribute; `None`: add).
    pub(super) fn parse(name: Option<&str>) -> Result<Self, String> {
        let name = name.unwrap_or("add");
        catalog::accumulator(name)
            .map(Self)
            .ok_or_else(|| format!("unknown accumulation operator '{name}'"))
    }
}

/// What an op computes at each point of its product space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Compute {
    /// The single operand's value.
    Identity,
    /// A unary function (op name without the dialect prefix).
    Unary(String),
    /// A binary function.
    Binary(String),
    /// `a * b + c`.
    Fma,
    /// `c != 0 ? a : b`.
    Where,
}

/// What `op` (catalog entry `def`, `n` operands) computes at each point:
/// its ODS `scalarFn`, for `combine` read from the op's `combine`
/// attribute.
pub(super) fn scalar_function(
    op: OperationRef<'_, '_>,
    def: &catalog::OpDef,
    n: usize,
) -> Result<Compute, String> {
    // The operand the result starts from is not an argument.
    let n = n - usize::from(def.init_operand.is_some());
    let function = |f: &str| -> Result<Compute, String> {
        Ok(match (f, n) {
            ("identity", 1) => Compute::Identity,
            ("where", 3) => Compute::Where,
            ("fma", 3) => Compute::Fma,
            ("identity" | "where" | "fma", n) => {
                return Err(format!("'{f}' does not take {n} operands"));
            }
            (f, 1) => Compute::Unary(f.into()),
            (f, 2) => Compute::Binary(f.into()),
            (f, n) => return Err(format!("'{f}' does not take {n} operands")),
        })
    };
    if def.scalar_fn != "combine" {
        return function(def.scalar_fn);
    }
    let combine = string_attr(&op, "combine");
    match (n, combine.as_deref()) {
        (1, _) => Ok(Compute::Identity),
        (2, None) => function("mul"),
        (3, None) => function("fma"),
        (_, Some(c)) => {
            function(c).map_err(|_| format!("combine '{c}' does not take {n} operands"))
        }
        _ => Err(format!("{n} operands")),
    }
}
