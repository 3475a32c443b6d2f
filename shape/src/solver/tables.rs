//! The variable tables: one record per dim variable and per row variable,
//! their bindings, the marks closing reads (terminal, discardable, lower
//! bounds) and the interned labels.
//!
//! Dims form a union-find: a binding links a variable to another (union by
//! size) or to a size, and [`Solver::find_dim`] walks the links without
//! compressing them, so that every link keeps the origin error provenance
//! reports. A row variable is bound to a row (substitution: the row may
//! have axes around a further variable), and its component (`parent`,
//! `axes`) bounds how far rows may grow ([`super::rank`]). Reading rows
//! through these bindings is [`super::resolve`]. Why the union-find is not
//! a crate's: `docs/decisions/0045-hand-written-union-find.md`.
//!
//! Binding a variable wakes the stuck constraints that watch it
//! ([`Solver::wake`], which queues them in the store): the one call from the
//! tables into the store, made at the binding so that the queue's order,
//! and with it which error is reported first, is the order of bindings.

use super::provenance::push_unique;
use super::watch::NIL;
use super::{Dim, DimVar, Label, Origin, Row, RowVar, ShapeError, ShapeErrorKind, Solver};
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

impl Solver {
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
        let class = MovedClass {
            terminal,
            at_least,
            discardable,
            size,
            uniq_unless: if self.uniq_unless.is_empty() {
                None
            } else {
                self.uniq_unless.remove(&v.0)
            },
            lub: if self.lubs.is_empty() {
                None
            } else {
                self.lubs.remove(&v.0)
            },
        };
        self.wake(watchers);
        match resolved {
            Dim::Var(u) => self.merge_class(u, class),
            Dim::Size(d, label) => self.check_class_size(v, (d, label), class, origin),
        }
    }

    /// `v`'s class joins the class of free variable `u`.
    fn merge_class(&mut self, u: DimVar, class: MovedClass) -> Result<(), ShapeError> {
        let target = &mut self.dims[u.0 as usize];
        target.terminal |= class.terminal;
        target.size += class.size;
        if class.at_least > target.at_least {
            target.at_least = class.at_least;
        }
        if target.discardable && !class.discardable {
            target.discardable = false;
            target.at_least = target.at_least.max(1);
        }
        if let Some(unless) = class.uniq_unless {
            self.uniq_unless.entry(u.0).or_default().extend(unless);
        }
        if let Some((d, label, lub_origin)) = class.lub {
            self.add_lub(u, d, label, lub_origin)?;
        }
        Ok(())
    }

    /// `v`'s class is bound to size `d` (labelled `label`): the size must
    /// meet the class's minimum and broadcast to its upper bound.
    fn check_class_size(
        &mut self,
        v: DimVar,
        (d, label): (u64, Label),
        class: MovedClass,
        origin: Origin,
    ) -> Result<(), ShapeError> {
        let at_least = class.at_least;
        if d < at_least {
            return Err(self.dim_error(
                ShapeErrorKind::SizeMismatch,
                format!("size {d} is smaller than the required minimum {at_least}"),
                origin,
                &[Dim::Var(v)],
            ));
        }
        let Some((e, elabel, lub_origin)) = class.lub else {
            return Ok(());
        };
        // `e >= v` as `dim_ineq` decides it for two sizes: the same size with
        // agreeing labels, or an unlabelled 1 (reference, "Solving the
        // constraints": "axes of other mismatching dimensions or mismatching
        // labels are incomparable").
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
        // An unlabelled size broadcast to a labelled one takes its label, as
        // `dim_ineq` relabels it (reference, "Representing shapes and
        // constraints": it "is inferred to have the label from the other
        // axis"), and a label that reaches the class later must agree with
        // it; an unlabelled 1 broadcasts to anything and stays as it is.
        if d == e && d != 1 && label == Label::NONE && elabel != Label::NONE {
            self.relabel(Dim::Var(v), elabel);
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
    /// Gives the unlabelled size that `d` is bound to (through variables)
    /// the label `label`. A size written literally keeps its form.
    pub(super) fn relabel(&mut self, d: Dim, label: Label) {
        let mut cur = d;
        while let Dim::Var(v) = cur {
            match self.dims[v.0 as usize].binding {
                Some((Dim::Size(size, Label::NONE), origin)) => {
                    self.dims[v.0 as usize].binding = Some((Dim::Size(size, label), origin));
                    return;
                }
                Some((next, _)) => cur = next,
                None => return,
            }
        }
    }

    /// Whether `closing` left variables (for callers printing them).
    pub fn has_free_variables(&self) -> bool {
        self.free_dims().next().is_some() || self.free_rows().next().is_some()
    }
}

#[cfg(all(test, target_pointer_width = "64"))]
mod layout {
    use super::{DimInfo, RowInfo};
    use crate::solver::Tagged;
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

/// What a dim variable's class held when the variable was bound: moved to
/// the representative it joins, or checked against the size it takes.
struct MovedClass {
    terminal: bool,
    at_least: u64,
    discardable: bool,
    size: u32,
    uniq_unless: Option<thin_vec::ThinVec<DimVar>>,
    lub: Option<(u64, Label, Origin)>,
}
