//! The constraint store and its worklist: every constraint added is stored
//! in a slot (reused once the constraint is finished), queued, and taken
//! off the queue by propagation ([`super::propagate`]); a stuck one goes
//! back to its slot, watched by the variables whose binding would let it
//! progress ([`super::watch`]), and is queued again when one of them is
//! bound ([`Solver::wake`]). Constraints added as a set are queued in an
//! order derived from their content, never from the order they came in.

use super::watch::NIL;
use super::{Constraint, Dim, DimVar, Label, Origin, RowVar, Solver, Tagged};

/// A flag of a slot (`Solver::flags`): the constraint is in the queue.
const QUEUED: u8 = 1;
/// A flag of a slot: a constraint added from outside whose given sizes are
/// not yet checked ([`Solver::check_literals`]). Derived constraints only
/// carry sizes already checked (or computed and checked), and a constraint
/// re-examined after being stuck was checked the first time.
const UNCHECKED: u8 = 2;

impl Solver {
    /// Adds a constraint; it is processed by the next [`Solver::propagate`].
    pub fn add(&mut self, constraint: Constraint, origin: Origin) {
        if let Some(id) = self.admit(constraint, origin) {
            self.enqueue(id);
        }
    }

    /// Stores a constraint without queueing it: [`Solver::enqueue_deferred`]
    /// queues all of them at once, in an order derived from their content.
    pub fn add_deferred(&mut self, constraint: Constraint, origin: Origin) {
        if let Some(id) = self.admit(constraint, origin) {
            self.deferred.push(id);
        }
    }

    /// Stores a constraint from outside (its sizes to be checked when it
    /// is first processed), or `None` when it holds trivially.
    fn admit(&mut self, constraint: Constraint, origin: Origin) -> Option<u32> {
        if !self.no_shortcuts && holds_trivially(&constraint) {
            return None;
        }
        self.note_rows(&constraint);
        self.has_concat |= matches!(constraint, Constraint::Concat { .. });
        self.has_counts |= matches!(
            constraint,
            Constraint::TotalElems(..) | Constraint::StridedElems { .. } | Constraint::Exact(..)
        );
        let id = self.alloc(Tagged { constraint, origin });
        self.flags[id as usize] |= UNCHECKED;
        Some(id)
    }

    /// Permutes the stored deferred constraints (a deterministic shuffle by
    /// `seed`), as adding them in another order would.
    pub fn shuffle_deferred(&mut self, seed: u64) {
        let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
        let ids = &self.deferred;
        for i in (1..ids.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let j = (state % (i as u64 + 1)) as usize;
            self.store.swap(ids[i] as usize, ids[j] as usize);
        }
    }

    /// Queues the deferred constraints ordered by content (origin, then the
    /// constraint), never by the order they were added in: the constraints
    /// form a set, and the solution and the error reported are functions of
    /// the set.
    pub fn enqueue_deferred(&mut self) {
        let mut deferred = std::mem::take(&mut self.deferred);
        self.sort_in_content_order(&mut deferred);
        for id in deferred {
            self.enqueue(id);
        }
    }

