//! Hostile programs: each class is one mutation of a well-formed program
//! (or a hostile function added to it). The tools must reject each with a
//! located error, or handle it; never crash, hang or panic.

mod projection;
mod schedule;
mod spec;
mod structure;
mod templates;
mod text;

use crate::ir::Program;
use crate::rng::Rng;

/// A class of hostile mutation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mutation {
    /// Random bytes in (or instead of) a spec string.
    SpecGarbage,
    /// An empty spec string.
    SpecEmpty,
    /// Specs with unbalanced or misplaced `|`, `->`, `=>`, `;`, `...`.
    SpecUnbalanced,
    /// 257+ or thousands of axes.
    ManyAxes,
    /// Sizes, strides, dilations and indices near and past 2^31/2^63/2^64.
    HugeSizes,
    /// `spec = ""`, `accum = ""`, `combine = ""`, `func.func @""`.
    EmptyAttr,
    /// Attributes of the wrong kind, missing, unknown enum values, bad
    /// `index`.
    WrongAttr,
    /// Element types the tools do not support (f16, bf16, i1, index, ...).
    ElemType,
    /// Function names that collide with C/libm/runtime symbols.
    SymbolName,
    /// Constants whose value does not fit the element type, dense data of
    /// the wrong count.
    ConstOverflow,
    /// Integer division (and friends) by zero at run time.
    IntDiv,
    /// A 100 GB argument, TB intermediates, cell counts that overflow.
    HugeTensor,
    /// Hand-written `ocannl.product_space` / `ocannl.indexing_maps`
    /// contradicting the types.
    ProjectionAttrs,
    /// Hand-written `ocannl.schedule` attributes, near-legal or malformed.
    ScheduleAttrs,
    /// ocannl ops at module level or inside a nested module; declarations.
    ModuleLevel,
    /// Recursion through `func.call`.
    Recursion,
    /// Deleted, duplicated, swapped or inserted byte ranges of the text.
    TextEdit,
}

impl Mutation {
    /// Every mutation class.
    pub const ALL: [Mutation; 17] = [
        Mutation::SpecGarbage,
        Mutation::SpecEmpty,
        Mutation::SpecUnbalanced,
        Mutation::ManyAxes,
        Mutation::HugeSizes,
        Mutation::EmptyAttr,
        Mutation::WrongAttr,
        Mutation::ElemType,
        Mutation::SymbolName,
        Mutation::ConstOverflow,
        Mutation::IntDiv,
        Mutation::HugeTensor,
        Mutation::ProjectionAttrs,
        Mutation::ScheduleAttrs,
        Mutation::ModuleLevel,
        Mutation::Recursion,
        Mutation::TextEdit,
    ];

    /// The class name used in reports and file names.
    pub fn name(self) -> &'static str {
        match self {
            Mutation::SpecGarbage => "spec-garbage",
            Mutation::SpecEmpty => "spec-empty",
            Mutation::SpecUnbalanced => "spec-unbalanced",
            Mutation::ManyAxes => "many-axes",
            Mutation::HugeSizes => "huge-sizes",
            Mutation::EmptyAttr => "empty-attr",
            Mutation::WrongAttr => "wrong-attr",
            Mutation::ElemType => "elem-type",
            Mutation::SymbolName => "symbol-name",
            Mutation::ConstOverflow => "const-overflow",
            Mutation::IntDiv => "int-div",
            Mutation::HugeTensor => "huge-tensor",
            Mutation::ProjectionAttrs => "projection-attrs",
            Mutation::ScheduleAttrs => "schedule-attrs",
            Mutation::ModuleLevel => "module-level",
            Mutation::Recursion => "recursion",
            Mutation::TextEdit => "text-mutation",
        }
    }

    /// The mutation named `name`.
    pub fn from_name(name: &str) -> Option<Mutation> {
        Mutation::ALL.iter().copied().find(|m| m.name() == name)
    }
}

/// Applies `m` to `program`; returns the text and the entry function.
pub fn apply(m: Mutation, mut program: Program, rng: &mut Rng) -> (Vec<u8>, Option<String>) {
    match m {
        Mutation::SpecGarbage => spec::garbage(&mut program, rng),
        Mutation::SpecEmpty => spec::empty(&mut program, rng),
        Mutation::SpecUnbalanced => spec::unbalanced(&mut program, rng),
        Mutation::ManyAxes => spec::many_axes(&mut program, rng),
        Mutation::HugeSizes => spec::huge_sizes(&mut program, rng),
        Mutation::EmptyAttr => structure::empty_attr(&mut program, rng),
        Mutation::WrongAttr => structure::wrong_attr(&mut program, rng),
        Mutation::ElemType => structure::elem_type(&mut program, rng),
        Mutation::SymbolName => structure::symbol_name(&mut program, rng),
        Mutation::ConstOverflow => templates::const_overflow(&mut program, rng),
        Mutation::IntDiv => templates::int_div(&mut program, rng),
        Mutation::HugeTensor => templates::huge_tensor(&mut program, rng),
        Mutation::ProjectionAttrs => projection::projection_attrs(&mut program, rng),
        Mutation::ScheduleAttrs => schedule::schedule_attrs(&mut program, rng),
        Mutation::ModuleLevel => structure::module_level(&mut program, rng),
        Mutation::Recursion => structure::recursion(&mut program, rng),
        Mutation::TextEdit => {
            let entry = program.entry.clone();
            return (text::mutate(program.render().into_bytes(), rng), entry);
        }
    }
    let entry = program.entry.clone();
    (program.render().into_bytes(), entry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generator::{func::Limits, well_formed::well_formed};

    #[test]
    fn every_mutation_changes_the_program() {
        for (i, &m) in Mutation::ALL.iter().enumerate() {
            let mut changed = 0;
            for s in 0..20 {
                let mut rng = Rng::new(1000 * i as u64 + s);
                let p = well_formed(&mut rng, &Limits::default(), false);
                let before = p.render().into_bytes();
                let (after, _) = apply(m, p, &mut rng);
                if after != before {
                    changed += 1;
                }
            }
            assert!(changed >= 18, "{} changed only {changed}/20", m.name());
        }
    }

    #[test]
    fn names_round_trip() {
        for m in Mutation::ALL {
            assert_eq!(Mutation::from_name(m.name()), Some(m));
        }
    }
}
