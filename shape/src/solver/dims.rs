//! The simplification rules of dims computed from other dims: strided and
//! convolution axes (`Constraint::Affine`; reference,
//! `ocannl-shape-inference.md`, "Affine indexing and convolutions") and
//! concatenations (`Constraint::Concat`; "Concatenation"). Every size they
//! compute is exact and checked against [`crate::MAX_SIZE`] (see
//! [`super::arith`]).

use super::{
    Dim, DimVar, Label, Origin, ShapeError, ShapeErrorKind, Solver,
    arith::{self, fit},
    simplify::{Step, Vars},
};

impl Solver {
    /// `Constraint::Concat`: `whole = sum(parts)`. Known parts give the
    /// whole; a known whole and parts that leave one unknown (possibly
    /// repeated, `a^a`) give it. A part can be 0 only when it is
    /// discardable.
    pub(super) fn concat(
        &mut self,
        whole: Dim,
        parts: &[Dim],
        origin: Origin,
    ) -> Result<Step, ShapeError> {
        let mut known_parts: Vec<u64> = vec![];
        let mut unknown: Vec<(DimVar, u64)> = vec![];
        for p in parts {
            match self.find_dim(*p) {
                Dim::Size(n, _) => known_parts.push(n),
                Dim::Var(v) => match unknown.iter_mut().find(|(u, _)| *u == v) {
                    Some((_, k)) => *k += 1,
                    None => unknown.push((v, 1)),
                },
            }
        }
        let involved: Vec<Dim> = std::iter::once(whole)
            .chain(parts.iter().copied())
            .collect();
        let fail = |s: &Self, msg: String| {
            s.dim_error(ShapeErrorKind::ConcatMismatch, msg, origin, &involved)
        };
        // Known parts past the bound make the whole too large, whatever the
        // other parts and the whole turn out to be.
        let Some(known) = fit(arith::sum(&known_parts)) else {
            return Err(self.dim_overflow(
                format!(
                    "the known parts of the concatenated axis sum to {}",
                    arith::sum_expr(&known_parts)
                ),
                origin,
                &involved,
            ));
        };
        let Dim::Size(w, _) = self.find_dim(whole) else {
            if unknown.is_empty() {
                let label = self.shared_label(&involved, origin)?;
                return self.dim_eq(whole, Dim::Size(known, label), origin);
            }
            let mut dims: Vec<DimVar> = unknown.iter().map(|(v, _)| *v).collect();
            if let Dim::Var(v) = self.find_dim(whole) {
                dims.push(v);
            }
            return Ok(Step::Stuck {
                dims: dims.into(),
                rows: Vars::new(),
            });
        };
        if known > w {
            return Err(fail(
                self,
                format!(
                    "the concatenated axis has size {w}, but its known parts already sum to {known}"
                ),
            ));
        }
        match unknown.as_slice() {
            [] if known == w => Ok(Step::Done),
            [] => Err(fail(
                self,
                format!("the concatenated axis has size {w}, but its parts sum to {known}"),
            )),
            &[(v, k)] => {
                let rest = w - known;
                let min = self.dims[v.0 as usize].at_least;
                if !rest.is_multiple_of(k) || rest / k < min {
                    return Err(fail(
                        self,
                        format!(
                            "the concatenated axis has size {w}; its known parts sum to {known}, which leaves {rest} for {k} part(s) of one size{}",
                            if rest / k < min {
                                format!(" of at least {min}")
                            } else {
                                String::new()
                            }
                        ),
                    ));
                }
                self.dim_eq(Dim::Var(v), Dim::size(rest / k), origin)?;
                Ok(Step::Done)
            }
            _ => Ok(Step::Stuck {
                dims: unknown.iter().map(|(v, _)| *v).collect(),
                rows: Vars::new(),
            }),
        }
    }

