//! The crate's FFI layer: MLIR's execution engine (one per part of a split
//! module, on threads of their own: [`parts`]), the translation of a module
//! to LLVM IR for inkwell, the LLVM translations' registration, the
//! constant globals made cheap for LLVM ([`globals`]), and the compiled
//! code's `malloc`/`free` ([`block_cache`]). Every `unsafe` block of
//! `ocannl-runtime` is here, in these modules, and in [`cuda`] (the CUDA
//! driver through cudarc).

use melior::{
    Context,
    ir::{
        Attribute, BlockLike, BlockRef, Identifier, Module, RegionLike, Type, TypeLike, Value,
        ValueLike,
        attribute::{AttributeLike, TypeAttribute},
        operation::{OperationBuilder, OperationLike, OperationRef},
    },
};

use std::{collections::HashMap, ffi::c_void};

pub mod cuda;
mod globals;
mod parts;

pub(crate) use globals::{BoundConstants, bind_constants, flatten_constant_globals};
pub(crate) use parts::{compile as compile_parts, drop_body};

use crate::Error;

mod block_cache;

unsafe extern "C" {
    /// `mlir-c/Target/LLVMIR.h` (not in mlir-sys' bindings).
    fn mlirTranslateModuleToLLVMIR(
        module: mlir_sys::MlirOperation,
        context: *mut std::ffi::c_void,
    ) -> *mut std::ffi::c_void;
}

/// Registers the translations from the LLVM dialect (and the dialects that
/// lower into LLVM IR directly) in `context`.
pub(crate) fn register_llvm_translations(context: &Context) {
    // SAFETY: a live context.
    unsafe { mlir_sys::mlirRegisterAllLLVMTranslations(context.to_raw()) }
}

/// `module` (in the LLVM dialect) as an LLVM module owned by `llvm`.
pub(crate) fn translate_to_llvm_ir<'l>(
    module: &Module<'_>,
    llvm: &'l inkwell::context::Context,
) -> Result<inkwell::module::Module<'l>, Error> {
    // SAFETY: the module is live; the result is a new LLVM module created
    // in `llvm`'s context (which outlives it), owned by the returned
    // inkwell module from here on.
    unsafe {
        let raw = mlirTranslateModuleToLLVMIR(
            module.as_operation().to_raw(),
            inkwell::context::AsContextRef::as_ctx_ref(&llvm).cast(),
        );
        if raw.is_null() {
            return Err(Error::new("cannot translate the module to LLVM IR"));
        }
        Ok(inkwell::module::Module::new(raw.cast()))
    }
}

/// MLIR's execution engine (melior's wrapper does not report a failed
/// creation, which then crashes on lookup).
pub(crate) struct Engine(mlir_sys::MlirExecutionEngine);

impl Engine {
    /// Translates and JIT-compiles `module` at LLVM O3 for the host CPU.
    /// `library`, when given, is loaded for the code's external symbols
    /// (the OpenMP runtime). With `profile`, the timer's calls of
    /// `ocannl-profile-ops` reach [`crate::profile`].
    pub(crate) fn new(
        module: &Module<'_>,
        library: Option<std::path::PathBuf>,
        profile: bool,
    ) -> Result<Self, Error> {
        Self::create(module.to_raw(), library, profile)
    }

