//! One component of the call graph as one shape problem: its values, the
//! constraints of its ops, calls and control flow, the solution written
//! back (steps 2 to 5 of the pass's algorithm).

use std::collections::{HashMap, HashSet, hash_map::Entry};

use rustc_hash::FxHashMap;

use melior::ir::{
    BlockLike, Location, RegionLike, Type, TypeLike, Value, ValueLike,
    operation::{OperationLike, OperationRef, OperationResult},
};
use ocannl_dialect::{
    catalog::{self, OpDef, ShapeLogic},
    diagnostics::emit_error,
    ir,
    types::shape_spec,
};
use ocannl_shape::{
    problem::{Problem, ShapeId},
    solver::{Closing, OpId, Role, ShapeError},
    spec::{ShapeSpec, SpecError},
};

mod declared;

use super::{Located, calls::CallGraph};
use crate::{
    ffi::flow::{Edge, control_flow_edges},
    op_logic::{OwnedLogic, SpecCache},
    pass::PassFailed,
    tensor_types::{function_type, set_signature, solved_type},
};

/// A value whose type takes part, and whether the pass may rewrite it.
struct Tracked<'c, 'a> {
    value: Value<'c, 'a>,
    shape: ShapeId,
    writable: bool,
}

/// A function's signature as shapes (`None` for a non-tensor entry), with
/// the types written in it.
struct Signature<'c> {
    inputs: Vec<(Type<'c>, Option<ShapeId>)>,
    results: Vec<(Type<'c>, Option<ShapeId>)>,
}

/// The problem of one component and what it needs to report and write back.
struct Scope<'c, 'a> {
    problem: Problem,
    values: Vec<Tracked<'c, 'a>>,
    by_value: FxHashMap<usize, usize>,
    /// Values whose type's spec is invalid (reported once).
    invalid: HashSet<usize>,
    /// The op behind each [`OpId`] (reports locate errors and notes there).
    ops: Vec<OperationRef<'c, 'a>>,
    signatures: HashMap<usize, Signature<'c>>,
    errors: Vec<Located<'c>>,
    /// The parsed spec of each tensor type met (`None`: not a tensor), by
    /// the type's (uniqued) storage: a program repeats a few types many
    /// times, and each is parsed once.
    specs: FxHashMap<usize, Option<ShapeSpec>>,
    /// Parsed einsum and block specs.
    logic_specs: SpecCache,
    /// Each op name's catalog entry, by the name's (uniqued) identifier:
    /// looked up once per name, not copied out and searched per op.
    defs: FxHashMap<usize, Option<&'static OpDef>>,
}

fn key(v: Value<'_, '_>) -> usize {
    v.to_raw().ptr as usize
}

/// The spec of `ty` through `cache` (see [`Scope::specs`]); an invalid spec
/// is not cached (it is reported, and reporting is rare).
fn cached_spec<'s>(
    cache: &'s mut FxHashMap<usize, Option<ShapeSpec>>,
    ty: Type<'_>,
) -> Result<Option<&'s ShapeSpec>, SpecError> {
    let key = ty.to_raw().ptr as usize;
    let spec = match cache.entry(key) {
        Entry::Occupied(e) => e.into_mut(),
        Entry::Vacant(e) => e.insert(shape_spec(ty)?),
    };
    Ok(spec.as_ref())
}

impl<'c, 'a> Scope<'c, 'a> {
    /// The shape of `value`, registering it when unseen; `None` for a
    /// non-tensor value (or an invalid spec, recorded as an error at `at`).
    fn shape_of(
        &mut self,
        value: Value<'c, 'a>,
        writable: bool,
        terminal: bool,
        at: OperationRef<'c, 'a>,
    ) -> Option<ShapeId> {
        if let Some(&i) = self.by_value.get(&key(value)) {
            return Some(self.values[i].shape);
        }
        let spec = match cached_spec(&mut self.specs, value.r#type()) {
            Ok(Some(spec)) => spec,
            Ok(None) => return None,
            Err(e) => {
                // Reported once, where the value is first met.
                if self.invalid.insert(key(value)) {
                    self.errors.push(Located::at(
                        at,
                        format!("invalid shape spec in type {}: {e}", value.r#type()),
                    ));
                }
                return None;
            }
        };
        let shape = self.problem.shape_from_spec(spec, terminal);
        self.by_value.insert(key(value), self.values.len());
        self.values.push(Tracked {
            value,
            shape,
            writable,
        });
        Some(shape)
    }

    /// The catalog entry of `op`'s name (`None`: not an ocannl op).
    fn def(&mut self, op: &OperationRef<'c, 'a>) -> Option<&'static OpDef> {
        *self
            .defs
            .entry(op.name().to_raw().ptr as usize)
            .or_insert_with(|| catalog::lookup(&ir::op_name(op)))
    }

