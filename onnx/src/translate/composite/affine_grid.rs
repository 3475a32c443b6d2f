//! ONNX AffineGrid (opset 20; onnx.ai/onnx/operators/onnx__AffineGrid.html):
//! `grid[n, .., :] = theta[n] @ (x, y[, z], 1)`, the normalised base grid
//! a constant of the constant `size` (`align_corners`: -1 and 1 at the
//! first and last cells, else at the outer edges), one einsum.

use super::super::{Attrs, R, Translator, dims_spec};
use super::index::known;
use crate::proto::NodeProto;
use crate::tensor::Elem;

/// The normalised coordinates of `n` cells.
fn coords(n: u64, align: bool) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let i = i as f64;
            let n = n as f64;
            if align {
                if n == 1.0 {
                    -1.0
                } else {
                    -1.0 + 2.0 * i / (n - 1.0)
                }
            } else {
                -1.0 + (2.0 * i + 1.0) / n
            }
        })
        .collect()
}

impl Translator {
    /// ONNX AffineGrid.
    pub(super) fn affine_grid(&mut self, node: &NodeProto) -> R<()> {
        let theta = self.input(node, 0)?;
        if !matches!(theta.elem, Elem::F32 | Elem::F64) {
            return self.err("AffineGrid takes a float theta");
        }
        let Some(size) = self.const_ints(node, 1)? else {
            return self.err("AffineGrid's size must be a constant");
        };
        if !matches!(size.len(), 4 | 5) || size.iter().any(|&d| !(1..=1 << 24).contains(&d)) {
            return self.err("AffineGrid's size must be 4 or 5 positive dims");
        }
        let sp: Vec<u64> = size[2..].iter().map(|&d| d as u64).collect();
        let k = sp.len();
        let cells: u64 = sp.iter().product::<u64>() * (k as u64 + 1);
        if cells > 1 << 24 {
            return self.err("an AffineGrid of more than 2^24 base cells (not supported)");
        }
        if theta
            .shape
            .as_ref()
            .is_some_and(|d| d != &[size[0] as u64, k as u64, k as u64 + 1])
        {
            return self.err(format!("theta must be [N, {k}, {}]", k + 1));
        }
        let align = Attrs::of(node).int("align_corners").unwrap_or(0) != 0;
        let axes: Vec<Vec<f64>> = sp.iter().map(|&n| coords(n, align)).collect();
        // The base grid [.., k + 1]: (x, y[, z], 1), x along the last axis.
        let mut g = Vec::new();
        for c in 0..sp.iter().product::<u64>() {
            let mut rest = c;
            let mut idx = vec![0; k];
            for j in (0..k).rev() {
                idx[j] = (rest % sp[j]) as usize;
                rest /= sp[j];
            }
            for j in (0..k).rev() {
                g.push(axes[j][idx[j]]);
            }
            g.push(1.0);
        }
        let g = self.vector(theta.elem, &g)?;
        let mut gd = sp.clone();
        gd.push(k as u64 + 1);
        let g = self.emit("reshape", &[&g], "", theta.elem, dims_spec(&gd), None);
        let g = known(g, Some(gd), Some(k + 1));
        let sl = if k == 2 { "gh,gw" } else { "gd,gh,gw" };
        let mut out = vec![size[0] as u64];
        out.extend(&sp);
        out.push(k as u64);
        let spec = format!("gn,go,gk; {sl},gk => gn,{sl},go");
        let v = self.einsum(&spec, &[&theta, &g], None, None, dims_spec(&out));
        let r = out.len();
        self.bind(node, 0, known(v, Some(out), Some(r)));
        Ok(())
    }
}
