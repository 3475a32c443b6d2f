//! Property tests with sizes near the limits: 0, 1, 2, 2^31 - 1, 2^31,
//! 2^32, 2^62, 2^63 - 1 (`MAX_SIZE`), 2^63 and 2^64 - 1, as sizes, strides,
//! dilations, offsets, fixed indices, concatenated parts and element
//! counts.
//!
//! * parsing never panics, every literal it accepts is at most `MAX_SIZE`,
//!   and a literal above it is the error (`... is too large (at most ...)`)
//!   exactly when there is one;
//! * solving never panics, and every size of a solution is at most
//!   `MAX_SIZE`; the solution passes the independent checker; projections
//!   of the solved shapes never panic, and every index range they give fits
//!   `i64`;
//! * the checker and projection inference never panic on the specs as
//!   written (sizes past the limit included).
//!
//! Problems are built from spec values (not strings), so that sizes the
//! parser rejects (0, past `MAX_SIZE`) reach the solver too.

use ocannl_shape::{
    MAX_SIZE,
    check::{CheckLogic, check_op},
    problem::{OpLogic, Problem},
    projection::{AxisIndex, Projections, cell_count, infer_projections},
    solver::{Closing, OpId},
    spec::{
        Conv, EinsumAxis, EinsumSpec, IntOrIdent, Padding, Row, RowVar, ShapeAxis, ShapeSpec,
        SlotSpec, parse_einsum_spec, parse_shape_spec,
    },
};
use proptest::prelude::*;

const LIMITS: [u64; 10] = [
    0,
    1,
    2,
    (1 << 31) - 1,
    1 << 31,
    1 << 32,
    1 << 62,
    (1 << 63) - 1,
    1 << 63,
    u64::MAX,
];

fn limit() -> impl Strategy<Value = u64> {
    prop::sample::select(LIMITS.to_vec())
}

/// A size, or (`None`) a variable.
fn maybe() -> impl Strategy<Value = Option<u64>> {
    prop::option::weighted(0.7, limit())
}

/// The shape logic of a generated op, owned.
#[derive(Debug, Clone)]
enum Logic {
    Pointwise(usize),
    Einsum(EinsumSpec),
    Block(EinsumSpec),
    BatchSlice(u64),
    Terminal {
        elems: Option<u64>,
        exact: Option<Vec<u64>>,
    },
    Reshape,
}

impl Logic {
    fn op(&self) -> OpLogic<'_> {
        match self {
            Logic::Pointwise(1) => OpLogic::PointwiseUn,
            Logic::Pointwise(_) => OpLogic::PointwiseBin,
            Logic::Einsum(spec) => OpLogic::Einsum(spec),
            Logic::Block(spec) => OpLogic::Block(spec),
            Logic::BatchSlice(index) => OpLogic::BatchSlice { index: *index },
            Logic::Terminal { elems, exact } => OpLogic::Terminal {
                spec: None,
                elems: *elems,
                exact: exact.as_deref(),
            },
            Logic::Reshape => OpLogic::Reshape,
        }
    }

    fn check(&self) -> CheckLogic {
        match self {
            Logic::Pointwise(1) => CheckLogic::PointwiseUn,
            Logic::Pointwise(_) => CheckLogic::PointwiseBin,
            Logic::Einsum(spec) => CheckLogic::Einsum(spec.clone()),
            Logic::Block(spec) => CheckLogic::Block(spec.clone()),
            Logic::BatchSlice(index) => CheckLogic::BatchSlice { index: *index },
            Logic::Terminal { elems, exact } => CheckLogic::Terminal {
                spec: None,
                elems: *elems,
                exact: exact.clone(),
            },
            Logic::Reshape => CheckLogic::Reshape,
        }
    }
}

/// One op: its operands' and result's specs (operands are terminal).
#[derive(Debug, Clone)]
struct Case {
    logic: Logic,
    operands: Vec<ShapeSpec>,
    result: ShapeSpec,
}

