//! `ocannl-dialect`: the ocannl MLIR dialect.
//!
//! The dialect is defined once, in ODS (`dialect/td/*.td`). The build script
//! reads it with the `tblgen` crate and generates
//! - the IRDL module [`IRDL`] that MLIR loads at run time (checked in as
//!   `dialect/ocannl.irdl.mlir` so stock `mlir-opt --irdl-file=` works without
//!   building anything; a test keeps the copy current), and
//! - the op [`catalog`]: op name → shape logic, operands, attributes.
//!
//! [`types`] converts between MLIR types (`!ocannl.tensor<ELEM, "SPEC">` and
//! builtin tensors) and [`ocannl_shape`] specs; [`diagnostics`] emits MLIR
//! diagnostics with notes.
#![warn(missing_docs)]

pub mod catalog;
pub mod diagnostics;
mod ffi;
// Generated accessors; the ops are documented in ODS. Their string
// accessors use melior's `StringRef::as_str`, which panics on empty strings:
// the passes read attributes through [`ir`] instead.
#[allow(missing_docs, clippy::disallowed_methods)]
pub mod ops;
pub mod types;

/// Safe access to the pieces of the MLIR C API that melior lacks or gets
/// wrong (empty strings): string, integer, float and elements attributes,
/// shaped types, setting attributes through an `OperationRef`. The other
/// ocannl crates use these instead of raw `mlir_sys` calls.
pub mod ir {
    pub use crate::ffi::{
        Elements, Select, affine_map_attr, affine_map_value, bit_width, clone_op, collect_ops,
        dense_from_bytes, dense_raw_bytes, elements, erase_op, float_value, function_type,
        has_uses, integer_set_attr, integer_value, is_dense_elements, is_plain_memref,
        is_signless_integer, is_unsigned_integer, op_name, ranked_tensor_type, remove_attribute,
        replace_uses_of_with, reshape_dense, set_attribute, set_discardable_attribute, shaped_dims,
        shaped_element, signless, str_of, string_attr, string_value, symbol_ref_value,
    };
}

use melior::{Context, ir::Module};

/// The IRDL definition of the dialect, generated from ODS by the build script.
pub const IRDL: &str = include_str!(concat!(env!("OUT_DIR"), "/ocannl.irdl.mlir"));

/// Errors of this crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The IRDL module did not parse or load (an internal invariant: the
    /// generated module is tested).
    #[error("failed to load the ocannl dialect from its IRDL definition")]
    IrdlLoad,
}

/// Loads the ocannl dialect into `context` from [`IRDL`]. The context must
/// have the IRDL dialect available (e.g. after
/// `melior::utility::register_all_dialects`).
pub fn load(context: &Context) -> Result<(), Error> {
    // Parsing the IRDL module below fails when the IRDL dialect is missing.
    context.get_or_load_dialect("irdl");
    let module = Module::parse(context, IRDL).ok_or(Error::IrdlLoad)?;
    if !melior::utility::load_irdl_dialects(&module) {
        return Err(Error::IrdlLoad);
    }
    relax_variadic_verifiers(context)
}

/// Registers the ocannl dialect in `registry`: a context the registry is
/// appended to loads the dialect from [`IRDL`] when it first parses an
/// `ocannl` op or type (or is asked for the dialect), then patches it as
/// [`relax_variadic_verifiers`] does. This is how `ocannl-opt`, the
/// `mlir-opt` plugin and C++ compilers (`mlirGetDialectHandle__ocannl__`)
/// get the dialect. Registering twice is a no-op.
pub fn register(registry: &melior::dialect::DialectRegistry) {
    ffi::register_dialect(registry);
}

pub use ffi::register_raw;

