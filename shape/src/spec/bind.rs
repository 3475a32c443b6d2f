//! Binding a shape spec's variables to the dimensions of concrete data.
//!
//! A runner that receives an array for a tensor whose shape inference left
//! open (`..b..|784`) can read the open sizes off the array: the array's
//! dimensions are the tensor's axes in memory order (batch, output, input).
//! [`bind_memory_dims`] matches them against the spec, and [`substitute`]
//! applies the resulting values of named variables to other specs of the
//! same scope.

use std::collections::HashMap;

use super::{MAX_SIZE, Row, RowVar, ShapeAxis, ShapeSpec};

/// Values of named dimension and row variables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bindings {
    /// `h` → its size.
    pub dims: HashMap<String, u64>,
    /// `..b..` (by name, without dots) → its axes' sizes.
    pub rows: HashMap<String, Vec<u64>>,
}

/// Why data does not fit a spec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BindError {
    /// The data has a different number of axes than a closed spec.
    #[error("the data has {got} axes but the shape has exactly {expected}")]
    Rank {
        /// The spec's number of axes.
        expected: usize,
        /// The data's number of axes.
        got: usize,
    },
    /// The data has fewer axes than the spec's fixed axes.
    #[error("the data has {got} axes but the shape has at least {expected}")]
    TooFewAxes {
        /// The spec's number of fixed axes.
        expected: usize,
        /// The data's number of axes.
        got: usize,
    },
    /// More than one row variable could take the extra axes.
    #[error(
        "the shape has {0} row variables that could take the data's extra axes: give the rows in the function"
    )]
    Ambiguous(usize),
    /// An axis of known size differs.
    #[error("axis {axis} (memory order) has size {expected} in the shape but {got} in the data")]
    Size {
        /// The axis position in memory order.
        axis: usize,
        /// The spec's size.
        expected: u64,
        /// The data's size.
        got: u64,
    },
    /// A dimension of the data is above [`MAX_SIZE`]: no axis has that size.
    #[error("axis {axis} (memory order) of the data has size {size}, more than the largest size {max}", max = MAX_SIZE)]
    TooLarge {
        /// The axis position in memory order.
        axis: usize,
        /// The data's size.
        size: u64,
    },
    /// One dimension variable meets two sizes.
    #[error("dimension variable {name} would be both {first} and {second}")]
    Conflict {
        /// The variable.
        name: String,
        /// The size first seen.
        first: u64,
        /// The other size.
        second: u64,
    },
}

/// Binds `spec`'s variables to `dims`, the data's dimensions in memory
/// order (batch, output, input). Returns the concrete spec and the values of
/// its named variables. Extra axes go to the spec's only row variable; with
/// no extra axes every row variable is empty; with several row variables
/// and extra axes the binding is ambiguous.
///
/// # Errors
///
/// A dimension of the data is above [`MAX_SIZE`] (checked first), the
/// data's rank or a known size does not fit, a dimension variable meets two
/// sizes, or the extra axes could go to several row variables.
pub fn bind_memory_dims(
    spec: &ShapeSpec,
    dims: &[u64],
) -> Result<(ShapeSpec, Bindings), BindError> {
    if let Some((axis, &size)) = dims.iter().enumerate().find(|(_, d)| **d > MAX_SIZE) {
        return Err(BindError::TooLarge { axis, size });
    }
    let rows = [&spec.batch, &spec.output, &spec.input];
    let extra = extra_axes(rows, dims.len())?;
    let mut bindings = Bindings::default();
    let mut at = 0usize;
    let mut bound_rows = Vec::with_capacity(3);
    for row in rows {
        let mut axes = Vec::new();
        for a in &row.beg {
            axes.push(bind_axis(a, at, dims[at], &mut bindings)?);
            at += 1;
        }
        if let Some(var) = &row.var {
            let taken = &dims[at..at + extra];
            if let RowVar::Named(name) = var {
                bindings.rows.insert(name.clone(), taken.to_vec());
            }
            axes.extend(taken.iter().map(|&d| ShapeAxis::Size(d)));
            at += extra;
        }
        for a in &row.end {
            axes.push(bind_axis(a, at, dims[at], &mut bindings)?);
            at += 1;
        }
        bound_rows.push(Row {
            beg: vec![],
            var: None,
            end: axes,
        });
    }
    let input = bound_rows.pop().expect("three rows");
    let output = bound_rows.pop().expect("three rows");
    let batch = bound_rows.pop().expect("three rows");
    Ok((
        ShapeSpec {
            batch,
            input,
            output,
        },
        bindings,
    ))
}

