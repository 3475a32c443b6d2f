//! The activation functions of the recurrent layers (the `activations`
//! attribute, with `activation_alpha` and `activation_beta`), each as
//! pointwise ops, and the cell clip applied to their inputs.

use super::super::{R, Translator, Val};

/// An activation function the recurrent ops name (onnx.ai's RNN page).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fun {
    Relu,
    Tanh,
    Sigmoid,
    Affine,
    LeakyRelu,
    ThresholdedRelu,
    ScaledTanh,
    HardSigmoid,
    Elu,
    Softsign,
    Softplus,
}

/// One activation with its parameters.
#[derive(Debug, Clone, Copy)]
pub(super) struct Act {
    fun: Fun,
    alpha: f64,
    beta: f64,
}

impl Fun {
    /// The function of a name (as onnxruntime, case-insensitively).
    fn of(name: &str) -> Option<Self> {
        use Fun::*;
        let all = [
            ("relu", Relu),
            ("tanh", Tanh),
            ("sigmoid", Sigmoid),
            ("affine", Affine),
            ("leakyrelu", LeakyRelu),
            ("thresholdedrelu", ThresholdedRelu),
            ("scaledtanh", ScaledTanh),
            ("hardsigmoid", HardSigmoid),
            ("elu", Elu),
            ("softsign", Softsign),
            ("softplus", Softplus),
        ];
        let lower = name.to_ascii_lowercase();
        all.iter().find(|(n, _)| *n == lower).map(|(_, f)| *f)
    }

    /// The default `alpha` of a function that reads one (the
    /// corresponding ONNX operator's).
    fn alpha(self) -> Option<f64> {
        match self {
            Fun::Affine | Fun::ScaledTanh | Fun::ThresholdedRelu | Fun::Elu => Some(1.0),
            Fun::LeakyRelu => Some(0.01),
            Fun::HardSigmoid => Some(0.2),
            _ => None,
        }
    }

    /// The default `beta` of a function that reads one.
    fn beta(self) -> Option<f64> {
        match self {
            Fun::Affine => Some(0.0),
            Fun::ScaledTanh => Some(1.0),
            Fun::HardSigmoid => Some(0.5),
            _ => None,
        }
    }
}

/// The activations of `names` (each direction's in turn), `alphas` and
/// `betas` consumed in their order by the functions that read them (the
/// operator's default when the list runs out).
pub(super) fn parse(names: &[String], alphas: &[f32], betas: &[f32]) -> Result<Vec<Act>, String> {
    let (mut ai, mut bi) = (alphas.iter(), betas.iter());
    let mut out = Vec::new();
    for n in names {
        let Some(fun) = Fun::of(n) else {
            return Err(format!(
                "the activation '{n}' is not supported (Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus)"
            ));
        };
        let alpha = fun
            .alpha()
            .map_or(0.0, |d| ai.next().map_or(d, |&a| f64::from(a)));
        let beta = fun
            .beta()
            .map_or(0.0, |d| bi.next().map_or(d, |&b| f64::from(b)));
        out.push(Act { fun, alpha, beta });
    }
    Ok(out)
}

/// The default activations of a direction: `f` (Sigmoid) for the gates,
/// `g` and `h` (Tanh) for the candidate and the output; a plain RNN's one
/// is Tanh.
pub(super) fn defaults(n: usize) -> Vec<String> {
    match n {
        1 => vec!["Tanh".into()],
        2 => vec!["Sigmoid".into(), "Tanh".into()],
        _ => vec!["Sigmoid".into(), "Tanh".into(), "Tanh".into()],
    }
}