    /// Sorts stored constraints `ids` by content (origin, then the
    /// constraint), whatever order they were stored in: how constraints
    /// are queued wherever that order could decide which of two conflicts
    /// is reported ([`Solver::enqueue_deferred`], closing stage 6).
    pub(crate) fn sort_in_content_order(&self, ids: &mut [u32]) {
        // Sorted by origin (small, copied next to the ids), then each run of
        // equal keys by origin and constraint: the order of sorting by the
        // pair, without chasing every comparison into the store. One number
        // per constraint: the origin's key (89 bits; equal for equal
        // origins, and only rarely for others) above the id (32 bits).
        let key = |id: u32| (self.tagged(id).origin.sort_key() << 32) | u128::from(id);
        // The op id is the key's top bits. Constraints mostly come in op
        // order, and then sorting each op's few constraints is the whole
        // sort: one pass, with keys for one op at a time. At a million ops
        // a key per constraint would be tens of megabytes of fresh memory
        // per call, which costs more to fault in than to sort.
        let op = |k: u128| k >> (Origin::OP_SHIFT + 32);
        let mut run: Vec<u128> = vec![];
        let mut next = ids.first().map(|&id| key(id));
        let (mut i, mut last_op) = (0, 0);
        while let Some(first) = next {
            let o = op(first);
            if o < last_op {
                // Out of op order: one sort of all keys.
                let mut keyed: Vec<u128> = ids.iter().map(|&id| key(id)).collect();
                self.sort_keys(&mut keyed);
                for (id, k) in ids.iter_mut().zip(&keyed) {
                    *id = *k as u32;
                }
                return;
            }
            last_op = o;
            let start = i;
            run.clear();
            run.push(first);
            i += 1;
            next = None;
            while let Some(&id) = ids.get(i) {
                let k = key(id);
                if op(k) != o {
                    next = Some(k);
                    break;
                }
                run.push(k);
                i += 1;
            }
            if run.len() > 1 {
                self.sort_keys(&mut run);
                for (id, k) in ids[start..i].iter_mut().zip(&run) {
                    *id = *k as u32;
                }
            }
        }
    }

    /// Sorts keys of [`Solver::sort_in_content_order`]: by origin key,
    /// then each run of equal keys by origin and constraint.
    fn sort_keys(&self, keyed: &mut [u128]) {
        let origin = |k: u128| k >> 32;
        keyed.sort_unstable();
        for run in keyed.chunk_by_mut(|&a, &b| origin(a) == origin(b)) {
            if run.len() > 1 {
                run.sort_unstable_by(|&a, &b| {
                    let (a, b) = (self.tagged(a as u32), self.tagged(b as u32));
                    a.origin
                        .cmp(&b.origin)
                        .then_with(|| a.constraint.cmp(&b.constraint))
                });
            }
        }
    }

    /// A stored constraint.
    fn tagged(&self, id: u32) -> &Tagged {
        self.store[id as usize]
            .as_ref()
            .expect("the constraints ordered are stored")
    }

    /// Stores a constraint in a free slot (not queued yet).
    fn alloc(&mut self, t: Tagged) -> u32 {
        let id = self.alloc_slot();
        self.store[id as usize] = Some(t);
        id
    }

    /// An empty slot of the store (from the free list, or a new one), to be
    /// filled by the caller.
    fn alloc_slot(&mut self) -> u32 {
        if let Some(id) = self.free.pop() {
            self.flags[id as usize] &= !UNCHECKED;
            return id;
        }
        let id = u32::try_from(self.store.len()).expect("fewer than 2^32 live constraints");
        self.store.push(None);
        self.flags.push(0);
        id
    }

    /// Queues the constraints of the watch list starting at `head`.
    pub(super) fn wake(&mut self, mut head: u32) {
        if head == NIL {
            return;
        }
        let mut ids = std::mem::take(&mut self.scratch_ids);
        ids.clear();
        self.watches.take(&mut head, &mut ids);
        for &id in &ids {
            self.enqueue(id);
        }
        self.scratch_ids = ids;
    }

    pub(crate) fn enqueue(&mut self, id: u32) {
        let i = id as usize;
        if self.flags[i] & QUEUED == 0 && self.store[i].is_some() {
            self.flags[i] |= QUEUED;
            self.queue.push_back(id);
        }
    }

    /// Takes the next queued constraint out of the store: its slot, the
    /// constraint, and whether its given sizes are still to be checked
    /// ([`Solver::check_literals`]).
    pub(super) fn dequeue(&mut self) -> Option<(u32, Tagged, bool)> {
        while let Some(id) = self.queue.pop_front() {
            let flags = std::mem::take(&mut self.flags[id as usize]);
            if let Some(tagged) = self.store[id as usize].take() {
                return Some((id, tagged, flags & UNCHECKED != 0));
            }
        }
        None
    }

    /// A constraint taken from slot `id` is finished: the slot is reused
    /// by the next one stored (`NIL`: a derived constraint, never stored).
    pub(super) fn finish(&mut self, id: u32) {
        if id != NIL {
            self.free.push(id);
        }
    }