    /// `Constraint::Affine`: whichever two of input, output and kernel are
    /// known give the third (reference, "Affine indexing and convolutions":
    /// `output = (input - span) / stride + 1` needs a non-negative, divisible
    /// numerator).
    pub(super) fn affine(
        &mut self,
        input: Dim,
        output: Dim,
        stride: u64,
        kernel: Option<(Dim, u64)>,
        origin: Origin,
    ) -> Result<Step, ShapeError> {
        let size = |s: &Self, d: Dim| match s.find_dim(d) {
            Dim::Size(n, _) => Some(n),
            Dim::Var(_) => None,
        };
        let (i, o) = (size(self, input), size(self, output));
        let k = kernel.map(|(k, dil)| (size(self, k), dil));
        let involved: Vec<Dim> = [input, output]
            .into_iter()
            .chain(kernel.map(|(k, _)| k))
            .collect();
        let label = self.shared_label(&involved, origin)?;
        let what = match kernel {
            None => format!("stride {stride}"),
            Some((_, dil)) => format!("stride {stride}, dilation {dil} (valid convolution)"),
        };
        let cx = AffineAt {
            involved,
            label,
            origin,
            stride,
            what,
        };
        match (i, o, k) {
            // input = stride * output.
            (_, Some(o), None) => self.strided_input(&cx, input, o),
            (Some(i), None, None) => self.strided_output(&cx, output, i),
            // input = stride * (output - 1) + span.
            (_, Some(o), Some((Some(kd), dil))) => self.convolved_input(&cx, input, o, (kd, dil)),
            (Some(i), None, Some((Some(kd), dil))) => {
                self.convolved_output(&cx, output, i, (kd, dil))
            }
            // The kernel from input and output.
            (Some(i), Some(o), Some((None, dil))) => {
                let (kd, _) = kernel.expect("matched Some");
                self.convolution_kernel(&cx, kd, (i, o), dil)
            }
            _ => Ok(self.stuck_on_free(&cx.involved)),
        }
    }

    /// An affine constraint that cannot hold: an incompatible stride.
    fn affine_fail(&self, cx: &AffineAt, msg: String) -> ShapeError {
        self.dim_error(
            ShapeErrorKind::IncompatibleStride,
            msg,
            cx.origin,
            &cx.involved,
        )
    }

    /// A strided axis's input from its output `o`: `stride * o`.
    fn strided_input(&mut self, cx: &AffineAt, input: Dim, o: u64) -> Result<Step, ShapeError> {
        let stride = cx.stride;
        let need = wide(stride) * wide(o);
        let Some(need) = fit(need) else {
            return Err(self.dim_overflow(
                format!("the strided axis needs size {stride} * {o} = {need}"),
                cx.origin,
                &cx.involved,
            ));
        };
        self.affine_bind(input, need, cx.label, cx.origin)
    }

    /// A strided axis's output from its input `i`, a multiple of the stride.
    fn strided_output(&mut self, cx: &AffineAt, output: Dim, i: u64) -> Result<Step, ShapeError> {
        let stride = cx.stride;
        if !i.is_multiple_of(stride) {
            return Err(self.affine_fail(
                cx,
                format!(
                    "an axis of size {i} cannot be iterated with {}: {i} is not a multiple of {stride}",
                    cx.what
                ),
            ));
        }
        self.affine_bind(output, i / stride, cx.label, cx.origin)
    }

    /// A valid convolution's input from its output `o` and kernel size
    /// `kd` (dilation `dil`): `stride * (o - 1) + span`.
    fn convolved_input(
        &mut self,
        cx: &AffineAt,
        input: Dim,
        o: u64,
        (kd, dil): (u64, u64),
    ) -> Result<Step, ShapeError> {
        let stride = cx.stride;
        if o == 0 {
            return Err(self.affine_fail(
                cx,
                format!("a valid convolution has no output of size 0 ({})", cx.what),
            ));
        }
        let need = wide(stride) * wide(o - 1) + span(kd, dil);
        let Some(need) = fit(need) else {
            return Err(self.dim_overflow(
                format!(
                    "the convolution input needs size {stride} * ({o} - 1) + ({kd} - 1) * {dil} + 1 = {need}"
                ),
                cx.origin,
                &cx.involved,
            ));
        };
        self.affine_bind(input, need, cx.label, cx.origin)
    }

