//! The C entry points (see the crate docs and `include/ocannl-c/Ocannl.h`).

#![allow(non_snake_case)] // the C API's names

use std::{
    ffi::c_void,
    panic::{AssertUnwindSafe, catch_unwind},
};

use mlir_sys::{
    MlirContext, MlirDialect, MlirDialectHandle, MlirDialectRegistry, MlirPass, MlirStringRef,
    mlirContextAppendDialectRegistry, mlirContextGetOrLoadDialect, mlirDialectRegistryCreate,
    mlirDialectRegistryDestroy,
};

/// `MlirDialectRegistrationHooks` (`mlir/CAPI/Registration.h`): what an
/// `MlirDialectHandle` points to.
#[repr(C)]
struct RegistrationHooks {
    insert: extern "C" fn(MlirDialectRegistry),
    load: extern "C" fn(MlirContext) -> MlirDialect,
    namespace: extern "C" fn() -> MlirStringRef,
}

static HOOKS: RegistrationHooks = RegistrationHooks {
    insert: insert_dialect,
    load: load_dialect,
    namespace: dialect_namespace,
};

const NAMESPACE: &str = "ocannl";

/// The ocannl dialect's handle (`MLIR_DECLARE_CAPI_DIALECT_REGISTRATION`).
#[unsafe(no_mangle)]
pub extern "C" fn mlirGetDialectHandle__ocannl__() -> MlirDialectHandle {
    MlirDialectHandle {
        ptr: &HOOKS as *const RegistrationHooks as *const c_void,
    }
}

/// Registers the ocannl dialect in `registry`.
extern "C" fn insert_dialect(registry: MlirDialectRegistry) {
    if registry.ptr.is_null() {
        return;
    }
    // SAFETY: the C API hands a live registry (checked non-null above).
    let _ = catch_unwind(|| unsafe { ocannl_dialect::register_raw(registry) });
}

/// Loads the ocannl dialect into `context` (registering it in the
/// context's registry first); a null dialect if it cannot be loaded.
extern "C" fn load_dialect(context: MlirContext) -> MlirDialect {
    let null = MlirDialect {
        ptr: std::ptr::null_mut(),
    };
    if context.ptr.is_null() {
        return null;
    }
    catch_unwind(|| {
        // SAFETY: a live context (checked non-null above); the temporary
        // registry is copied into the context and destroyed here.
        unsafe {
            let registry = mlirDialectRegistryCreate();
            ocannl_dialect::register_raw(registry);
            mlirContextAppendDialectRegistry(context, registry);
            mlirDialectRegistryDestroy(registry);
            mlirContextGetOrLoadDialect(context, string_ref(NAMESPACE))
        }
    })
    .unwrap_or(null)
}

extern "C" fn dialect_namespace() -> MlirStringRef {
    string_ref(NAMESPACE)
}

fn string_ref(s: &'static str) -> MlirStringRef {
    MlirStringRef {
        data: s.as_ptr().cast(),
        length: s.len(),
    }
}

/// Registers every ocannl pass and named pipeline (`ocannl-to-affine`,
/// `ocannl-to-llvm`, `ocannl-to-nvvm`) in MLIR's global pass registry.
/// Idempotent. The named pipelines other than `ocannl-to-affine` name
/// upstream passes, which the host registers (`mlir::registerAllPasses()`).
#[unsafe(no_mangle)]
pub extern "C" fn mlirRegisterOcannlPasses() {
    let _ = catch_unwind(ocannl_passes::register_all);
}

/// A new pass `argument` with its default options, or a null pass.
fn create(argument: &str) -> MlirPass {
    catch_unwind(AssertUnwindSafe(|| {
        ocannl_passes::registry::create_pass(argument).map(|p| p.to_raw())
    }))
    .ok()
    .flatten()
    .unwrap_or(MlirPass {
        ptr: std::ptr::null_mut(),
    })
}

/// `ocannl-verify`: checks specs, arities, attributes and each op's shape
/// constraints locally.
#[unsafe(no_mangle)]
pub extern "C" fn mlirCreateOcannlVerify() -> MlirPass {
    create("ocannl-verify")
}

/// `ocannl-infer-shapes`: solves every function's shapes (`close=true`).
#[unsafe(no_mangle)]
pub extern "C" fn mlirCreateOcannlInferShapes() -> MlirPass {
    create("ocannl-infer-shapes")
}

/// `ocannl-check-shapes`: checks fully known types against each op.
#[unsafe(no_mangle)]
pub extern "C" fn mlirCreateOcannlCheckShapes() -> MlirPass {
    create("ocannl-check-shapes")
}

/// `ocannl-infer-projections`: each op's loop nest as attributes.
#[unsafe(no_mangle)]
pub extern "C" fn mlirCreateOcannlInferProjections() -> MlirPass {
    create("ocannl-infer-projections")
}

/// `ocannl-plan-schedule`: each op's schedule as an attribute (CPU target).
#[unsafe(no_mangle)]
pub extern "C" fn mlirCreateOcannlPlanSchedule() -> MlirPass {
    create("ocannl-plan-schedule")
}

/// `ocannl-lower-to-affine`: memrefs and affine loop nests, as the
/// schedules say.
#[unsafe(no_mangle)]
pub extern "C" fn mlirCreateOcannlLowerToAffine() -> MlirPass {
    create("ocannl-lower-to-affine")
}
