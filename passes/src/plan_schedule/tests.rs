//! The planner on projections built by hand: the plans it chooses for the
//! forms the emitters know, and that every plan it chooses passes the
//! lowering's legality check (`schedule::legal::check_plan`).

use ocannl_shape::projection::{AffineIndex, AxisIndex, Projections};

use super::{choose::plan, target::Target};
use crate::schedule::{
    legal::check_plan,
    plan::{Lanes, Plan},
};

const I: fn(usize) -> AxisIndex = AxisIndex::Iter;

fn proj(space: &[u64], operands: Vec<Vec<AxisIndex>>, result: Vec<AxisIndex>) -> Projections {
    Projections {
        product_space: space.to_vec(),
        operands,
        result,
        components: (0..space.len()).map(|i| vec![i]).collect(),
    }
}

/// The dims of indices over `space` (plain iterators: their extent; fixed:
/// 1 more than the index; affine: the extent of the range).
fn dims(space: &[u64], indices: &[AxisIndex]) -> Vec<u64> {
    indices
        .iter()
        .map(|a| match a {
            AxisIndex::Iter(i) => space[*i],
            AxisIndex::Fixed(f) => f + 1,
            other => {
                let (lo, hi) = other.range(space);
                (hi - lo.min(0) + 1) as u64
            }
        })
        .collect()
}

fn target() -> Target {
    Target {
        l1: 32 << 10,
        l2: 1 << 20,
        ..Target::default()
    }
}

/// The plan and its legality check for `p`.
fn planned(p: &Projections, bits: u32) -> Option<Plan> {
    let rd = dims(&p.product_space, &p.result);
    let od: Vec<Vec<u64>> = p
        .operands
        .iter()
        .map(|o| dims(&p.product_space, o))
        .collect();
    let mut chosen = plan(&target(), p, &rd, &od, bits)?;
    let expected = chosen.block_contiguous;
    check_plan(&mut chosen, p, &rd, &od).expect("the planner's plan is legal");
    assert_eq!(
        chosen.block_contiguous, expected,
        "the check derives the same facts"
    );
    Some(chosen)
}

#[test]
fn matmul_lanes_along_the_result() {
    // C[i, j] += A[i, k] B[k, j]
    let p = proj(
        &[64, 32, 128],
        vec![vec![I(0), I(2)], vec![I(2), I(1)]],
        vec![I(0), I(1)],
    );
    let plan = planned(&p, 32).expect("planned");
    assert_eq!(plan.lanes, Lanes::Result);
    assert_eq!((plan.vector, plan.width), (1, 8));
    let block: Vec<(usize, u64)> = plan.unrolled.iter().map(|u| (u.iter, u.factor)).collect();
    assert_eq!(block, [(1, 2), (0, 6)]);
    assert_eq!(plan.reductions, [2]);
    assert_eq!(plan.k_tile, None);
    // f64: half the lanes.
    assert_eq!(planned(&p, 64).expect("planned").width, 4);
}

#[test]
fn long_reductions_are_tiled() {
    let p = proj(
        &[1024, 1024, 1024],
        vec![vec![I(0), I(2)], vec![I(2), I(1)]],
        vec![I(0), I(1)],
    );
    let plan = planned(&p, 32).expect("planned");
    // The result (4 MiB) overflows L2: tiles as long as KC_STREAMED.
    assert_eq!(plan.k_tile, Some((2, 512)));
    assert!(plan.unrolled.iter().all(|u| u.tile.is_some()));
    // 64 rows (256 KiB of result) stay in L2: the L1-sized tile.
    let p = proj(
        &[64, 1024, 1024],
        vec![vec![I(0), I(2)], vec![I(2), I(1)]],
        vec![I(0), I(1)],
    );
    assert_eq!(planned(&p, 32).expect("planned").k_tile, Some((2, 256)));
    // A reduction of 768 (1.5 tiles of 512) in two even tiles.
    let p = proj(
        &[1024, 1024, 768],
        vec![vec![I(0), I(2)], vec![I(2), I(1)]],
        vec![I(0), I(1)],
    );
    assert_eq!(planned(&p, 32).expect("planned").k_tile, Some((2, 384)));
    // A reduction of 300 keeps the L1-sized tile: one tile of 304 would
    // leave nothing to pack a transposed operand in.
    let p = proj(
        &[2048, 2048, 300],
        vec![vec![I(0), I(2)], vec![I(2), I(1)]],
        vec![I(0), I(1)],
    );
    assert_eq!(planned(&p, 32).expect("planned").k_tile, Some((2, 256)));
}

