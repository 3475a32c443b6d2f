//! [`Jit`]: a JIT-compiled program, run and timed on host arrays.

use super::*;

/// A JIT-compiled program.
pub struct Jit<'p, 'c> {
    pub(crate) program: &'p Program<'c>,
    pub(crate) engine: ffi::Engine,
    /// The entry function's name in the compiled code.
    pub(crate) entry: String,
    /// Whether the entry takes one pointer to the array of its buffers'
    /// pointers ([`crate::ffi::take_arguments_as_array`]) instead of one
    /// pointer per buffer.
    pub(crate) array_arguments: bool,
    /// The engines of the helper parts the entry's code calls, when the
    /// module was split (`split`); they outlive `engine`'s calls.
    pub(crate) helpers: Vec<ffi::Engine>,
    pub(crate) _module: Module<'c>,
    /// The helpers' parts of a split module (`_module` is then the
    /// entry's part).
    pub(crate) _parts: Vec<Module<'c>>,
    /// The bytes the engine's constants are bound to (dropped after it).
    pub(crate) _constants: ffi::BoundConstants,
}

impl Jit<'_, '_> {
    /// The parts LLVM compiled the code in, one engine and one thread each
    /// (1 when the module was not split; see
    /// [`Program::set_compile_threads`]).
    pub fn code_parts(&self) -> usize {
        1 + self.helpers.len()
    }

    /// Checks `inputs` against the signature, calls the function, and
    /// returns its results.
    ///
    /// # Errors
    ///
    /// Wrong number of inputs, or an input whose element type or shape
    /// differs from the argument's inferred one.
    pub fn run(&self, inputs: &mut [Array]) -> Result<Vec<Array>, Error> {
        check_inputs(&self.program.signature, inputs)?;
        self.program.check_memory(false)?;
        let mut outputs = self.outputs()?;
        self.call(inputs, &mut outputs)?;
        Ok(outputs)
    }

    /// Zeroed result buffers.
    ///
    /// # Errors
    ///
    /// A buffer cannot be allocated.
    pub fn outputs(&self) -> Result<Vec<Array>, Error> {
        self.program
            .signature
            .outputs
            .iter()
            .map(|o| Array::zeros(o.elem, &o.dims))
            .collect()
    }

    /// Runs the function `times` times on the same buffers; returns the
    /// time of each run.
    ///
    /// # Errors
    ///
    /// As [`Jit::run`].
    pub fn bench(&self, inputs: &mut [Array], times: usize) -> Result<Vec<Duration>, Error> {
        check_inputs(&self.program.signature, inputs)?;
        self.program.check_memory(false)?;
        let mut outputs = self.outputs()?;
        (0..times)
            .map(|_| {
                let start = Instant::now();
                self.call(inputs, &mut outputs)?;
                Ok(start.elapsed())
            })
            .collect()
    }

    /// Calls the function; `inputs` have been checked against the signature
    /// and `outputs` allocated from it.
    pub(crate) fn call(&self, inputs: &mut [Array], outputs: &mut [Array]) -> Result<(), Error> {
        let mut pointers: Vec<*mut u8> = inputs
            .iter_mut()
            .chain(outputs.iter_mut())
            .map(Array::as_mut_ptr)
            .collect();
        // MLIR's C API invokes only `_mlir_ciface_` wrappers (functions
        // with `llvm.emit_c_interface`); the engine's packed wrapper
        // `_mlir_<name>(void **args)` exists for every function.
        let entry = self.engine.packed(&self.entry).ok_or_else(|| {
            Error::new(format!(
                "cannot find '@{}' in the compiled code",
                self.program.entry
            ))
        })?;
        // Every buffer has the element type and number of cells of its
        // signature entry: inputs checked by `run`/`bench`, outputs
        // allocated from the signature.
        if self.array_arguments {
            // One argument: the array of the buffers' pointers, which
            // outlives the call.
            entry.call(&mut [pointers.as_mut_ptr().cast::<u8>()]);
        } else {
            entry.call(&mut pointers);
        }
        Ok(())
    }
}

/// Checks the inputs' count, element types and shapes.
pub(crate) fn check_inputs(signature: &Signature, inputs: &[Array]) -> Result<(), Error> {
    if inputs.len() != signature.inputs.len() {
        return Err(Error::new(format!(
            "the entry function takes {} argument(s) but {} input(s) were given",
            signature.inputs.len(),
            inputs.len()
        )));
    }
    for (i, (sig, input)) in signature.inputs.iter().zip(inputs).enumerate() {
        if input.elem() != sig.elem {
            // A `V2` file is read as bfloat16: say so, its dtype is not one.
            let given = match input.elem() {
                Elem::BF16 => "raw 2-byte cells ('<V2'), read as bfloat16".to_owned(),
                e => e.to_string(),
            };
            return Err(Error::new(format!(
                "argument #{i} has element type {} but its input has dtype {given}",
                sig.elem
            )));
        }
        if input.shape != sig.dims {
            return Err(Error::new(format!(
                "argument #{i} has the inferred shape {:?} (spec \"{}\") but its input has shape {:?}",
                sig.dims, sig.spec, input.shape
            )));
        }
    }
    Ok(())
}
