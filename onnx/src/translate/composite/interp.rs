//! Resize's interpolation plan (onnx.ai's reference
//! `_interpolate_1d_along_axis`, computed at import): per output cell of
//! an axis, the input cells it reads and their weights.

/// How output cells interpolate.
#[derive(Clone)]
pub(super) enum Interp {
    Nearest(String),
    Linear { antialias: bool },
    Cubic { a: f64, antialias: bool },
}

/// One axis: per output cell its taps (input index, weight; weights of 0
/// left out), and whether it is extrapolated.
#[derive(Debug)]
pub(super) struct AxisPlan {
    pub(super) taps: Vec<Vec<(u64, f64)>>,
    pub(super) outside: Vec<bool>,
}

fn cubic(x: f64, a: f64) -> f64 {
    let x = x.abs();
    if x <= 1.0 {
        (a + 2.0) * x * x * x - (a + 3.0) * x * x + 1.0
    } else if x < 2.0 {
        a * x * x * x - 5.0 * a * x * x + 8.0 * a * x - 4.0 * a
    } else {
        0.0
    }
}

fn normalised(c: Vec<f64>) -> Vec<f64> {
    let s: f64 = c.iter().sum();
    c.into_iter().map(|v| v / s).collect()
}

impl Interp {
    /// The coefficients for the fraction `ratio` (in (0, 1]).
    fn coeffs(&self, ratio: f64, scale: f64) -> Result<Vec<f64>, String> {
        Ok(match self {
            Interp::Nearest(m) => {
                if ratio.fract() == 0.0 {
                    return Ok(vec![0.0, 1.0]);
                }
                let (lo, hi) = match m.as_str() {
                    "round_prefer_floor" => (ratio <= 0.5, ratio > 0.5),
                    "round_prefer_ceil" => (ratio < 0.5, ratio >= 0.5),
                    "floor" => (true, false),
                    "ceil" => (false, true),
                    other => return Err(format!("nearest_mode '{other}' is not supported")),
                };
                vec![f64::from(u8::from(lo)), f64::from(u8::from(hi))]
            }
            Interp::Linear { antialias: false } => vec![1.0 - ratio, ratio],
            Interp::Linear { antialias: true } => {
                let s = scale.min(1.0);
                let start = (-1.0 / s).floor() as i64 + 1;
                let foot = 2 - 2 * start;
                normalised(
                    (start..start + foot)
                        .map(|i| (1.0 - ((i as f64 - ratio) * s).abs()).clamp(0.0, 1.0))
                        .collect(),
                )
            }
            Interp::Cubic {
                a,
                antialias: false,
            } => {
                let a = *a;
                let (r, q) = (ratio, 1.0 - ratio);
                vec![
                    ((a * (r + 1.0) - 5.0 * a) * (r + 1.0) + 8.0 * a) * (r + 1.0) - 4.0 * a,
                    ((a + 2.0) * r - (a + 3.0)) * r * r + 1.0,
                    ((a + 2.0) * q - (a + 3.0)) * q * q + 1.0,
                    ((a * (q + 1.0) - 5.0 * a) * (q + 1.0) + 8.0 * a) * (q + 1.0) - 4.0 * a,
                ]
            }
            Interp::Cubic { a, antialias: true } => {
                let s = scale.min(1.0);
                let start = (-2.0 / s).floor() as i64 + 1;
                normalised(
                    (start..2 - start)
                        .map(|i| cubic(s * (i as f64 - ratio), *a))
                        .collect(),
                )
            }
        })
    }
}

