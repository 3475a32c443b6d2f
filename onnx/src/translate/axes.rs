//! Axes addressed by number (`axis`, `axes`, `perm`): the bound on them
//! and the einsum labels around them.

/// The most axes the importer addresses: an axis number past it (`axis =
/// 2^40`) is an error before anything is sized by it.
pub(super) const MAX_AXES: u64 = 1024;

/// `axis` (negative: from the end) addresses at most [`MAX_AXES`] axes.
pub(super) fn check_axis(axis: i64) -> Result<(), String> {
    let reach = if axis < 0 {
        axis.unsigned_abs()
    } else {
        axis.unsigned_abs() + 1
    };
    if reach > MAX_AXES {
        return Err(format!(
            "axis {axis} is out of range (a tensor has at most {MAX_AXES} axes)"
        ));
    }
    Ok(())
}

/// `n` labels `{prefix}0, {prefix}1, ...`.
pub(super) fn labels(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

/// The einsum axes around the addressed ones: `lead` labels, the row
/// variable `..r..` (when the rank is not known), `trail` labels. With a
/// known rank every axis is a label.
pub(super) struct Layout {
    pub(super) axes: Vec<String>,
    /// Which of `axes` are addressed.
    pub(super) selected: Vec<bool>,
}

impl Layout {
    /// The layout for `axes` (ONNX axis numbers, negative from the end).
    pub(super) fn new(axes: &[i64], rank: Option<usize>) -> Result<Self, String> {
        for &a in axes {
            check_axis(a)?;
        }
        if let Some(r) = rank {
            let mut selected = vec![false; r];
            for &a in axes {
                let k = if a < 0 { a + r as i64 } else { a };
                if k < 0 || k >= r as i64 {
                    return Err(format!("axis {a} is out of range for rank {r}"));
                }
                if std::mem::replace(&mut selected[k as usize], true) {
                    return Err(format!("axis {a} is given twice in {axes:?}"));
                }
            }
            return Ok(Self {
                axes: labels("a", r),
                selected,
            });
        }
        let lead = axes
            .iter()
            .filter(|&&a| a >= 0)
            .map(|&a| a as usize + 1)
            .max()
            .unwrap_or(0);
        let trail = axes
            .iter()
            .filter(|&&a| a < 0)
            .map(|&a| (-a) as usize)
            .max()
            .unwrap_or(0);
        let mut out = labels("a", lead);
        let mut selected = vec![false; lead];
        out.push("..r..".into());
        selected.push(false);
        for j in (1..=trail).rev() {
            out.push(format!("z{j}"));
            selected.push(false);
        }
        let n = out.len();
        for &a in axes {
            let k = if a >= 0 {
                a as usize
            } else {
                n - (-a) as usize
            };
            selected[k] = true;
        }
        Ok(Self {
            axes: out,
            selected,
        })
    }

    /// The spec with each selected axis replaced by `f(label)` (`None`:
    /// dropped).
    pub(super) fn map(&self, mut f: impl FnMut(&str) -> Option<String>) -> String {
        self.axes
            .iter()
            .zip(&self.selected)
            .filter_map(|(a, &s)| if s { f(a) } else { Some(a.clone()) })
            .collect::<Vec<_>>()
            .join(",")
    }

    pub(super) fn all(&self) -> String {
        self.axes.join(",")
    }

    pub(super) fn rank_after(&self, keep: bool) -> Option<usize> {
        if self.axes.iter().any(|a| a.starts_with("..")) {
            return None;
        }
        Some(if keep {
            self.axes.len()
        } else {
            self.selected.iter().filter(|s| !**s).count()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Layout;

    #[test]
    fn layouts_name_axes_around_a_row_variable() {
        // Unknown rank: leading labels for non-negative axes, trailing for
        // negative ones, the row variable between.
        let l = Layout::new(&[1, -1], None).unwrap();
        assert_eq!(l.all(), "a0,a1,..r..,z1");
        assert_eq!(l.map(|_| None), "a0,..r..");
        assert_eq!(l.map(|_| Some("0".into())), "a0,0,..r..,0");
        assert_eq!(l.rank_after(false), None);
        // Known rank: every axis named, negative axes normalised.
        let l = Layout::new(&[-1], Some(3)).unwrap();
        assert_eq!(l.all(), "a0,a1,a2");
        assert_eq!(l.map(|_| None), "a0,a1");
        assert_eq!(l.rank_after(false), Some(2));
        assert_eq!(l.rank_after(true), Some(3));
        assert!(Layout::new(&[3], Some(3)).is_err());
        assert!(Layout::new(&[-4], Some(3)).is_err());
    }
}