    /// A valid convolution's output from its input `i` and kernel size
    /// `kd` (dilation `dil`): `(i - span) / stride + 1`, divisible.
    fn convolved_output(
        &mut self,
        cx: &AffineAt,
        output: Dim,
        i: u64,
        (kd, dil): (u64, u64),
    ) -> Result<Step, ShapeError> {
        let stride = cx.stride;
        let Some(span) = fit(span(kd, dil)) else {
            return Err(self.dim_overflow(
                format!(
                    "the dilated kernel spans ({kd} - 1) * {dil} + 1 = {}",
                    span(kd, dil)
                ),
                cx.origin,
                &cx.involved,
            ));
        };
        if i < span || !(i - span).is_multiple_of(stride) {
            return Err(self.affine_fail(
                cx,
                format!(
                    "an axis of size {i} cannot be convolved with a kernel of size {kd} ({}): {}",
                    cx.what,
                    if i < span {
                        format!("the dilated kernel spans {span}")
                    } else {
                        format!("{i} - {span} is not a multiple of {stride}")
                    }
                ),
            ));
        }
        self.affine_bind(output, (i - span) / stride + 1, cx.label, cx.origin)
    }

    /// A valid convolution's kernel `kernel` (dilation `dil`) from its
    /// input `i` and output `o`.
    fn convolution_kernel(
        &mut self,
        cx: &AffineAt,
        kernel: Dim,
        (i, o): (u64, u64),
        dil: u64,
    ) -> Result<Step, ShapeError> {
        let stride = cx.stride;
        let no_kernel = |s: &Self| {
            s.affine_fail(
                cx,
                format!(
                    "no kernel size fits an axis of size {i} convolved to {o} ({})",
                    cx.what
                ),
            )
        };
        if o == 0 {
            return Err(no_kernel(self));
        }
        let Some(covered) = fit(wide(stride) * wide(o - 1)) else {
            return Err(self.dim_overflow(
                format!(
                    "the convolution's outputs span {stride} * ({o} - 1) = {}",
                    wide(stride) * wide(o - 1)
                ),
                cx.origin,
                &cx.involved,
            ));
        };
        if i <= covered || (i - covered - 1) % dil != 0 {
            return Err(no_kernel(self));
        }
        self.affine_bind(kernel, (i - covered - 1) / dil + 1, cx.label, cx.origin)
    }

    /// `Constraint::Affine` with explicit padding (`@lo,hi`, our extension
    /// for ONNX: `output = (input + lo + hi - span) / stride + 1` rounded
    /// down, with the input padded to at least the span). The input and the
    /// kernel give the output; with stride 1 the relation is exact, so the
    /// output and either of the others give the third. With a larger
    /// stride, the rounding leaves the input (or kernel) ambiguous from the
    /// output: the constraint waits for them.
    pub(super) fn affine_padded(
        &mut self,
        input: Dim,
        output: Dim,
        stride: u64,
        kernel: Option<(Dim, u64)>,
        (lo, hi): (u64, u64),
        origin: Origin,
    ) -> Result<Step, ShapeError> {
        let Some((kernel, dil)) = kernel else {
            // The parser attaches explicit padding only to a kernel.
            return self.affine(input, output, stride, None, origin);
        };
        let size = |s: &Self, d: Dim| match s.find_dim(d) {
            Dim::Size(n, _) => Some(n),
            Dim::Var(_) => None,
        };
        let (i, o, k) = (size(self, input), size(self, output), size(self, kernel));
        let involved = [input, output, kernel];
        let label = self.shared_label(&involved, origin)?;
        let what = format!("stride {stride}, dilation {dil}, padding {lo} and {hi}");
        let fail = |s: &Self, msg: String| {
            s.dim_error(ShapeErrorKind::IncompatibleStride, msg, origin, &involved)
        };
        // Sizes, strides, dilations and paddings are at most `MAX_SIZE`
        // (checked when the constraint is first simplified): the sums and
        // products below are exact in `u128`.
        let wide = u128::from;
        let span = |kd: u64| wide(kd.saturating_sub(1)) * wide(dil) + 1;
        let pads = wide(lo) + wide(hi);
        match (i, o, k) {
            (Some(i), _, Some(kd)) => {
                let padded = wide(i) + pads;
                if padded < span(kd) {
                    return Err(fail(
                        self,
                        format!(
                            "an axis of size {i} cannot be convolved with a kernel of size {kd} ({what}): the padded axis ({padded}) is shorter than the dilated kernel ({})",
                            span(kd)
                        ),
                    ));
                }
                let out = (padded - span(kd)) / wide(stride) + 1;
                let Some(out) = fit(out) else {
                    return Err(self.dim_overflow(
                        format!("the convolution output needs size {out} ({what})"),
                        origin,
                        &involved,
                    ));
                };
                self.affine_bind(output, out, label, origin)
            }
            (None, Some(o), Some(kd)) if stride == 1 => {
                let need = wide(o) + span(kd) - 1;
                if o == 0 || need < pads {
                    return Err(fail(
                        self,
                        format!(
                            "no axis convolved with a kernel of size {kd} ({what}) has size {o}"
                        ),
                    ));
                }
                let Some(need) = fit(need - pads) else {
                    return Err(self.dim_overflow(
                        format!("the convolution input needs size {o} - 1 + ({kd} - 1) * {dil} + 1 - {lo} - {hi} = {}", need - pads),
                        origin,
                        &involved,
                    ));
                };
                self.affine_bind(input, need, label, origin)
            }
            (Some(i), Some(o), None) if stride == 1 => {
                // span = input + lo + hi - output + 1 = (k - 1) * dil + 1.
                let padded = wide(i) + pads;
                if o == 0 || padded < wide(o) || (padded - wide(o)) % wide(dil) != 0 {
                    return Err(fail(
                        self,
                        format!(
                            "no kernel size fits an axis of size {i} convolved to {o} ({what})"
                        ),
                    ));
                }
                let kd = (padded - wide(o)) / wide(dil) + 1;
                let Some(kd) = fit(kd) else {
                    return Err(self.dim_overflow(
                        format!("the convolution kernel needs size {kd} ({what})"),
                        origin,
                        &involved,
                    ));
                };
                self.affine_bind(kernel, kd, label, origin)
            }
            _ => Ok(self.stuck_on_free(&involved)),
        }
    }

