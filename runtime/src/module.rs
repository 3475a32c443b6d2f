//! The module-level steps of [`crate::Program::compile`]: the entry
//! function (found, chosen, its inputs bound), the pipeline run with
//! diagnostics, the functions renamed apart from the runtime's, the
//! inferred signature and the intermediates' memory.

use super::*;

pub(crate) fn functions<'c, 'm>(
    module: &'m Module<'c>,
) -> Vec<(String, melior::ir::operation::OperationRef<'c, 'm>)> {
    let mut out = Vec::new();
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        if matches!(ir::op_name(&op).as_str(), "func.func" | "llvm.func")
            && let Some(name) = ir::string_attr(&op, "sym_name")
        {
            out.push((name, op));
        }
        next = op.next_in_block();
    }
    out
}

/// The function `@entry` (found by [`find_entry`]).
pub(crate) fn entry_function<'c, 'm>(
    module: &'m Module<'c>,
    entry: &str,
) -> Result<melior::ir::operation::OperationRef<'c, 'm>, Error> {
    functions(module)
        .into_iter()
        .find(|(n, _)| n == entry)
        .map(|(_, f)| f)
        .ok_or_else(|| Error::new(format!("no function '@{entry}'")))
}

/// A function named `name` inside a nested `builtin.module` (for the error
/// that says where it is).
pub(crate) fn nested_function<'c, 'm>(
    module: &'m Module<'c>,
    name: &str,
) -> Option<melior::ir::operation::OperationRef<'c, 'm>> {
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        if ir::op_name(&op) == "builtin.module" {
            let found = ir::collect_ops(op, |inner| {
                let kind = ir::op_name(&inner);
                let function = matches!(kind.as_str(), "func.func" | "llvm.func");
                ir::Select {
                    keep: function && ir::string_attr(&inner, "sym_name").as_deref() == Some(name),
                    descend: kind == "builtin.module",
                }
            });
            if let Some(f) = found.into_iter().next() {
                return Some(f);
            }
        }
        next = op.next_in_block();
    }
    None
}

/// The entry function's name: `entry`, or the only function; it must have
/// a body, and so must every function the module calls (the JIT links no
/// external function on tensors).
pub(crate) fn find_entry(
    module: &Module<'_>,
    entry: Option<&str>,
    path: &Path,
) -> Result<String, Error> {
    let name = choose_entry(module, entry, path)?;
    let funcs = functions(module);
    let is_declaration = |f: &melior::ir::operation::OperationRef<'_, '_>| {
        f.region(0).ok().is_none_or(|r| r.first_block().is_none())
    };
    let called: std::collections::HashSet<String> = funcs
        .iter()
        .flat_map(|&(_, f)| {
            ir::collect_ops(f, |op| ir::Select {
                keep: ir::op_name(&op) == "func.call",
                descend: true,
            })
        })
        .filter_map(|call| call.attribute("callee").ok().and_then(ir::symbol_ref_value))
        .collect();
    if let Some((callee, f)) = funcs
        .iter()
        .find(|(n, f)| is_declaration(f) && called.contains(n))
    {
        return Err(Error::located(
            f.location(),
            &format!(
                "'@{callee}' is called but has no body: ocannl-run links no external functions"
            ),
        ));
    }
    if let Some((_, f)) = funcs.iter().find(|(n, _)| *n == name)
        && is_declaration(f)
    {
        return Err(Error::located(
            f.location(),
            &format!("'@{name}' is a declaration: ocannl-run runs a function with a body"),
        ));
    }
    Ok(name)
}

