//! Hand-written `ocannl.schedule` attributes: near-legal plans (other
//! widths, factors, tiles, iterators), other kinds (loops, grids of odd
//! block sizes, tiled kernels, epilogues of any operand) and malformed
//! dictionaries. `ocannl-plan-schedule` keeps them and
//! `ocannl-lower-to-affine` must obey them or reject them with a located
//! error (after shape and projection inference, which leave them alone).

use crate::ir::Program;
use crate::rng::Rng;

/// `array<i64: ...>` of up to `n` small numbers (some out of range).
fn indices(rng: &mut Rng, n: usize) -> String {
    let v: Vec<String> = (0..rng.index(n + 1))
        .map(|_| (*rng.pick(&["0", "1", "2", "3", "4", "7", "-1"])).to_string())
        .collect();
    if v.is_empty() {
        "array<i64>".into()
    } else {
        format!("array<i64: {}>", v.join(", "))
    }
}

/// A random CPU plan: each field plausible, together rarely legal.
fn cpu(rng: &mut Rng) -> String {
    let mut fields = vec![
        "kind = \"cpu\"".to_string(),
        format!("lanes = \"{}\"", rng.pick(&["result", "reduction", "both"])),
        format!(
            "width = {}",
            rng.pick(&["1", "2", "4", "8", "16", "3", "0", "128", "-8"])
        ),
        format!("vector = {}", rng.pick(&["0", "1", "2", "3", "9"])),
        format!("outer = {}", indices(rng, 3)),
        format!("reductions = {}", indices(rng, 2)),
    ];
    let unroll: Vec<String> = (0..rng.index(4))
        .map(|_| {
            format!(
                "array<i64: {}, {}, {}>",
                rng.pick(&["0", "1", "2", "3"]),
                rng.pick(&["1", "2", "3", "4", "6", "0", "17", "100"]),
                rng.pick(&["0", "8", "16", "24", "48", "7", "512"])
            )
        })
        .collect();
    fields.push(format!("unroll = [{}]", unroll.join(", ")));
    if rng.chance(0.4) {
        fields.push(format!(
            "k_tile = array<i64: {}, {}>",
            rng.pick(&["0", "1", "2", "3"]),
            rng.pick(&["1", "2", "8", "16", "0", "256"])
        ));
    }
    if rng.chance(0.3) {
        fields.push("parallel = true".into());
    }
    if rng.chance(0.1) {
        fields.remove(1 + rng.index(fields.len() - 1));
    }
    format!("{{{}}}", fields.join(", "))
}

/// A random schedule attribute.
fn schedule(rng: &mut Rng) -> String {
    match rng.below(8) {
        0 => "{kind = \"loops\"}".into(),
        1..=3 => cpu(rng),
        4 => format!(
            "{{kind = \"grid\", block = {}}}",
            rng.pick(&["256", "32", "1024", "31", "0", "2048", "-32"])
        ),
        5 => format!(
            "{{kind = \"tiled\", block = {}{}}}",
            rng.pick(&["256", "64", "33"]),
            if rng.chance(0.5) {
                ", emulate = true"
            } else {
                ""
            }
        ),
        6 => format!(
            "{{kind = \"epilogue\", operand = {}}}",
            rng.pick(&["0", "1", "2", "5"])
        ),
        _ => (*rng.pick(&[
            "\"cpu\"",
            "{}",
            "{kind = 3}",
            "{kind = \"gpu\"}",
            "{kind = \"loops\", width = 8}",
            "{kind = \"cpu\", lanes = \"result\"}",
            "{kind = \"grid\", block = \"256\"}",
            "{kind = \"tiled\", block = 256, emulate = 1}",
            "{kind = \"epilogue\", operand = -1}",
            "[1, 2]",
        ]))
        .into(),
    }
}

/// Hand-written schedules on some of the program's ocannl ops.
pub fn schedule_attrs(p: &mut Program, rng: &mut Rng) {
    let n = p.ops_mut().count();
    if n == 0 {
        return;
    }
    let chosen = rng.index(n);
    for (i, op) in p.ops_mut().enumerate() {
        if op.name.starts_with("ocannl.") && (i == chosen || rng.chance(0.3)) {
            let s = schedule(rng);
            op.set_attr("ocannl.schedule", s);
        }
    }
}
