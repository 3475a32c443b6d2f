//! The blocks of an op with concatenated axes (OCANNL's Block lowering,
//! reference "Projections inference", "Concatenation"):
//! [`Projections::blocks`].
//!
//! The work is linear in the number of blocks times their size: a
//! concatenation of n parts has n blocks, and neither the blocks nor the
//! search for the operand that takes part in one looks at the other n - 1
//! parts (an `ocannl.concat` of 16k operands was quadratic in time and
//! memory).

use foldhash::HashMap;

use super::{AffineIndex, AxisIndex, Block, ProjectionError, Projections};
use crate::MAX_SIZE;

/// Where each part of one concatenated axis sits.
struct Parts {
    /// Each part's iterator to its position (the first, if repeated).
    position: HashMap<usize, usize>,
    /// The cells before each part: `before[k]` sums the sizes of parts
    /// `0..k`.
    before: Vec<u128>,
}

impl Parts {
    fn new(parts: &[usize], space: &[u64]) -> Self {
        let mut position = HashMap::default();
        let mut before = Vec::with_capacity(parts.len());
        let mut sum = 0u128;
        for (k, &p) in parts.iter().enumerate() {
            position.entry(p).or_insert(k);
            before.push(sum);
            sum += u128::from(space.get(p).copied().unwrap_or(0));
        }
        Self { position, before }
    }
}

/// The active iterators of the block being built, and the tables that
/// resolve an index for them.
struct Resolver<'p> {
    p: &'p Projections,
    /// `active[i]`: iterator `i` is active.
    active: Vec<bool>,
    /// The active iterators (one per component).
    list: Vec<usize>,
    /// The parts of every concatenated axis of `p`, keyed by the address
    /// of its parts list: `p` is borrowed for the resolver's life, so each
    /// axis keeps its address and no two share one (only compared, never
    /// dereferenced).
    parts: HashMap<*const Vec<usize>, Parts>,
}

impl<'p> Resolver<'p> {
    fn new(p: &'p Projections) -> Self {
        let mut parts = HashMap::default();
        for a in p.result.iter().chain(p.operands.iter().flatten()) {
            if let AxisIndex::Concat(v) = a {
                parts.insert(std::ptr::from_ref(v), Parts::new(v, &p.product_space));
            }
        }
        Self {
            p,
            active: vec![false; p.product_space.len()],
            list: Vec::with_capacity(p.components.len()),
            parts,
        }
    }

    fn is_active(&self, i: usize) -> bool {
        self.active.get(i).copied().unwrap_or(false)
    }

    /// Activates the chosen iterator of each component (and deactivates
    /// the previous choice).
    fn choose(&mut self, choice: &[usize]) {
        for &i in &self.list {
            self.active[i] = false;
        }
        self.list.clear();
        for (c, &k) in self.p.components.iter().zip(choice) {
            let i = c[k];
            match self.active.get_mut(i) {
                Some(true) => {} // listed already (components that share it)
                Some(a) => {
                    *a = true;
                    self.list.push(i);
                }
                None => self.list.push(i),
            }
        }
    }

    /// The position of the first active part of a concatenated axis
    /// (`table`: its parts).
    fn active_part(&self, parts: &[usize], table: &Parts) -> Option<usize> {
        if parts.len() <= self.list.len() {
            parts.iter().position(|&i| self.is_active(i))
        } else {
            self.list
                .iter()
                .filter(|&&i| self.is_active(i))
                .filter_map(|i| table.position.get(i).copied())
                .min()
        }
    }