pub(crate) fn choose_entry(
    module: &Module<'_>,
    entry: Option<&str>,
    path: &Path,
) -> Result<String, Error> {
    let names: Vec<String> = functions(module).into_iter().map(|(n, _)| n).collect();
    let listed = || {
        if names.is_empty() {
            "it has no functions".to_owned()
        } else {
            format!(
                "its functions: {}",
                names
                    .iter()
                    .map(|n| format!("@{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    };
    match entry {
        Some(e) => {
            let e = e.trim_start_matches('@');
            if names.iter().any(|n| n == e) {
                Ok(e.to_owned())
            } else if let Some(nested) = nested_function(module, e) {
                Err(Error::located(
                    nested.location(),
                    &format!(
                        "'@{e}' is in a nested module: ocannl-run runs a function of the top-level module ({})",
                        listed()
                    ),
                ))
            } else {
                Err(Error::new(format!(
                    "no function '@{e}' in '{}' ({})",
                    path.display(),
                    listed()
                )))
            }
        }
        None if names.len() == 1 => Ok(names[0].clone()),
        None => Err(Error::new(format!(
            "name the entry function with --entry ({})",
            listed()
        ))),
    }
}

/// Settles the open parts of the entry's argument shapes from the data's
/// dimensions (after inference without closing).
pub(crate) fn bind_inputs(
    module: &Module<'_>,
    entry: &str,
    inputs: &[InputShape],
) -> Result<(), Error> {
    let func = entry_function(module, entry)?;
    let body = func
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or_else(|| Error::new(format!("'@{entry}' has no body")))?;
    if inputs.len() != body.argument_count() {
        return Err(Error::new(format!(
            "the entry function takes {} argument(s) but {} input(s) were given",
            body.argument_count(),
            inputs.len()
        )));
    }
    for (i, input) in inputs.iter().enumerate() {
        let (dims, name) = (&input.dims, &input.name);
        let arg: melior::ir::Value<'_, '_> = body.argument(i).expect("counted").into();
        use melior::ir::ValueLike;
        let Some(spec) = shape_spec(arg.r#type()).ok().flatten() else {
            return Err(Error::located(
                arg.location(),
                &format!(
                    "argument #{i} of '@{entry}' is not a tensor ({})",
                    arg.r#type()
                ),
            ));
        };
        if let Ok(known) = memory_dims(&spec) {
            if &known != dims {
                return Err(Error::located(
                    arg.location(),
                    &format!(
                        "argument #{i} has the inferred shape {known:?} (spec \"{spec}\") but its input {name} has shape {dims:?}"
                    ),
                ));
            }
            continue;
        }
        let (bound, bindings) = match bind::bind_memory_dims(&spec, dims) {
            Ok(b) => b,
            // Several row variables could take the data's axes: closing
            // decides, and the data is checked against the result.
            Err(bind::BindError::Ambiguous(_)) => continue,
            Err(e) => {
                return Err(Error::located(
                    arg.location(),
                    &format!(
                        "argument #{i} has the shape \"{spec}\" after inference, which its input {name} of shape {dims:?} does not fit: {e}"
                    ),
                ));
            }
        };
        ocannl_passes::tensor_types::set_value_spec(arg, &bound);
        ocannl_passes::tensor_types::map_function_specs(func, &|s| bind::substitute(s, &bindings));
    }
    Ok(())
}

/// Runs `passes` on `module`, then verifies it once: not after each pass
/// (`mlir-opt`'s default, which `ocannl-opt` and the lit tests keep), which
/// cost ResNet-50 0.3 s of its compilation (verifying the module after
/// each of the lowering's 14 passes).
pub(crate) fn run_pipeline(
    context: &Context,
    module: &mut Module<'_>,
    passes: &str,
    what: &str,
) -> Result<(), Error> {
    let pm = PassManager::new(context);
    pm.enable_verifier(false);
    melior::utility::parse_pass_pipeline(
        pm.as_operation_pass_manager(),
        &format!("builtin.module({passes})"),
    )
    .map_err(|e| Error::new(format!("internal error: bad pipeline '{passes}': {e}")))?;
    pm.run(module)
        .map_err(|_| Error::new(format!("{what} (see the errors above)")))?;
    if module.as_operation().verify() {
        Ok(())
    } else {
        Err(Error::new(format!(
            "internal error: the module does not verify after '{passes}' (see the errors above)"
        )))
    }
}

/// Renames every function defined in `module` (in the LLVM dialect) to
/// `__ocannl_fn<k>`, and every use; returns the new name of `entry`.
pub(crate) fn rename_functions(
    context: &Context,
    module: &Module<'_>,
    entry: &str,
) -> Result<String, Error> {
    let mut renamed = std::collections::HashMap::new();
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let defined = op.region(0).ok().and_then(|r| r.first_block()).is_some();
        let Some(old) = ir::string_attr(&op, "sym_name") else {
            continue;
        };
        if ir::op_name(&op) != "llvm.func" || !defined {
            continue;
        }
        let new = format!("__ocannl_fn{}", renamed.len());
        ir::set_attribute(
            op,
            "sym_name",
            melior::ir::attribute::StringAttribute::new(context, &new).into(),
        );
        renamed.insert(old, new);
    }
    ffi::rename_symbol_refs(context, module, &renamed);
    renamed
        .get(entry)
        .cloned()
        .ok_or_else(|| Error::new(format!("cannot find '@{entry}' in the compiled code")))
}

/// Whether an `llvm.call` (or an `llvm.mlir.addressof`) in `module` names
/// the function `name`.
pub(crate) fn is_called(module: &Module<'_>, name: &str) -> bool {
    let uses = ir::collect_ops(module.as_operation(), |op| {
        let kind = ir::op_name(&op);
        let attr = match kind.as_str() {
            "llvm.call" => "callee",
            "llvm.mlir.addressof" => "global_name",
            _ => {
                return ir::Select {
                    keep: false,
                    descend: true,
                };
            }
        };
        ir::Select {
            keep: op
                .attribute(attr)
                .ok()
                .and_then(ir::symbol_ref_value)
                .is_some_and(|callee| callee == name),
            descend: false,
        }
    });
    !uses.is_empty()
}

/// The bytes the lowered functions of `module` allocate for intermediates
/// at most (each records its own peak; calls nest, and no function calls
/// itself, so the sum bounds any call chain).
pub(crate) fn intermediate_bytes(module: &Module<'_>) -> u64 {
    functions(module)
        .iter()
        .filter_map(|(_, f)| f.attribute("ocannl.intermediate_bytes").ok())
        .filter_map(ir::integer_value)
        .fold(0u64, |acc, b| acc.saturating_add(b.max(0) as u64))
}

pub(crate) fn signature(module: &Module<'_>, entry: &str) -> Result<Signature, Error> {
    let func = entry_function(module, entry)?;
    let ftype = func
        .attribute("function_type")
        .ok()
        .and_then(|a| TypeAttribute::try_from(a).ok())
        .and_then(|t| FunctionType::try_from(t.value()).ok())
        .ok_or_else(|| Error::new(format!("'@{entry}' has no function type")))?;
    let body = func.region(0).ok().and_then(|r| r.first_block());
    let sig = |ty: melior::ir::Type<'_>, what: String, location| -> Result<TensorSig, Error> {
        let fail = |message: String| Error::located(location, &message);
        let tensor = TensorType::classify(ty)
            .ok_or_else(|| fail(format!("{what} of '@{entry}' is not a tensor ({ty})")))?;
        let elem_name = tensor.element_type().to_string();
        let elem = Elem::from_mlir(&elem_name).ok_or_else(|| {
            fail(format!(
                "{what} of '@{entry}' has element type {elem_name}: ocannl-run exchanges f16, bf16, f32, f64, i1, i8, i16, i32, i64, ui8, ui16, ui32 and ui64"
            ))
        })?;
        let spec = shape_spec(ty)
            .ok()
            .flatten()
            .ok_or_else(|| fail(format!("{what} of '@{entry}' has an invalid shape")))?;
        let dims = memory_dims(&spec).map_err(|_| {
            fail(format!(
                "{what} of '@{entry}' has the shape \"{spec}\" after inference: give its sizes in the function"
            ))
        })?;
        Ok(TensorSig {
            elem,
            dims,
            spec: spec.to_string(),
        })
    };
    let arg_location = |i: usize| {
        use melior::ir::ValueLike;
        body.and_then(|b| b.argument(i).ok())
            .map_or(func.location(), |a| a.location())
    };
    Ok(Signature {
        inputs: (0..ftype.input_count())
            .map(|i| {
                sig(
                    ftype.input(i).expect("in range"),
                    format!("argument #{i}"),
                    arg_location(i),
                )
            })
            .collect::<Result<_, _>>()?,
        outputs: (0..ftype.result_count())
            .map(|i| {
                sig(
                    ftype.result(i).expect("in range"),
                    format!("result #{i}"),
                    func.location(),
                )
            })
            .collect::<Result<_, _>>()?,
    })
}