    /// [`Engine::new`] of a module handle: a live module in the LLVM
    /// dialect that no other thread uses during the call.
    pub(crate) fn create(
        module: mlir_sys::MlirModule,
        library: Option<std::path::PathBuf>,
        profile: bool,
    ) -> Result<Self, Error> {
        // MLIR's C API reads each path's `data` as a C string (ignoring
        // its length): each needs its NUL.
        let path = match library {
            Some(p) => Some(
                std::ffi::CString::new(p.as_os_str().as_encoded_bytes())
                    .map_err(|_| Error::new(format!("library path {} has a NUL", p.display())))?,
            ),
            None => None,
        };
        let paths: Vec<mlir_sys::MlirStringRef> = path
            .iter()
            .map(|p| mlir_sys::MlirStringRef {
                data: p.as_ptr(),
                length: p.as_bytes().len(),
            })
            .collect();
        // SAFETY: a live module in the LLVM dialect; `paths` (and the
        // NUL-terminated strings they point into) outlive the call, which
        // copies them.
        let raw = unsafe {
            mlir_sys::mlirExecutionEngineCreate(
                module,
                3,
                paths.len() as i32,
                paths.as_ptr(),
                false,
                false,
            )
        };
        if raw.ptr.is_null() {
            return Err(Error::new(
                "cannot JIT-compile the module (see the errors above)",
            ));
        }
        let engine = Self(raw);
        let mut symbols = vec![
            ("malloc", block_cache::malloc as *mut c_void),
            ("free", block_cache::free as *mut c_void),
        ];
        if profile {
            use ocannl_passes::profile_ops::{BEGIN, END};
            symbols.push((BEGIN, crate::profile::begin as *mut c_void));
            symbols.push((END, crate::profile::end as *mut c_void));
        }
        for (name, address) in symbols {
            // SAFETY: before any lookup; the functions have the signatures
            // the code declares (C's `malloc`/`free`; `void(int64_t)` for
            // the timer's) and live as long as the process.
            unsafe { engine.register(name, address) };
        }
        Ok(engine)
    }

    /// Registers `address` as the symbol `name` of the engine's code.
    ///
    /// # Safety
    ///
    /// Before any lookup materialises code; `address` is what the code
    /// declares under `name` (a function of that signature, or data of
    /// that type) and lives as long as the engine.
    pub(crate) unsafe fn register(&self, name: &str, address: *mut c_void) {
        // SAFETY: a live engine; the name is copied; the address as the
        // caller guarantees.
        unsafe {
            mlir_sys::mlirExecutionEngineRegisterSymbol(
                self.0,
                melior::StringRef::new(name).to_raw(),
                address,
            )
        };
    }

    /// Binds the constants of [`bind_constants`] to their bytes; before any
    /// lookup. `bound` must outlive the engine.
    pub(crate) fn bind(&self, bound: &BoundConstants) {
        for (name, address) in &bound.symbols {
            // SAFETY: before any lookup; the bytes (`bound`'s buffer)
            // outlive the engine, as the caller keeps them.
            unsafe { self.register(name, *address) };
        }
    }

    /// The packed wrapper `_mlir_<name>(void **args)` of the function
    /// `name`, which MLIR's engine makes for every function.
    pub(crate) fn packed(&self, name: &str) -> Option<PackedFn<'_>> {
        let address = self.lookup(&format!("_mlir_{name}"));
        (!address.is_null()).then_some(PackedFn {
            address,
            _engine: std::marker::PhantomData,
        })
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // SAFETY: created by `mlirExecutionEngineCreate`, destroyed once.
        unsafe { mlir_sys::mlirExecutionEngineDestroy(self.0) }
    }
}

/// A compiled function of an [`Engine`], called through its packed wrapper.
pub(crate) struct PackedFn<'e> {
    address: *mut std::ffi::c_void,
    _engine: std::marker::PhantomData<&'e Engine>,
}

impl PackedFn<'_> {
    /// Calls the function with one pointer per argument then per result
    /// (the bare-pointer convention of the lowering), or, for a function
    /// rewritten by [`take_arguments_as_array`], with the one pointer to
    /// the array of those pointers.
    ///
    /// The caller guarantees what the compiled code assumes: `buffers`
    /// holds exactly one live buffer per argument and result, each with the
    /// element type and number of cells of the function's signature
    /// (`Jit::call` checks inputs against the signature and allocates
    /// outputs from it).
    pub(crate) fn call(&self, buffers: &mut [*mut u8]) {
        let mut args: Vec<*mut ()> = buffers
            .iter_mut()
            .map(|p| p as *mut *mut u8 as *mut ())
            .collect();
        // SAFETY: `address` is the engine's `void(void **)` wrapper of the
        // function (alive as long as the engine, which `'e` borrows); `args`
        // points at one pointer per buffer, which the caller matched to the
        // signature (see above), and outlives the call.
        unsafe {
            let f: unsafe extern "C" fn(*mut *mut ()) = std::mem::transmute(self.address);
            f(args.as_mut_ptr());
        }
    }
}

