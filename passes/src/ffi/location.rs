//! What melior cannot set: a block argument's location.

use melior::ir::{Location, ValueLike, block::BlockArgument};

/// Gives `arg` the location `loc`.
pub(crate) fn set_argument_location<'c>(arg: BlockArgument<'c, '_>, loc: Location<'c>) {
    // SAFETY: a live block argument, and a location of its context; MLIR
    // replaces the argument's location and nothing else.
    unsafe { mlir_sys::mlirBlockArgumentSetLocation(arg.to_raw(), loc.to_raw()) }
}
