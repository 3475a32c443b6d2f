//! One direction of a recurrent layer, unrolled: the input projection of
//! every step at once, then each step's equations (onnx.ai's RNN, GRU and
//! LSTM pages) on `[B, H]` states.

use super::super::elementwise::with_rank;
use super::super::{R, Translator, Val};
use super::{Cell, Kind, Weights};

/// One direction's states: `hs` per step in time order, `h` and `c` the
/// last computed.
pub(super) struct Run {
    pub(super) hs: Vec<Val>,
    pub(super) h: Option<Val>,
    pub(super) c: Option<Val>,
}

/// What a step reads of its direction.
struct Dir<'a> {
    /// The direction's index in the weights.
    di: usize,
    /// `X W^T` plus the biases added up front, `[S, B, G, H]`.
    xw: Val,
    ws: &'a Weights,
    /// The peepholes `P[iof]`, each `[H]`.
    peep: Option<[Val; 3]>,
}

/// The states a step starts from (`None`: zeros).
struct State {
    h: Option<Val>,
    c: Option<Val>,
}

impl Translator {
    /// Runs direction `di` (`rev`: from the last step back).
    pub(super) fn direction(
        &mut self,
        c: &Cell,
        ws: &Weights,
        x: &Val,
        di: usize,
        rev: bool,
    ) -> R<Run> {
        let (s, g, h) = (c.seq, c.kind.gates(), c.hidden);
        let xs = if c.batchwise { "b,s,i" } else { "s,b,i" };
        let mut xw = self.einsum(
            &format!("{xs}; {di},g,h,i => s,b,g,h"),
            &[x, &ws.w],
            None,
            None,
            format!("{s},{},{g},{h}", c.batch),
        );
        if let Some(b) = &ws.b {
            // GRU with linear_before_reset adds `Rb` inside the step.
            let halves = if c.kind == Kind::Gru && c.linear_before_reset {
                "0"
            } else {
                "k"
            };
            let bias = self.einsum(
                &format!("{di},{halves},g,h => g,h"),
                &[b],
                None,
                None,
                format!("{g},{h}"),
            );
            let spec = xw.spec.clone();
            xw = self.einsum(
                "s,b,g,h; g,h => s,b,g,h",
                &[&xw, &bias],
                None,
                Some("add"),
                spec,
            );
        }
        let peep = match &ws.p {
            Some(p) => {
                let mut v = Vec::new();
                for k in 0..3 {
                    v.push(self.einsum(
                        &format!("{di},{k},h => h"),
                        &[p],
                        None,
                        None,
                        h.to_string(),
                    ));
                }
                v.try_into().ok()
            }
            None => None,
        };
        let dir = Dir { di, xw, ws, peep };
        let mut st = State {
            h: self.initial(c, ws.h0.as_ref(), di),
            c: self.initial(c, ws.c0.as_ref(), di),
        };
        let mut hs: Vec<Option<Val>> = vec![None; s as usize];
        let order: Vec<u64> = if rev {
            (0..s).rev().collect()
        } else {
            (0..s).collect()
        };
        for t in order {
            st = match c.kind {
                Kind::Rnn => self.rnn_step(c, &dir, t, &st)?,
                Kind::Gru => self.gru_step(c, &dir, t, &st)?,
                Kind::Lstm => self.lstm_step(c, &dir, t, &st)?,
            };
            hs[t as usize] = st.h.clone();
        }
        Ok(Run {
            hs: hs.into_iter().flatten().collect(),
            h: st.h,
            c: st.c,
        })
    }

    /// Direction `di` of an initial state (`[D, B, H]`, or `[B, D, H]`
    /// batchwise).
    fn initial(&mut self, c: &Cell, v: Option<&Val>, di: usize) -> Option<Val> {
        let spec = if c.batchwise {
            format!("b,{di},h => b,h")
        } else {
            format!("{di},b,h => b,h")
        };
        v.map(|v| self.einsum(&spec, &[v], None, None, c.bh()))
    }

    /// `H R^T` for every gate, `[B, G, H]`.
    fn recur(&mut self, c: &Cell, d: &Dir, h: &Val) -> Val {
        let spec = format!("b,j; {},g,h,j => b,g,h", d.di);
        let out = format!("{},{},{}", c.batch, c.kind.gates(), c.hidden);
        with_rank(self.einsum(&spec, &[h, &d.ws.r], None, None, out), Some(3))
    }

    /// Gate `g`'s input at step `t`: its projection, plus its recurrent
    /// product when there is one.
    fn pre(&mut self, c: &Cell, d: &Dir, t: u64, g: u64, hr: Option<&Val>) -> Val {
        match hr {
            // Only GRU's `Rb` (linear_before_reset, no `H` yet): `[G, H]`.
            Some(hr) if hr.rank == Some(2) => self.einsum(
                &format!("{t},b,{g},h; {g},h => b,h"),
                &[&d.xw, hr],
                None,
                Some("add"),
                c.bh(),
            ),
            Some(hr) => self.einsum(
                &format!("{t},b,{g},h; b,{g},h => b,h"),
                &[&d.xw, hr],
                None,
                Some("add"),
                c.bh(),
            ),
            None => self.einsum(&format!("{t},b,{g},h => b,h"), &[&d.xw], None, None, c.bh()),
        }
    }

    /// Activation `k` of the direction's (clipped input).
    fn act(&mut self, c: &Cell, d: &Dir, k: usize, x: &Val) -> R<Val> {
        let a = c.acts[d.di * c.kind.acts() + k];
        self.activate(a, c.clip, x)
    }

    /// `x + y` on states (`y` may be `[H]`).
    fn add(&mut self, c: &Cell, x: &Val, y: &Val) -> R<Val> {
        self.binary("add", x, y, c.bh())
    }

