//! Build script of `ocannl-dialect`.
//!
//! 1. Reads the ODS definition (`td/Ocannl.td`) with the `tblgen` crate and
//!    generates, into `OUT_DIR`, the IRDL module (`ocannl.irdl.mlir`) and the
//!    Rust op catalog (`catalog.rs`, and `functions.rs`: the `ScalarFn` and
//!    `Accumulator` enums, one variant per function ODS names). ODS is the
//!    one definition of the dialect: nothing about ops is written twice.
//! 2. Compiles the C++ shim (`cpp/dialect_shim.cpp`: access to the IRDL
//!    dynamic type's parameters, diagnostics with notes) against the MLIR 22
//!    headers.

use std::{env, fmt::Write as _, fs, path::PathBuf};

use tblgen::{TableGenParser, record::Record};

fn main() {
    let prefix = env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    let include = format!("{prefix}/include");
    let manifest =
        PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));

    println!("cargo:rerun-if-changed=td");
    // melior's `dialect!` (typed op builders, `src/ops.rs`) finds the ODS here.
    println!(
        "cargo:rustc-env=OCANNL_TD_DIR={}",
        manifest.join("td").display()
    );
    println!("cargo:rerun-if-changed=cpp");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");

    let td = manifest.join("td");
    let keeper = TableGenParser::new()
        .add_include_directory(&include)
        .add_include_directory(td.to_str().expect("utf-8 path"))
        .add_source_file(td.join("Ocannl.td").to_str().expect("utf-8 path"))
        .parse()
        .unwrap_or_else(|e| panic!("failed to parse td/Ocannl.td: {e}"));

    let mut ops: Vec<OpDesc> = keeper
        .all_derived_definitions("Ocannl_Op")
        .map(|r| OpDesc::from_record(r).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    ops.sort_by(|a, b| a.mnemonic.cmp(&b.mnemonic));
    let mut accumulators: Vec<(String, f64)> = keeper
        .all_derived_definitions("Ocannl_Accumulator")
        .map(|r| {
            let f = r.str_value("accumFn").expect("accumFn").to_owned();
            let neutral = match r.str_value("neutral").expect("neutral") {
                "-inf" => f64::NEG_INFINITY,
                "inf" => f64::INFINITY,
                v => v
                    .parse()
                    .unwrap_or_else(|_| panic!("accumulator {f}: bad neutral element {v:?}")),
            };
            (f, neutral)
        })
        .collect();
    accumulators.sort_by(|a, b| a.0.cmp(&b.0));
    let enum_values = |op: &OpDesc, attr: &str| -> Vec<String> {
        let a = op
            .attributes
            .iter()
            .find(|a| a.name == attr)
            .unwrap_or_else(|| panic!("op {}: no {attr} attribute", op.mnemonic));
        if a.values.is_empty() {
            panic!("op {}: attribute {attr} is no enum", op.mnemonic);
        }
        a.values.clone()
    };
    // Every scalar function ODS names: ops' `scalarFn`, the values of a
    // `combine` attribute, the accumulators' functions.
    let mut functions: Vec<String> = accumulators.iter().map(|(f, _)| f.clone()).collect();
    for op in &ops {
        if op.accum == "attr" {
            for v in enum_values(op, "accum") {
                if !accumulators.iter().any(|(f, _)| *f == v) {
                    panic!(
                        "op {}: accum value {v:?} is no Ocannl_Accumulator",
                        op.mnemonic
                    );
                }
            }
        } else if !accumulators.iter().any(|(f, _)| *f == op.accum) {
            panic!(
                "op {}: accum {:?} is no Ocannl_Accumulator",
                op.mnemonic, op.accum
            );
        }
        if op.scalar_fn == "combine" {
            functions.extend(enum_values(op, "combine"));
        } else {
            functions.push(op.scalar_fn.clone());
        }
    }
    functions.sort();
    functions.dedup();
    fs::write(
        out.join("functions.rs"),
        gen_functions(&functions, &accumulators),
    )
    .expect("write functions.rs");

    fs::write(out.join("catalog.rs"), gen_catalog(&ops)).expect("write catalog.rs");
    fs::write(out.join("ocannl.irdl.mlir"), gen_irdl(&ops)).expect("write ocannl.irdl.mlir");

    cc::Build::new()
        .cpp(true)
        .compiler(env::var("CXX").unwrap_or_else(|_| "clang++-22".into()))
        .std("c++17")
        .flag("-fno-rtti")
        .flag("-fno-exceptions")
        .flag("-Wno-unused-parameter")
        .include(&include)
        .file(manifest.join("cpp/dialect_shim.cpp"))
        .compile("ocannl_dialect_shim");
}