    /// Waiting for whichever of `dims` are still free.
    fn stuck_on_free(&self, dims: &[Dim]) -> Step {
        Step::Stuck {
            dims: dims
                .iter()
                .filter_map(|d| match self.find_dim(*d) {
                    Dim::Var(v) => Some(v),
                    Dim::Size(..) => None,
                })
                .collect(),
            rows: Vars::new(),
        }
    }

    /// Binds (or checks) `d = n` for an affine constraint: a mismatch is an
    /// incompatible stride, not a plain size mismatch.
    fn affine_bind(
        &mut self,
        d: Dim,
        n: u64,
        label: Label,
        origin: Origin,
    ) -> Result<Step, ShapeError> {
        match self.find_dim(d) {
            Dim::Size(m, _) if m == n => Ok(Step::Done),
            Dim::Size(m, _) => Err(self.dim_error(
                ShapeErrorKind::IncompatibleStride,
                format!("the strided or convolution iteration needs size {n} here, but the axis has size {m}"),
                origin,
                &[d],
            )),
            Dim::Var(_) => self.dim_eq(d, Dim::Size(n, label), origin),
        }
    }

    /// The label the axes of a computed dim share (OCANNL's `basis`: a
    /// concatenated, strided or convolution axis keeps the label of its
    /// labelled parts): none if none has one, an error if two differ.
    pub(super) fn shared_label(&self, dims: &[Dim], origin: Origin) -> Result<Label, ShapeError> {
        let mut found = Label::NONE;
        for d in dims {
            if let Dim::Size(_, l) = self.find_dim(*d)
                && l != Label::NONE
            {
                if found != Label::NONE && found != l {
                    return Err(self.dim_error(
                        ShapeErrorKind::LabelMismatch,
                        format!(
                            "label mismatch: labels {} and {} meet on one computed axis",
                            self.label_name(found),
                            self.label_name(l)
                        ),
                        origin,
                        dims,
                    ));
                }
                found = l;
            }
        }
        Ok(found)
    }
}

/// A `Constraint::Affine` being simplified: its dims, their shared label,
/// and what its errors say.
struct AffineAt {
    involved: Vec<Dim>,
    label: Label,
    origin: Origin,
    stride: u64,
    /// `stride 2`, or with the dilation of a valid convolution.
    what: String,
}

/// Sizes, strides and dilations are at most `MAX_SIZE` (checked when the
/// constraint is first simplified): the products and sums of the affine
/// rules are exact in `u128`, and a size past the bound is an overflow.
fn wide(n: u64) -> u128 {
    u128::from(n)
}

/// The extent of the dilated kernel: `(k - 1) * dilation + 1`.
fn span(kd: u64, dil: u64) -> u128 {
    wide(kd.saturating_sub(1)) * wide(dil) + 1
}
