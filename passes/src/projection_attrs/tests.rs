//! The projection attributes round-trip: what `ocannl-infer-projections`
//! writes, the lowering and the planner read back as the same projections
//! (and blocks), and what contradicts the types is an error.

use melior::{
    Context,
    ir::{Location, Module},
};
use ocannl_shape::projection::{AffineIndex, AxisIndex, Block, Projections};

use super::{attach_blocks, attach_maps, read_blocks, read_projections};

fn singletons(n: usize) -> Vec<Vec<usize>> {
    (0..n).map(|i| vec![i]).collect()
}

#[test]
fn maps_round_trip() {
    let ctx = Context::new();
    let module = Module::new(Location::unknown(&ctx));
    let op = module.as_operation();
    let i = AxisIndex::Iter;
    // A padded, strided, dilated convolution with a broadcast axis and a
    // fixed index: y[b, o, 0] += x[b, 2o + 3k - 1] w[k, 0].
    let conv = AxisIndex::Affine(AffineIndex {
        over: Some((1, 2)),
        kernel: Some((2, 3)),
        offset: -1,
    });
    let p = Projections {
        product_space: vec![4, 5, 3],
        operands: vec![vec![i(0), conv], vec![i(2), AxisIndex::Fixed(0)]],
        result: vec![i(0), i(1), AxisIndex::Fixed(0)],
        components: singletons(3),
    };
    attach_maps(&ctx, op, &p);
    let back = read_projections(op, &[vec![4, 14], vec![3, 1]], &[4, 5, 1])
        .expect("valid")
        .expect("present");
    assert_eq!(back, p);
    // A result too small for its index is an error, not a store past it.
    let err = read_projections(op, &[vec![4, 14], vec![3, 1]], &[4, 4, 1]).expect_err("too small");
    assert!(err.contains("contradicts the types"), "{err}");
    // Ranks that do not match.
    let err = read_projections(op, &[vec![4, 14, 1], vec![3, 1]], &[4, 5, 1]).expect_err("rank");
    assert!(
        err.contains("has 2 results but the tensor has 3 axes"),
        "{err}"
    );
}

#[test]
fn blocks_round_trip() {
    let ctx = Context::new();
    let module = Module::new(Location::unknown(&ctx));
    let op = module.as_operation();
    let i = AxisIndex::Iter;
    let shifted = |iter: usize, offset: i64| {
        AxisIndex::Affine(AffineIndex {
            over: Some((iter, 1)),
            kernel: None,
            offset,
        })
    };
    // r = x ^ y along the last axis: x[b, a] → r[b, a], y[b, c] → r[b, 3 + c].
    let p = Projections {
        product_space: vec![2, 3, 4],
        operands: vec![vec![i(0), i(1)], vec![i(0), i(2)]],
        result: vec![i(0), i(1)],
        components: vec![vec![0], vec![1, 2]],
    };
    let blocks = vec![
        Block {
            iterators: vec![0, 1],
            operand: 0,
            indices: vec![i(0), i(1)],
            result: vec![i(0), i(1)],
        },
        Block {
            iterators: vec![0, 2],
            operand: 1,
            indices: vec![i(0), i(2)],
            result: vec![i(0), shifted(2, 3)],
        },
    ];
    attach_blocks(&ctx, op, &p, &blocks);
    let (space, back) = read_blocks(op, &[vec![2, 3], vec![2, 4]], &[2, 7])
        .expect("valid")
        .expect("present");
    assert_eq!(space, p.product_space);
    assert_eq!(back, blocks);
    // The second block would write past a result of 6 columns.
    let err = read_blocks(op, &[vec![2, 3], vec![2, 4]], &[2, 6]).expect_err("too small");
    assert!(
        err.contains("block #1: the result's axis 1 has size 6"),
        "{err}"
    );
    // An operand the op does not have.
    let err = read_blocks(op, &[vec![2, 3]], &[2, 7]).expect_err("one operand");
    assert!(
        err.contains("'operand' must be an integer naming one of the 1 operands"),
        "{err}"
    );
}