    /// One index with the active iterators: `None` when it reads an
    /// inactive one (a concatenation: when none of its parts is active).
    ///
    /// # Errors
    ///
    /// [`ProjectionError::Overflow`] when the parts before the active one
    /// are past `i64` (not for projections
    /// [`infer_projections`](super::infer_projections) returns, whose
    /// concatenated axes are at most [`MAX_SIZE`]).
    fn resolve(&self, a: &AxisIndex) -> Result<Option<AxisIndex>, ProjectionError> {
        match a {
            AxisIndex::Concat(parts) => {
                let table = &self.parts[&std::ptr::from_ref(parts)];
                let Some(k) = self.active_part(parts, table) else {
                    return Ok(None);
                };
                let offset = table.before[k];
                let offset = i64::try_from(offset).map_err(|_| {
                    ProjectionError::Overflow(format!(
                        "the parts of a concatenated axis before its part #{k} have {offset} cells, more than the largest size {MAX_SIZE}"
                    ))
                })?;
                Ok(Some(if offset == 0 {
                    AxisIndex::Iter(parts[k])
                } else {
                    AxisIndex::Affine(AffineIndex {
                        over: Some((parts[k], 1)),
                        kernel: None,
                        offset,
                    })
                }))
            }
            other => {
                // An iterator past the product space is no loop: it never
                // makes an index inactive.
                let mut reads_inactive = false;
                other.for_each_iterator(|i| {
                    reads_inactive |= i < self.active.len() && !self.active[i];
                });
                Ok((!reads_inactive).then(|| other.clone()))
            }
        }
    }

    /// All of `indices` resolved, or `None` when one reads an inactive
    /// iterator.
    fn resolve_all(
        &self,
        indices: &[AxisIndex],
    ) -> Result<Option<Vec<AxisIndex>>, ProjectionError> {
        let mut out = Vec::with_capacity(indices.len());
        for a in indices {
            match self.resolve(a)? {
                Some(x) => out.push(x),
                None => return Ok(None),
            }
        }
        Ok(Some(out))
    }
}

/// Which operands may take part in a block: an operand needs every
/// iterator its plain axes read to be active (and, with a part per
/// operand, its part); operands are found by counting, per block, how many
/// of their needed iterators are active. An iterator alone in its
/// component is active in every block and is not counted: with it, every
/// block would visit every operand reading it (a concatenation of n parts
/// that share an axis, `p0,..r..; p1,..r..; ...`, was quadratic).
struct Candidates {
    /// Per iterator, the operands that need it.
    needing: Vec<Vec<usize>>,
    /// Per operand, how many distinct iterators it needs.
    needs: Vec<usize>,
    /// Operands that need nothing, or that have concatenated axes: checked
    /// in every block.
    always: Vec<usize>,
}

impl Candidates {
    fn new(p: &Projections, per_operand: Option<&Vec<usize>>) -> Self {
        let space = p.product_space.len();
        let mut always_active = vec![false; space];
        for c in &p.components {
            if let [i] = c.as_slice()
                && *i < space
            {
                always_active[*i] = true;
            }
        }
        let mut needing = vec![Vec::new(); space];
        let mut needs = vec![0; p.operands.len()];
        let mut always = Vec::new();
        for (o, indices) in p.operands.iter().enumerate() {
            if indices.iter().any(|a| matches!(a, AxisIndex::Concat(_))) {
                always.push(o);
                continue;
            }
            let mut its: Vec<usize> = Vec::new();
            for a in indices {
                a.for_each_iterator(|i| its.push(i));
            }
            if let Some(parts) = per_operand {
                its.push(parts[o]);
            }
            its.retain(|&i| i < space && !always_active[i]);
            its.sort_unstable();
            its.dedup();
            if its.is_empty() {
                always.push(o);
            }
            for &i in &its {
                needing[i].push(o);
            }
            needs[o] = its.len();
        }
        Self {
            needing,
            needs,
            always,
        }
    }

    /// The operands whose needed iterators are all active, ascending
    /// (`count` is scratch, all zeros on entry and on return).
    fn for_block(&self, active: &[usize], count: &mut [usize]) -> Vec<usize> {
        let mut out = self.always.clone();
        let mut touched = Vec::new();
        for &i in active {
            for &o in self.needing.get(i).map_or(&[][..], Vec::as_slice) {
                if count[o] == 0 {
                    touched.push(o);
                }
                count[o] += 1;
            }
        }
        for o in touched {
            if count[o] == self.needs[o] {
                out.push(o);
            }
            count[o] = 0;
        }
        out.sort_unstable();
        out
    }
}

