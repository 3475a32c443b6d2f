//! Shape values used as data: a constant when every cell is known; else
//! each cell computed at run time, a dimension `n` as the sum of a
//! constant of ones over an axis of size `n` (so the value follows the
//! binding of a symbolic dimension), expressions as pointwise ops on
//! those, the cells stacked by a concatenation.

use super::super::axes::Layout;
use super::super::{R, Translator, Val, dims_spec};
use super::sym::{Arith, ShapeVal, Sym};
use crate::tensor::Elem;

impl Translator {
    /// The data of the shape value `sv`.
    pub(in super::super) fn materialize(&mut self, sv: &ShapeVal) -> R<Val> {
        // A comparison (`logical`) is only evaluated when decided: known.
        if let Some(t) = sv.to_tensor() {
            return self.constant(&t);
        }
        let elem = sv.elem;
        let mut cells = Vec::with_capacity(sv.items.len());
        for s in &sv.items {
            cells.push(self.sym_value(s, elem)?);
        }
        if sv.dims.is_empty() {
            return Ok(cells.remove(0));
        }
        let parts: Vec<Val> = cells
            .iter()
            .map(|c| self.emit("reshape", &[c], "", elem, "1".into(), Some(vec![1])))
            .collect();
        let lay = Layout::new(&[0], Some(1)).map_err(|m| self.error(m))?;
        let refs: Vec<&Val> = parts.iter().collect();
        let n = sv.items.len() as u64;
        let mut v = self.concat_along(&lay, &refs, dims_spec(&[n]));
        v.shape = Some(vec![n]);
        v.rank = Some(1);
        if sv.dims.len() > 1 {
            v = self.emit(
                "reshape",
                &[&v],
                "",
                elem,
                dims_spec(&sv.dims),
                Some(sv.dims.clone()),
            );
        }
        Ok(v)
    }

    /// One cell's value, a scalar of `elem`.
    fn sym_value(&mut self, s: &Sym, elem: Elem) -> R<Val> {
        Ok(match s {
            Sym::Num(k) => {
                let attr = if elem.is_float() {
                    elem.scalar_attr(*k as f64)
                } else {
                    format!("{k} : {}", elem.mlir())
                };
                self.fill_attr(elem, &[], &attr)
            }
            Sym::Dim(d) => {
                let one = format!("value = {}", elem.scalar_attr(1.0));
                let ones = self.emit("constant", &[], &one, elem, d.clone(), None);
                self.einsum("a0 => ", &[&ones], None, None, String::new())
            }
            Sym::Op(op, a, b) => {
                let (x, y) = (self.sym_value(a, elem)?, self.sym_value(b, elem)?);
                let name = match op {
                    Arith::Add => "add",
                    Arith::Sub => "sub",
                    Arith::Mul => "mul",
                    Arith::Div if !elem.is_float() => "div",
                    Arith::Max => "max",
                    Arith::Min => "min",
                    Arith::Div | Arith::Mod => {
                        return self.err(format!(
                            "the computed dim {s} used as data is not supported"
                        ));
                    }
                };
                self.emit(name, &[&x, &y], "", elem, String::new(), Some(Vec::new()))
            }
        })
    }
}