/// Rewrites `func`, an `llvm.func` whose arguments are all `!llvm.ptr` and
/// which returns nothing (the bare-pointer convention of the lowering), to
/// take one `!llvm.ptr` to an array of those pointers: it loads each
/// (`getelementptr` + `load`) right before its first use when all its uses
/// are in one block, else at the top, and uses the loads in place of the
/// arguments. Returns false (and changes nothing) for any other function.
///
/// MLIR's execution engine calls a function through a packed wrapper
/// `_mlir_<name>(void **)` that loads every argument and makes one call
/// with all of them: with thousands of arguments LLVM's optimiser
/// (`CalledValuePropagation`, `PostOrderFunctionAttrs`, GVN) and its
/// machine scheduler were quadratic in that call. With one argument the
/// wrapper is trivial; each load sits where its pointer is first needed
/// (with the memref descriptors folded, see `Program::jit`: before the call
/// of the `ocannl-outline-nests` helper that uses it), as thousands of
/// loads in one block were quadratic in instruction selection (clustering
/// neighbouring loads) and scheduling.
pub(crate) fn take_arguments_as_array(context: &Context, func: OperationRef<'_, '_>) -> bool {
    let Some((ptr, body, top)) = bare_pointer_body(context, func) else {
        return false;
    };
    let n = body.argument_count();
    let location = func.location();
    let elem_type: Attribute<'_> = TypeAttribute::new(ptr).into();
    let alignment = Attribute::parse(context, "8 : i64").expect("an integer attribute");
    let (places, blocks) = op_places(body);
    let func_raw = func.to_raw();
    let array = body.add_argument(ptr, location);
    for i in 0..n {
        let old: Value<'_, '_> = body.argument(i).expect("counted").into();
        // The load goes right before the first use when every use is in one
        // block (so that the loads spread between the calls that use them
        // instead of piling up in one block, where instruction scheduling
        // compares every pair), else at the top of the entry block.
        let (block, before) = match first_use(old, func_raw, &places) {
            Some((b, op)) => (blocks[b], op),
            None => (body, top),
        };
        let index = Attribute::parse(context, &format!("array<i32: {i}>"))
            .expect("an i32 array attribute (n < 2^32)");
        let gep = block.insert_operation_before(
            before,
            OperationBuilder::new("llvm.getelementptr", location)
                .add_operands(&[array])
                .add_results(&[ptr])
                .add_attributes(&[
                    (Identifier::new(context, "rawConstantIndices"), index),
                    (Identifier::new(context, "elem_type"), elem_type),
                ])
                .build()
                .expect("a valid llvm.getelementptr"),
        );
        let load = block.insert_operation_before(
            before,
            OperationBuilder::new("llvm.load", location)
                .add_operands(&[gep.result(0).expect("one result").into()])
                .add_results(&[ptr])
                .add_attributes(&[(Identifier::new(context, "alignment"), alignment)])
                .build()
                .expect("a valid llvm.load"),
        );
        // SAFETY: two live values of the same type in one function.
        unsafe {
            mlir_sys::mlirValueReplaceAllUsesOfWith(
                old.to_raw(),
                load.result(0).expect("one result").to_raw(),
            )
        };
    }
    // The old arguments, last first (each erase renumbers the arguments
    // after it).
    for i in (0..n).rev() {
        // SAFETY: a live block; argument `i` exists and has no uses left.
        unsafe { mlir_sys::mlirBlockEraseArgument(body.to_raw(), i as u32) };
    }
    let new_type = Type::parse(context, "!llvm.func<void (ptr)>").expect("an LLVM function type");
    ocannl_dialect::ir::set_attribute(func, "function_type", TypeAttribute::new(new_type).into());
    true
}