impl Projections {
    /// The blocks of the loop nest (OCANNL's Block lowering): for every
    /// choice of one active iterator per component, the concatenated axes
    /// resolve to the active part's iterator plus the sizes of the parts
    /// before it. A block is dropped when the result reads an inactive
    /// iterator (no cell of the result belongs to it), when an active
    /// iterator has size 0, or when no operand takes part; an operand takes
    /// part when it reads only active iterators and, if the result has one
    /// concatenated axis with a part per operand, its part is active.
    /// Without concatenation there is one block with everything.
    ///
    /// # Errors
    ///
    /// [`ProjectionError::Mismatch`] when two operands take part in one
    /// block (both would write the same cells).
    pub fn blocks(&self) -> Result<Vec<Block>, ProjectionError> {
        let n = self.operands.len();
        // The result's single concatenated axis, when it has a part per
        // operand (concatenation, stacking): operand `i` writes part `i`.
        let mut concats = self.result.iter().filter_map(|a| match a {
            AxisIndex::Concat(parts) => Some(parts),
            _ => None,
        });
        let per_operand = match (concats.next(), concats.next()) {
            (Some(parts), None) if parts.len() == n => Some(parts),
            _ => None,
        };
        let mut r = Resolver::new(self);
        let candidates = Candidates::new(self, per_operand);
        let mut count = vec![0usize; n];
        let mut blocks = Vec::new();
        let mut choice = vec![0usize; self.components.len()];
        loop {
            r.choose(&choice);
            let empty = r
                .list
                .iter()
                .any(|&i| self.product_space.get(i) == Some(&0));
            if !empty && let Some(result) = r.resolve_all(&self.result)? {
                let mut taking: Option<(usize, Vec<AxisIndex>)> = None;
                for o in candidates.for_block(&r.list, &mut count) {
                    if per_operand.is_some_and(|parts| !r.is_active(parts[o])) {
                        continue;
                    }
                    let Some(indices) = r.resolve_all(&self.operands[o])? else {
                        continue;
                    };
                    if let Some((first, _)) = taking {
                        return Err(ProjectionError::Mismatch(format!(
                            "operands #{first} and #{o} would both write the same cells of the result (ambiguous concatenation)"
                        )));
                    }
                    taking = Some((o, indices));
                }
                if let Some((operand, indices)) = taking {
                    // `choose` lists each active iterator once.
                    let mut iterators: Vec<usize> =
                        r.list.iter().copied().filter(|&i| r.is_active(i)).collect();
                    iterators.sort_unstable();
                    blocks.push(Block {
                        iterators,
                        operand,
                        indices,
                        result,
                    });
                }
            }
            // The next choice, like an odometer.
            let mut c = 0;
            loop {
                if c == choice.len() {
                    return Ok(blocks);
                }
                choice[c] += 1;
                if choice[c] < self.components[c].len() {
                    break;
                }
                choice[c] = 0;
                c += 1;
            }
        }
    }
}

/// Whether two of `boxes` (per axis the inclusive range `(lo, hi)`, all of
/// one rank) share a cell. Sweeps along the axis where the boxes start at
/// the most distinct places, comparing a box only with those still open
/// there: for a concatenation that is each box with its neighbour.
pub fn any_overlap(boxes: &[Vec<(i64, i64)>]) -> bool {
    let Some(rank) = boxes.first().map(Vec::len) else {
        return false;
    };
    let meet =
        |x: &[(i64, i64)], y: &[(i64, i64)]| x.iter().zip(y).all(|(a, b)| a.0 <= b.1 && b.0 <= a.1);
    if rank == 0 {
        return boxes.len() > 1;
    }
    let axis = (0..rank)
        .max_by_key(|&j| {
            let mut starts: Vec<i64> = boxes.iter().map(|b| b[j].0).collect();
            starts.sort_unstable();
            starts.dedup();
            starts.len()
        })
        .unwrap_or(0);
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_unstable_by_key(|&b| boxes[b][axis].0);
    let mut open: Vec<usize> = Vec::new();
    for b in order {
        let start = boxes[b][axis].0;
        open.retain(|&o| boxes[o][axis].1 >= start);
        if open.iter().any(|&o| meet(&boxes[o], &boxes[b])) {
            return true;
        }
        open.push(b);
    }
    false
}