/// One attribute argument of an op, as the catalog sees it.
struct AttrDesc {
    name: String,
    kind: String,
    /// An enum attribute's values (empty for other kinds).
    values: Vec<String>,
    required: bool,
}

/// One operand group of an op.
struct OperandDesc {
    name: String,
    variadic: bool,
    constraint: String,
}

/// Everything the generators need about one op.
struct OpDesc {
    mnemonic: String,
    logic: String,
    summary: String,
    operands: Vec<OperandDesc>,
    attributes: Vec<AttrDesc>,
    results: Vec<OperandDesc>,
    min_operands: usize,
    max_operands: Option<usize>,
    computes: String,
    scalar_fn: String,
    accum: String,
    init_operand: i64,
}

impl OpDesc {
    fn from_record(r: Record<'_>) -> Result<Self, String> {
        let name = r.name().map_err(|e| e.to_string())?.to_owned();
        let err = |what: &str| format!("op {name}: {what}");
        let mnemonic = r
            .str_value("opName")
            .map_err(|_| err("no opName"))?
            .to_owned();
        let logic = r
            .str_value("shapeLogic")
            .map_err(|_| err("no shapeLogic"))?
            .to_owned();
        let summary = r
            .str_value("summary")
            .map_err(|_| err("no summary"))?
            .to_owned();
        if summary.is_empty()
            || r.str_value("description")
                .map(str::is_empty)
                .unwrap_or(true)
        {
            return Err(err("every op needs a summary and a description"));
        }
        let mut operands = Vec::new();
        let mut attributes = Vec::new();
        let args = r.dag_value("arguments").map_err(|_| err("no arguments"))?;
        for (arg_name, init) in args.args() {
            let arg_name = arg_name.ok_or_else(|| err("unnamed argument"))?.to_owned();
            let def: Record<'_> = init
                .as_def()
                .map_err(|_| err("argument is not a def"))?
                .into();
            if def.subclass_of("Attr") {
                attributes.push(attr_desc(arg_name, def).map_err(|e| err(&e))?);
            } else {
                operands.push(operand_desc(arg_name, def).map_err(|e| err(&e))?);
            }
        }
        let mut results = Vec::new();
        for (res_name, init) in r
            .dag_value("results")
            .map_err(|_| err("no results"))?
            .args()
        {
            let def: Record<'_> = init
                .as_def()
                .map_err(|_| err("result is not a def"))?
                .into();
            results.push(
                operand_desc(res_name.unwrap_or("result").to_owned(), def).map_err(|e| err(&e))?,
            );
        }
        let singles = operands.iter().filter(|o| !o.variadic).count();
        let variadic = operands.iter().filter(|o| o.variadic).count();
        if variadic > 1 {
            return Err(err("at most one variadic operand group is supported"));
        }
        let min_field = r.int_value("minOperands").unwrap_or(-1);
        let max_field = r.int_value("maxOperands").unwrap_or(-1);
        let (min_operands, max_operands) = if variadic == 0 {
            (singles, Some(singles))
        } else {
            let min = if min_field >= 0 {
                min_field as usize
            } else {
                singles
            };
            (
                min.max(singles),
                (max_field >= 0).then_some(max_field as usize),
            )
        };
        let field = |f: &str| {
            r.str_value(f)
                .map(str::to_owned)
                .map_err(|_| err(&format!("no {f}")))
        };
        let computes = field("computes")?;
        let scalar_fn = field("scalarFn")?;
        let accum = field("accum")?;
        let init_operand = r.int_value("initOperand").unwrap_or(-1);
        Ok(Self {
            computes,
            scalar_fn,
            accum,
            init_operand,
            mnemonic,
            logic,
            summary,
            operands,
            attributes,
            results,
            min_operands,
            max_operands,
        })
    }
}

