//! The op catalog, generated from ODS (`dialect/td/OcannlOps.td`) by the
//! build script: for every op, its OCANNL shape logic ([`ShapeLogic`]),
//! operands and attributes, and what it computes ([`ScalarFn`],
//! [`Accumulator`]: one variant per function ODS names, so a pass that
//! matches them exhaustively fails to build until it handles a new one).
//! Passes consult the catalog, never op names.

/// OCANNL's shape logic of an op: the data-free kind of the shape crate's
/// one logic type ([`ocannl_shape::logic`]), shared with the problem
/// builder and the checker. The generated catalog names each op's logic as
/// ODS does (`Pointwise_bin`), resolved by
/// [`ShapeLogic::from_ocannl_name`] when this crate compiles.
pub use ocannl_shape::logic::ShapeLogic;

/// How `ocannl-verify` checks an attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttrKind {
    /// A string holding a shape spec.
    ShapeSpec,
    /// A string holding an einsum spec (1 to 3 operand slots).
    EinsumSpec,
    /// A string holding a block spec (any number of operand slots).
    BlockSpec,
    /// A string that must be one of the values.
    Enum(&'static [&'static str]),
    /// A 64-bit integer.
    I64,
    /// Any attribute.
    Any,
}

/// An operand group of an op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperandDef {
    /// The ODS name.
    pub name: &'static str,
    /// Whether the group takes any number of operands.
    pub variadic: bool,
}

/// An attribute of an op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttrDef {
    /// The attribute name.
    pub name: &'static str,
    /// How it is checked.
    pub kind: AttrKind,
    /// Whether the op must carry it.
    pub required: bool,
}

/// Everything the passes know about one op.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpDef {
    /// The full op name, e.g. `ocannl.add`.
    pub name: &'static str,
    /// The ODS summary.
    pub summary: &'static str,
    /// The shape logic.
    pub logic: ShapeLogic,
    /// The operand groups in order.
    pub operands: &'static [OperandDef],
    /// The attributes.
    pub attributes: &'static [AttrDef],
    /// The least number of operands.
    pub min_operands: usize,
    /// The most operands, if bounded.
    pub max_operands: Option<usize>,
    /// What the op computes: how it is lowered.
    pub computes: Computes,
    /// For [`Computes::Nest`], the function of the operands' cells at each
    /// point of the product space.
    pub scalar_fn: OpScalarFn,
    /// The accumulator of cells reached more than once.
    pub accum: OpAccum,
    /// The operand the result starts from (`fma`'s addend).
    pub init_operand: Option<usize>,
}

/// How an op is lowered (ODS `computes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Computes {
    /// A loop nest over the product space, from the projections.
    Nest,
    /// One nest per block of a concatenation.
    Blocks,
    /// A constant: a fill or a copy of its values.
    Constant,
    /// Each cell holds its linear index.
    Range,
    /// The operand's cells copied in memory order.
    Reshape,
    /// A nest over the result that reads the data operand's gathered axis
    /// at the indices operand's values (`ocannl.gather`).
    Gather,
}

include!(concat!(env!("OUT_DIR"), "/functions.rs"));

/// An op's function at each point of its product space (ODS `scalarFn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpScalarFn {
    /// A function of the op's definition: unary or binary (`neg`, `add`,
    /// ...), `identity` or `where`.
    Fixed(ScalarFn),
    /// ODS `combine`: the op's `combine` attribute (`mul` of two operands,
    /// `fma` of three by default).
    Combine,
}

/// An op's accumulator of cells reached more than once (ODS `accum`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpAccum {
    /// An accumulator of the op's definition.
    Fixed(Accumulator),
    /// ODS `attr`: the op's `accum` attribute (default `add`).
    Attr,
}

impl OpDef {
    /// Whether `n` operands are acceptable.
    pub fn accepts_operand_count(&self, n: usize) -> bool {
        n >= self.min_operands && self.max_operands.is_none_or(|max| n <= max)
    }

    /// The accepted operand counts in words, e.g. `2`, `1 to 3`, `at least 1`.
    pub fn arity_text(&self) -> String {
        match self.max_operands {
            Some(max) if max == self.min_operands => max.to_string(),
            Some(max) => format!("{} to {max}", self.min_operands),
            None => format!("at least {}", self.min_operands),
        }
    }

    /// The attribute named `name`, if the op has one.
    pub fn attribute(&self, name: &str) -> Option<&'static AttrDef> {
        self.attributes.iter().find(|a| a.name == name)
    }
}

/// Every op of the dialect, sorted by name.
pub static OPS: &[OpDef] = include!(concat!(env!("OUT_DIR"), "/catalog.rs"));

/// The op named `name` (e.g. `ocannl.add`), if the dialect has one.
pub fn lookup(name: &str) -> Option<&'static OpDef> {
    OPS.binary_search_by(|op| op.name.cmp(name))
        .ok()
        .map(|i| &OPS[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_is_sorted_and_complete() {
        assert!(OPS.windows(2).all(|w| w[0].name < w[1].name));
        let add = lookup("ocannl.add").expect("add is in the catalog");
        assert_eq!(add.logic, ShapeLogic::PointwiseBin);
        assert_eq!(add.arity_text(), "2");
        let einsum = lookup("ocannl.einsum").expect("einsum is in the catalog");
        assert_eq!(einsum.arity_text(), "1 to 3");
        assert_eq!(
            einsum.attribute("spec").map(|a| a.kind),
            Some(AttrKind::EinsumSpec)
        );
        assert!(!einsum.attribute("accum").expect("accum").required);
        assert_eq!(
            lookup("ocannl.concat").map(OpDef::arity_text).as_deref(),
            Some("at least 1")
        );
        assert!(lookup("ocannl.nope").is_none());
        let fma = lookup("ocannl.fma").expect("fma");
        assert_eq!(
            (fma.scalar_fn, fma.accum, fma.init_operand),
            (
                OpScalarFn::Fixed(ScalarFn::Mul),
                OpAccum::Fixed(Accumulator::Add),
                Some(2)
            )
        );
        assert_eq!(
            einsum.scalar_fn,
            OpScalarFn::Combine,
            "einsum reads its combine attribute"
        );
        assert_eq!(einsum.accum, OpAccum::Attr);
        for &f in ScalarFn::ALL {
            assert_eq!(ScalarFn::from_name(f.name()), Some(f));
        }
        assert_eq!(ScalarFn::from_name("gelu"), None);
        assert_eq!(
            lookup("ocannl.reshape").map(|d| d.computes),
            Some(Computes::Reshape)
        );
        assert_eq!(
            Accumulator::from_name("max").map(Accumulator::neutral),
            Some(f64::NEG_INFINITY)
        );
        assert_eq!(Accumulator::Min.function(), ScalarFn::Min);
    }
}
