//! The solver's environment: variable tables with union-find bindings and
//! provenance, the constraint store and the worklist.

use std::collections::{HashMap, VecDeque};

use super::provenance::push_unique;
use super::watch::{NIL, WatchPool};
use super::{
    Axes, Closing, Constraint, Dim, DimVar, Label, Origin, Row, RowVar, ShapeError, ShapeErrorKind,
    Tagged,
};
use crate::spec::RowKind;

/// One dim variable. Kept small (56 bytes): a million-op problem has
/// millions of them, and at that size the solver's time goes to reading and
/// first touching its tables. What few variables have (a least upper bound,
/// the "unless" list of a count's numerator) lives in side tables of
/// [`Solver`].
#[derive(Debug, Clone)]
pub(crate) struct DimInfo {
    /// `Some` once bound (to a size or another variable).
    pub binding: Option<(Dim, Origin)>,
    /// Where the bound value itself came from (`NIL`: nowhere else; see
    /// [`DimInfo::via`]).
    via: u32,
    /// From a terminal shape (closes to its LUB, then 1).
    pub terminal: bool,
    /// Lower bound on the size (`AtLeast`); 0 for a discardable variable.
    pub at_least: u64,
    /// A discardable part of a concatenation (reference, "Invalid variables
    /// in Block specs"): closing guesses it to 0, before other guesses. A
    /// class is discardable only if all its variables are.
    pub discardable: bool,
    /// Stuck constraints to re-examine when this variable is bound (the
    /// head of a list in [`Solver::watches`]).
    pub watchers: u32,
    /// Union-by-size weight.
    pub size: u32,
}

impl DimInfo {
    /// Where the bound value itself came from: the other side of the
    /// binding constraint, as written. Bindings go straight to
    /// representatives, so this keeps the story of how they got their size.
    /// Its chain was fully bound (to a size) when this binding was made, and
    /// bindings never change, so walking it when an error is reported gives
    /// the provenance as it was then ([`Solver::dim_provenance`]).
    pub fn via(&self) -> Option<DimVar> {
        (self.via != NIL).then_some(DimVar(self.via))
    }
}

#[derive(Debug, Clone)]
pub(crate) struct RowInfo {
    /// `Some` once bound. Path compression ([`Solver::compress_rows`])
    /// may later replace the row by its expansion (the same axes).
    pub binding: Option<(Row, Origin)>,
    /// The row variable the binding was written with (`NIL`: none; see
    /// [`RowInfo::via`]).
    via: u32,
    pub terminal: bool,
    pub kind: RowKind,
    /// As [`DimInfo::watchers`].
    pub watchers: u32,
    /// Known axes accumulated through template expansions (rank-cycle
    /// guard; saturating, and compared with a bound below `u32::MAX`).
    pub depth: u32,
    /// Union-find parent over row variables: variables related by a
    /// constraint (or a binding) are in one component.
    pub parent: u32,
    /// At a component's root: the axes the component's constraints write,
    /// plus one per element-count constraint (see [`Solver::rank_bound`]);
    /// saturating. 32 bits keep the row table small (millions of rows).
    pub axes: u32,
}

impl RowInfo {
    /// The row variable the binding was written with, before any
    /// compression: the chain that error provenance walks.
    pub fn via(&self) -> Option<RowVar> {
        (self.via != NIL).then_some(RowVar(self.via))
    }

    /// Sets [`RowInfo::via`].
    pub fn set_via(&mut self, via: Option<RowVar>) {
        self.via = via.map_or(NIL, |v| v.0);
    }
}

/// [`Solver::flags`]: the constraint is in the queue.
const QUEUED: u8 = 1;
/// [`Solver::flags`]: a constraint added from outside whose given sizes are
/// not yet checked ([`Solver::check_literals`]). Derived constraints only
/// carry sizes already checked (or computed and checked), and a constraint
/// re-examined after being stuck was checked the first time.
const UNCHECKED: u8 = 2;