fn attr_desc(name: String, def: Record<'_>) -> Result<AttrDesc, String> {
    let optional = def.bit_value("isOptional").unwrap_or(false)
        || def
            .str_value("defaultValue")
            .map(|s| !s.is_empty())
            .unwrap_or(false);
    let base = if def.is_value_unset("baseAttr") {
        def
    } else {
        def.def_value("baseAttr").unwrap_or(def)
    };
    let base_name = base.name().map_err(|e| e.to_string())?;
    let mut values = Vec::new();
    let kind = if base.has_field("ocannlKind") {
        let kind = base.str_value("ocannlKind").map_err(|e| e.to_string())?;
        match kind {
            "shape" => "AttrKind::ShapeSpec".to_owned(),
            "einsum" => "AttrKind::EinsumSpec".to_owned(),
            "block" => "AttrKind::BlockSpec".to_owned(),
            "enum" => {
                let values_list = base
                    .list_of_strings_value("allowedValues")
                    .map_err(|e| e.to_string())?;
                let quoted: Vec<String> = values_list.iter().map(|v| format!("{v:?}")).collect();
                let kind = format!("AttrKind::Enum(&[{}])", quoted.join(", "));
                values = values_list.iter().map(|v| v.to_string()).collect();
                kind
            }
            other => return Err(format!("attribute {name}: unknown ocannlKind {other:?}")),
        }
    } else {
        match base_name {
            "I64Attr" => "AttrKind::I64".to_owned(),
            "AnyAttr" => "AttrKind::Any".to_owned(),
            other => {
                return Err(format!(
                    "attribute {name}: unsupported attribute constraint {other}"
                ));
            }
        }
    };
    Ok(AttrDesc {
        name,
        kind,
        values,
        required: !optional,
    })
}

fn operand_desc(name: String, def: Record<'_>) -> Result<OperandDesc, String> {
    let variadic = def.subclass_of("Variadic");
    if def.subclass_of("Optional") {
        return Err(format!(
            "operand {name}: Optional operands are not supported"
        ));
    }
    let base = if variadic {
        def.def_value("baseType").map_err(|e| e.to_string())?
    } else {
        def
    };
    let constraint = base.name().map_err(|e| e.to_string())?.to_owned();
    match constraint.as_str() {
        "Ocannl_AnyTensor" | "Ocannl_TensorType" => {}
        other => {
            return Err(format!(
                "operand {name}: unsupported type constraint {other}"
            ));
        }
    }
    Ok(OperandDesc {
        name,
        variadic,
        constraint,
    })
}

fn gen_catalog(ops: &[OpDesc]) -> String {
    let mut s =
        String::from("// Generated by dialect/build.rs from dialect/td/*.td; do not edit.\n&[\n");
    for op in ops {
        // The shape crate names the logics (`ShapeLogic::from_ocannl_name`,
        // a `const fn`): an unknown name fails the catalog's compilation.
        let logic = format!(
            "match ShapeLogic::from_ocannl_name({name:?}) {{ Some(l) => l, None => panic!({msg:?}) }}",
            name = op.logic,
            msg = format!("op {}: unknown shape logic {:?}", op.mnemonic, op.logic)
                .replace('{', "{{")
                .replace('}', "}}"),
        );
        let operands: Vec<String> = op
            .operands
            .iter()
            .map(|o| {
                format!(
                    "OperandDef {{ name: {:?}, variadic: {} }}",
                    o.name, o.variadic
                )
            })
            .collect();
        let attrs: Vec<String> = op
            .attributes
            .iter()
            .map(|a| {
                format!(
                    "AttrDef {{ name: {:?}, kind: {}, required: {} }}",
                    a.name, a.kind, a.required
                )
            })
            .collect();
        let max = match op.max_operands {
            Some(m) => format!("Some({m})"),
            None => "None".to_owned(),
        };
        let computes = match op.computes.as_str() {
            "nest" => "Nest",
            "blocks" => "Blocks",
            "constant" => "Constant",
            "range" => "Range",
            "reshape" => "Reshape",
            "gather" => "Gather",
            other => panic!("op {}: unknown computes {other:?}", op.mnemonic),
        };
        let init = match op.init_operand {
            -1 => "None".to_owned(),
            k if k >= 0 && (k as usize) < op.min_operands => format!("Some({k})"),
            k => panic!("op {}: initOperand {k} is not an operand", op.mnemonic),
        };
        let scalar_fn = match op.scalar_fn.as_str() {
            "combine" => "OpScalarFn::Combine".to_owned(),
            f => format!("OpScalarFn::Fixed(ScalarFn::{})", variant(f)),
        };
        let accum = match op.accum.as_str() {
            "attr" => "OpAccum::Attr".to_owned(),
            f => format!("OpAccum::Fixed(Accumulator::{})", variant(f)),
        };
        writeln!(
            s,
            "    OpDef {{ name: \"ocannl.{}\", summary: {:?}, logic: {logic}, operands: &[{}], attributes: &[{}], min_operands: {}, max_operands: {max}, computes: Computes::{computes}, scalar_fn: {scalar_fn}, accum: {accum}, init_operand: {init} }},",
            op.mnemonic,
            op.summary,
            operands.join(", "),
            attrs.join(", "),
            op.min_operands,
        )
        .expect("write to String");
    }
    s.push_str("]\n");
    s
}

