//! Reducing several vectors of partial results at once: `k` accumulators of
//! `W` lanes each become one vector of `k` results by pairwise shuffles and
//! combines (a transpose-and-add butterfly): `k - 1 + log2(W / k)` combines
//! instead of `k` separate `vector.reduction`s of `log2(W)` steps each, and
//! the `k` results, adjacent cells of the result, are read and written as
//! one vector.

use melior::{
    dialect::ods,
    ir::{Location, Type, Value, attribute::DenseI64ArrayAttribute},
};

use crate::compute::BinaryFn;
use crate::lower_to_affine::emit::{At, Emitter};

impl<'c> Emitter<'c> {
    /// `vector.shuffle` of `a` and `b` by `mask` (lane numbers into `a`
    /// then `b`): a vector of `mask.len()` lanes.
    fn shuffle<'a>(
        &self,
        at: At<'c, 'a>,
        a: Value<'c, 'a>,
        b: Value<'c, 'a>,
        mask: &[usize],
        loc: Location<'c>,
    ) -> Value<'c, 'a> {
        let mask: Vec<i64> = mask.iter().map(|&m| m as i64).collect();
        let mask = DenseI64ArrayAttribute::new(self.ctx, &mask).into();
        self.put_value(at, ods::vector::shuffle(self.ctx, a, b, mask, loc))
    }

    /// The `k` vectors `accs` (each `width` lanes; `k` and `width` powers
    /// of two, `k <= width`) reduced lane-wise with the binary function
    /// `combine` into one `vector<k x elem>`: lane `i` combines every lane
    /// of `accs[i]`.
    pub(super) fn reduce_group<'a>(
        &self,
        at: At<'c, 'a>,
        accs: &[Value<'c, 'a>],
        width: usize,
        combine: BinaryFn,
        elem: Type<'c>,
        loc: Location<'c>,
    ) -> Result<Value<'c, 'a>, String> {
        let k = accs.len();
        debug_assert!(k.is_power_of_two() && width.is_power_of_two() && k <= width);
        // Each vector holds `groups` accumulators' partials, `g` lanes each.
        let mut level: Vec<Value<'c, 'a>> = accs.to_vec();
        let mut groups = 1;
        let mut g = width;
        while level.len() > 1 {
            let half = g / 2;
            // Pairing x (groups 0..m) with y (groups m..2m): the first and
            // the second half of every group, x's then y's, combined.
            let lanes = |second: bool| -> Vec<usize> {
                let mut m = vec![];
                for (base, _) in [(0, 'x'), (width, 'y')] {
                    for j in 0..groups {
                        let start = base + j * g + if second { half } else { 0 };
                        m.extend(start..start + half);
                    }
                }
                m
            };
            let (lo, hi) = (lanes(false), lanes(true));
            let ty = self.vector_type(elem, width as u64);
            level = level
                .chunks(2)
                .map(|p| {
                    let a = self.shuffle(at, p[0], p[1], &lo, loc);
                    let b = self.shuffle(at, p[0], p[1], &hi, loc);
                    self.binary(at, combine, ty, a, b, loc)
                })
                .collect::<Result<_, _>>()?;
            groups *= 2;
            g = half;
        }
        // One vector: `k` groups of `g` lanes; fold each group to one lane.
        let mut v = level[0];
        let mut n = width;
        while g > 1 {
            let half = g / 2;
            let lanes = |second: bool| -> Vec<usize> {
                (0..k)
                    .flat_map(|j| {
                        let start = j * g + if second { half } else { 0 };
                        start..start + half
                    })
                    .collect()
            };
            let a = self.shuffle(at, v, v, &lanes(false), loc);
            let b = self.shuffle(at, v, v, &lanes(true), loc);
            n /= 2;
            v = self.binary(at, combine, self.vector_type(elem, n as u64), a, b, loc)?;
            g = half;
        }
        Ok(v)
    }
}