    fn mul(&mut self, c: &Cell, x: &Val, y: &Val) -> R<Val> {
        self.binary("mul", x, y, c.bh())
    }

    /// RNN: `H = f(X W^T + H R^T + Wb + Rb)`.
    fn rnn_step(&mut self, c: &Cell, d: &Dir, t: u64, st: &State) -> R<State> {
        let hr = st.h.as_ref().map(|h| self.recur(c, d, h));
        let p = self.pre(c, d, t, 0, hr.as_ref());
        let h = self.act(c, d, 0, &p)?;
        Ok(State {
            h: Some(h),
            c: None,
        })
    }

    /// GRU (gates `z`, `r`, `h`): `z = f(..)`, `r = f(..)`, `h = g(X Wh^T
    /// + (r . H) Rh^T + Rbh + Wbh)`, or with linear_before_reset `g(X Wh^T
    /// + r . (H Rh^T + Rbh) + Wbh)`; `H' = (1 - z) . h + z . H`.
    fn gru_step(&mut self, c: &Cell, d: &Dir, t: u64, st: &State) -> R<State> {
        let lbr = c.linear_before_reset;
        let mut hr = st.h.as_ref().map(|h| self.recur(c, d, h));
        // With linear_before_reset, `Rb` is added to `H R^T` (alone when
        // there is no `H` yet).
        if let (true, Some(b)) = (lbr, &d.ws.b) {
            hr = Some(match &hr {
                Some(v) => {
                    let spec = format!("b,g,h; {},1,g,h => b,g,h", d.di);
                    let s = v.spec.clone();
                    self.einsum(&spec, &[v, b], None, Some("add"), s)
                }
                None => {
                    let spec = format!("{},1,g,h => g,h", d.di);
                    let s = format!("{},{}", c.kind.gates(), c.hidden);
                    with_rank(self.einsum(&spec, &[b], None, None, s), Some(2))
                }
            });
        }
        let zp = self.pre(c, d, t, 0, hr.as_ref());
        let z = self.act(c, d, 0, &zp)?;
        let rp = self.pre(c, d, t, 1, hr.as_ref());
        let r = self.act(c, d, 0, &rp)?;
        let xh = self.pre(c, d, t, 2, None);
        let term = if lbr {
            match &hr {
                Some(hr) if hr.rank == Some(2) => {
                    Some(self.einsum("2,h => h", &[hr], None, None, c.hidden.to_string()))
                }
                Some(hr) => Some(self.einsum("b,2,h => b,h", &[hr], None, None, c.bh())),
                None => None,
            }
            .map(|v| self.mul(c, &r, &v))
            .transpose()?
        } else {
            match &st.h {
                Some(h) => {
                    let rh = self.mul(c, &r, h)?;
                    let spec = format!("b,j; {},2,h,j => b,h", d.di);
                    Some(self.einsum(&spec, &[&rh, &d.ws.r], None, None, c.bh()))
                }
                None => None,
            }
        };
        let hp = match term {
            Some(v) => self.add(c, &xh, &v)?,
            None => xh,
        };
        let hh = self.act(c, d, 1, &hp)?;
        let one = self.scalar(c.elem, 1.0);
        let omz = self.binary("sub", &one, &z, c.bh())?;
        let mut h = self.mul(c, &omz, &hh)?;
        if let Some(prev) = &st.h {
            let zh = self.mul(c, &z, prev)?;
            h = self.add(c, &h, &zh)?;
        }
        Ok(State {
            h: Some(h),
            c: None,
        })
    }

    /// LSTM (gates `i`, `o`, `f`, `c`; peepholes `P[iof]`): `i = f(.. + Pi
    /// . C)`, `f = f(.. + Pf . C)`, `c = g(..)`, `C' = f . C + i . c`, `o
    /// = f(.. + Po . C')`, `H' = o . h(C')`; input_forget couples `i`
    /// and `f` (`f = 1 - i`).
    fn lstm_step(&mut self, c: &Cell, d: &Dir, t: u64, st: &State) -> R<State> {
        let hr = st.h.as_ref().map(|h| self.recur(c, d, h));
        let gate = |s: &mut Self, g: u64, peep: Option<(usize, &Val)>| -> R<Val> {
            let mut p = s.pre(c, d, t, g, hr.as_ref());
            if let (Some((k, cell)), Some(ps)) = (peep, &d.peep) {
                let pc = s.mul(c, &ps[k], cell)?;
                p = s.add(c, &p, &pc)?;
            }
            s.act(c, d, 0, &p)
        };
        let i = gate(self, 0, st.c.as_ref().map(|v| (0, v)))?;
        let f = if c.input_forget {
            let one = self.scalar(c.elem, 1.0);
            self.binary("sub", &one, &i, c.bh())?
        } else {
            gate(self, 2, st.c.as_ref().map(|v| (2, v)))?
        };
        let cp = self.pre(c, d, t, 3, hr.as_ref());
        let cand = self.act(c, d, 1, &cp)?;
        let mut cell = self.mul(c, &i, &cand)?;
        if let Some(prev) = &st.c {
            let fc = self.mul(c, &f, prev)?;
            cell = self.add(c, &fc, &cell)?;
        }
        let o = gate(self, 1, Some((1, &cell)))?;
        // onnxruntime clips the gates' inputs, not the cell state `h`
        // reads.
        let a = c.acts[d.di * c.kind.acts() + 2];
        let hc = self.activate(a, None, &cell)?;
        let h = self.mul(c, &o, &hc)?;
        Ok(State {
            h: Some(h),
            c: Some(cell),
        })
    }
}