    /// The shape of a type written in a signature.
    fn type_shape(
        &mut self,
        ty: Type<'c>,
        terminal: bool,
        at: OperationRef<'c, 'a>,
    ) -> Option<ShapeId> {
        match cached_spec(&mut self.specs, ty) {
            Ok(Some(spec)) => Some(self.problem.shape_from_spec(spec, terminal)),
            Ok(None) => None,
            Err(e) => {
                self.errors.push(Located::at(
                    at,
                    format!("invalid shape spec in type {ty}: {e}"),
                ));
                None
            }
        }
    }

    /// A fresh op id for constraints of `op` (its location reports them).
    fn op_id(&mut self, op: OperationRef<'c, 'a>) -> OpId {
        self.ops.push(op);
        OpId(u32::try_from(self.ops.len() - 1).expect("fewer than 2^32 ops"))
    }

    /// `a` and `b` are the same shape (control flow passes one as the other
    /// at `at`).
    fn equal(&mut self, a: ShapeId, b: ShapeId, at: OpId) {
        self.problem.add_equal(at, a, b);
    }

    /// Registers `func`'s signature, arguments and op results (step 2).
    fn register_function(
        &mut self,
        index: usize,
        func: OperationRef<'c, 'a>,
        edges: &[Edge<'c, 'a>],
        graph: &CallGraph<'c, 'a>,
    ) {
        let Some(fty) = function_type(func) else {
            self.errors
                .push(Located::at(func, "'func.func' op has no function type"));
            return;
        };
        let body = func.region(0).ok().and_then(|r| r.first_block());
        let nested = ir::collect_ops(func, |_| ir::Select {
            keep: true,
            descend: true,
        });
        // The tables sized once, for the arguments and the ops (growing
        // them copies what they hold into fresh memory, several times).
        let values = fty.input_count() + nested.len();
        self.problem.reserve_ops(values);
        self.values.reserve(values);
        self.by_value.reserve(values);
        self.ops.reserve(nested.len());
        let mut inputs = Vec::with_capacity(fty.input_count());
        for i in 0..fty.input_count() {
            let ty = fty.input(i).expect("index below input_count");
            let shape = match body.and_then(|b| b.argument(i).ok()) {
                Some(arg) => self.shape_of(arg.into(), true, true, func),
                None => self.type_shape(ty, true, func),
            };
            inputs.push((ty, shape));
        }
        let mut results = Vec::with_capacity(fty.result_count());
        for j in 0..fty.result_count() {
            let ty = fty.result(j).expect("index below result_count");
            results.push((ty, self.type_shape(ty, body.is_none(), func)));
        }
        self.signatures.insert(index, Signature { inputs, results });
        // Values control flow passes along get their shapes from the edges
        // (and the results of calls from the callee): writable, not
        // terminals.
        let mut linked: HashSet<usize> = edges
            .iter()
            .flat_map(|e| [key(e.from), key(e.to)])
            .collect();
        for site in graph.calls_of(index) {
            linked.extend(site.op.results().map(|r| key(r.into())));
        }
        for &op in &nested {
            let def = self.def(&op);
            let terminal = def.is_none_or(|d| d.logic == ShapeLogic::Terminal);
            for result in op.results() {
                let value: Value<'c, 'a> = result.into();
                let linked = linked.contains(&key(value));
                self.shape_of(value, def.is_some() || linked, terminal && !linked, op);
            }
        }
        for e in edges {
            for v in [e.from, e.to] {
                self.shape_of(v, true, false, e.at);
            }
        }
    }