impl Translator {
    /// `x` clipped to `[-clip, clip]` (when given), then `a` of it; every
    /// op of `x`'s shape.
    pub(super) fn activate(&mut self, a: Act, clip: Option<f64>, x: &Val) -> R<Val> {
        let s = x.spec.clone();
        let x = match clip {
            Some(c) => {
                let lo = self.scalar(x.elem, -c);
                let hi = self.scalar(x.elem, c);
                let m = self.binary("max", x, &lo, s.clone())?;
                self.binary("min", &m, &hi, s.clone())?
            }
            None => x.clone(),
        };
        let x = &x;
        let k = |t: &mut Self, v: f64| t.scalar(x.elem, v);
        Ok(match a.fun {
            Fun::Relu => self.unary("relu", x, s),
            Fun::Tanh => self.unary("tanh", x, s),
            Fun::Sigmoid => {
                let n = self.unary("neg", x, s.clone());
                let e = self.unary("exp", &n, s.clone());
                let one = k(self, 1.0);
                let d = self.binary("add", &e, &one, s.clone())?;
                self.unary("recip", &d, s)
            }
            Fun::Affine | Fun::HardSigmoid => {
                let al = k(self, a.alpha);
                let m = self.binary("mul", x, &al, s.clone())?;
                let be = k(self, a.beta);
                let y = self.binary("add", &m, &be, s.clone())?;
                if a.fun == Fun::Affine {
                    return Ok(y);
                }
                let one = k(self, 1.0);
                let zero = k(self, 0.0);
                let capped = self.binary("min", &y, &one, s.clone())?;
                self.binary("max", &capped, &zero, s)?
            }
            Fun::ScaledTanh => {
                let be = k(self, a.beta);
                let m = self.binary("mul", x, &be, s.clone())?;
                let t = self.unary("tanh", &m, s.clone());
                let al = k(self, a.alpha);
                self.binary("mul", &t, &al, s)?
            }
            Fun::LeakyRelu | Fun::Elu => {
                // `x` where `x >= 0`: a `where` on relu(-x), so that the
                // other side never reaches the kept one.
                let nx = self.unary("neg", x, s.clone());
                let below = self.unary("relu", &nx, s.clone());
                let base = if a.fun == Fun::Elu {
                    let e = self.unary("exp", x, s.clone());
                    let one = k(self, 1.0);
                    self.binary("sub", &e, &one, s.clone())?
                } else {
                    x.clone()
                };
                let al = k(self, a.alpha);
                let scaled = self.binary("mul", &base, &al, s.clone())?;
                self.ternary("where", &below, &scaled, x, s)?
            }
            Fun::ThresholdedRelu => {
                // `x` where `x > alpha`, else 0.
                let al = k(self, -a.alpha);
                let xa = self.binary("add", x, &al, s.clone())?;
                let above = self.unary("relu", &xa, s.clone());
                let zero = k(self, 0.0);
                self.ternary("where", &above, x, &zero, s)?
            }
            Fun::Softsign => {
                let ab = self.unary("abs", x, s.clone());
                let one = k(self, 1.0);
                let d = self.binary("add", &ab, &one, s.clone())?;
                self.binary("div", x, &d, s)?
            }
            Fun::Softplus => {
                // relu(x) + log(1 + exp(-|x|)): no overflow.
                let ab = self.unary("abs", x, s.clone());
                let na = self.unary("neg", &ab, s.clone());
                let e = self.unary("exp", &na, s.clone());
                let one = k(self, 1.0);
                let d = self.binary("add", &e, &one, s.clone())?;
                let l = self.unary("log", &d, s.clone());
                let r = self.unary("relu", x, s.clone());
                self.binary("add", &r, &l, s)?
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{Fun, parse};

    #[test]
    fn parameters_go_to_the_functions_that_read_them() {
        let names = ["Affine", "tanh", "LeakyRelu", "HardSigmoid"].map(String::from);
        let a = parse(&names, &[0.5, 0.3], &[0.1]).unwrap();
        assert_eq!(a[0].fun, Fun::Affine);
        assert_eq!((a[0].alpha, a[0].beta), (0.5, f64::from(0.1f32)));
        assert_eq!(a[1].fun, Fun::Tanh);
        assert_eq!(a[2].alpha, f64::from(0.3f32));
        // The lists ran out: the operators' defaults.
        assert_eq!((a[3].alpha, a[3].beta), (0.2, 0.5));
        let e = parse(&["Gelu".to_owned()], &[], &[]).unwrap_err();
        assert!(e.contains("not supported"), "{e}");
    }
}