    /// Stores a stuck constraint, taken from slot `id` (or `NIL` for a
    /// derived one, stored for the first time), watched by the variables
    /// `dims` and `rows`.
    pub(super) fn store_stuck(
        &mut self,
        mut tagged: Tagged,
        id: u32,
        dims: impl IntoIterator<Item = DimVar>,
        rows: impl IntoIterator<Item = RowVar>,
    ) {
        let id = if id == NIL {
            // Derived, stored for the first time (a constraint taken from
            // the store comes back as it was stored).
            tagged.constraint.release_empty();
            self.alloc_slot()
        } else {
            id
        };
        for v in dims {
            self.watches.push(&mut self.dims[v.0 as usize].watchers, id);
        }
        for v in rows {
            self.watches.push(&mut self.rows[v.0 as usize].watchers, id);
        }
        self.store[id as usize] = Some(tagged);
        if let Some(restuck) = &mut self.restuck {
            restuck.push(id);
        }
    }

    /// The constraints still stuck (not finished).
    pub(crate) fn stuck(&self) -> impl Iterator<Item = &Tagged> {
        self.store.iter().flatten()
    }
}

/// Whether a constraint holds whatever its variables are, with its given
/// sizes in range: `cur >= []` (an empty row broadcasts to every row)
/// and `cur >= 1` (unlabelled). Its first step would finish it without
/// binding anything, and it writes no axis a row could be forced to
/// grow by ([`Solver::rank_bound`]), so it is not stored. Scalars make
/// these common: every pointwise op with a scalar operand gives three.
fn holds_trivially(c: &Constraint) -> bool {
    let trivial = match c {
        Constraint::RowIneq {
            subr,
            marked: false,
            ..
        } => subr.var.is_none() && subr.end.is_empty() && subr.beg.is_empty(),
        Constraint::DimIneq {
            subr: Dim::Size(1, Label::NONE),
            ..
        } => true,
        _ => false,
    };
    // A size out of range is reported when the constraint is processed.
    trivial && super::arith::out_of_range(c).is_none()
}

#[cfg(test)]
mod content_order {
    use super::Solver;
    use crate::solver::{Constraint, Dim, OpId, Origin, Role};
    use crate::spec::RowKind;

    /// `sort_in_content_order` gives the order of sorting by (origin,
    /// constraint), whether the ops come in order (sorted op by op) or not
    /// (one sort of all): ops ascending, descending, interleaved, repeated.
    #[test]
    fn sorts_by_origin_then_constraint() {
        let sides = [
            (Role::Result, RowKind::Output),
            (Role::Operand(1), RowKind::Batch),
        ];
        // (`[7, 7, 7]`: one op of 18 constraints.)
        let orders: [&[u32]; 6] = [
            &[0, 0, 1, 2, 2, 3],
            &[3, 2, 2, 1, 0],
            &[1, 0, 1, 2, 0],
            &[0, 1, 2, 1],
            &[5],
            &[7, 7, 7],
        ];
        for ops in orders {
            let mut s = Solver::new();
            let vars: Vec<Dim> = (0..4).map(|_| Dim::Var(s.fresh_dim(false))).collect();
            let mut n = 0usize;
            for &op in ops {
                // Per op: constraints of two origins, in an order that is
                // not theirs (the later origin and the bigger constraint first).
                for side in sides.iter().rev() {
                    for j in (1..4).rev() {
                        let origin = Origin::new(OpId(op), *side, *side);
                        let c = Constraint::DimEq(vars[(n + j) % 4], vars[(n + j + 1) % 4]);
                        s.add_deferred(c, origin);
                    }
                    n += 1;
                }
            }
            let mut ids = s.deferred.clone();
            s.sort_in_content_order(&mut ids);
            let content = |ids: &[u32]| -> Vec<(Origin, Constraint)> {
                ids.iter()
                    .map(|&id| {
                        let t = s.tagged(id);
                        (t.origin, t.constraint.clone())
                    })
                    .collect()
            };
            let mut want = content(&s.deferred);
            want.sort();
            assert_eq!(content(&ids), want, "ops {ops:?}");
        }
    }
}
