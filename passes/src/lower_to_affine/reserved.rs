//! Function names a lowered module cannot use for a function of its own:
//! the symbols the lowered code itself refers to (`malloc` and `free` for
//! buffers, `aligned_alloc`, MLIR's `memrefCopy`), names that belong to the
//! compiler and its runtime (`__` helpers such as `__mlir_math_ipowi_i32`,
//! MLIR's `_mlir_` wrappers, LLVM's `llvm.` intrinsics), and names that
//! are not symbols at all (empty, control characters).
//!
//! Other C library names (`expf`, `memset`, ...) are left to the user, as
//! in C: LLVM may call them from the generated code, so a program that
//! defines them and links with the C library gets its own definition.
//! `ocannl-run` renames every function before it JIT-compiles, so nothing a
//! user names can meet a symbol of the process there.

/// Symbols the lowered IR refers to.
const USED_BY_THE_LOWERING: &[&str] = &["malloc", "free", "aligned_alloc", "memrefCopy"];

/// Why `name` cannot be the name of a lowered function, if it cannot.
pub(super) fn reserved(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some(
            "a lowered function needs a name (it becomes a symbol of the generated code)".into(),
        );
    }
    if name.chars().any(char::is_control) {
        return Some(format!(
            "function name {name:?} contains control characters"
        ));
    }
    for prefix in ["__", "_mlir", "llvm."] {
        if name.starts_with(prefix) {
            return Some(format!(
                "function name '@{name}' is reserved: names starting with '{prefix}' belong to the compiler and its runtime"
            ));
        }
    }
    if USED_BY_THE_LOWERING.contains(&name) {
        return Some(format!(
            "function name '@{name}' is reserved: the lowered code calls the C library function of that name"
        ));
    }
    None
}
