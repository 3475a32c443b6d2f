//! The parts of a split module ([`crate::split`]) compiled by one execution
//! engine each, on one thread each.

use std::{ffi::c_void, path::PathBuf};

use melior::ir::{Module, operation::OperationRef};

use super::{BoundConstants, Engine};
use crate::Error;

/// Makes the function `f` a declaration: its body is moved into a region
/// of its own, which is destroyed (dropping its ops' references first).
pub(crate) fn drop_body(f: OperationRef<'_, '_>) {
    // SAFETY: `f` is a live function op with one region; the new region is
    // owned here and destroyed once; nothing outside the body uses a value
    // defined inside it (a function's body is isolated from above).
    unsafe {
        let body = mlir_sys::mlirOperationGetRegion(f.to_raw(), 0);
        let taken = mlir_sys::mlirRegionCreate();
        mlir_sys::mlirRegionTakeBody(taken, body);
        mlir_sys::mlirRegionDestroy(taken);
    }
}

/// A module that one other thread translates and compiles.
struct Sent(mlir_sys::MlirModule);

// SAFETY: each part is a module of its own, read (translated to LLVM IR)
// by one thread only, while no thread changes any module; what the
// translation creates in the shared MLIR context (uniqued attributes and
// types) is created under the context's locks (threading is on, MLIR's
// default); the translations the engine registers are registered already
// (`register_llvm_translations`), which makes its registration a read
// (`MLIRContext::appendDialectRegistry` returns early on a subset).
unsafe impl Send for Sent {}

// SAFETY: an execution engine owns its LLVM context, JIT and code; it is
// used by one thread at a time (created and looked up in a worker, then
// moved to the caller), and its code is shareable once generated.
unsafe impl Send for Engine {}

/// The engines of `entry` (the part that defines the entry function) and
/// of each helper part (with the functions it defines): the helpers' parts
/// are translated, optimised and compiled on one thread each while this
/// thread translates and optimises the entry's part; the entry's engine is
/// then bound to every helper's address. Its code is generated on its
/// first lookup.
///
/// # Errors
///
/// An engine cannot be created or does not define a function of its part.
pub(crate) fn compile(
    entry: &Module<'_>,
    helpers: &[(Module<'_>, Vec<String>)],
    library: Option<PathBuf>,
    profile: bool,
    bound: &BoundConstants,
) -> Result<(Engine, Vec<Engine>), Error> {
    let constants: Vec<(String, usize)> = bound
        .symbols
        .iter()
        .map(|(name, address)| (name.clone(), *address as usize))
        .collect();
    let (entry_engine, compiled) = std::thread::scope(|scope| {
        let workers: Vec<_> = helpers
            .iter()
            .map(|(module, names)| {
                let sent = Sent(module.to_raw());
                let library = library.clone();
                let constants = &constants;
                scope.spawn(move || -> Result<(Engine, Vec<(String, usize)>), Error> {
                    let sent = sent;
                    let engine = Engine::create(sent.0, library, profile)?;
                    engine.bind_addresses(constants);
                    let mut addresses = Vec::new();
                    for name in names {
                        let address = engine.lookup(name);
                        if address.is_null() {
                            return Err(Error::new(format!(
                                "internal error: the compiled part does not define '{name}'"
                            )));
                        }
                        addresses.push((name.clone(), address as usize));
                    }
                    Ok((engine, addresses))
                })
            })
            .collect();
        let entry_engine = Engine::new(entry, library.clone(), profile);
        let compiled: Vec<_> = workers
            .into_iter()
            .map(|w| {
                w.join().unwrap_or_else(|_| {
                    Err(Error::new("internal error: a compile thread panicked"))
                })
            })
            .collect();
        (entry_engine, compiled)
    });
    let entry_engine = entry_engine?;
    entry_engine.bind(bound);
    let mut engines = Vec::new();
    for part in compiled {
        let (engine, addresses) = part?;
        entry_engine.bind_addresses(&addresses);
        engines.push(engine);
    }
    Ok((entry_engine, engines))
}

impl Engine {
    /// Registers each `(symbol, address)` with the engine, before any
    /// lookup; the addresses are code or data that outlive the engine.
    pub(crate) fn bind_addresses(&self, symbols: &[(String, usize)]) {
        for (name, address) in symbols {
            // SAFETY: before any lookup; each address is a function
            // compiled by another engine of the same `Jit` (kept alive as
            // long as this one) or a bound constant's bytes (which the
            // caller keeps).
            unsafe { self.register(name, *address as *mut c_void) };
        }
    }

    /// The address of the symbol `name` (generating the code on the first
    /// lookup); null when the engine does not define it.
    pub(crate) fn lookup(&self, name: &str) -> *mut c_void {
        // SAFETY: a live engine; the name is copied.
        unsafe {
            mlir_sys::mlirExecutionEngineLookup(self.0, melior::StringRef::new(name).to_raw())
        }
    }
}