/// The solver state. Build constraints with [`Solver::add`], run
/// [`Solver::propagate`], then [`Solver::close`].
#[derive(Debug, Default, Clone)]
pub struct Solver {
    pub(crate) dims: Vec<DimInfo>,
    /// The least upper bound of a free dim variable (a representative),
    /// from `d >= var` with `d > 1`.
    pub(crate) lubs: foldhash::HashMap<u32, (u64, Label, Origin)>,
    /// `has_uniq_constr_unless` (reference, "Preventing Premature Guessing
    /// with Total_elems Constraints"), per representative: the numerator
    /// variable of a pending `StridedElems` is not guessed unless one of
    /// these (the unknown dims of its rows) is also kept from guessing.
    pub(crate) uniq_unless: foldhash::HashMap<u32, thin_vec::ThinVec<DimVar>>,
    pub(crate) rows: Vec<RowInfo>,
    labels: Vec<String>,
    label_ids: HashMap<String, Label>,
    /// All constraints ever added; `None` once finished.
    pub(crate) store: Vec<Option<Tagged>>,
    /// Slots of finished constraints, reused by new ones. A stale watcher
    /// pointing at a reused slot only causes a harmless re-examination.
    pub(crate) free: Vec<u32>,
    /// Constraints stored but not yet queued ([`Solver::add_deferred`]).
    deferred: Vec<u32>,
    queue: VecDeque<u32>,
    /// Per slot of the store: [`QUEUED`] and [`UNCHECKED`]. One byte for
    /// both, so that taking a constraint off the queue reads one table
    /// besides the store (at a million ops, each is a cache miss).
    flags: Vec<u8>,
    /// Reused buffer for the ids of woken constraints.
    scratch_ids: Vec<u32>,
    /// Reused stack of [`Solver::propagate`]'s derived constraints (empty
    /// between calls). Online, propagation runs once per op: a fresh stack
    /// grew from nothing every time.
    stack: Vec<Tagged>,
    /// The watch lists of all variables.
    watches: WatchPool,
    /// While closing element counts: the constraints propagation left
    /// stuck again (`solver/close_counts.rs`); `None` otherwise.
    pub(crate) restuck: Option<Vec<u32>>,
    /// Row variables bound since the last [`Solver::compress_rows`].
    pub(crate) bound_since_compression: usize,
    /// `false`: only the general rules ([`Solver::set_shortcuts`]).
    pub(crate) no_shortcuts: bool,
    /// Whether a concatenation was ever added (only simplifying one derives
    /// another): closing looks for stuck ones only then.
    pub(crate) has_concat: bool,
    /// Whether an element count (`TotalElems`, `StridedElems`, `Exact`)
    /// was ever added (only simplifying one derives another).
    pub(crate) has_counts: bool,
}

impl Solver {
    /// An empty solver.
    pub fn new() -> Self {
        let mut s = Solver::default();
        s.labels.push(String::new());
        s
    }

    /// With `false`, the solver takes none of its shortcuts: every
    /// constraint is stored and goes through the worklist, every row is
    /// expanded by the general walk, and each rule concludes one step at a
    /// time. The shortcuts draw the same conclusions in fewer steps; this
    /// is for testing that (the property `shortcuts_agree` compares both).
    pub fn set_shortcuts(&mut self, enabled: bool) {
        self.no_shortcuts = !enabled;
    }

    /// Reserves room for this many more dim variables, row variables and
    /// constraints, so that a caller that knows the problem's size saves
    /// the tables' regrowth (copies into fresh memory).
    pub fn reserve(&mut self, dims: usize, rows: usize, constraints: usize) {
        self.dims.reserve(dims);
        self.rows.reserve(rows);
        self.store.reserve(constraints);
        self.flags.reserve(constraints);
        self.deferred.reserve(constraints);
    }