/// An output row of sizes (`None`: a fresh variable `d{i}`).
fn row(axes: &[Option<u64>]) -> ShapeSpec {
    let axes = axes
        .iter()
        .enumerate()
        .map(|(i, a)| a.map_or_else(|| ShapeAxis::Var(format!("d{i}")), ShapeAxis::Size))
        .collect();
    ShapeSpec {
        output: Row::closed(axes),
        ..ShapeSpec::default()
    }
}

fn sizes(axes: &[u64]) -> ShapeSpec {
    row(&axes.iter().copied().map(Some).collect::<Vec<_>>())
}

/// `...` (or, for `None`, a given row).
fn open_or(given: Option<ShapeSpec>) -> ShapeSpec {
    given.unwrap_or_else(|| ShapeSpec {
        output: Row::open(vec![], RowVar::Anonymous, vec![]),
        ..ShapeSpec::default()
    })
}

fn slot(axes: Vec<EinsumAxis>) -> SlotSpec {
    SlotSpec {
        output: Row::closed(axes),
        ..SlotSpec::default()
    }
}

fn label(l: &str) -> EinsumAxis {
    EinsumAxis::Label(l.into())
}

fn case() -> impl Strategy<Value = Case> {
    let axes = || prop::collection::vec(limit(), 1..4);
    prop_oneof![
        // Broadcasting (LUBs) of sizes near the limit.
        (axes(), axes()).prop_map(|(a, b)| Case {
            logic: Logic::Pointwise(2),
            operands: vec![sizes(&a), sizes(&b)],
            result: open_or(None),
        }),
        // Strided and convolution axes: `stride*o[=|<]+offset+dilation*k`.
        (
            (limit(), prop::sample::select(vec![0u64, 1, (1 << 62) - 1])),
            prop::option::of((limit(), prop::sample::select(vec![0usize, 1, 2]))),
            (maybe(), maybe(), maybe()),
        )
            .prop_map(|((stride, offset), conv, (input, output, kernel))| {
                let padding = |p| [Padding::Unspecified, Padding::Pad, Padding::Valid][p];
                let conv = conv.map(|(dilation, p)| Conv {
                    dilation: IntOrIdent::Int(dilation),
                    kernel: "k".into(),
                    padding: padding(p),
                });
                let mut rhs = vec![slot(vec![EinsumAxis::Affine {
                    stride: IntOrIdent::Int(stride),
                    over: "o".into(),
                    offset,
                    conv: conv.clone(),
                }])];
                let mut operands = vec![open_or(input.map(|i| sizes(&[i])))];
                if conv.is_some() {
                    rhs.push(slot(vec![label("k")]));
                    operands.push(open_or(kernel.map(|k| sizes(&[k]))));
                }
                Case {
                    logic: Logic::Einsum(EinsumSpec {
                        rhs,
                        lhs: slot(vec![label("o")]),
                    }),
                    operands,
                    result: open_or(output.map(|o| sizes(&[o]))),
                }
            }),
        // Concatenations: `p0; p1; ... => p0^p1^...`.
        (prop::collection::vec(maybe(), 2..5), maybe()).prop_map(|(parts, whole)| {
            let labels: Vec<String> = (0..parts.len()).map(|i| format!("p{i}")).collect();
            Case {
                logic: Logic::Block(EinsumSpec {
                    rhs: labels.iter().map(|l| slot(vec![label(l)])).collect(),
                    lhs: slot(vec![EinsumAxis::Concat(labels.clone())]),
                }),
                operands: parts
                    .iter()
                    .map(|p| open_or(p.map(|p| sizes(&[p]))))
                    .collect(),
                result: open_or(whole.map(|w| sizes(&[w]))),
            }
        }),
        // Element counts: a terminal with a count.
        (limit(), prop::collection::vec(maybe(), 0..4), any::<bool>()).prop_map(
            |(elems, axes, open)| {
                let mut result = row(&axes);
                if open {
                    result.output.var = Some(RowVar::Anonymous);
                }
                Case {
                    logic: Logic::Terminal {
                        elems: Some(elems),
                        exact: None,
                    },
                    operands: vec![],
                    result,
                }
            }
        ),
        // A terminal with data of its own shape.
        prop::collection::vec(limit(), 1..4).prop_map(|dims| Case {
            logic: Logic::Terminal {
                elems: cell_count(&dims),
                exact: Some(dims),
            },
            operands: vec![],
            result: open_or(None),
        }),
        // Reshapes.
        (
            axes(),
            prop::option::of(prop::collection::vec(maybe(), 0..3))
        )
            .prop_map(|(from, to)| Case {
                logic: Logic::Reshape,
                operands: vec![sizes(&from)],
                result: open_or(to.map(|t| row(&t))),
            }),
        // Batch slices and fixed indices.
        (limit(), maybe()).prop_map(|(index, batch)| {
            let mut operand = sizes(&[3]);
            operand.batch = row(&[batch]).output;
            Case {
                logic: Logic::BatchSlice(index),
                operands: vec![operand],
                result: ShapeSpec {
                    batch: Row::open(vec![], RowVar::Anonymous, vec![]),
                    ..open_or(None)
                },
            }
        }),
        (limit(), maybe()).prop_map(|(index, size)| Case {
            logic: Logic::Einsum(EinsumSpec {
                rhs: vec![slot(vec![EinsumAxis::Fixed(index)])],
                lhs: slot(vec![]),
            }),
            operands: vec![open_or(size.map(|s| sizes(&[s])))],
            result: ShapeSpec::default(),
        }),
    ]
}

