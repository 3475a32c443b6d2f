//! The state of one function being generated: its arguments, its body,
//! and the pool of values (with their concrete shapes) that later ops can
//! use as operands.

use super::shape::{Elem, Looseness, Shape, loose_type};
use crate::ir::{Func, Op, Stmt, Ty};
use crate::rng::Rng;

/// A value of the function: an argument or an op result.
#[derive(Debug, Clone, PartialEq)]
pub struct Val {
    /// The SSA name without `%`.
    pub name: String,
    /// Its type as written.
    pub ty: Ty,
    /// The shape the generator intends it to have.
    pub shape: Shape,
    /// Its element type.
    pub elem: Elem,
}

/// A generated function's signature, for calls from later functions.
#[derive(Debug, Clone)]
pub struct Sig {
    /// The function's name.
    pub name: String,
    /// Arguments: type, shape, element.
    pub args: Vec<(Ty, Shape, Elem)>,
    /// Results: type, shape, element.
    pub results: Vec<(Ty, Shape, Elem)>,
}

/// Knobs of the well-formed generator.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The most cells of any tensor.
    pub max_cells: u64,
    /// The most arguments of a function.
    pub max_args: usize,
    /// Weights of exact, dims, rows, open for intermediate types.
    pub loose: [u32; 4],
    /// Weights of exact, dims, rows, open for argument types.
    pub loose_args: [u32; 4],
    /// Probability of a builtin tensor type where one is possible.
    pub builtin: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_cells: 4096,
            max_args: 5,
            loose: [5, 2, 2, 2],
            loose_args: [10, 1, 1, 1],
            builtin: 0.2,
        }
    }
}

/// A function under construction.
pub struct FnGen<'r> {
    /// The random source.
    pub rng: &'r mut Rng,
    /// Limits and weights.
    pub limits: Limits,
    /// The function's element type (most values use it).
    pub elem: Elem,
    /// Arguments so far.
    pub args: Vec<Val>,
    /// Body statements so far (without the terminator).
    pub body: Vec<Stmt>,
    /// Values ops may use.
    pub pool: Vec<Val>,
    next_id: usize,
}

impl<'r> FnGen<'r> {
    /// An empty function whose values mostly have element type `elem`.
    pub fn new(rng: &'r mut Rng, limits: Limits, elem: Elem) -> Self {
        FnGen {
            rng,
            limits,
            elem,
            args: Vec::new(),
            body: Vec::new(),
            pool: Vec::new(),
            next_id: 0,
        }
    }

