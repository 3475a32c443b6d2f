//! Running a [`Plan`] on a device: its kernels loaded and constants
//! uploaded once ([`Runner`]), the inputs uploaded, the steps on the
//! device's stream, the results downloaded, timed with CUDA events.

use std::collections::HashMap;

use super::{Buf, Plan, Step};
use crate::{
    Error, Program, Signature,
    array::Array,
    cuda::{Buffer, Gpu, Kernel},
};

/// A plan made ready on a device: its kernels loaded, its constants
/// uploaded.
pub struct Runner<'g> {
    gpu: &'g Gpu,
    plan: &'g Plan,
    /// The kernel of each step that launches one (by step).
    kernels: Vec<Option<Kernel>>,
    constants: Vec<Buffer>,
}

impl<'g> Runner<'g> {
    /// Loads the kernels of `plan` on `gpu` and uploads its constants.
    ///
    /// # Errors
    ///
    /// A module the driver refuses, a missing kernel, device memory.
    pub fn new(gpu: &'g Gpu, plan: &'g Plan) -> Result<Self, Error> {
        let mut modules = HashMap::new();
        for (name, image) in &plan.modules {
            modules.insert(name.clone(), gpu.load(image)?);
        }
        // Each step's kernel, looked up once (a kernel launched by several
        // steps is found once).
        let mut found: HashMap<(&str, &str), Kernel> = HashMap::new();
        let mut kernels = Vec::with_capacity(plan.steps.len());
        for step in &plan.steps {
            let Step::Launch { module, kernel, .. } = step else {
                kernels.push(None);
                continue;
            };
            let key = (module.as_str(), kernel.as_str());
            if let std::collections::hash_map::Entry::Vacant(e) = found.entry(key) {
                let m = modules
                    .get(module)
                    .ok_or_else(|| Error::new(format!("no kernel module '@{module}'")))?;
                e.insert(m.kernel(kernel)?);
            }
            kernels.push(found.get(&key).cloned());
        }
        let mut constants = vec![];
        for data in &plan.constants {
            let b = gpu.alloc(data.len())?;
            gpu.upload(&b, 0, data)?;
            constants.push(b);
        }
        Ok(Self {
            gpu,
            plan,
            kernels,
            constants,
        })
    }

    /// Runs the steps with `args` (one device buffer per argument of the
    /// entry function: the inputs, then the results), on the device's
    /// stream.
    ///
    /// # Errors
    ///
    /// Device memory, a failed copy or launch.
    pub fn run(&self, args: &[Buffer]) -> Result<(), Error> {
        let mut allocs: HashMap<usize, Buffer> = HashMap::new();
        for (step, loaded) in self.plan.steps.iter().zip(&self.kernels) {
            match step {
                Step::Alloc { id, bytes } => {
                    let bytes = usize::try_from(*bytes)
                        .map_err(|_| Error::new("an allocation larger than the address space"))?;
                    allocs.insert(*id, self.gpu.alloc(bytes)?);
                }
                Step::Free { id } => {
                    allocs.remove(id);
                }
                Step::Copy { src, dst, bytes } => {
                    let (s, so) = self.resolve(src, args, &allocs)?;
                    let (d, doff) = self.resolve(dst, args, &allocs)?;
                    let bytes = usize::try_from(*bytes)
                        .map_err(|_| Error::new("a copy larger than the address space"))?;
                    self.gpu.copy(s, so, d, doff, bytes)?;
                }
                Step::Launch {
                    module,
                    kernel,
                    grid,
                    block,
                    args: operands,
                } => {
                    let k = loaded.as_ref().ok_or_else(|| {
                        Error::new(format!("kernel '@{module}::@{kernel}' is not loaded"))
                    })?;
                    let resolved = operands
                        .iter()
                        .map(|b| self.resolve(b, args, &allocs))
                        .collect::<Result<Vec<_>, _>>()?;
                    self.gpu.launch(k, *grid, *block, &resolved)?;
                }
            }
        }
        Ok(())
    }

    /// The device buffer and byte offset of `b`.
    fn resolve<'b>(
        &'b self,
        b: &Buf,
        args: &'b [Buffer],
        allocs: &'b HashMap<usize, Buffer>,
    ) -> Result<(&'b Buffer, usize), Error> {
        let missing = || Error::new(format!("a step reads a buffer that does not exist ({b:?})"));
        Ok(match *b {
            Buf::Arg(i) => (args.get(i).ok_or_else(missing)?, 0),
            Buf::Alloc { id, offset } => (
                allocs.get(&id).ok_or_else(missing)?,
                usize::try_from(offset).map_err(|_| missing())?,
            ),
            Buf::Const(c) => (self.constants.get(c).ok_or_else(missing)?, 0),
        })
    }
}

/// Times of one run on the device, from CUDA events.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// The kernels (and device copies) of the function.
    pub kernels_ms: f32,
    /// Uploading the inputs, the kernels, downloading the results.
    pub end_to_end_ms: f32,
}

/// Runs `program` (lowered for CUDA) on device `device` with `inputs`:
/// the results, and with `times`, that many timed runs after the first.
///
/// # Errors
///
/// No driver or device, inputs that do not fit the signature, device
/// memory, a failed load, copy or launch.
pub fn run(
    program: &Program<'_>,
    device: usize,
    inputs: &[Array],
    times: usize,
) -> Result<(Vec<Array>, Vec<Timing>, String), Error> {
    let signature: &Signature = program.signature();
    crate::jit::check_inputs(signature, inputs)?;
    let plan = program.gpu_plan()?;
    let gpu = Gpu::open(device)?;
    let runner = Runner::new(&gpu, &plan)?;
    let mut outputs = signature
        .outputs
        .iter()
        .map(|o| Array::zeros(o.elem, &o.dims))
        .collect::<Result<Vec<_>, _>>()?;
    let host: Vec<Vec<u8>> = inputs.iter().map(Array::to_bytes).collect();
    let mut args = vec![];
    for bytes in &host {
        args.push(gpu.alloc(bytes.len())?);
    }
    for o in &outputs {
        args.push(gpu.alloc(o.len() * o.elem().size())?);
    }
    let mut once = |timed: bool| -> Result<Option<Timing>, Error> {
        let start = if timed { Some(gpu.record()?) } else { None };
        for (b, bytes) in args.iter().zip(&host) {
            gpu.upload(b, 0, bytes)?;
        }
        let k0 = if timed { Some(gpu.record()?) } else { None };
        runner.run(&args)?;
        let k1 = if timed { Some(gpu.record()?) } else { None };
        for (o, b) in outputs.iter_mut().zip(&args[host.len()..]) {
            let mut bytes = vec![0u8; b.len()];
            gpu.download(b, 0, &mut bytes)?;
            o.set_bytes(&bytes);
        }
        let end = if timed { Some(gpu.record()?) } else { None };
        gpu.synchronize()?;
        Ok(match (start, k0, k1, end) {
            (Some(s), Some(a), Some(b), Some(e)) => Some(Timing {
                kernels_ms: gpu.elapsed_ms(&a, &b)?,
                end_to_end_ms: gpu.elapsed_ms(&s, &e)?,
            }),
            _ => None,
        })
    };
    once(false)?;
    let mut timings = vec![];
    for _ in 0..times {
        timings.extend(once(true)?);
    }
    Ok((outputs, timings, gpu.name()))
}