/// The sizes of a spec.
fn spec_sizes(spec: &ShapeSpec) -> impl Iterator<Item = u64> + '_ {
    spec.rows()
        .flat_map(|(_, r)| r.axes())
        .filter_map(|a| match a {
            ShapeAxis::Size(d) | ShapeAxis::Labeled { size: d, .. } => Some(*d),
            _ => None,
        })
}

/// Every index range of the projections (and of their blocks) fits `i64`.
fn ranges_fit(p: &Projections) -> Result<(), String> {
    let all = |indices: &[AxisIndex]| -> Result<(), String> {
        for a in indices {
            if a.checked_range(&p.product_space).is_none() {
                return Err(format!("{a:?} over {:?}", p.product_space));
            }
        }
        Ok(())
    };
    all(&p.result)?;
    for o in &p.operands {
        all(o)?;
    }
    if let Ok(blocks) = p.blocks() {
        for b in blocks {
            all(&b.result)?;
            all(&b.indices)?;
        }
    }
    Ok(())
}

/// All integer literals of an einsum spec.
fn einsum_literals(spec: &EinsumSpec) -> Vec<u64> {
    let mut out = vec![];
    for slot in spec.rhs.iter().chain(std::iter::once(&spec.lhs)) {
        for axis in slot.rows().flat_map(|(_, r)| r.axes()) {
            match axis {
                EinsumAxis::Fixed(i) => out.push(*i),
                EinsumAxis::Affine {
                    stride,
                    offset,
                    conv,
                    ..
                } => {
                    out.push(*offset);
                    for v in [Some(stride), conv.as_ref().map(|c| &c.dilation)]
                        .into_iter()
                        .flatten()
                    {
                        if let IntOrIdent::Int(n) = v {
                            out.push(*n);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// Literal texts: the limits, and numbers past 64 bits.
fn literal() -> impl Strategy<Value = String> {
    prop_oneof![
        limit().prop_map(|n| n.to_string()),
        Just("18446744073709551616".to_owned()),
        Just("99999999999999999999999999".to_owned()),
    ]
}

const TEMPLATES: [(&str, bool); 10] = [
    ("{0},{1}", false),
    ("rgb={0}, {1}", false),
    ("{0}|{1}->{2}", false),
    ("{0} => ", true),
    ("{0}*o => o", true),
    ("{0}*o+{1} => o", true),
    ("o=+{0}*k; k => o", true),
    ("{0}*o<+{1}+{2}*k; k => o", true),
    ("{0}*o+{1}*k; k => o", true),
    ("b|{0}, ..r..; ..r.. => b|{1}", true),
];

/// Cases per property: 512, or `PROPTEST_CASES` for a deeper search.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(512)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn parsing_literals_near_the_limit_bounds_them(
        template in prop::sample::select(TEMPLATES.to_vec()),
        values in prop::collection::vec(literal(), 3),
    ) {
        let (template, einsum) = template;
        let mut text = template.to_owned();
        for (i, v) in values.iter().enumerate() {
            text = text.replace(&format!("{{{i}}}"), v);
        }
        let used: Vec<&String> = (0..3)
            .filter(|i| template.contains(&format!("{{{i}}}")))
            .map(|i| &values[i])
            .collect();
        let any_too_large = used
            .iter()
            .any(|v| v.parse::<u64>().map_or(true, |n| n > MAX_SIZE));
        let (literals, error) = if einsum {
            match parse_einsum_spec(&text) {
                Ok(spec) => (einsum_literals(&spec), None),
                Err(e) => (vec![], Some(e)),
            }
        } else {
            match parse_shape_spec(&text) {
                Ok(spec) => (spec_sizes(&spec).collect(), None),
                Err(e) => (vec![], Some(e)),
            }
        };
        prop_assert!(literals.iter().all(|&n| n <= MAX_SIZE), "{text}: {literals:?}");
        match error {
            None => prop_assert!(!any_too_large, "{text} parses"),
            Some(e) if e.message.contains("is too large (at most 9223372036854775807)") => {
                let at = &text[e.span.start..e.span.end];
                prop_assert!(
                    at.parse::<u64>().map_or(true, |n| n > MAX_SIZE),
                    "{text}: {e} at `{at}`"
                );
            }
            // Other errors (a zero stride or size, an offset past its
            // stride...) come first when they are earlier in the text.
            Some(_) => {}
        }
    }

    #[test]
    fn solving_sizes_near_the_limit_never_exceeds_it(case in case()) {
        let mut p = Problem::new();
        let operands: Vec<_> = case
            .operands
            .iter()
            .map(|s| p.shape_from_spec(s, true))
            .collect();
        let result = p.shape_from_spec(&case.result, false);
        if p.add_op(OpId(0), case.logic.op(), &operands, result).is_err() {
            // A logic error (an offset past its stride, a zero stride).
            return Ok(());
        }
        if p.solve(Closing::Full).is_err() {
            return Ok(());
        }
        let solved: Vec<ShapeSpec> = operands
            .iter()
            .chain(std::iter::once(&result))
            .map(|&id| p.to_spec(id))
            .collect();
        for spec in &solved {
            prop_assert!(spec.is_concrete(), "{spec}");
            for d in spec_sizes(spec) {
                prop_assert!(d <= MAX_SIZE, "solved size {d} in {spec}");
            }
        }
        let (res, ops) = solved.split_last().expect("a result");
        let refs: Vec<&ShapeSpec> = ops.iter().collect();
        let verdict = check_op(&case.logic.check(), &refs, res);
        prop_assert!(verdict.is_ok(), "{:?}\nsolved: {:?}", verdict, solved);
        if let Ok(projections) = infer_projections(case.logic.op(), &refs, res) {
            let fit = ranges_fit(&projections);
            prop_assert!(fit.is_ok(), "{:?}\nsolved: {:?}", fit, solved);
        }
    }

    #[test]
    fn checking_and_projecting_sizes_near_the_limit_never_panics(case in case()) {
        let refs: Vec<&ShapeSpec> = case.operands.iter().collect();
        let _ = check_op(&case.logic.check(), &refs, &case.result);
        if let Ok(projections) = infer_projections(case.logic.op(), &refs, &case.result) {
            let fit = ranges_fit(&projections);
            prop_assert!(fit.is_ok(), "{:?}", fit);
        }
    }
}
