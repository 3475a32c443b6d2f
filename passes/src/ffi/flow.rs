//! What control flow and calls say about types: the value pairs whose types
//! must be equal (MLIR's branch and region-branch interfaces, read in the
//! C++ shim) and the callee of a call (`CallOpInterface`).

use std::ffi::c_void;

use melior::ir::{
    Value,
    operation::{OperationLike, OperationRef},
};
use mlir_sys::{MlirOperation, MlirValue};

use super::shim;

/// Two values that control flow passes from one (`from`) to the other
/// (`to`) at the op `at`, so their types must be equal.
pub(crate) struct Edge<'c, 'a> {
    /// The value passed.
    pub from: Value<'c, 'a>,
    /// The value it becomes (a block argument or a region op's result).
    pub to: Value<'c, 'a>,
    /// The branch, region op or terminator that passes it.
    pub at: OperationRef<'c, 'a>,
}

type RawEdge = (MlirValue, MlirValue, MlirOperation);

/// The pairs of values inside `root` that control flow passes from one to
/// the other, or the first op that moves values through successors or
/// regions in a way MLIR's interfaces do not describe.
pub(crate) fn control_flow_edges<'c, 'a>(
    root: OperationRef<'c, 'a>,
) -> Result<Vec<Edge<'c, 'a>>, OperationRef<'c, 'a>> {
    unsafe extern "C" fn push(
        from: MlirValue,
        to: MlirValue,
        at: MlirOperation,
        data: *mut c_void,
    ) {
        // SAFETY: `data` is the `Vec` below, borrowed for the shim's call.
        let edges = unsafe { &mut *(data as *mut Vec<RawEdge>) };
        edges.push((from, to, at));
    }
    let mut raw: Vec<RawEdge> = Vec::new();
    // SAFETY: a live op; the callback only appends to `raw`, which outlives
    // the call.
    let unsupported = unsafe {
        shim::ocannlForEachControlFlowEdge(
            root.to_raw(),
            push,
            &mut raw as *mut Vec<RawEdge> as *mut c_void,
        )
    };
    if !unsupported.ptr.is_null() {
        // SAFETY: an op nested in `root`, alive as long as root's regions.
        return Err(unsafe { OperationRef::from_raw(unsupported) });
    }
    Ok(raw
        .into_iter()
        // SAFETY: values and ops inside `root`, alive as long as its regions.
        .map(|(from, to, at)| unsafe {
            Edge {
                from: Value::from_raw(from),
                to: Value::from_raw(to),
                at: OperationRef::from_raw(at),
            }
        })
        .collect())
}

/// A call: the function it calls (`None` when that cannot be resolved, as
/// for an indirect call) and the operands it passes as arguments.
pub(crate) struct Call<'c, 'a> {
    /// The called function.
    pub callee: Option<OperationRef<'c, 'a>>,
    /// The argument operands, in order.
    pub args: Vec<Value<'c, 'a>>,
}

/// The symbol tables calls are resolved in, each built once (MLIR's
/// `SymbolTableCollection`): resolving a call is then a hash lookup, not a
/// scan of the module. Keep one while resolving the calls of a module whose
/// symbols do not change meanwhile.
pub(crate) struct SymbolTables {
    raw: std::ptr::NonNull<c_void>,
}

impl SymbolTables {
    /// An empty cache.
    pub(crate) fn new() -> Self {
        // SAFETY: allocates a fresh, empty collection (never null: `new`
        // throws, which LLVM builds turn into an abort, rather than fail).
        let raw = unsafe { shim::ocannlSymbolTablesCreate() };
        SymbolTables {
            raw: std::ptr::NonNull::new(raw).expect("operator new returns non-null"),
        }
    }
}

impl Drop for SymbolTables {
    fn drop(&mut self) {
        // SAFETY: `raw` came from ocannlSymbolTablesCreate and is freed once.
        unsafe { shim::ocannlSymbolTablesDestroy(self.raw.as_ptr()) }
    }
}

/// `Some` when `op` is a call (`CallOpInterface`); its callee is looked up
/// (in `tables`) only when `tables` is given (reading other functions is
/// only safe for a pass that runs on their module).
pub(crate) fn call_info<'c, 'a>(
    op: OperationRef<'c, 'a>,
    tables: Option<&mut SymbolTables>,
) -> Option<Call<'c, 'a>> {
    let mut callee = MlirOperation {
        ptr: std::ptr::null_mut(),
    };
    let (mut first, mut count) = (0isize, 0isize);
    let tables = tables.map_or(std::ptr::null_mut(), |t| t.raw.as_ptr());
    // SAFETY: a live op, a live collection or null, and three out-parameters
    // that outlive the call.
    let is_call =
        unsafe { shim::ocannlCallInfo(op.to_raw(), tables, &mut callee, &mut first, &mut count) };
    if !is_call {
        return None;
    }
    let args = (first.max(0) as usize..(first + count).max(0) as usize)
        .filter_map(|i| op.operand(i).ok())
        .collect();
    // SAFETY: a function op of the same module (symbols resolve within the
    // enclosing symbol tables), alive as long as `op`'s module.
    let callee = (!callee.ptr.is_null()).then(|| unsafe { OperationRef::from_raw(callee) });
    Some(Call { callee, args })
}
