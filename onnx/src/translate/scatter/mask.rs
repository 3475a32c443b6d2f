//! The mask of which update targets which data cell, and the reductions
//! over it (see the parent module).

use super::{Part, Reduction};
use crate::tensor::Elem;
use crate::translate::shape_values::sym::Sym;
use crate::translate::{R, Translator, Val};

/// Labels in the order of `a`, then those of `b` not in `a`.
fn union(a: &[String], b: &[String]) -> Vec<String> {
    let mut out = a.to_vec();
    out.extend(b.iter().filter(|l| !a.contains(l)).cloned());
    out
}

impl Translator {
    /// The i64 0/1 mask over the parts' labels and axes: 1 where every
    /// part's target equals its axis position. Returns it with its labels.
    fn scatter_mask(&mut self, parts: Vec<Part>) -> R<(Val, Vec<String>)> {
        let zero = self.scalar(Elem::I64, 0.0);
        let mut acc: Option<(Val, Vec<String>)> = None;
        for p in parts {
            let mut l = p.labels.clone();
            l.push(p.axis.clone());
            let spec = format!("{}; {} => {}", p.labels.join(","), p.axis, l.join(","));
            let diff = self.einsum(
                &spec,
                &[&p.target, &p.range],
                None,
                Some("sub"),
                "...".into(),
            );
            let hit = self.binary_to("eq", &diff, &zero, "...".into(), Elem::Bool)?;
            let hit = self.unary_to("cast", &hit, "...".into(), Elem::I64);
            acc = Some(match acc {
                None => (hit, l),
                Some((m, ml)) => {
                    let u = union(&ml, &l);
                    let spec = format!("{}; {} => {}", ml.join(","), l.join(","), u.join(","));
                    let v = self.einsum(&spec, &[&m, &hit], None, Some("mul"), "...".into());
                    (v, u)
                }
            });
        }
        acc.ok_or_else(|| self.error("a scatter that addresses no axis"))
    }

    /// The scatter of `upd` (labels `ul`) into `data` (labels `dl`) by
    /// the mask of `parts`; `s`: the update labels reduced away, with
    /// their dims.
    pub(super) fn scatter_core(
        &mut self,
        data: &Val,
        upd: &Val,
        parts: Vec<Part>,
        (ul, dl, s): (&[String], &[String], &[(String, Sym)]),
        reduction: Reduction,
    ) -> R<Val> {
        let e = data.elem;
        let (m, ml) = self.scatter_mask(parts)?;
        let (ml_s, ul_s, dl_s) = (ml.join(","), ul.join(","), dl.join(","));
        let out = self.out_spec_open();
        let mc = self.unary_to("cast", &m, "...".into(), e);
        let pointwise = |t: &mut Self, accum: &str, fallback: &Val, result: String| {
            let spec = format!("{ml_s}; {ul_s}; {dl_s} => {dl_s}");
            t.einsum(
                &spec,
                &[&mc, upd, fallback],
                (!s.is_empty()).then_some(accum),
                Some("where"),
                result,
            )
        };
        Ok(match reduction {
            Reduction::Add | Reduction::Mul => {
                let (name, neutral) = if reduction == Reduction::Add {
                    ("add", 0.0)
                } else {
                    ("mul", 1.0)
                };
                let n = self.scalar(e, neutral);
                let spec = format!("{ml_s}; {ul_s}; => {dl_s}");
                let acc = self.einsum(
                    &spec,
                    &[&mc, upd, &n],
                    (!s.is_empty()).then_some(name),
                    Some("where"),
                    "...".into(),
                );
                let spec = format!("{dl_s}; {dl_s} => {dl_s}");
                self.einsum(&spec, &[data, &acc], None, Some(name), out)
            }
            // `where(M, u, data)` leaves out the data where every update
            // targets the cell: it joins again.
            Reduction::Max | Reduction::Min => {
                let name = if reduction == Reduction::Max {
                    "max"
                } else {
                    "min"
                };
                let acc = pointwise(self, name, data, "...".into());
                let spec = format!("{dl_s}; {dl_s} => {dl_s}");
                self.einsum(&spec, &[data, &acc], None, Some(name), out)
            }
            Reduction::None if s.is_empty() => pointwise(self, "max", data, out),
            Reduction::None => self.last_write(data, upd, (&m, &ml), (ul, dl, s))?,
        })
    }

    /// `none` with updates reduced over `s`: per data cell, the last
    /// update (largest position in `s`, row-major) that targets it, or the
    /// data where none does.
    fn last_write(
        &mut self,
        data: &Val,
        upd: &Val,
        (m, ml): (&Val, &[String]),
        (ul, dl, s): (&[String], &[String], &[(String, Sym)]),
    ) -> R<Val> {
        let e = data.elem;
        let sl: Vec<String> = s.iter().map(|(l, _)| l.clone()).collect();
        let dims: Vec<Sym> = s.iter().map(|(_, d)| d.clone()).collect();
        let kpos = self.positions(&dims);
        // The winner's position, -1 where none targets the cell.
        let wl: Vec<String> = ml.iter().filter(|l| !sl.contains(l)).cloned().collect();
        let none = self.scalar(Elem::I64, -1.0);
        let spec = format!("{}; {}; => {}", ml.join(","), sl.join(","), wl.join(","));
        let w = self.einsum(
            &spec,
            &[m, &kpos, &none],
            Some("max"),
            Some("where"),
            "...".into(),
        );
        // Its value: the one update whose position is the winner's.
        let el = union(&sl, &wl);
        let spec = format!("{}; {} => {}", sl.join(","), wl.join(","), el.join(","));
        let diff = self.einsum(&spec, &[&kpos, &w], None, Some("sub"), "...".into());
        let zero = self.scalar(Elem::I64, 0.0);
        let pick = self.binary_to("eq", &diff, &zero, "...".into(), Elem::Bool)?;
        let pick = self.unary_to("cast", &pick, "...".into(), e);
        let z = self.scalar(e, 0.0);
        let spec = format!("{}; {}; => {}", el.join(","), ul.join(","), dl.join(","));
        let val = self.einsum(
            &spec,
            &[&pick, upd, &z],
            Some("add"),
            Some("where"),
            "...".into(),
        );
        let taken = self.binary_to("ge", &w, &zero, "...".into(), Elem::Bool)?;
        let taken = self.unary_to("cast", &taken, "...".into(), e);
        let d = dl.join(",");
        let spec = format!("{}; {d}; {d} => {d}", wl.join(","));
        let out = self.out_spec_open();
        Ok(self.einsum(&spec, &[&taken, &val, data], None, Some("where"), out))
    }

    /// An open result spec (the node's output: its recorded shape is
    /// checked by `bind`).
    fn out_spec_open(&self) -> String {
        "...".into()
    }
}
