//! Program generation: well-formed programs built op by op from the
//! dialect's catalog (`generator/well_formed.rs`, the one part of this
//! module that `crate::mutate` uses: its tests mutate such programs), and
//! hostile ones made by mutating them (`crate::mutate`). Every program is
//! a function of `(seed, index)`.

pub mod control;
pub mod einsum;
pub mod func;
pub mod ops;
pub mod shape;
pub mod well_formed;

use func::Limits;
use well_formed::well_formed;

use crate::mutate;
use crate::rng::Rng;

/// The class of programs without mutation.
pub const WELL_FORMED: &str = "wf";
/// Well-formed programs with calls, `scf` and `cf` control flow.
pub const WELL_FORMED_CTRL: &str = "wf-ctrl";

/// What to generate.
#[derive(Debug, Clone)]
pub struct GenConfig {
    /// The fraction of hostile (mutated) programs.
    pub hostile: f64,
    /// The fraction of well-formed programs with control flow and calls.
    pub ctrl: f64,
    /// Sizes and type looseness.
    pub limits: Limits,
    /// When not empty, only these classes are generated.
    pub only: Vec<String>,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            hostile: 0.5,
            ctrl: 0.25,
            limits: Limits::default(),
            only: Vec::new(),
        }
    }
}

/// Every class name, well-formed ones first.
pub fn all_classes() -> Vec<&'static str> {
    let mut v = vec![WELL_FORMED, WELL_FORMED_CTRL];
    v.extend(mutate::Mutation::ALL.iter().map(|m| m.name()));
    v
}

/// One generated program.
#[derive(Debug, Clone)]
pub struct Generated {
    /// Its class (`wf`, `wf-ctrl` or a mutation's name).
    pub class: &'static str,
    /// The program text (bytes: text mutations may break UTF-8).
    pub text: Vec<u8>,
    /// The function `ocannl-run` runs.
    pub entry: Option<String>,
}

/// Program `index` of the campaign seeded with `seed`.
pub fn generate(seed: u64, index: u64, cfg: &GenConfig) -> Generated {
    let mut rng = Rng::for_item(seed, index);
    let classes: Vec<&'static str> = if cfg.only.is_empty() {
        Vec::new()
    } else {
        all_classes()
            .into_iter()
            .filter(|c| cfg.only.iter().any(|o| o == c))
            .collect()
    };
    let class = if classes.is_empty() {
        if rng.chance(cfg.hostile) {
            mutate::Mutation::ALL[rng.index(mutate::Mutation::ALL.len())].name()
        } else if rng.chance(cfg.ctrl) {
            WELL_FORMED_CTRL
        } else {
            WELL_FORMED
        }
    } else {
        *rng.pick(&classes)
    };
    let ctrl = class == WELL_FORMED_CTRL || (class != WELL_FORMED && rng.chance(cfg.ctrl));
    let mut program = well_formed(&mut rng, &cfg.limits, ctrl);
    program.header.push(format!(
        "ocannl-fuzz class {class}, seed {seed}, index {index}"
    ));
    let (text, entry) = match mutate::Mutation::from_name(class) {
        Some(m) => mutate::apply(m, program, &mut rng),
        None => {
            let entry = program.entry.clone();
            (program.render().into_bytes(), entry)
        }
    };
    Generated { class, text, entry }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic() {
        let cfg = GenConfig::default();
        for i in 0..200 {
            let a = generate(42, i, &cfg);
            let b = generate(42, i, &cfg);
            assert_eq!(a.text, b.text);
            assert_eq!(a.class, b.class);
            assert_eq!(a.entry, b.entry);
        }
        assert_ne!(generate(1, 0, &cfg).text, generate(2, 0, &cfg).text);
    }

    #[test]
    fn every_class_is_generated() {
        let cfg = GenConfig::default();
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..2000 {
            seen.insert(generate(3, i, &cfg).class);
        }
        for c in all_classes() {
            assert!(seen.contains(c), "class {c} never generated");
        }
    }

    #[test]
    fn only_restricts_the_classes() {
        let cfg = GenConfig {
            only: vec!["int-div".into()],
            ..GenConfig::default()
        };
        for i in 0..50 {
            assert_eq!(generate(5, i, &cfg).class, "int-div");
        }
    }

    #[test]
    fn well_formed_programs_use_many_ops_and_stay_small() {
        let cfg = GenConfig {
            hostile: 0.0,
            ..GenConfig::default()
        };
        let mut text = String::new();
        for i in 0..300 {
            let g = generate(11, i, &cfg);
            let t = String::from_utf8(g.text).expect("well-formed programs are UTF-8");
            assert!(t.contains("func.func @f0"));
            assert!(g.entry.is_some());
            text.push_str(&t);
        }
        for def in ocannl_dialect::catalog::OPS {
            assert!(
                text.contains(&format!("\"{}\"", def.name)),
                "{} never used",
                def.name
            );
        }
        for construct in [
            "scf.if",
            "scf.for",
            "cf.br",
            "func.call",
            "tensor<",
            "=>",
            "^",
            "<+",
        ] {
            assert!(text.contains(construct), "{construct} never generated");
        }
    }
}