    /// A fresh SSA name.
    pub fn fresh(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}{}", self.next_id)
    }

    /// A type for an intermediate of `shape`.
    pub fn result_type(&mut self, shape: &Shape, elem: Elem) -> Ty {
        let how = Looseness::random(self.rng, &self.limits.loose);
        loose_type(shape, elem, how, self.limits.builtin, self.rng)
    }

    /// A new argument of `shape`.
    pub fn new_arg(&mut self, shape: &Shape, elem: Elem) -> Val {
        let how = Looseness::random(self.rng, &self.limits.loose_args);
        let ty = loose_type(shape, elem, how, self.limits.builtin, self.rng);
        self.new_arg_typed(ty, shape, elem)
    }

    /// A new argument with a given type.
    pub fn new_arg_typed(&mut self, ty: Ty, shape: &Shape, elem: Elem) -> Val {
        let v = Val {
            name: self.fresh("arg"),
            ty,
            shape: shape.clone(),
            elem,
        };
        self.args.push(v.clone());
        self.pool.push(v.clone());
        v
    }

    /// Appends an op with one result of the given shape; the result joins
    /// the pool.
    pub fn push_op(
        &mut self,
        name: &str,
        operands: &[&Val],
        attrs: Vec<(String, String)>,
        ty: Ty,
        shape: Shape,
        elem: Elem,
    ) -> Val {
        let v = Val {
            name: self.fresh("v"),
            ty: ty.clone(),
            shape,
            elem,
        };
        self.body.push(Stmt::Op(Op {
            results: vec![v.name.clone()],
            name: name.to_string(),
            operands: operands.iter().map(|o| o.name.clone()).collect(),
            attrs,
            operand_tys: operands.iter().map(|o| o.ty.clone()).collect(),
            result_tys: vec![ty],
        }));
        self.pool.push(v.clone());
        v
    }

    /// A random value of the pool with element `elem`, if any.
    pub fn pick(&mut self, elem: Elem) -> Option<Val> {
        let candidates: Vec<&Val> = self.pool.iter().filter(|v| v.elem == elem).collect();
        if candidates.is_empty() {
            return None;
        }
        // Prefer recent values: chains are more interesting than fans.
        let n = candidates.len();
        let i = if self.rng.chance(0.5) {
            n - 1 - self.rng.index(n.min(3))
        } else {
            self.rng.index(n)
        };
        Some(candidates[i].clone())
    }

    /// A random value of the pool, or a new one of a random shape.
    pub fn pick_or_make(&mut self, elem: Elem) -> Val {
        match self.pick(elem) {
            Some(v) if self.rng.chance(0.85) => v,
            _ => {
                let shape = Shape::random(self.rng, 256);
                self.source(&shape, elem)
            }
        }
    }

    /// A value of exactly `shape`: one of the pool, a new argument, a
    /// range or a constant.
    pub fn source(&mut self, shape: &Shape, elem: Elem) -> Val {
        if self.rng.chance(0.5)
            && let Some(v) = self
                .pool
                .iter()
                .rfind(|v| v.shape == *shape && v.elem == elem)
        {
            return v.clone();
        }
        match self.rng.weighted(&[5, 3, 2]) {
            0 if self.args.len() < self.limits.max_args => self.new_arg(shape, elem),
            1 => self.range(shape, elem, None),
            _ => self.constant(shape, elem),
        }
    }

    /// A value whose type is exactly `ty` (for call operands and yields).
    pub fn source_typed(&mut self, ty: &Ty, shape: &Shape, elem: Elem) -> Val {
        if let Some(v) = self.pool.iter().rfind(|v| v.ty == *ty) {
            return v.clone();
        }
        if self.args.len() < self.limits.max_args && self.rng.chance(0.5) {
            return self.new_arg_typed(ty.clone(), shape, elem);
        }
        self.range(shape, elem, Some(ty.clone()))
    }

    /// `ocannl.range` of `shape` (its `spec` attribute exact).
    pub fn range(&mut self, shape: &Shape, elem: Elem, ty: Option<Ty>) -> Val {
        let ty = ty.unwrap_or_else(|| self.result_type(shape, elem));
        let spec = crate::ir::mlir_string(shape.spec().as_bytes());
        self.push_op(
            "ocannl.range",
            &[],
            vec![("spec".into(), spec)],
            ty,
            shape.clone(),
            elem,
        )
    }

    /// `ocannl.constant` of `shape`: a splat scalar (the type or a `spec`
    /// attribute gives the shape) or dense data.
    pub fn constant(&mut self, shape: &Shape, elem: Elem) -> Val {
        let mut attrs = Vec::new();
        let small = shape.cells() <= 64;
        let ty = match self.rng.weighted(&[4, 2, if small { 2 } else { 0 }, 1]) {
            0 => {
                attrs.push(("value".into(), elem.scalar(self.rng)));
                Ty::ocannl(elem.name(), &shape.spec())
            }
            1 => {
                attrs.push(("value".into(), elem.scalar(self.rng)));
                attrs.push((
                    "spec".into(),
                    crate::ir::mlir_string(shape.spec().as_bytes()),
                ));
                self.result_type(shape, elem)
            }
            2 => {
                // Flat data fixes the count; the type fixes the axes.
                let n = shape.cells();
                let data: Vec<String> = (0..n).map(|i| dense_elem(elem, i)).collect();
                attrs.push((
                    "value".into(),
                    format!("dense<[{}]> : tensor<{n}x{}>", data.join(", "), elem.name()),
                ));
                Ty::ocannl(elem.name(), &shape.spec())
            }
            _ => {
                // A splat of the memory-order shape: the data fixes the axes
                // when it has rank 2 or more.
                let dims = shape.memory_order();
                let dims_text: String = dims.iter().map(|d| format!("{d}x")).collect();
                attrs.push((
                    "value".into(),
                    format!(
                        "dense<{}> : tensor<{dims_text}{}>",
                        dense_elem(elem, 1),
                        elem.name()
                    ),
                ));
                let output_only = shape.rows[0].is_empty() && shape.rows[1].is_empty();
                if dims.len() >= 2 && output_only {
                    self.result_type(shape, elem)
                } else {
                    Ty::ocannl(elem.name(), &shape.spec())
                }
            }
        };
        self.push_op("ocannl.constant", &[], attrs, ty, shape.clone(), elem)
    }

    /// Finishes the function returning `results`; `terminated` when the
    /// body already ends in its terminators (branches to returning blocks).
    pub fn finish(mut self, name: &str, results: &[Val], terminated: bool) -> (Func, Sig) {
        if !terminated {
            self.body.push(Stmt::Return(
                results
                    .iter()
                    .map(|v| (v.name.clone(), v.ty.clone()))
                    .collect(),
            ));
        }
        let func = Func {
            name: name.to_string(),
            args: self
                .args
                .iter()
                .map(|a| (a.name.clone(), a.ty.clone()))
                .collect(),
            results: results.iter().map(|v| v.ty.clone()).collect(),
            body: self.body,
            declaration: false,
        };
        let sig = Sig {
            name: name.to_string(),
            args: self
                .args
                .iter()
                .map(|a| (a.ty.clone(), a.shape.clone(), a.elem))
                .collect(),
            results: results
                .iter()
                .map(|v| (v.ty.clone(), v.shape.clone(), v.elem))
                .collect(),
        };
        (func, sig)
    }
}

/// The `i`-th element of dense data.
fn dense_elem(elem: Elem, i: u64) -> String {
    if elem.is_float() {
        format!("{}.5", i % 7)
    } else {
        format!("{}", i % 5)
    }
}