/// The source coordinate of output cell `y` (and whether it is outside
/// the input, for `tf_crop_and_resize`).
fn source(
    mode: &str,
    y: f64,
    scale: f64,
    (n, out): (u64, u64),
    roi: (f64, f64),
) -> Result<(f64, bool), String> {
    let (n, out_i) = (n as f64, out as f64);
    let width = scale * n;
    Ok(match mode {
        "align_corners" if width == 1.0 => (0.0, false),
        "align_corners" => (y * (n - 1.0) / (width - 1.0), false),
        "asymmetric" => (y / scale, false),
        "tf_crop_and_resize" => {
            let x = if width == 1.0 {
                (roi.1 - roi.0) * (n - 1.0) / 2.0
            } else {
                y * (roi.1 - roi.0) * (n - 1.0) / (width - 1.0)
            } + roi.0 * (n - 1.0);
            (x, x < 0.0 || x > n - 1.0)
        }
        "pytorch_half_pixel" if width == 1.0 => (-0.5, false),
        "pytorch_half_pixel" | "half_pixel" => ((y + 0.5) / scale - 0.5, false),
        "half_pixel_symmetric" => {
            let offset = n / 2.0 * (1.0 - out_i / width);
            (offset + (y + 0.5) / scale - 0.5, false)
        }
        other => {
            return Err(format!(
                "coordinate_transformation_mode '{other}' is not supported"
            ));
        }
    })
}

/// The plan of one axis of `n` input cells resized to `out`.
pub(super) fn plan_axis(
    interp: &Interp,
    mode: &str,
    scale: f64,
    (n, out): (u64, u64),
    roi: (f64, f64),
    exclude_outside: bool,
) -> Result<AxisPlan, String> {
    let mut taps = Vec::new();
    let mut outside = Vec::new();
    for o in 0..out {
        let (x, ext) = source(mode, o as f64, scale, (n, out), roi)?;
        let xi = x.floor();
        let ratio = if x == xi { 1.0 } else { x - xi };
        let mut c = interp.coeffs(ratio, scale)?;
        let k = c.len() as i64;
        let pad = (k + 1) / 2;
        let xp = x + pad as f64;
        let (pp, frac) = (xp.floor(), xp - xp.floor());
        let off = if k % 2 == 0 {
            if frac == 0.0 { -(k / 2) } else { -(k / 2) + 1 }
        } else {
            let base = -((k - 1) / 2);
            if frac <= 0.5 { base } else { base + 1 }
        };
        let start = pp as i64 + off;
        let idx: Vec<i64> = (0..k).map(|j| start + j - pad).collect();
        if exclude_outside {
            for (j, &i) in idx.iter().enumerate() {
                if i < 0 || i >= n as i64 {
                    c[j] = 0.0;
                }
            }
            let s: f64 = c.iter().sum();
            let s = if s == 0.0 { 1.0 } else { s };
            c.iter_mut().for_each(|v| *v /= s);
        }
        let mut cell: Vec<(u64, f64)> = Vec::new();
        for (j, &i) in idx.iter().enumerate() {
            if c[j] == 0.0 {
                continue;
            }
            let i = i.clamp(0, n as i64 - 1) as u64;
            match cell.iter_mut().find(|t| t.0 == i) {
                Some(t) => t.1 += c[j],
                None => cell.push((i, c[j])),
            }
        }
        taps.push(cell);
        outside.push(ext);
    }
    Ok(AxisPlan { taps, outside })
}

#[cfg(test)]
mod tests {
    use super::{Interp, plan_axis};

    #[test]
    fn plans_follow_the_reference() {
        // 2 -> 4, half_pixel, linear: x_ori = -0.25, 0.25, 0.75, 1.25.
        let p = plan_axis(
            &Interp::Linear { antialias: false },
            "half_pixel",
            2.0,
            (2, 4),
            (0.0, 1.0),
            false,
        )
        .unwrap();
        assert_eq!(p.taps[0], vec![(0, 1.0)]);
        assert_eq!(p.taps[1], vec![(0, 0.75), (1, 0.25)]);
        assert_eq!(p.taps[3], vec![(1, 1.0)]);
        // Nearest, asymmetric, floor: 3 -> 7 reads 0,0,0,1,1,2,2.
        let p = plan_axis(
            &Interp::Nearest("floor".into()),
            "asymmetric",
            7.0 / 3.0,
            (3, 7),
            (0.0, 1.0),
            false,
        )
        .unwrap();
        let idx: Vec<u64> = p.taps.iter().map(|t| t[0].0).collect();
        assert_eq!(idx, [0, 0, 0, 1, 1, 2, 2]);
        assert!(
            plan_axis(
                &Interp::Nearest("up".into()),
                "asymmetric",
                1.5,
                (2, 3),
                (0.0, 1.0),
                false
            )
            .is_err()
        );
    }
}