/// The Rust variant name of an ODS function name: `identity` → `Identity`,
/// `log_sum` → `LogSum`.
fn variant(name: &str) -> String {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        panic!("function name {name:?} is not lower_snake_case");
    }
    name.split('_')
        .map(|w| {
            let mut cs = w.chars();
            cs.next()
                .map(|c| c.to_ascii_uppercase().to_string() + cs.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The `ScalarFn` and `Accumulator` enums: one variant per function ODS
/// names, one per `Ocannl_Accumulator`.
fn gen_functions(functions: &[String], accumulators: &[(String, f64)]) -> String {
    let mut s = String::from(
        "// Generated by dialect/build.rs from dialect/td/*.td; do not edit.\n\n\
         /// A scalar function ODS names: an op's `scalarFn`, a value of a\n\
         /// `combine` attribute, an accumulator's function.\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\n\
         pub enum ScalarFn {\n",
    );
    for f in functions {
        writeln!(s, "    /// `{f}`.\n    {},", variant(f)).expect("write to String");
    }
    s.push_str(
        "}\n\nimpl ScalarFn {\n    /// Every function, sorted by name.\n    pub const ALL: &[ScalarFn] = &[",
    );
    let all: Vec<String> = functions
        .iter()
        .map(|f| format!("ScalarFn::{}", variant(f)))
        .collect();
    s.push_str(&all.join(", "));
    s.push_str("];\n\n    /// The ODS name, e.g. `relu`.\n    pub fn name(self) -> &'static str {\n        match self {\n");
    for f in functions {
        writeln!(s, "            ScalarFn::{} => {f:?},", variant(f)).expect("write to String");
    }
    s.push_str("        }\n    }\n\n    /// The function named `name`, if ODS names one.\n    pub fn from_name(name: &str) -> Option<Self> {\n        match name {\n");
    for f in functions {
        writeln!(s, "            {f:?} => Some(ScalarFn::{}),", variant(f))
            .expect("write to String");
    }
    s.push_str("            _ => None,\n        }\n    }\n}\n\n");
    s.push_str(
        "/// An accumulation operator (ODS `Ocannl_Accumulator`): how values\n\
         /// reaching one result cell combine.\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]\n\
         pub enum Accumulator {\n",
    );
    for (f, _) in accumulators {
        writeln!(s, "    /// `{f}`.\n    {},", variant(f)).expect("write to String");
    }
    s.push_str("}\n\nimpl Accumulator {\n    /// Every accumulator, sorted by function name.\n    pub const ALL: &[Accumulator] = &[");
    let all: Vec<String> = accumulators
        .iter()
        .map(|(f, _)| format!("Accumulator::{}", variant(f)))
        .collect();
    s.push_str(&all.join(", "));
    s.push_str("];\n\n    /// The binary function combining an old and a new value.\n    pub fn function(self) -> ScalarFn {\n        match self {\n");
    for (f, _) in accumulators {
        writeln!(
            s,
            "            Accumulator::{v} => ScalarFn::{v},",
            v = variant(f)
        )
        .expect("write to String");
    }
    s.push_str("        }\n    }\n\n    /// Its neutral element: what a cell starts from, what padding reads.\n    pub fn neutral(self) -> f64 {\n        match self {\n");
    for (f, n) in accumulators {
        let n = if n.is_infinite() {
            format!("f64::{}INFINITY", if *n < 0.0 { "NEG_" } else { "" })
        } else {
            format!("{n:?}")
        };
        writeln!(s, "            Accumulator::{} => {n},", variant(f)).expect("write to String");
    }
    s.push_str("        }\n    }\n\n    /// The accumulator whose function is named `name` (an `accum`\n    /// attribute's value), if ODS declares one.\n    pub fn from_name(name: &str) -> Option<Self> {\n        match name {\n");
    for (f, _) in accumulators {
        writeln!(s, "            {f:?} => Some(Accumulator::{}),", variant(f))
            .expect("write to String");
    }
    s.push_str("            _ => None,\n        }\n    }\n}\n");
    s
}

/// Emits one IRDL type-constraint slot for an ODS type constraint and
/// returns its SSA name. IRDL binds a constraint variable to the first type
/// it matches, so every operand and result gets fresh slots of its own
/// (nested slots included).
fn irdl_type_slot(s: &mut String, next: &mut usize, constraint: &str) -> String {
    let mut fresh = |s: &mut String, rhs: &str| {
        let v = format!("%{next}");
        *next += 1;
        writeln!(s, "    {v} = {rhs}").expect("write to String");
        v
    };
    let ocannl = fresh(s, "irdl.base @ocannl::@tensor");
    if constraint == "Ocannl_TensorType" {
        return ocannl;
    }
    let ranked = fresh(s, "irdl.base \"!builtin.tensor\"");
    let unranked = fresh(s, "irdl.base \"!builtin.unranked_tensor\"");
    fresh(s, &format!("irdl.any_of({ocannl}, {ranked}, {unranked})"))
}

fn gen_irdl(ops: &[OpDesc]) -> String {
    let mut s = String::from(
        "// Generated by dialect/build.rs from dialect/td/*.td; do not edit.\n\
         // Regenerate with: OCANNL_BLESS=1 cargo test -p ocannl-dialect\n\
         //\n\
         // Load it into stock MLIR tools with `mlir-opt --irdl-file=dialect/ocannl.irdl.mlir`.\n\
         // IRDL checks operand kinds, arity and required attributes; spec strings\n\
         // and shapes are checked by the `ocannl-verify` pass. IRDL binds a\n\
         // variadic group's constraint to its first operand's type, so a variadic\n\
         // group is written as a first operand plus a homogeneous tail.\n\
         irdl.dialect @ocannl {\n\
         \x20 irdl.type @tensor {\n\
         \x20   %0 = irdl.any\n\
         \x20   %1 = irdl.base \"#builtin.string\"\n\
         \x20   irdl.parameters(elem: %0, spec: %1)\n\
         \x20 }\n",
    );
    for op in ops {
        writeln!(s, "  irdl.operation @{} {{", op.mnemonic).expect("write to String");
        let mut next = 0usize;
        let mut operand_entries = Vec::new();
        for o in &op.operands {
            if o.variadic {
                if op.min_operands >= 1 && op.operands.len() == 1 {
                    let first = irdl_type_slot(&mut s, &mut next, &o.constraint);
                    operand_entries.push(format!("{}: {first}", o.name));
                    let rest = irdl_type_slot(&mut s, &mut next, &o.constraint);
                    operand_entries.push(format!("{}_rest: variadic {rest}", o.name));
                } else {
                    let v = irdl_type_slot(&mut s, &mut next, &o.constraint);
                    operand_entries.push(format!("{}: variadic {v}", o.name));
                }
            } else {
                let v = irdl_type_slot(&mut s, &mut next, &o.constraint);
                operand_entries.push(format!("{}: {v}", o.name));
            }
        }
        let mut result_entries = Vec::new();
        for r in &op.results {
            let v = irdl_type_slot(&mut s, &mut next, &r.constraint);
            result_entries.push(format!("{}: {v}", r.name));
        }
        let mut attr_entries = Vec::new();
        for a in op.attributes.iter().filter(|a| a.required) {
            let rhs = if a.kind.starts_with("AttrKind::I64") {
                "irdl.base \"#builtin.integer\""
            } else if a.kind.starts_with("AttrKind::Any") {
                "irdl.any"
            } else {
                "irdl.base \"#builtin.string\""
            };
            let v = format!("%{next}");
            next += 1;
            writeln!(s, "    {v} = {rhs}").expect("write to String");
            attr_entries.push(format!("\"{}\" = {v}", a.name));
        }
        writeln!(s, "    irdl.operands({})", operand_entries.join(", ")).expect("write to String");
        writeln!(s, "    irdl.results({})", result_entries.join(", ")).expect("write to String");
        if !attr_entries.is_empty() {
            writeln!(s, "    irdl.attributes {{{}}}", attr_entries.join(", "))
                .expect("write to String");
        }
        s.push_str("  }\n");
    }
    s.push_str("}\n");
    s
}
