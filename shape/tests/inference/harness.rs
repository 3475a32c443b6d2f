//! A tiny program format for inference tests:
//!
//! ```text
//! arg a : 2|3->4              # a function argument (terminal)
//! t = add(a, b) : ...|...->...  # an op result with its declared spec
//! e = einsum["i; i => "](a, b) : ...
//! s = batch_slice[2](x) : ...
//! c = constant[elems=6]() : ...
//! r = reshape(x) : ...
//! k = concat["a; b => a^b"](x, y) : ...
//! ```

use std::collections::HashMap;

use ocannl_shape::{
    check::{CheckLogic, check_op},
    problem::{OpLogic, Problem, ShapeId},
    projection::cell_count,
    solver::{Closing, OpId, ShapeError},
    spec::{EinsumSpec, ShapeSpec, parse_block_spec, parse_einsum_spec, parse_shape_spec},
};

/// One parsed line.
#[derive(Debug, Clone)]
pub struct Line {
    pub name: String,
    pub logic: String,
    pub attr: Option<String>,
    pub operands: Vec<String>,
    pub spec: String,
}

pub fn parse_program(src: &str) -> Vec<Line> {
    src.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            // The scalar's spec is empty: the trimmed line ends in ` :`.
            let (lhs, spec) = l
                .rsplit_once(" : ")
                .or_else(|| Some((l.strip_suffix(" :")?, "")))
                .unwrap_or_else(|| panic!("no ` : SPEC` in {l:?}"));
            let spec = spec.trim().to_owned();
            if let Some(name) = lhs.strip_prefix("arg ") {
                return Line {
                    name: name.trim().into(),
                    logic: "arg".into(),
                    attr: None,
                    operands: vec![],
                    spec,
                };
            }
            let (name, call) = lhs
                .split_once(" = ")
                .unwrap_or_else(|| panic!("no ` = ` in {l:?}"));
            let open = call.rfind('(').expect("operand list");
            let head = &call[..open];
            let args = call[open + 1..].trim_end_matches(')');
            let (logic, attr) = match head.split_once('[') {
                Some((logic, rest)) => (
                    logic.to_owned(),
                    Some(rest.trim_end_matches(']').trim_matches('"').to_owned()),
                ),
                None => (head.to_owned(), None),
            };
            let operands = args
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
            Line {
                name: name.trim().into(),
                logic,
                attr,
                operands,
                spec,
            }
        })
        .collect()
}

/// A built problem: the problem and the shape of every named tensor.
pub struct Built {
    pub problem: Problem,
    pub names: Vec<(String, ShapeId)>,
    pub lines: Vec<Line>,
    pub einsums: Vec<EinsumSpec>,
    /// Per line, the shape of its attribute spec (`range["20"]`), if any.
    pub attrs: Vec<Option<ShapeId>>,
}

pub fn build(src: &str) -> Built {
    let lines = parse_program(src);
    let mut problem = Problem::new();
    let mut ids: HashMap<String, ShapeId> = HashMap::new();
    let mut names = vec![];
    let mut einsums = vec![];
    for (i, line) in lines.iter().enumerate() {
        let spec = parse_shape_spec(&line.spec).unwrap_or_else(|e| panic!("{}: {e}", line.spec));
        let terminal = line.logic == "arg";
        let id = problem.shape_from_spec(&spec, terminal);
        if line.logic == "einsum" {
            einsums.push(
                parse_einsum_spec(line.attr.as_deref().expect("einsum spec"))
                    .expect("einsum spec parses"),
            );
        }
        if line.logic == "concat" {
            einsums.push(
                parse_block_spec(line.attr.as_deref().expect("block spec"))
                    .expect("block spec parses"),
            );
        }
        ids.insert(line.name.clone(), id);
        names.push((line.name.clone(), id));
        let _ = i;
    }
    let mut einsum_iter = 0;
    let mut attrs = vec![None; lines.len()];
    // `constant[exact=2x3]`: the data's own shape.
    let exacts: Vec<Option<Vec<u64>>> = lines
        .iter()
        .map(|l| {
            l.attr
                .as_deref()
                .and_then(|a| a.strip_prefix("exact="))
                .map(|dims| dims.split('x').map(|d| d.parse().expect("int")).collect())
        })
        .collect();
    for (i, line) in lines.iter().enumerate() {
        if line.logic == "arg" {
            continue;
        }
        let operands: Vec<ShapeId> = line
            .operands
            .iter()
            .map(|o| *ids.get(o).unwrap_or_else(|| panic!("unknown tensor {o}")))
            .collect();
        let result = ids[&line.name];
        let attr_spec = line.attr.as_ref().map(|a| a.to_owned());
        let spec_shape = match (line.logic.as_str(), &attr_spec) {
            ("range" | "constant", Some(a))
                if !a.starts_with("elems=") && !a.starts_with("exact=") =>
            {
                Some(problem.shape_from_spec(&parse_shape_spec(a).expect("attribute spec"), true))
            }
            _ => None,
        };
        attrs[i] = spec_shape;
        let logic = match line.logic.as_str() {
            "neg" | "relu" | "exp" => OpLogic::PointwiseUn,
            "add" | "sub" | "mul" => OpLogic::PointwiseBin,
            "where" => OpLogic::PointwiseTern,
            "matmul" => OpLogic::Compose,
            "fma" => OpLogic::ComposeAccumulate,
            "transpose" => OpLogic::Transpose,
            "einsum" => {
                einsum_iter += 1;
                OpLogic::Einsum(&einsums[einsum_iter - 1])
            }
            "concat" => {
                einsum_iter += 1;
                OpLogic::Block(&einsums[einsum_iter - 1])
            }
            "batch_slice" => OpLogic::BatchSlice {
                index: attr_spec.as_deref().expect("index").parse().expect("int"),
            },
            "constant" => OpLogic::Terminal {
                spec: spec_shape,
                elems: attr_spec
                    .as_deref()
                    .and_then(|a| a.strip_prefix("elems="))
                    .map(|n| n.parse().expect("int"))
                    .or_else(|| exacts[i].as_deref().and_then(cell_count)),
                exact: exacts[i].as_deref(),
            },
            "range" => OpLogic::Terminal {
                spec: spec_shape,
                elems: None,
                exact: None,
            },
            "reshape" => OpLogic::Reshape,
            other => panic!("unknown logic {other}"),
        };
        problem
            .add_op(OpId(i as u32), logic, &operands, result)
            .expect("logic fits");
    }
    Built {
        problem,
        names,
        lines,
        einsums,
        attrs,
    }
}