    /// The constraints of `func`'s ops, returns, calls and control flow
    /// (step 3).
    fn constrain_function(
        &mut self,
        index: usize,
        func: OperationRef<'c, 'a>,
        edges: &[Edge<'c, 'a>],
        graph: &CallGraph<'c, 'a>,
    ) {
        for e in edges {
            let (Some(&a), Some(&b)) = (
                self.by_value.get(&key(e.from)),
                self.by_value.get(&key(e.to)),
            ) else {
                continue;
            };
            let (a, b) = (self.values[a].shape, self.values[b].shape);
            let at = self.op_id(e.at);
            self.equal(a, b, at);
        }
        // `func.return` operands are the signature's results.
        let mut block = func.region(0).ok().and_then(|r| r.first_block());
        while let Some(b) = block {
            if let Some(ret) = b.terminator().filter(|t| ir::op_name(t) == "func.return") {
                let at = self.op_id(ret);
                for (j, v) in ret.operands().enumerate() {
                    let result = self.signatures[&index].results.get(j).and_then(|r| r.1);
                    if let (Some(sig), Some(shape)) = (result, self.shape_of(v, false, true, ret)) {
                        self.equal(shape, sig, at);
                    }
                }
            }
            block = b.next_in_region();
        }
        for site in graph.calls_of(index) {
            let at = self.op_id(site.op);
            let callee = &self.signatures[&site.callee];
            let inputs: Vec<Option<ShapeId>> = callee.inputs.iter().map(|i| i.1).collect();
            let results: Vec<Option<ShapeId>> = callee.results.iter().map(|r| r.1).collect();
            for (arg, sig) in site.args.iter().zip(inputs) {
                if let (Some(shape), Some(sig)) = (self.shape_of(*arg, false, true, site.op), sig) {
                    self.equal(shape, sig, at);
                }
            }
            for (result, sig) in site.op.results().zip(results) {
                if let (Some(shape), Some(sig)) =
                    (self.shape_of(result.into(), true, false, site.op), sig)
                {
                    self.equal(sig, shape, at);
                }
            }
        }
        let nested = ir::collect_ops(func, |_| ir::Select {
            keep: true,
            descend: true,
        });
        for op in nested {
            self.constrain_op(op);
        }
    }

    /// The constraints of one ocannl op's shape logic.
    fn constrain_op(&mut self, op: OperationRef<'c, 'a>) {
        let Some(def) = self.def(&op) else {
            return;
        };
        let name = def.name;
        let index = self.op_id(op);
        let mut operands = Vec::with_capacity(op.operand_count());
        let mut complete = true;
        for operand in op.operands() {
            match self.shape_of(operand, false, true, op) {
                Some(s) => operands.push(s),
                None if cached_spec(&mut self.specs, operand.r#type()).is_ok() => {
                    self.errors.push(Located::at(
                        op,
                        format!(
                            "'{name}' op operand must be a tensor, got {}",
                            operand.r#type()
                        ),
                    ));
                    complete = false;
                }
                // An invalid spec, already reported: the op's constraints
                // would only repeat it as an operand count mismatch.
                None => complete = false,
            }
        }
        if !complete {
            return;
        }
        let Some(result) = op
            .result(0)
            .ok()
            .and_then(|r| self.by_value.get(&key(r.into())).copied())
        else {
            return;
        };
        let result = self.values[result].shape;
        let owned = match OwnedLogic::of_cached(op, def, &mut self.logic_specs) {
            Ok(owned) => owned,
            Err(e) => {
                self.errors
                    .push(Located::at(op, format!("'{name}' op {e}")));
                return;
            }
        };
        let logic = owned.as_logic(&mut self.problem);
        if let Err(e) = self.problem.add_op(index, logic, &operands, result) {
            self.errors
                .push(Located::at(op, format!("'{name}' op: {e}")));
        }
    }

