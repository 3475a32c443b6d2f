//! Well-formed programs: functions of ocannl ops generated from the
//! dialect's catalog, with calls and control flow on request. Every class
//! of [`super::generate`] starts from one, and the tests of `crate::mutate`
//! mutate them; this module uses neither.

use super::func::{FnGen, Limits, Sig};
use super::shape::Elem;
use super::{control, ops};
use crate::ir::{Item, Program};
use crate::rng::Rng;

/// A well-formed program: one to three functions of ocannl ops (with
/// calls and control flow when `ctrl`); the last one is the entry.
pub fn well_formed(rng: &mut Rng, limits: &Limits, ctrl: bool) -> Program {
    let nfuncs = 1 + rng.weighted(&[5, 3, 1]);
    let mut sigs: Vec<Sig> = Vec::new();
    let mut program = Program::default();
    for fi in 0..nfuncs {
        let elem = Elem::random(rng);
        let nops = rng.range(1, 7);
        let branch = ctrl && rng.chance(0.3);
        let name = format!("f{fi}");
        let mut g = FnGen::new(rng, *limits, elem);
        let (mut emitted, mut attempts) = (0, 0);
        while emitted < nops && attempts < nops * 4 {
            attempts += 1;
            if ctrl && g.rng.chance(0.3) {
                match g.rng.weighted(&[if sigs.is_empty() { 0 } else { 3 }, 2, 2]) {
                    0 => {
                        let i = g.rng.index(sigs.len());
                        control::call(&mut g, &sigs[i]);
                    }
                    1 => control::scf_if(&mut g),
                    _ => control::scf_for(&mut g),
                }
                emitted += 1;
            } else if ops::gen_op(&mut g) {
                emitted += 1;
            }
        }
        let nres = g.rng.weighted(&[1, 12, 3]);
        let mut results = Vec::new();
        for _ in 0..nres {
            if let Some(v) = g.pick(elem).or_else(|| g.pool.last().cloned()) {
                results.push(v);
            }
        }
        if branch {
            control::branch_return(&mut g, &results);
        }
        let (func, sig) = g.finish(&name, &results, branch);
        program.items.push(Item::Func(func));
        sigs.push(sig);
        program.entry = Some(name);
    }
    program
}
