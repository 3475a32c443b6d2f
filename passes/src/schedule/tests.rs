//! The schedule as data: the attribute's round trip through MLIR, the
//! segments of an unrolled iterator, hand-written plans the legality
//! check rejects, and the GPU tiled kernel's tile size.

use melior::{
    Context,
    ir::{Location, Module},
};
use ocannl_shape::projection::{AxisIndex, Projections};

use super::{
    Schedule, attach,
    legal::check_plan,
    plan::{Lanes, Plan, Segment, Unrolled, segments},
    tiled::{LARGE_TILES_FROM, R_LARGE, R_SMALL, cells_per_thread},
};

fn matmul_plan() -> Plan {
    Plan {
        lanes: Lanes::Result,
        width: 8,
        vector: 1,
        outer: vec![],
        unrolled: vec![
            Unrolled {
                iter: 1,
                factor: 2,
                lanes: true,
                tile: Some(512),
            },
            Unrolled {
                iter: 0,
                factor: 6,
                lanes: false,
                tile: None,
            },
        ],
        reductions: vec![2],
        k_tile: Some((2, 256)),
        outer_tile: None,
        outer_in_block: false,
        split_outer: false,
        block_contiguous: false,
    }
}

#[test]
fn schedules_round_trip_through_attributes() {
    let ctx = Context::new();
    let module = Module::new(Location::unknown(&ctx));
    let op = module.as_operation();
    assert_eq!(Schedule::of(op), Ok(None));
    let all = [
        Schedule::Loops { parallel: false },
        Schedule::Loops { parallel: true },
        Schedule::Cpu {
            plan: matmul_plan(),
            parallel: true,
        },
        Schedule::Cpu {
            plan: Plan {
                outer: vec![3],
                outer_tile: Some(4),
                ..matmul_plan()
            },
            parallel: false,
        },
        Schedule::Cpu {
            plan: Plan {
                outer: vec![3],
                outer_in_block: true,
                ..matmul_plan()
            },
            parallel: true,
        },
        Schedule::Cpu {
            plan: Plan {
                outer: vec![3],
                outer_tile: Some(2),
                outer_in_block: true,
                split_outer: true,
                ..matmul_plan()
            },
            parallel: true,
        },
        Schedule::Cpu {
            plan: Plan {
                lanes: Lanes::Reduction,
                k_tile: None,
                unrolled: vec![],
                ..matmul_plan()
            },
            parallel: false,
        },
        Schedule::Grid { block: 128 },
        Schedule::Tiled {
            block: 256,
            emulate: true,
        },
        Schedule::Epilogue { operand: 1 },
    ];
    for s in all {
        attach(&ctx, op, &s);
        assert_eq!(Schedule::of(op), Ok(Some(s)));
    }
}

#[test]
fn malformed_schedules_name_the_field() {
    let ctx = Context::new();
    for (text, needle) in [
        (
            "{kind = \"loops\", width = 8}",
            "kind 'loops' has no field 'width'",
        ),
        ("{kind = \"grid\"}", "no 'block'"),
        (
            "{kind = \"grid\", block = -32}",
            "'block' must be a non-negative integer",
        ),
        ("{kind = 3}", "no string 'kind'"),
        ("[1]", "must be a dictionary"),
        (
            "{kind = \"cpu\", lanes = \"both\", width = 8, vector = 1, outer = array<i64>, unroll = [], reductions = array<i64>}",
            "'lanes' must be",
        ),
        (
            "{kind = \"cpu\", lanes = \"result\", width = 8, vector = 1, outer = array<i64>, unroll = [array<i64: 1, 2>], reductions = array<i64>}",
            "iterator, factor, tile",
        ),
    ] {
        let source = format!("module attributes {{ocannl.schedule = {text}}} {{}}");
        let module = Module::parse(&ctx, &source).expect("parses");
        let err = Schedule::of(module.as_operation()).expect_err(text);
        assert!(err.contains(needle), "{text}: {err}");
    }
}