/// The `!llvm.ptr` type, the entry block and its first op of `func` when
/// it is what [`take_arguments_as_array`] rewrites: an `llvm.func` without
/// argument attributes that takes fewer than 2^32 `!llvm.ptr`s and returns
/// nothing; `None` otherwise.
fn bare_pointer_body<'c, 'a>(
    context: &'c Context,
    func: OperationRef<'c, 'a>,
) -> Option<(Type<'c>, BlockRef<'c, 'a>, OperationRef<'c, 'a>)> {
    let ptr = Type::parse(context, "!llvm.ptr")?;
    let function_type = func
        .attribute("function_type")
        .ok()
        .and_then(|a| TypeAttribute::try_from(a).ok())
        .map(|t| t.value())?;
    let body = func.region(0).ok().and_then(|r| r.first_block())?;
    let n = body.argument_count();
    // (The C API has no kind check of LLVM function types: the printed
    // type is checked instead.)
    let printed = function_type.to_string();
    let returns_nothing = printed.starts_with("!llvm.func<void (") && !printed.ends_with("...)>");
    // SAFETY: `function_type` is a live LLVM function type (checked above);
    // inputs are read below its count.
    let fits = returns_nothing
        && unsafe {
            let raw = function_type.to_raw();
            mlir_sys::mlirLLVMFunctionTypeGetNumInputs(raw) == n as isize
                && (0..n).all(|i| {
                    mlir_sys::mlirTypeEqual(
                        mlir_sys::mlirLLVMFunctionTypeGetInput(raw, i as isize),
                        ptr.to_raw(),
                    )
                })
        };
    let top = body.first_operation()?;
    if !fits || func.attribute("arg_attrs").is_ok() || u32::try_from(n).is_err() {
        return None;
    }
    Some((ptr, body, top))
}

/// Where each top-level op of a function is (`body`, its entry block, and
/// the blocks after it), by raw pointer: its block's index in the blocks
/// returned and its position there.
type Places<'c, 'a> = HashMap<*const c_void, (usize, usize, OperationRef<'c, 'a>)>;

/// The [`Places`] of the ops of the blocks from `body` on, and those
/// blocks.
fn op_places<'c, 'a>(body: BlockRef<'c, 'a>) -> (Places<'c, 'a>, Vec<BlockRef<'c, 'a>>) {
    let mut places: Places<'c, 'a> = HashMap::new();
    let mut blocks = Vec::new();
    let mut next_block = Some(body);
    while let Some(block) = next_block {
        let mut next_op = block.first_operation();
        let mut k = 0;
        while let Some(op) = next_op {
            places.insert(op.to_raw().ptr, (blocks.len(), k, op));
            k += 1;
            next_op = op.next_in_block();
        }
        blocks.push(block);
        next_block = block.next_in_region();
    }
    (places, blocks)
}

/// The first top-level op of function `func` (in `places`) that uses
/// `value`, with its block's index, when every use is in that one block.
fn first_use<'c, 'a>(
    value: Value<'_, '_>,
    func: mlir_sys::MlirOperation,
    places: &Places<'c, 'a>,
) -> Option<(usize, OperationRef<'c, 'a>)> {
    // The top-level op of the function that holds `op`.
    let top_level = |mut op: mlir_sys::MlirOperation| {
        // SAFETY: live ops of the function; parents are read up to it.
        unsafe {
            loop {
                let parent = mlir_sys::mlirOperationGetParentOperation(op);
                if parent.ptr.is_null() || mlir_sys::mlirOperationEqual(parent, func) {
                    return op;
                }
                op = parent;
            }
        }
    };
    let mut first: Option<(usize, usize, OperationRef<'c, 'a>)> = None;
    let mut one_block = true;
    // SAFETY: a live value; its use list is read, not changed.
    unsafe {
        let mut operand = mlir_sys::mlirValueGetFirstUse(value.to_raw());
        while !mlir_sys::mlirOpOperandIsNull(operand) {
            let owner = top_level(mlir_sys::mlirOpOperandGetOwner(operand));
            match (places.get(&owner.ptr.cast_const()), first) {
                (Some(&(b, k, op)), None) => first = Some((b, k, op)),
                (Some(&(b, k, op)), Some((fb, fk, _))) if b == fb => {
                    if k < fk {
                        first = Some((b, k, op));
                    }
                }
                _ => one_block = false,
            }
            operand = mlir_sys::mlirOpOperandGetNextUse(operand);
        }
    }
    match first {
        Some((b, _, op)) if one_block => Some((b, op)),
        _ => None,
    }
}

/// A copy of `module`.
pub(crate) fn clone_module<'c>(module: &Module<'c>) -> Module<'c> {
    // SAFETY: a live module; the clone is a new op owned by the result.
    let op = unsafe {
        melior::ir::Operation::from_raw(mlir_sys::mlirOperationClone(
            module.as_operation().to_raw(),
        ))
    };
    Module::from_operation(op).expect("the clone of a module is a module")
}