#[test]
fn row_reductions_take_lanes_along_the_reduction() {
    // s[i] += x[i, j]
    let p = proj(&[16, 64], vec![vec![I(0), I(1)]], vec![I(0)]);
    let plan = planned(&p, 32).expect("planned");
    assert_eq!(plan.lanes, Lanes::Reduction);
    assert_eq!(plan.vector, 1);
    assert_eq!(plan.reductions.last(), Some(&1));
}

#[test]
fn padded_reads_never_carry_lanes() {
    // y[o] += x[o + k - 1] w[k]: the input is read past its ends through o.
    let x = AxisIndex::Affine(AffineIndex {
        over: Some((0, 1)),
        kernel: Some((1, 1)),
        offset: -1,
    });
    let p = proj(&[16, 3], vec![vec![x], vec![I(1)]], vec![I(0)]);
    let od = vec![vec![16], vec![3]];
    let chosen = plan(&target(), &p, &[16], &od, 32);
    assert!(chosen.as_ref().is_none_or(|c| c.vector != 0), "{chosen:?}");
}

#[test]
fn other_element_widths_and_empty_nests_are_not_planned() {
    let p = proj(&[8, 8], vec![vec![I(0), I(1)]], vec![I(0), I(1)]);
    assert!(planned(&p, 16).is_none());
    let empty = proj(&[0, 8], vec![vec![I(0), I(1)]], vec![I(0), I(1)]);
    assert!(planned(&empty, 32).is_none());
    let off = Target {
        enabled: false,
        ..target()
    };
    assert!(plan(&off, &p, &[8, 8], &[vec![8, 8]], 32).is_none());
}

/// Every plan the planner chooses, over many small random nests
/// (operands reading random iterators, fixed indices and broadcasts), is
/// one the lowering accepts.
#[test]
fn every_chosen_plan_is_legal() {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let mut planned_count = 0;
    for _ in 0..3000 {
        let n = 1 + next(4) as usize;
        let space: Vec<u64> = (0..n)
            .map(|_| [1, 3, 8, 17, 64, 300][next(6) as usize])
            .collect();
        // The result: a prefix of the iterators in a random order (the rest reduced).
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            order.swap(i, next(i as u64 + 1) as usize);
        }
        let kept = 1 + next(n as u64) as usize;
        let mut result: Vec<AxisIndex> = order[..kept].iter().map(|&i| I(i)).collect();
        if next(5) == 0 {
            result.insert(next(kept as u64 + 1) as usize, AxisIndex::Fixed(0));
        }
        let operands: Vec<Vec<AxisIndex>> = (0..1 + next(2))
            .map(|_| {
                let rank = 1 + next(3) as usize;
                (0..rank)
                    .map(|_| match next(6) {
                        0 => AxisIndex::Fixed(0),
                        _ => I(next(n as u64) as usize),
                    })
                    .collect()
            })
            .collect();
        // Every iterator read somewhere, as projections always are.
        let p = proj(&space, operands, result);
        if (0..n).all(|i| {
            p.operands
                .iter()
                .chain([&p.result])
                .any(|o| o.iter().any(|a| a.uses(i)))
        }) && planned(&p, [32, 64][next(2) as usize]).is_some()
        {
            planned_count += 1;
        }
    }
    assert!(
        planned_count > 500,
        "only {planned_count} nests were planned"
    );
}