#[test]
fn segments_cover_the_extent_once() {
    let u = |factor, lanes, tile| Unrolled {
        iter: 0,
        factor,
        lanes,
        tile,
    };
    let spans = |s: &[Segment]| s.iter().map(|s| (s.lo, s.hi, s.step)).collect::<Vec<_>>();
    // 2 vectors of 8: whole blocks of 16, one vector, then scalars.
    assert_eq!(
        spans(&segments(&u(2, true, None), 29, 8)),
        [(0, 16, 16), (16, 24, 8), (24, 29, 1)]
    );
    // Rows: blocks of 6 then single rows.
    assert_eq!(
        spans(&segments(&u(6, false, Some(48)), 50, 8)),
        [(0, 48, 6), (48, 50, 1)]
    );
    // Shorter than a block: scalars only.
    assert_eq!(spans(&segments(&u(2, true, Some(512)), 5, 8)), [(0, 5, 1)]);
    for extent in 0..70 {
        for (f, lanes) in [(1, true), (3, true), (5, false)] {
            let s = segments(&u(f, lanes, None), extent, 4);
            let covered: u64 = s.iter().map(|s| s.hi - s.lo).sum();
            assert_eq!(covered, extent);
            assert!(s.windows(2).all(|w| w[0].hi == w[1].lo));
        }
    }
}

#[test]
fn contradicting_plans_are_rejected() {
    let i = AxisIndex::Iter;
    let p = Projections {
        product_space: vec![12, 32, 16],
        operands: vec![vec![i(0), i(2)], vec![i(2), i(1)]],
        result: vec![i(0), i(1)],
        components: vec![vec![0], vec![1], vec![2]],
    };
    let (rd, od) = (vec![12, 32], vec![vec![12, 16], vec![16, 32]]);
    let check = |plan: Plan| {
        let mut plan = plan;
        check_plan(&mut plan, &p, &rd, &od)
    };
    let ok = Plan {
        k_tile: None,
        ..matmul_plan()
    };
    assert_eq!(check(ok.clone()), Ok(()));
    let bad = [
        (
            Plan {
                width: 6,
                ..ok.clone()
            },
            "power of two",
        ),
        (
            Plan {
                vector: 0,
                ..ok.clone()
            },
            "contiguous iterator",
        ),
        (
            Plan {
                outer_tile: Some(2),
                ..ok.clone()
            },
            "'outer_tile' tiles the first 'outer' loop around the 'k_tile' loop",
        ),
        (
            Plan {
                outer_in_block: true,
                ..ok.clone()
            },
            "'outer_in_block' moves the 'outer' loops inside the first block column",
        ),
        (
            Plan {
                split_outer: true,
                ..ok.clone()
            },
            "'split_outer' runs the 'outer_tile' loop outermost",
        ),
        (
            Plan {
                reductions: vec![],
                ..ok.clone()
            },
            "'reductions'",
        ),
        (
            Plan {
                outer: vec![0],
                ..ok.clone()
            },
            "once each",
        ),
        (
            Plan {
                k_tile: Some((0, 4)),
                ..ok.clone()
            },
            "'k_tile'",
        ),
        (
            Plan {
                lanes: Lanes::Reduction,
                vector: 2,
                ..ok.clone()
            },
            "every operand",
        ),
    ];
    for (plan, needle) in bad {
        let err = check(plan.clone()).expect_err(needle);
        assert!(err.contains(needle), "{plan:?}: {err}");
    }
    let mut odd_tile = ok;
    odd_tile.unrolled[0].tile = Some(24);
    assert!(
        check(odd_tile)
            .expect_err("tile")
            .contains("multiple of its block step 16")
    );
}

#[test]
fn gpu_tiles_are_large_only_with_enough_of_them() {
    // A matmul 4096²: 32 × 32 tiles of 128.
    assert_eq!(cells_per_thread(4096, 4096, 1), R_LARGE);
    // The 3×3 ResNet convolution as a product: 3136 × 64, narrower than one
    // large tile.
    assert_eq!(cells_per_thread(3136, 64, 1), R_SMALL);
    // Partial tiles count: 18 × 16 = 288 tiles of 2177..2304 × 1921..2048.
    assert_eq!(cells_per_thread(2177, 1921, 1), R_LARGE);
    // 16 × 16 = 256 tiles: too few.
    assert_eq!(cells_per_thread(2048, 2048, 1), R_SMALL);
    // The batch counts: one tile each, exactly at the threshold and below.
    assert_eq!(cells_per_thread(128, 128, LARGE_TILES_FROM), R_LARGE);
    assert_eq!(cells_per_thread(128, 128, LARGE_TILES_FROM - 1), R_SMALL);
    // One row or column short of a large tile.
    assert_eq!(cells_per_thread(127, 1 << 20, 1), R_SMALL);
    assert_eq!(cells_per_thread(1 << 20, 127, 1), R_SMALL);
    // Huge extents saturate instead of overflowing.
    assert_eq!(cells_per_thread(u64::MAX, u64::MAX, u64::MAX), R_LARGE);
}