/// The number of axes of data of rank `rank` that go to the only row
/// variable of `rows` (in memory order): the rank must cover the written
/// axes, and extra axes need exactly one row variable.
fn extra_axes(rows: [&Row<ShapeAxis>; 3], rank: usize) -> Result<usize, BindError> {
    let fixed: usize = rows.iter().map(|r| r.beg.len() + r.end.len()).sum();
    let vars = rows.iter().filter(|r| r.var.is_some()).count();
    if rank < fixed {
        return Err(if vars == 0 {
            BindError::Rank {
                expected: fixed,
                got: rank,
            }
        } else {
            BindError::TooFewAxes {
                expected: fixed,
                got: rank,
            }
        });
    }
    let extra = rank - fixed;
    match (vars, extra) {
        (0, 0) | (_, 0) | (1, _) => Ok(extra),
        (0, _) => Err(BindError::Rank {
            expected: fixed,
            got: rank,
        }),
        (n, _) => Err(BindError::Ambiguous(n)),
    }
}

/// The written `axis` at position `at` in memory order bound to the data's
/// size `got`: a size must be it, a variable takes it (once).
fn bind_axis(
    axis: &ShapeAxis,
    at: usize,
    got: u64,
    b: &mut Bindings,
) -> Result<ShapeAxis, BindError> {
    match axis {
        ShapeAxis::Size(d) | ShapeAxis::Labeled { size: d, .. } if *d != got => {
            Err(BindError::Size {
                axis: at,
                expected: *d,
                got,
            })
        }
        ShapeAxis::Size(_) | ShapeAxis::Labeled { .. } => Ok(axis.clone()),
        ShapeAxis::Var(name) => match b.dims.get(name) {
            Some(&first) if first != got => Err(BindError::Conflict {
                name: name.clone(),
                first,
                second: got,
            }),
            _ => {
                b.dims.insert(name.clone(), got);
                Ok(ShapeAxis::Size(got))
            }
        },
        ShapeAxis::Fresh => Ok(ShapeAxis::Size(got)),
    }
}