    /// An error at the failing constraint's op, notes at the related ops
    /// and at the producers of the operands it names (a size stated in a
    /// producer's result type is a constraint no op records).
    fn report(&self, fallback: Location<'c>, e: &ShapeError) {
        let op_of = |op: OpId| self.ops.get(op.0 as usize).copied();
        let location = |op: OpId| op_of(op).map_or(fallback, |o| o.location());
        // One note per op: the first (most direct) constraint of each.
        let mut seen = vec![e.origin.op];
        let mut notes: Vec<(Location<'_>, String)> = e
            .related
            .iter()
            .filter(|o| {
                let fresh = !seen.contains(&o.op);
                seen.push(o.op);
                fresh
            })
            .map(|o| {
                let what = if o.op.0 == u32::MAX {
                    "a variable was closed here (OCANNL's closing stages)".to_owned()
                } else {
                    format!("constrained here: {}", o.describe())
                };
                (location(o.op), what)
            })
            .collect();
        if let Some(failing) = op_of(e.origin.op) {
            let mut producers: Vec<OperationRef<'c, 'a>> =
                seen.iter().filter_map(|&o| op_of(o)).collect();
            for role in [e.origin.lhs().0, e.origin.rhs().0] {
                let Role::Operand(i) = role else { continue };
                let Some(value) = usize::try_from(i)
                    .ok()
                    .and_then(|i| failing.operand(i).ok())
                else {
                    continue;
                };
                let Ok(result) = OperationResult::try_from(value) else {
                    continue;
                };
                let producer = result.owner();
                if producers.contains(&producer) {
                    continue;
                }
                producers.push(producer);
                notes.push((
                    producer.location(),
                    format!(
                        "operand #{i} is produced here, with type {}",
                        value.r#type()
                    ),
                ));
            }
        }
        emit_error(
            location(e.origin.op),
            &format!("shape inference failed: {e}"),
            &notes,
        );
    }

    /// Writes the solution into every writable value's type and every
    /// function's signature (step 5).
    fn write_back(&self, component: &[usize], functions: &[OperationRef<'c, 'a>]) {
        // A program repeats a few solved types many times: a concrete solved
        // shape (no variables to name) gives the same new type for the same
        // old type, so each pair is printed and built once. The pair is
        // looked up by a key of words (the old type, then the shape's sizes
        // and labels) read off the solution without building the shape; the
        // hash is randomly seeded, as the sizes come from the input.
        let mut cache: foldhash::HashMap<Box<[u64]>, Option<Type<'c>>> =
            foldhash::HashMap::default();
        let mut key = Vec::new();
        // One index of the variables' names for every shape (building it
        // per shape made naming quadratic in the named variables).
        let namer = self.problem.namer();
        let mut solve = |ty: Type<'c>, shape: ShapeId| -> Option<Type<'c>> {
            key.clear();
            key.push(ty.to_raw().ptr as u64);
            if !self.problem.concrete_key(shape, &mut key) {
                let resolved = self.problem.shape(shape);
                return solved_type(ty, &namer.spec(shape, &resolved));
            }
            if let Some(new) = cache.get(&key[..]) {
                return *new;
            }
            let new = solved_type(ty, &namer.spec(shape, &self.problem.shape(shape)));
            cache.insert(key.as_slice().into(), new);
            new
        };
        for tracked in self.values.iter().filter(|t| t.writable) {
            if let Some(new) = solve(tracked.value.r#type(), tracked.shape) {
                tracked.value.set_type(new);
            }
        }
        for &f in component {
            let sig = &self.signatures[&f];
            let mut solved = |(ty, shape): &(Type<'c>, Option<ShapeId>)| {
                shape.and_then(|s| solve(*ty, s)).unwrap_or(*ty)
            };
            let inputs: Vec<Type<'c>> = sig.inputs.iter().map(&mut solved).collect();
            let results: Vec<Type<'c>> = sig.results.iter().map(&mut solved).collect();
            set_signature(functions[f], &inputs, &results);
        }
    }
}

/// Infers the shapes of one component of the call graph (the functions
/// `component` indexes in `functions`) and writes them back; every error is
/// reported before anything is written.
pub(crate) fn infer<'c, 'a>(
    component: &[usize],
    functions: &[OperationRef<'c, 'a>],
    graph: &CallGraph<'c, 'a>,
    closing: Closing,
) -> Result<(), PassFailed> {
    let mut scope = Scope {
        problem: Problem::new(),
        values: vec![],
        by_value: FxHashMap::default(),
        invalid: HashSet::new(),
        ops: vec![],
        signatures: HashMap::new(),
        errors: vec![],
        specs: FxHashMap::default(),
        logic_specs: SpecCache::default(),
        defs: FxHashMap::default(),
    };
    let mut edges = Vec::with_capacity(component.len());
    for &f in component {
        match control_flow_edges(functions[f]) {
            Ok(e) => edges.push(e),
            Err(op) => {
                let name = ir::op_name(&op);
                scope.errors.push(Located::at(
                    op,
                    format!("'{name}' op: ocannl-infer-shapes cannot relate the tensors it passes to its regions or successors (it implements neither RegionBranchOpInterface nor BranchOpInterface)"),
                ));
                edges.push(vec![]);
            }
        }
    }
    for (k, &f) in component.iter().enumerate() {
        // Variable names are scoped to their function.
        scope.problem.set_scope(k as u32);
        scope.register_function(f, functions[f], &edges[k], graph);
    }
    for (k, &f) in component.iter().enumerate() {
        scope.problem.set_scope(k as u32);
        scope.constrain_function(f, functions[f], &edges[k], graph);
    }
    if !scope.errors.is_empty() {
        for e in &scope.errors {
            emit_error(e.location, &e.message, &[]);
        }
        return Err(PassFailed);
    }
    if let Err(e) = scope.problem.solve(closing) {
        scope.report(functions[component[0]].location(), &e);
        return Err(PassFailed);
    }
    // Declared shapes compare against closed shapes only.
    if matches!(closing, Closing::Full) && !scope.check_declared() {
        return Err(PassFailed);
    }
    scope.write_back(component, functions);
    Ok(())
}