    /// A fresh dimension variable.
    pub fn fresh_dim(&mut self, terminal: bool) -> DimVar {
        self.dims.push(DimInfo {
            binding: None,
            via: NIL,
            terminal,
            at_least: 1,
            discardable: false,
            watchers: NIL,
            size: 1,
        });
        DimVar(u32::try_from(self.dims.len() - 1).expect("fewer than 2^32 dim variables"))
    }

    /// A fresh row variable of a row of `kind`.
    pub fn fresh_row(&mut self, kind: RowKind, terminal: bool) -> RowVar {
        let id = u32::try_from(self.rows.len()).expect("fewer than 2^32 row variables");
        self.rows.push(RowInfo {
            binding: None,
            via: NIL,
            terminal,
            kind,
            watchers: NIL,
            depth: 0,
            parent: id,
            axes: 0,
        });
        RowVar(id)
    }

    /// Marks a variable (its class) as belonging to a terminal shape.
    pub fn mark_dim_terminal(&mut self, v: DimVar) {
        if let Dim::Var(rep) = self.find_dim(Dim::Var(v)) {
            self.dims[rep.0 as usize].terminal = true;
        }
    }

    /// Marks a variable (its class) as a discardable part of a
    /// concatenation: it may be 0, and closing guesses it to 0.
    pub fn mark_dim_discardable(&mut self, v: DimVar) {
        if let Dim::Var(rep) = self.find_dim(Dim::Var(v)) {
            let info = &mut self.dims[rep.0 as usize];
            info.discardable = true;
            if info.at_least <= 1 {
                info.at_least = 0;
            }
        }
    }

    /// Marks a row variable as belonging to a terminal shape.
    pub fn mark_row_terminal(&mut self, v: RowVar) {
        self.rows[v.0 as usize].terminal = true;
    }

    /// The label id of `name` (interned).
    pub fn label(&mut self, name: &str) -> Label {
        if name.is_empty() {
            return Label::NONE;
        }
        if let Some(&l) = self.label_ids.get(name) {
            return l;
        }
        let l = Label(u32::try_from(self.labels.len()).expect("fewer than 2^32 labels"));
        self.labels.push(name.to_owned());
        self.label_ids.insert(name.to_owned(), l);
        l
    }