/// Patches what IRDL cannot express into the ocannl dialect loaded in
/// `context`:
///
/// - the variadic ops get per-operand verifiers. IRDL binds a constraint to
///   the first type it matches, so its verifier would make all operands of
///   a variadic group (einsum, concat) have one type; those ops get a
///   verifier that checks each operand on its own (see
///   `ocannlRelaxVariadicVerifier` in the C++ shim); `--irdl-file` in stock
///   `mlir-opt` keeps IRDL's stricter check
///   (docs/decisions/0008-irdl-variadic-verifiers.md);
/// - every op's custom-syntax parser reports an error at the op (IRDL
///   defines no custom syntax, and its default parser fails without a
///   diagnostic).
///
/// # Errors
///
/// [`Error::IrdlLoad`] when the ocannl dialect is not loaded in `context`.
pub fn relax_variadic_verifiers(context: &Context) -> Result<(), Error> {
    for def in catalog::OPS {
        if !ffi::reject_custom_syntax(context, def.name) {
            return Err(Error::IrdlLoad);
        }
        if !def.operands.iter().any(|o| o.variadic) {
            continue;
        }
        let attrs: Vec<&str> = def
            .attributes
            .iter()
            .filter(|a| {
                a.required && !matches!(a.kind, catalog::AttrKind::I64 | catalog::AttrKind::Any)
            })
            .map(|a| a.name)
            .collect();
        if !ffi::relax_variadic_verifier(context, def.name, def.min_operands, &attrs) {
            return Err(Error::IrdlLoad);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use melior::{
        Context,
        dialect::DialectRegistry,
        ir::{BlockLike, Module, operation::OperationLike},
        utility::register_all_dialects,
    };

    use super::*;

    /// The checked-in `dialect/ocannl.irdl.mlir` is what the build script
    /// generates from ODS. Re-bless with `OCANNL_BLESS=1`.
    #[test]
    fn checked_in_irdl_is_current() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("ocannl.irdl.mlir");
        if std::env::var_os("OCANNL_BLESS").is_some() {
            std::fs::write(&path, IRDL).expect("write dialect/ocannl.irdl.mlir");
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == IRDL,
            "dialect/ocannl.irdl.mlir is stale: regenerate it with `OCANNL_BLESS=1 cargo test -p ocannl-dialect`"
        );
    }

    fn context() -> Context {
        let registry = DialectRegistry::new();
        register_all_dialects(&registry);
        let context = Context::new();
        context.append_dialect_registry(&registry);
        load(&context).expect("the generated IRDL loads");
        context
    }

    /// Types round-trip between MLIR and the shape specs.
    #[test]
    fn tensor_types_and_specs() {
        let context = context();
        let module = Module::parse(
            &context,
            r#"func.func private @f(!ocannl.tensor<f32, "2|3->n">, tensor<4x?xf32>, tensor<*xi8>, i32)"#,
        )
        .expect("parses");
        let func = module.body().first_operation().expect("one function");
        let fty = melior::ir::r#type::FunctionType::try_from(
            melior::ir::attribute::TypeAttribute::try_from(
                func.attribute("function_type").expect("has a type"),
            )
            .expect("a type attribute")
            .value(),
        )
        .expect("a function type");
        let specs: Vec<Option<String>> = (0..fty.input_count())
            .map(|i| {
                types::shape_spec(fty.input(i).expect("input"))
                    .expect("parses")
                    .map(|s| s.to_string())
            })
            .collect();
        assert_eq!(
            specs,
            vec![
                Some("2|3->n".to_owned()),
                Some("4,_".to_owned()),
                Some("...".to_owned()),
                None
            ]
        );
        let elem = melior::ir::Type::float32(&context);
        typed_builder_builds_a_verified_op(&context, elem);
        let built = types::ocannl_tensor_type(elem, "b|i->o").expect("dialect is loaded");
        assert_eq!(built.to_string(), r#"!ocannl.tensor<f32, "b|i->o">"#);
        assert_eq!(
            types::TensorType::classify(built),
            Some(types::TensorType::Ocannl {
                elem,
                spec: "b|i->o".into()
            })
        );
    }

    /// The melior `dialect!` builders generated from ODS build ops that the
    /// IRDL definition accepts.
    fn typed_builder_builds_a_verified_op<'c>(context: &'c Context, elem: melior::ir::Type<'c>) {
        use melior::ir::{Block, Location, Region, RegionLike, attribute::StringAttribute};
        let location = Location::unknown(context);
        let t2 = types::ocannl_tensor_type(elem, "2").expect("dialect is loaded");
        let t3 = types::ocannl_tensor_type(elem, "3").expect("dialect is loaded");
        let block = Block::new(&[(t2, location), (t3, location)]);
        let (a, b) = (
            block.argument(0).expect("arg").into(),
            block.argument(1).expect("arg").into(),
        );
        let add = ops::ocannl::add(context, t2, a, b, location);
        let einsum = ops::ocannl::EinsumOperation::builder(context, location)
            .result(t3)
            .inputs(&[a, b])
            .spec(StringAttribute::new(context, "i; j => j"))
            .build();
        assert_eq!(
            einsum
                .spec()
                .ok()
                .and_then(|s| ir::string_value(s.into()))
                .as_deref(),
            Some("i; j => j")
        );
        block.append_operation(add.into());
        block.append_operation(einsum.into());
        block.append_operation(melior::dialect::func::r#return(&[], location));
        let region = Region::new();
        region.append_block(block);
        let fty = melior::ir::r#type::FunctionType::new(context, &[t2, t3], &[]);
        let holder = melior::dialect::func::func(
            context,
            StringAttribute::new(context, "f"),
            melior::ir::attribute::TypeAttribute::new(fty.into()),
            region,
            &[],
            location,
        );
        assert!(holder.verify(), "typed builders produce valid ops");
        let text = holder.to_string();
        assert!(text.contains(r#""ocannl.add"(%arg0, %arg1)"#), "{text}");
        assert!(text.contains(r#"{spec = "i; j => j"}"#), "{text}");
    }
}