/// `spec` with the bound named variables replaced by their values.
pub fn substitute(spec: &ShapeSpec, bindings: &Bindings) -> ShapeSpec {
    let axis = |a: &ShapeAxis| match a {
        ShapeAxis::Var(name) => bindings
            .dims
            .get(name)
            .map_or_else(|| a.clone(), |&d| ShapeAxis::Size(d)),
        _ => a.clone(),
    };
    let row = |r: &Row<ShapeAxis>| -> Row<ShapeAxis> {
        match &r.var {
            Some(RowVar::Named(name)) if bindings.rows.contains_key(name) => Row {
                beg: vec![],
                var: None,
                end: r
                    .beg
                    .iter()
                    .map(axis)
                    .chain(bindings.rows[name].iter().map(|&d| ShapeAxis::Size(d)))
                    .chain(r.end.iter().map(axis))
                    .collect(),
            },
            _ => Row {
                beg: r.beg.iter().map(axis).collect(),
                var: r.var.clone(),
                end: r.end.iter().map(axis).collect(),
            },
        }
    };
    ShapeSpec {
        batch: row(&spec.batch),
        input: row(&spec.input),
        output: row(&spec.output),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::parse_shape_spec;

    fn bind(spec: &str, dims: &[u64]) -> Result<(String, Bindings), BindError> {
        bind_memory_dims(&parse_shape_spec(spec).expect("spec parses"), dims)
            .map(|(s, b)| (s.to_string(), b))
    }

    #[test]
    fn binds_row_and_dim_variables() {
        let (s, b) = bind("..b..|784", &[32, 784]).unwrap();
        assert_eq!(s, "32|784");
        assert_eq!(b.rows["b"], vec![32]);
        let (s, b) = bind("784->h", &[128, 784]).unwrap();
        assert_eq!(s, "784->128");
        assert_eq!(b.dims["h"], 128);
        let (s, b) = bind("..b..|3", &[3]).unwrap();
        assert_eq!(s, "3");
        assert_eq!(b.rows["b"], Vec::<u64>::new());
        // No extra axes: every row variable is empty, however many.
        assert_eq!(bind("...|...->...", &[]).unwrap().0, "");
        assert_eq!(bind("..r..|..s..,4->..t..,_", &[7, 4]).unwrap().0, "4->7");
        // Labels stay; fresh axes take the data's size.
        assert_eq!(bind("rgb=3,_", &[3, 9]).unwrap().0, "rgb=3,9");
    }

    #[test]
    fn reports_what_does_not_fit() {
        assert_eq!(
            bind("...|...->...", &[3, 4]).unwrap_err(),
            BindError::Ambiguous(3)
        );
        assert_eq!(
            bind("2,3", &[2, 4]).unwrap_err(),
            BindError::Size {
                axis: 1,
                expected: 3,
                got: 4
            }
        );
        assert_eq!(
            bind("h,h", &[2, 3]).unwrap_err(),
            BindError::Conflict {
                name: "h".into(),
                first: 2,
                second: 3
            }
        );
        assert_eq!(
            bind("b|3", &[5]).unwrap_err(),
            BindError::Rank {
                expected: 2,
                got: 1
            }
        );
        assert_eq!(
            bind("2,3", &[2, 3, 4]).unwrap_err(),
            BindError::Rank {
                expected: 2,
                got: 3
            }
        );
        assert_eq!(
            bind("..b..|3,4", &[4]).unwrap_err(),
            BindError::TooFewAxes {
                expected: 2,
                got: 1
            }
        );
        assert!(
            bind("...|...->...", &[3, 4])
                .unwrap_err()
                .to_string()
                .contains("give the rows in the function")
        );
    }

    /// No binding writes a size past `MAX_SIZE` into a spec (and from there
    /// into an MLIR type): the data's dimensions are checked first.
    #[test]
    fn data_dims_past_the_size_limit_are_rejected() {
        let huge = MAX_SIZE + 1;
        assert_eq!(
            bind("..b..|784", &[huge, 784]).unwrap_err(),
            BindError::TooLarge {
                axis: 0,
                size: huge
            }
        );
        assert_eq!(
            bind("...|...->...", &[3, u64::MAX]).unwrap_err(),
            BindError::TooLarge {
                axis: 1,
                size: u64::MAX
            },
            "checked before the ambiguity"
        );
        assert_eq!(
            bind("n", &[huge]).unwrap_err().to_string(),
            "axis 0 (memory order) of the data has size 9223372036854775808, more than the largest size 9223372036854775807"
        );
        assert_eq!(bind("n", &[MAX_SIZE]).unwrap().0, "9223372036854775807");
    }

    #[test]
    fn substitutes_named_variables() {
        let b = Bindings {
            dims: [("h".to_owned(), 7)].into(),
            rows: [("b".to_owned(), vec![2, 5])].into(),
        };
        let spec = parse_shape_spec("..b..|h->..c..,h").unwrap();
        assert_eq!(substitute(&spec, &b).to_string(), "2,5|7->..c..,7");
        let spec = parse_shape_spec("x,..b..,y").unwrap();
        assert_eq!(substitute(&spec, &b).to_string(), "x,2,5,y");
    }
}