/// The checker's view of line `i`'s logic; `None` for arguments.
fn check_logic(built: &Built, i: usize, einsum_index: &mut usize) -> Option<CheckLogic> {
    let line = &built.lines[i];
    let attr = line.attr.as_deref();
    Some(match line.logic.as_str() {
        "arg" => return None,
        "neg" | "relu" | "exp" => CheckLogic::PointwiseUn,
        "add" | "sub" | "mul" => CheckLogic::PointwiseBin,
        "where" => CheckLogic::PointwiseTern,
        "matmul" => CheckLogic::Compose,
        "fma" => CheckLogic::ComposeAccumulate,
        "transpose" => CheckLogic::Transpose,
        "einsum" => {
            *einsum_index += 1;
            CheckLogic::Einsum(built.einsums[*einsum_index - 1].clone())
        }
        "concat" => {
            *einsum_index += 1;
            CheckLogic::Block(built.einsums[*einsum_index - 1].clone())
        }
        "batch_slice" => CheckLogic::BatchSlice {
            index: attr.expect("index").parse().expect("int"),
        },
        "constant" | "range" => {
            let exact: Option<Vec<u64>> = attr
                .and_then(|a| a.strip_prefix("exact="))
                .map(|d| d.split('x').map(|x| x.parse().expect("int")).collect());
            CheckLogic::Terminal {
                spec: built.attrs[i].map(|id| built.problem.to_spec(id)),
                elems: attr
                    .and_then(|a| a.strip_prefix("elems="))
                    .map(|n| n.parse().expect("int"))
                    .or_else(|| exact.as_deref().and_then(cell_count)),
                exact,
            }
        }
        "reshape" => CheckLogic::Reshape,
        other => panic!("unknown logic {other}"),
    })
}

/// After a successful solve: every named tensor's solved spec is concrete,
/// and the independent checker ([`ocannl_shape::check`]) confirms every op.
pub fn verify_solution(built: &Built) -> Result<(), String> {
    let specs: HashMap<&str, ShapeSpec> = built
        .names
        .iter()
        .map(|(name, id)| (name.as_str(), built.problem.to_spec(*id)))
        .collect();
    for (name, _) in &built.names {
        if !specs[name.as_str()].is_concrete() {
            return Err(format!(
                "{name}: solved spec `{}` is not concrete",
                specs[name.as_str()]
            ));
        }
    }
    let mut einsum_index = 0;
    for (i, line) in built.lines.iter().enumerate() {
        let Some(logic) = check_logic(built, i, &mut einsum_index) else {
            continue;
        };
        let operands: Vec<&ShapeSpec> = line.operands.iter().map(|o| &specs[o.as_str()]).collect();
        check_op(&logic, &operands, &specs[line.name.as_str()]).map_err(|e| {
            let rendered: Vec<String> = line
                .operands
                .iter()
                .chain(std::iter::once(&line.name))
                .map(|n| format!("{n}: {}", specs[n.as_str()]))
                .collect();
            format!(
                "op `{}` ({}): {e}\nsolved: {}",
                line.name,
                line.logic,
                rendered.join(", ")
            )
        })?;
    }
    Ok(())
}

/// Solves and renders `name: spec` lines (or the error).
pub fn solve_and_render(built: &mut Built, closing: Closing) -> Result<String, ShapeError> {
    built.problem.solve(closing)?;
    Ok(built
        .names
        .iter()
        .map(|(name, id)| format!("{name}: {}", built.problem.to_spec(*id)))
        .collect::<Vec<_>>()
        .join("\n"))
}

/// `check(program, expected)`: the rendered solution, or `error: KIND`.
#[track_caller]
pub fn check(src: &str, expected: &str) {
    let mut built = build(src);
    let actual = match solve_and_render(&mut built, Closing::Full) {
        Ok(s) => {
            if let Err(e) = verify_solution(&built) {
                panic!("the checker rejects the solution: {e}\nprogram:\n{src}\nsolution:\n{s}");
            }
            s
        }
        Err(e) => format!("error: {}", e.kind),
    };
    let actual: String = actual.lines().map(str::trim).collect::<Vec<_>>().join("\n");
    let expected: String = expected
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        actual,
        expected,
        "\nprogram:\n{src}\nfull: {:?}",
        solve_err(src)
    );
}

fn solve_err(src: &str) -> Option<ShapeError> {
    let mut built = build(src);
    solve_and_render(&mut built, Closing::Full).err()
}