    /// The name of a label (`""` for none).
    pub fn label_name(&self, l: Label) -> &str {
        self.labels.get(l.0 as usize).map_or("", String::as_str)
    }

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
    fn wake(&mut self, mut head: u32) {
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

    /// Runs the online stage to a fixpoint.
    ///
    /// # Errors
    ///
    /// The first constraint found unsatisfiable.
    pub fn propagate(&mut self) -> Result<(), ShapeError> {
        // A safety net, far above what propagation needs (each constraint is
        // simplified a bounded number of times per binding of its variables).
        let budget =
            1_000_000 + 256 * (self.store.len() + self.dims.len() + self.rows.len()) as u64;
        let mut steps = 0u64;
        // Derived constraints go first (depth-first, "simplify early"): an
        // op's consequences are settled before the next op's constraints are
        // looked at. They are processed from this stack, before the next
        // queued constraint, and take a slot in the store only if they get
        // stuck; waking pushes to the back of the queue, so this is the
        // order of queueing them at its front.
        // Empty: an error returns without putting it back.
        let mut stack = std::mem::take(&mut self.stack);
        while let Some(id) = self.queue.pop_front() {
            let flags = std::mem::take(&mut self.flags[id as usize]);
            let Some(tagged) = self.store[id as usize].take() else {
                continue;
            };
            if flags & UNCHECKED != 0 {
                self.check_literals(&tagged)?;
            }
            self.settle(tagged, id, &mut stack, &mut steps, budget)?;
            while let Some(tagged) = stack.pop() {
                self.settle(tagged, NIL, &mut stack, &mut steps, budget)?;
            }
        }
        self.stack = stack;
        // Readers after propagation (closing, reading back every shape)
        // expand rows many times: short chains keep that linear. A
        // compression pass looks at every row, so it runs once enough rows
        // were bound since the last (closing propagates once per round, and
        // a round may bind only a few).
        if self.bound_since_compression.saturating_mul(8) >= self.rows.len() {
            self.compress_rows();
        }
        Ok(())
    }

    /// One step of [`Solver::propagate`] on a constraint (in slot `id` of
    /// the store, or `NIL` for a derived one): done, replaced by constraints
    /// pushed on `stack` (first on top), or stored and watched if stuck.
    fn settle(
        &mut self,
        mut tagged: Tagged,
        id: u32,
        stack: &mut Vec<Tagged>,
        steps: &mut u64,
        budget: u64,
    ) -> Result<(), ShapeError> {
        *steps += 1;
        if *steps > budget {
            return Err(no_convergence(*steps, tagged.origin));
        }
        let mark = stack.len();
        let step = self.step(&tagged, stack)?;
        debug_assert!(
            matches!(step, super::simplify::Step::Replace) || stack.len() == mark,
            "only a replacing step pushes constraints"
        );
        match step {
            super::simplify::Step::Done => {
                if id != NIL {
                    self.free.push(id);
                }
            }
            super::simplify::Step::Replace => {
                if id != NIL {
                    self.free.push(id);
                }
                // Pushed first to last; the first is looked at first.
                stack[mark..].reverse();
            }
            super::simplify::Step::Stuck { dims, rows } => {
                let id = if id == NIL {
                    // Derived, stored for the first time (a constraint taken
                    // from the store comes back as it was stored).
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
        }
        Ok(())
    }

    /// Runs the online stage, then the closing stages (`Closing::Full`).
    ///
    /// # Errors
    ///
    /// The first constraint found unsatisfiable.
    pub fn solve(&mut self, closing: Closing) -> Result<(), ShapeError> {
        self.enqueue_deferred();
        self.propagate()?;
        if closing == Closing::Full {
            self.close()?;
        }
        if self.bound_since_compression > 0 {
            self.compress_rows();
        }
        Ok(())
    }

    /// The representative of a dim: a size or an unbound variable.
    pub fn find_dim(&self, mut d: Dim) -> Dim {
        while let Dim::Var(v) = d {
            match &self.dims[v.0 as usize].binding {
                Some((next, _)) => d = *next,
                None => break,
            }
        }
        d
    }

    /// A row with every bound variable substituted (dims to representatives).
    pub fn resolve_row(&self, row: &Row) -> Row {
        let mut r = self.expand_row(row);
        for d in r.beg.iter_mut().chain(r.end.iter_mut()) {
            *d = self.find_dim(*d);
        }
        r
    }

    /// Appends the axes of `row` to `out` (each as its size and its label)
    /// when the row resolves to a closed row of sizes, without building
    /// the row; `false` when a variable is left (`out` is then partly
    /// written). The key of a concrete row for callers that meet the same
    /// solved rows many times (`resolve_row` allocates each time).
    pub(crate) fn concrete_axes(&self, row: &Row, out: &mut Vec<u64>) -> bool {
        // The rows of the binding chain whose `end` axes are still to come
        // (chains are short: solving ends with them compressed).
        let mut chain: [&Row; 8] = [row; 8];
        let mut n = 0;
        let mut cur = row;
        let start = out.len();
        let dim = |s: &Self, d: Dim, out: &mut Vec<u64>| match s.find_dim(d) {
            Dim::Size(size, label) => {
                out.extend([size, u64::from(label.0)]);
                true
            }
            Dim::Var(_) => false,
        };
        loop {
            if !cur.beg.iter().all(|&d| dim(self, d, out)) {
                return false;
            }
            let Some(v) = cur.var else { break };
            let Some((inner, _)) = &self.rows[v.0 as usize].binding else {
                return false;
            };
            if n == chain.len() {
                // A long chain: the general walk, from the start.
                out.truncate(start);
                let r = self.resolve_row(row);
                return r.var.is_none() && r.end.iter().all(|&d| dim(self, d, out));
            }
            chain[n] = cur;
            n += 1;
            cur = inner;
        }
        cur.end.iter().all(|&d| dim(self, d, out))
            && chain[..n]
                .iter()
                .rev()
                .all(|r| r.end.iter().all(|&d| dim(self, d, out)))
    }

    /// The row's variable if the row is a bare, unbound row variable.
    pub(crate) fn free_bare_var(&self, row: &Row) -> Option<RowVar> {
        let v = row.bare_var()?;
        self.rows[v.0 as usize].binding.is_none().then_some(v)
    }

    /// `self.resolve_row(row).bare_var()`, without building the row.
    pub(crate) fn resolved_bare_var(&self, row: &Row) -> Option<RowVar> {
        self.axis_free_end(row).flatten()
    }

    /// Whether `row` resolves to the closed row without axes, without
    /// building it (what closing leaves most rows as).
    pub(crate) fn resolves_empty(&self, row: &Row) -> bool {
        self.axis_free_end(row) == Some(None)
    }

    /// Where `row` ends when neither it nor any row its variable is bound
    /// through has axes: the free variable it resolves to, or `Some(None)`
    /// for the closed row without axes; `None` when there are axes.
    fn axis_free_end(&self, row: &Row) -> Option<Option<RowVar>> {
        if !row.beg.is_empty() || !row.end.is_empty() {
            return None;
        }
        let mut var = row.var;
        while let Some(v) = var {
            match &self.rows[v.0 as usize].binding {
                None => break,
                Some((inner, _)) if inner.beg.is_empty() && inner.end.is_empty() => {
                    var = inner.var;
                }
                Some(_) => return None,
            }
        }
        Some(var)
    }

    /// `self.resolve_row(row).var`, without building the row.
    pub(crate) fn resolved_var(&self, row: &Row) -> Option<RowVar> {
        let mut v = row.var?;
        while let Some((inner, _)) = &self.rows[v.0 as usize].binding {
            v = inner.var?;
        }
        Some(v)
    }

    /// A row with bound row variables substituted; dims are kept as written,
    /// so that their binding chains (provenance) stay reachable.
    pub(crate) fn expand_row(&self, row: &Row) -> Row {
        match self.link(row) {
            // (A marked row, leading axes without a variable, normalises.)
            Link::Unbound => row.clone().normalize(),
            Link::One(inner) if inner.var.is_some() => Row {
                beg: concat(&row.beg, &inner.beg),
                var: inner.var,
                end: concat(&inner.end, &row.end),
            },
            Link::One(inner) if inner.beg.is_empty() => Row {
                beg: Axes::new(),
                var: None,
                end: concat3(&row.beg, &inner.end, &row.end),
            },
            _ => self.expand_row_marked(row).normalize(),
        }
    }

    /// How far `row`'s variable is bound. Chains are short (compression), so
    /// [`Link::Unbound`] and [`Link::One`] are the usual cases, which the
    /// expansions build directly, each vector allocated once at its size.
    fn link<'s>(&'s self, row: &Row) -> Link<'s> {
        let Some(v) = row.var else {
            return Link::Unbound;
        };
        match &self.rows[v.0 as usize].binding {
            None => Link::Unbound,
            Some((inner, _))
                if !self.no_shortcuts
                    && inner
                        .var
                        .is_none_or(|u| self.rows[u.0 as usize].binding.is_none()) =>
            {
                Link::One(inner)
            }
            Some(_) => Link::Chain,
        }
    }

    /// [`Solver::expand_row`], keeping the marker: the leading axes of each
    /// row reached stay in `beg` even when the row ends closed (the result
    /// may then have `beg` without a variable; see `solver/marked.rs`).
    pub(crate) fn expand_row_marked(&self, row: &Row) -> Row {
        match self.link(row) {
            Link::Unbound => return row.clone(),
            Link::One(inner) => {
                return Row {
                    beg: concat(&row.beg, &inner.beg),
                    var: inner.var,
                    end: concat(&inner.end, &row.end),
                };
            }
            Link::Chain => {}
        }
        let mut beg: Axes = row.beg.clone();
        let mut end_rev: Axes = row.end.iter().rev().copied().collect();
        let mut var = row.var;
        while let Some(v) = var {
            match &self.rows[v.0 as usize].binding {
                Some((inner, _)) => {
                    beg.extend(inner.beg.iter().copied());
                    end_rev.extend(inner.end.iter().rev().copied());
                    var = inner.var;
                }
                None => break,
            }
        }
        end_rev.reverse();
        Row {
            beg,
            var,
            end: end_rev,
        }
    }

    /// Binds dim variable `v` (unbound) to `value` (a representative).
    pub(crate) fn bind_dim(
        &mut self,
        v: DimVar,
        value: Dim,
        origin: Origin,
    ) -> Result<(), ShapeError> {
        if value == Dim::Var(v) {
            return Ok(());
        }
        // `value` may be a variable bound to a size (a link that keeps the
        // classes joined for labels); checks and merges use what it resolves to.
        let resolved = self.find_dim(value);
        // The class's data moves to the representative; `v` keeps only its
        // binding (and its terminal flag). Field by field, not by moving
        // the whole record out and a fresh one in.
        let info = &mut self.dims[v.0 as usize];
        let terminal = info.terminal;
        let at_least = std::mem::replace(&mut info.at_least, 1);
        let discardable = std::mem::take(&mut info.discardable);
        let watchers = std::mem::replace(&mut info.watchers, NIL);
        let size = std::mem::take(&mut info.size);
        info.via = NIL;
        info.binding = Some((value, origin));
        // The side tables are empty in most problems: no hashing then.
        let uniq_unless = if self.uniq_unless.is_empty() {
            None
        } else {
            self.uniq_unless.remove(&v.0)
        };
        let lub = if self.lubs.is_empty() {
            None
        } else {
            self.lubs.remove(&v.0)
        };
        self.wake(watchers);
        match resolved {
            Dim::Var(u) => {
                let target = &mut self.dims[u.0 as usize];
                target.terminal |= terminal;
                target.size += size;
                if at_least > target.at_least {
                    target.at_least = at_least;
                }
                if target.discardable && !discardable {
                    target.discardable = false;
                    target.at_least = target.at_least.max(1);
                }
                if let Some(unless) = uniq_unless {
                    self.uniq_unless.entry(u.0).or_default().extend(unless);
                }
                if let Some((d, label, lub_origin)) = lub {
                    self.add_lub(u, d, label, lub_origin)?;
                }
            }
            Dim::Size(d, label) => {
                if d < at_least {
                    return Err(self.dim_error(
                        ShapeErrorKind::SizeMismatch,
                        format!("size {d} is smaller than the required minimum {at_least}"),
                        origin,
                        &[Dim::Var(v)],
                    ));
                }
                if let Some((e, elabel, lub_origin)) = lub {
                    // `e >= v` as `dim_ineq` decides it for two sizes: the
                    // same size with agreeing labels, or an unlabelled 1
                    // (reference, "Solving the constraints": "axes of other
                    // mismatching dimensions or mismatching labels are
                    // incomparable").
                    let clash = label != elabel && label != Label::NONE && elabel != Label::NONE;
                    if !(d == e && !clash || d == 1 && label == Label::NONE) {
                        let (kind, message) = if d == e {
                            let (l, el) = (self.label_name(label), self.label_name(elabel));
                            (
                                ShapeErrorKind::LabelMismatch,
                                format!("size {d} labelled {l} does not broadcast to {el}={e}"),
                            )
                        } else {
                            (
                                ShapeErrorKind::SizeMismatch,
                                format!("size {d} does not broadcast to size {e}"),
                            )
                        };
                        let mut err = self.dim_error(kind, message, origin, &[Dim::Var(v)]);
                        push_unique(&mut err.related, lub_origin);
                        err.related.retain(|o| *o != err.origin);
                        return Err(err);
                    }
                    // An unlabelled size broadcast to a labelled one takes its
                    // label, as `dim_ineq` relabels it (reference,
                    // "Representing shapes and constraints": it "is inferred
                    // to have the label from the other axis"), and a label
                    // that reaches the class later must agree with it; an
                    // unlabelled 1 broadcasts to anything and stays as it is.
                    if d == e && d != 1 && label == Label::NONE && elabel != Label::NONE {
                        self.relabel(Dim::Var(v), elabel);
                    }
                }
            }
        }
        Ok(())
    }

    /// The variable a dim's chain ends at (bound to a size, or free).
    pub(crate) fn last_var(&self, mut d: Dim) -> Option<DimVar> {
        let mut last = None;
        while let Dim::Var(v) = d {
            last = Some(v);
            match &self.dims[v.0 as usize].binding {
                Some((next, _)) => d = *next,
                None => break,
            }
        }
        last
    }

    /// Binds `v` to `value`, remembering the provenance of `source` (the
    /// dim, as written, that `value` was read from).
    pub(crate) fn bind_dim_from(
        &mut self,
        v: DimVar,
        value: Dim,
        origin: Origin,
        source: Dim,
    ) -> Result<(), ShapeError> {
        self.bind_dim(v, value, origin)?;
        if let Dim::Var(source) = source {
            self.dims[v.0 as usize].via = source.0;
        }
        Ok(())
    }

    /// Records `d >= v` with `d > 1` (a least upper bound of `v`).
    pub(crate) fn add_lub(
        &mut self,
        v: DimVar,
        d: u64,
        label: Label,
        origin: Origin,
    ) -> Result<(), ShapeError> {
        match self.lubs.get(&v.0) {
            None => {
                self.lubs.insert(v.0, (d, label, origin));
                Ok(())
            }
            Some(&(e, elabel, _)) if e == d && (elabel == label || label == Label::NONE) => Ok(()),
            Some(&(e, Label::NONE, _)) if e == d => {
                self.lubs.insert(v.0, (d, label, origin));
                Ok(())
            }
            // Two different upper bounds > 1, or one size with two labels
            // (OCANNL's `join_dim`: conflicting bases generalise to the
            // broadcast axis): only 1 broadcasts to both.
            Some(_) => self.bind_dim(v, Dim::size(1), origin),
        }
    }

    /// Binds row variable `v` (unbound) to `value` (resolved).
    pub(crate) fn bind_row(
        &mut self,
        v: RowVar,
        mut value: Row,
        origin: Origin,
    ) -> Result<(), ShapeError> {
        if value.bare_var() == Some(v) {
            return Ok(());
        }
        if value.var == Some(v) {
            let message = format!(
                "a row would have to equal itself plus {} more axes",
                value.known_len()
            );
            return Err(self.rank_cycle(v, message, origin));
        }
        let known = u32::try_from(value.known_len()).unwrap_or(u32::MAX);
        let depth = self.rows[v.0 as usize].depth.saturating_add(known);
        // A row's depth never exceeds its component's bound (the bound only
        // grows as components join), so a binding that adds no axes (closing
        // binds millions of rows to `[]`) needs no walk to the component's
        // root: at a million ops that walk was 15% of closing stage 4.
        if known > 0 {
            let bound = self.rank_bound(v);
            if depth as usize > bound {
                let message = format!(
                    "rows grow without bound (more than {bound} axes): the inequalities form a cycle"
                );
                return Err(self.rank_cycle(v, message, origin));
            }
        } else if cfg!(debug_assertions) {
            let bound = self.rank_bound(v);
            debug_assert!(depth as usize <= bound, "a row deeper than its bound");
        }
        let terminal = self.rows[v.0 as usize].terminal;
        if let Some(inner) = value.var {
            self.join_rows(v, inner);
            let info = &mut self.rows[inner.0 as usize];
            info.terminal |= terminal;
            info.depth = info.depth.max(depth);
        }
        if terminal {
            for d in value.beg.iter().chain(&value.end) {
                // The representative carries the class's status.
                if let Dim::Var(dv) = self.find_dim(*d) {
                    self.dims[dv.0 as usize].terminal = true;
                }
            }
        }
        let watchers = std::mem::replace(&mut self.rows[v.0 as usize].watchers, NIL);
        self.rows[v.0 as usize].set_via(value.var);
        // A binding to a closed row ends every chain through `v` for good
        // (one more link at most, never extended): only bindings to open
        // rows can make chains grow, so only they call for compression.
        if value.var.is_some() {
            self.bound_since_compression += 1;
        }
        value.release_empty();
        self.rows[v.0 as usize].binding = Some((value, origin));
        self.wake(watchers);
        Ok(())
    }

    /// Every unbound dim variable.
    pub(crate) fn free_dims(&self) -> impl Iterator<Item = DimVar> + '_ {
        self.dims
            .iter()
            .enumerate()
            .filter(|(_, i)| i.binding.is_none())
            .map(|(i, _)| DimVar(i as u32))
    }

