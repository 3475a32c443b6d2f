//! Contractions on the GPU with shared-memory tiles (`target=gpu`): an op
//! whose projections are a (batched) matrix product `C[.., m, n] += A[..,
//! m, k] · B[.., k, n]`, where `m` may be several iterators (a convolution's
//! batch and output positions), `k` several reductions (its window and
//! input channels, read through strided and padded indices), `n` is the
//! result's contiguous iterator, and the operands' axes come in any order
//! (OCANNL's transposed weights included), becomes an explicit
//! `gpu.launch` (an implicit GEMM for convolutions). Each block of 16 × 16
//! threads computes a `16r × 16r` tile of C, each thread an `r × r` block
//! of it (its rows and columns in groups of 4 adjacent ones, `4t .. 4t +
//! 3` of every 64 for thread `t`); `r` is 4, or 8 for products with enough
//! 128 × 128 tiles ([`crate::schedule::tiled::R_LARGE`]). For each step of
//! 16 along the reduction, the threads copy a `16r × 16` tile of A
//! (stored transposed, each row padded by 4 cells against bank conflicts)
//! and a `16 × 16r` tile of B into workgroup memory (`r` cells each,
//! threadIdx.x along each operand's contiguous axis, so a warp's loads are
//! adjacent; zero outside the operands and in the padding), synchronise,
//! accumulate 16 products into each of their `r²` registers (a group of 4
//! rows or columns is one 128-bit load from a tile, aligned by
//! `ocannl-align-workgroup`: `r / 2` loads per `r²` FMAs), and synchronise
//! again.
//!
//! The kernel is written as MLIR text ([`text`]) in a private helper
//! function (the `gpu.launch` with its workgroup buffers and barriers),
//! parsed, and called from the lowered function; `gpu-kernel-outlining`
//! outlines it like the grids. Upstream's parallel-loop mapping cannot
//! express workgroup memory and barriers, hence the explicit launch. The
//! same generator writes the kernel's steps as CPU loops
//! (`shared-tiles=emulate`), which the differential tests run.

mod text;

use melior::{
    dialect::ods,
    ir::{BlockLike, Location, Value, ValueLike, attribute::FlatSymbolRefAttribute},
};
use ocannl_dialect::ir;

use crate::{
    buffers::element_of,
    lower_to_affine::{
        Module,
        emit::{At, Emitter},
    },
    schedule::tiled::Tiled,
};

fn memref(v: Value<'_, '_>) -> String {
    v.r#type().to_string()
}

impl<'c> Emitter<'c> {
    /// The tiled kernel of `t` over the buffers `(a, b, buf)` (`C += A ·
    /// B`), as a helper function in `module` called at `at`;
    /// `start_from_c`: the result already holds its initial value (an
    /// addend), else the sums start at zero.
    pub(in crate::lower_to_affine) fn lower_tiled<'a>(
        &self,
        module: &mut Module<'c, 'a>,
        at: At<'c, 'a>,
        t: &Tiled,
        (a, b, buf): (Value<'c, 'a>, Value<'c, 'a>, Value<'c, 'a>),
        start_from_c: bool,
        loc: Location<'c>,
    ) -> Result<(), String> {
        let elem = element_of(buf).to_string();
        let name = module.fresh_symbol("__ocannl_tiled");
        let (ta, tb, tc) = (memref(a), memref(b), memref(buf));
        let emulate = self.target.gpu_emulate;
        let text = text::kernel(t, &name, (&ta, &tb, &tc), &elem, start_from_c, emulate);
        let parsed = melior::ir::Module::parse(self.ctx, &text)
            .ok_or_else(|| format!("the tiled kernel does not parse:\n{text}"))?;
        let func = parsed
            .body()
            .first_operation()
            .ok_or("the tiled kernel's module is empty")?;
        module.insert(ir::clone_op(func));
        let callee = FlatSymbolRefAttribute::new(self.ctx, &name);
        self.put(at, ods::func::call(self.ctx, &[a, b, buf], callee, loc));
        Ok(())
    }
}