/// Renames the functions `renamed` maps in every symbol reference under
/// `module` that is an op's attribute (`callee`, `global_name`, ...; not the
/// definitions' `sym_name`), in one walk. (MLIR's
/// `mlirSymbolTableReplaceAllSymbolUses` walks the whole module for each
/// name: with the helpers `ocannl-outline-nests` makes, a function of many
/// nests, that was quadratic.)
pub(crate) fn rename_symbol_refs(
    context: &Context,
    module: &Module<'_>,
    renamed: &HashMap<String, String>,
) {
    module
        .as_operation()
        .walk(melior::ir::operation::WalkOrder::PreOrder, |op| {
            // SAFETY: a live op; its attributes are read by position, then
            // set by name (copied) after the reading.
            unsafe {
                let raw = op.to_raw();
                let mut changes = Vec::new();
                for i in 0..mlir_sys::mlirOperationGetNumAttributes(raw) {
                    let named = mlir_sys::mlirOperationGetAttribute(raw, i);
                    if !mlir_sys::mlirAttributeIsAFlatSymbolRef(named.attribute) {
                        continue;
                    }
                    let value = melior::StringRef::from_raw(
                        mlir_sys::mlirFlatSymbolRefAttrGetValue(named.attribute),
                    );
                    // `str_of`: an empty name is a null reference, which
                    // `StringRef::as_str` would panic on.
                    if let Some(new) = renamed.get(ocannl_dialect::ir::str_of(value).as_ref()) {
                        let name =
                            melior::StringRef::from_raw(mlir_sys::mlirIdentifierStr(named.name));
                        changes.push((ocannl_dialect::ir::str_of(name).into_owned(), new));
                    }
                }
                for (name, new) in changes {
                    let attr = mlir_sys::mlirFlatSymbolRefAttrGet(
                        context.to_raw(),
                        melior::StringRef::new(new).to_raw(),
                    );
                    mlir_sys::mlirOperationSetAttributeByName(
                        raw,
                        melior::StringRef::new(&name).to_raw(),
                        attr,
                    );
                }
            }
            melior::ir::operation::WalkResult::Advance
        });
}

/// The format (`gpu::CompilationTarget`: 2 assembly, 3 binary, 4 fatbin)
/// and the content of a `#gpu.object` attribute (`None` for any other
/// attribute).
pub(crate) fn gpu_object(attr: melior::ir::Attribute<'_>) -> Option<(u32, Vec<u8>)> {
    // SAFETY: `attr` is a live attribute; the kind is checked before the
    // getters, and the object's bytes are copied while the attribute (owned
    // by its context) lives.
    unsafe {
        let raw = attr.to_raw();
        if !mlir_sys::mlirAttributeIsAGPUObjectAttr(raw) {
            return None;
        }
        let format = mlir_sys::mlirGPUObjectAttrGetFormat(raw);
        let object = mlir_sys::mlirGPUObjectAttrGetObject(raw);
        let bytes = if object.data.is_null() || object.length == 0 {
            vec![]
        } else {
            std::slice::from_raw_parts(object.data.cast::<u8>(), object.length).to_vec()
        };
        Some((format, bytes))
    }
}

/// The bytes of a dense elements attribute of `count` elements of
/// `elem_bytes` bytes each, in row-major order (a splat repeated); `None`
/// for any other attribute.
pub(crate) fn dense_bytes(
    attr: melior::ir::Attribute<'_>,
    count: usize,
    elem_bytes: usize,
) -> Option<Vec<u8>> {
    let total = count.checked_mul(elem_bytes)?;
    // SAFETY: `attr` is a live attribute; the kind is checked first. A
    // dense attribute's raw data holds one element when it is a splat and
    // every element otherwise (`elem_bytes` each for the byte-sized
    // element types the callers pass); the bytes are copied while the
    // attribute lives.
    unsafe {
        let raw = attr.to_raw();
        if !mlir_sys::mlirAttributeIsADenseElements(raw) {
            return None;
        }
        let data = mlir_sys::mlirDenseElementsAttrGetRawData(raw).cast::<u8>();
        if data.is_null() {
            return None;
        }
        if mlir_sys::mlirDenseElementsAttrIsSplat(raw) {
            let one = std::slice::from_raw_parts(data, elem_bytes);
            Some(one.iter().copied().cycle().take(total).collect())
        } else {
            Some(std::slice::from_raw_parts(data, total).to_vec())
        }
    }
}