    /// Every unbound row variable.
    pub(crate) fn free_rows(&self) -> impl Iterator<Item = RowVar> + '_ {
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, i)| i.binding.is_none())
            .map(|(i, _)| RowVar(i as u32))
    }

    /// The constraints still stuck (not finished).
    pub(crate) fn stuck(&self) -> impl Iterator<Item = &Tagged> {
        self.store.iter().flatten()
    }

    /// Whether `closing` left variables (for callers printing them).
    pub fn has_free_variables(&self) -> bool {
        self.free_dims().next().is_some() || self.free_rows().next().is_some()
    }
}

/// How far a row's variable is bound ([`Solver::link`]).
enum Link<'s> {
    /// No variable, or a free one: nothing to substitute.
    Unbound,
    /// Bound to this row, whose variable is free or absent.
    One(&'s Row),
    /// Bound through more than one link.
    Chain,
}

/// `a ++ b`, allocated once.
pub(super) fn concat(a: &[Dim], b: &[Dim]) -> Axes {
    let mut out = Axes::with_capacity(a.len() + b.len());
    out.extend_from_slice(a);
    out.extend_from_slice(b);
    out
}

/// `a ++ b ++ c`, allocated once.
fn concat3(a: &[Dim], b: &[Dim], c: &[Dim]) -> Axes {
    let mut out = Axes::with_capacity(a.len() + b.len() + c.len());
    out.extend_from_slice(a);
    out.extend_from_slice(b);
    out.extend_from_slice(c);
    out
}

/// The error of a propagation that exceeded its step budget.
fn no_convergence(steps: u64, origin: Origin) -> ShapeError {
    ShapeError {
        kind: ShapeErrorKind::NoConvergence,
        message: format!("no progress after {steps} steps ({})", origin.describe()),
        origin,
        related: vec![],
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

#[cfg(all(test, target_pointer_width = "64"))]
mod layout {
    use super::{DimInfo, RowInfo, Tagged};
    use std::mem::size_of;

    /// The records of the solver's three big tables stay small: at a
    /// million ops these tables are most of the solver's memory (about 1.2
    /// KB per op), and first touching and reading them most of its time.
    /// Rare data goes to side tables or behind a thin pointer instead.
    #[test]
    fn table_records_stay_small() {
        assert!(size_of::<DimInfo>() <= 56, "{}", size_of::<DimInfo>());
        assert!(size_of::<RowInfo>() <= 64, "{}", size_of::<RowInfo>());
        assert!(
            size_of::<Option<Tagged>>() <= 72,
            "{}",
            size_of::<Option<Tagged>>()
        );
    }
}
