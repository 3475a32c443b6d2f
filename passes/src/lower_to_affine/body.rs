//! The body of a lowered function: buffers for every tensor value (the
//! arguments, the result arguments, views into one arena for the
//! intermediates), each op's loop nests in a block of their own, calls in
//! destination-passing style, the return.

use std::collections::{HashMap, HashSet};

use melior::{
    dialect::ods,
    ir::{
        BlockLike, BlockRef, Location, Type, Value, ValueLike,
        attribute::{FlatSymbolRefAttribute, IntegerAttribute},
        operation::{OperationLike, OperationRef},
        r#type::MemRefType,
    },
};
use ocannl_dialect::{catalog, ir};

use super::{
    Located, Module,
    arena::{ALIGNMENT, Arena},
    at,
    emit::{At, Emitter},
    fusion, in_place,
    nests::Out,
    target::Target,
};
use crate::{
    buffers::{buffer_type, value_buffer},
    layout,
    schedule::{
        SCHEDULE, Schedule,
        epilogue::{Other, Step, key},
    },
};

/// The lowering of one function body.
pub(super) struct Body<'c, 'a> {
    pub em: Emitter<'c>,
    pub entry: BlockRef<'c, 'a>,
    /// The block ops are appended to.
    current: BlockRef<'c, 'a>,
    /// Old SSA values (by raw pointer) → their buffers.
    values: HashMap<usize, Value<'c, 'a>>,
    /// Old SSA values computed into a result argument.
    destinations: HashMap<usize, Value<'c, 'a>>,
    /// The offset of each intermediate in the arena.
    offsets: HashMap<usize, u64>,
    /// The arena (when there are intermediates) and its size in bytes.
    arena: Option<(Value<'c, 'a>, u64)>,
    /// Fused ops (by raw pointer): producers → their epilogue and the value
    /// they compute; the ops folded into one; values without a buffer.
    epilogues: HashMap<usize, (Vec<Step<'c, 'a>>, Value<'c, 'a>)>,
    folded: HashSet<usize>,
    hidden: HashSet<usize>,
    /// Each ocannl op's schedule (by raw pointer).
    schedules: HashMap<usize, Schedule>,
    /// Dense constants read in place from their `memref.global` (values by
    /// raw pointer): no buffer, no copy.
    in_place: HashSet<usize>,
    /// Concatenations whose parts are written into their boxes.
    concats: in_place::InPlace<'c, 'a>,
}

impl<'c, 'a> Body<'c, 'a> {
    pub(super) fn new(em: Emitter<'c>, entry: BlockRef<'c, 'a>) -> Self {
        Self {
            em,
            entry,
            current: entry,
            values: HashMap::new(),
            destinations: HashMap::new(),
            offsets: HashMap::new(),
            arena: None,
            epilogues: HashMap::new(),
            folded: HashSet::new(),
            hidden: HashSet::new(),
            schedules: HashMap::new(),
            in_place: HashSet::new(),
            concats: in_place::InPlace::default(),
        }
    }

    /// Reads each ocannl op's schedule: every one has one, and all of a
    /// function's run on one device (the CPU, or the GPU with one block
    /// size).
    fn read_schedules(&mut self, ops: &[OperationRef<'c, 'a>]) -> Result<(), Located<'c>> {
        let mut device: Option<(Option<u64>, OperationRef<'c, 'a>)> = None;
        for op in ops {
            let name = ir::op_name(op);
            if catalog::lookup(&name).is_none() {
                continue;
            }
            let fail = |m: String| at(op.location(), format!("'{name}' op {m}"));
            let s = Schedule::of(*op)
                .map_err(|m| fail(format!("has a {m}")))?
                .ok_or_else(|| {
                    fail(format!(
                        "has no schedule ({SCHEDULE}): run ocannl-plan-schedule first (or a named pipeline such as ocannl-to-affine)"
                    ))
                })?;
            if let Some(b) = s.gpu_block()
                && !(32..=1024).contains(&b) | (b % 32 != 0)
            {
                return Err(fail(format!(
                    "has a GPU schedule of {b} threads per block: a multiple of 32 from 32 to 1024"
                )));
            }
            if !matches!(s, Schedule::Epilogue { .. }) {
                let here = s.gpu_block();
                match device {
                    None => device = Some((here, *op)),
                    Some((there, first)) if there != here => {
                        let say = |b: Option<u64>| match b {
                            Some(b) => format!("for the GPU with {b} threads per block"),
                            None => "for the CPU".to_owned(),
                        };
                        return Err(fail(format!(
                            "is scheduled {} but '{}' op, earlier in the function, {}: a function's ops run on one device",
                            say(here),
                            ir::op_name(&first),
                            say(there)
                        )));
                    }
                    Some(_) => {}
                }
            }
            self.schedules.insert(op.to_raw().ptr as usize, s);
        }
        Ok(())
    }

    /// Chains of pointwise ops fused into their producer, as the schedules
    /// mark them ([`fusion::marked_chains`]): each producer's epilogue and
    /// the last value of its chain; the ops folded into a producer; the
    /// values that get no buffer.
    fn fuse(
        &mut self,
        ops: &[OperationRef<'c, 'a>],
        returned: &[Value<'c, 'a>],
    ) -> Result<(), Located<'c>> {
        let chains = fusion::marked_chains(ops, returned, &self.schedules)?;
        for c in chains {
            for v in &c.hidden {
                self.hidden.insert(key(*v));
            }
            for op in &c.folded {
                self.folded.insert(op.to_raw().ptr as usize);
            }
            self.epilogues
                .insert(c.producer.to_raw().ptr as usize, (c.epilogue, c.last));
        }
        Ok(())
    }

    /// The bytes the arena holds (0 without intermediates).
    pub(super) fn arena_bytes(&self) -> u64 {
        self.arena.map_or(0, |a| a.1)
    }

    fn end(&self) -> At<'c, 'a> {
        At::end(self.current)
    }

    /// Ends the current block with a branch to a new one, which becomes
    /// current.
    fn next_block(&mut self, loc: Location<'c>) {
        self.current = self.em.next_block(self.end(), loc).block;
    }

    /// The buffer of an operand computed earlier in the function.
    fn buffer(&self, v: Value<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        self.values
            .get(&key(v))
            .copied()
            .ok_or_else(|| "operand is not a tensor computed in this function".to_owned())
    }

    /// The buffer `v` (an op or call result) is computed into: its result
    /// argument, or its place in the arena.
    fn result_buffer(
        &mut self,
        v: Value<'c, 'a>,
        what: &str,
        loc: Location<'c>,
    ) -> Result<(Value<'c, 'a>, Vec<u64>), String> {
        if let Some(part) = self.concats.parts.get(&key(v)).cloned() {
            // Its box of the concatenation's buffer.
            let whole = match self.values.get(&key(part.whole)) {
                Some(b) => *b,
                None => self.result_buffer(part.whole, "result", loc)?.0,
            };
            let (_, whole_dims, _) = value_buffer(part.whole, "result")?;
            let (_, dims, _) = value_buffer(v, what)?;
            let view = self
                .em
                .part_view(self.end(), whole, &whole_dims, &part.offsets, &dims, loc);
            self.values.insert(key(v), view);
            return Ok((view, dims));
        }
        let (mty, dims, _) = value_buffer(v, what)?;
        let buf = match (self.destinations.get(&key(v)), self.arena) {
            (Some(out), _) => *out,
            (None, Some((arena, _))) => {
                let offset = self.offsets[&key(v)];
                let index = Type::index(self.em.ctx);
                let shift = self.em.constant(
                    self.end(),
                    IntegerAttribute::new(index, offset as i64).into(),
                    loc,
                );
                self.em.view(self.end(), arena, shift, mty, loc)
            }
            (None, None) => unreachable!("planned intermediates have an arena"),
        };
        self.values.insert(key(v), buf);
        Ok((buf, dims))
    }

    /// Places every intermediate in the arena (first fit, reusing a buffer
    /// once its last reader has run) and allocates the arena.
    fn plan(&mut self, ops: &[OperationRef<'c, 'a>], loc: Location<'c>) -> Result<(), Located<'c>> {
        let mut last_use: HashMap<usize, usize> = HashMap::new();
        for (p, op) in ops.iter().enumerate() {
            for v in op.operands() {
                last_use.insert(key(v), p);
            }
        }
        let mut arena = Arena::default();
        let mut ends: HashMap<usize, Vec<(u64, u64)>> = HashMap::new();
        let mut any = false;
        // A fused chain's last value is written by its producer: its
        // buffer is taken there (the producer's operands are still live).
        let lasts: HashSet<usize> = self.epilogues.values().map(|(_, l)| key(*l)).collect();
        for (p, op) in ops.iter().enumerate() {
            let fused_into = self
                .epilogues
                .get(&(op.to_raw().ptr as usize))
                .map(|(_, last)| *last);
            let values: Vec<Value<'c, 'a>> = match fused_into {
                Some(last) => vec![last],
                None => op.results().map(Into::into).collect(),
            };
            for (j, v) in values.into_iter().enumerate() {
                // A part of a concatenation computed in place: the
                // concatenation's buffer, from its first part on.
                let v = self.concats.parts.get(&key(v)).map_or(v, |p| p.whole);
                if self.destinations.contains_key(&key(v))
                    || self.offsets.contains_key(&key(v))
                    || self.hidden.contains(&key(v))
                    || (fused_into.is_none() && lasts.contains(&key(v)))
                {
                    continue;
                }
                if self.reads_in_place(*op) {
                    self.in_place.insert(key(v));
                    continue;
                }
                let (_, _, bytes) = buffer_type(v.r#type(), &format!("result #{j}"))
                    .map_err(|m| at(op.location(), format!("'{}' op: {m}", ir::op_name(op))))?;
                let offset = arena.alloc(bytes).map_err(|_| {
                    at(
                        loc,
                        "the function's intermediates need more than 2^63 bytes at once",
                    )
                })?;
                any = true;
                self.offsets.insert(key(v), offset);
                let end = last_use.get(&key(v)).copied().unwrap_or(p);
                ends.entry(end).or_default().push((offset, bytes));
            }
            for (offset, bytes) in ends.remove(&p).unwrap_or_default() {
                arena.release(offset, bytes);
            }
        }
        if any {
            let size = arena.size().max(ALIGNMENT);
            let i8t = self.em.int_type(8);
            let mty: Type<'c> = MemRefType::new(i8t, &[size as i64], None, None).into();
            let buf = self.em.alloc(self.end(), mty, loc);
            self.arena = Some((buf, size));
        }
        Ok(())
    }

    /// Lowers the ops of `old` (the old function's only block) after the
    /// first `n_inputs` arguments, which are the new function's.
    pub(super) fn lower(
        &mut self,
        module: &mut Module<'c, 'a>,
        old: BlockRef<'c, 'a>,
        (n_inputs, buffers): (usize, &[Type<'c>]),
        loc: Location<'c>,
    ) -> Result<(), Located<'c>> {
        // An empty buffer passed as `memref<0xT>` (`boundary_type`): the
        // body uses a zero-size one of its own type.
        let params: Vec<Value<'c, 'a>> = buffers
            .iter()
            .enumerate()
            .map(|(i, &ty)| {
                let arg: Value<'c, 'a> = self.entry.argument(i).expect("built").into();
                if arg.r#type() == ty {
                    arg
                } else {
                    self.em.alloca(self.end(), ty, loc)
                }
            })
            .collect();
        for (i, &new_arg) in params.iter().enumerate().take(n_inputs) {
            let old_arg = old.argument(i).expect("checked");
            self.values.insert(key(old_arg.into()), new_arg);
        }
        let terminator = old
            .terminator()
            .ok_or_else(|| at(loc, "function body has no terminator"))?;
        // Results returned once and computed here are written in place.
        for (i, v) in terminator.operands().enumerate() {
            if !self.values.contains_key(&key(v)) && !self.destinations.contains_key(&key(v)) {
                self.destinations.insert(key(v), params[n_inputs + i]);
            }
        }
        let mut ops = Vec::new();
        let mut next = old.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            ops.push(op);
        }
        let returned: Vec<Value<'c, 'a>> = terminator.operands().collect();
        self.read_schedules(&ops)?;
        check_layouts(&ops)?;
        self.fuse(&ops, &returned)?;
        self.concats = in_place::find(&in_place::Facts {
            ops: &ops,
            returned: &returned,
            schedules: &self.schedules,
            chain_last: self.epilogues.iter().map(|(p, (_, l))| (*p, *l)).collect(),
            folded: &self.folded,
        });
        self.plan(&ops, loc)?;
        for op in ops {
            if self.folded.contains(&(op.to_raw().ptr as usize)) {
                continue;
            }
            let name = ir::op_name(&op);
            let loc = op.location();
            let lowered = match name.as_str() {
                "func.return" => return self.lower_return(op, n_inputs),
                "func.call" => self.lower_call(op),
                _ => self.lower_ocannl(module, op),
            };
            lowered.map_err(|m| at(loc, format!("'{name}' op: {m}")))?;
        }
        Err(at(loc, "function body has no func.return"))
    }

    /// An ocannl op: its loop nest(s), in a block of their own (so that the
    /// lowering of the loops to branches stays linear in the function's
    /// size: upstream `scf-to-cf` splits the block at every loop, moving
    /// the ops after it).
    fn lower_ocannl(
        &mut self,
        module: &mut Module<'c, 'a>,
        op: OperationRef<'c, 'a>,
    ) -> Result<(), String> {
        let loc = op.location();
        let operands: Vec<Value<'c, 'a>> = op
            .operands()
            .map(|v| self.buffer(v))
            .collect::<Result<_, _>>()?;
        let mut result: Value<'c, 'a> =
            op.result(0).map_err(|_| "has no result".to_owned())?.into();
        if self.concats.concats.contains(&(op.to_raw().ptr as usize)) {
            // Its parts wrote its buffer.
            return self.buffer(result).map(|_| ());
        }
        if self.in_place.contains(&key(result)) {
            let (mty, dims, _) = value_buffer(result, "result")?;
            let global = self.em.dense_global(module, self.end(), op, mty, &dims)?;
            self.values.insert(key(result), global);
            return Ok(());
        }
        let mut epilogue = vec![];
        if let Some((steps, last)) = self.epilogues.remove(&(op.to_raw().ptr as usize)) {
            // A binary step's other operand: its buffer.
            for s in steps {
                let other = match s.other {
                    Some(o) => Some(Other {
                        value: self.buffer(o.value)?,
                        ..o
                    }),
                    None => None,
                };
                epilogue.push(Step { other, ..s });
            }
            result = last;
        }
        let (buf, dims) = self.result_buffer(result, "result", loc)?;
        if dims.contains(&0) {
            // A result without cells: nothing to compute, and no nest (a
            // GPU kernel could not take the empty buffer: `boundary_type`).
            return Ok(());
        }
        let schedule = &self.schedules[&(op.to_raw().ptr as usize)];
        let em = Emitter {
            target: Target::of(schedule),
            ..self.em
        };
        let out = Out {
            buf,
            dims: &dims,
            epilogue: &epilogue,
        };
        self.current = em.lower_op(module, self.end(), op, schedule, &operands, &out)?;
        self.next_block(loc);
        Ok(())
    }

    /// Whether `op` is a dense constant read in place from its global: on
    /// the CPU (a GPU kernel reads device memory), with cells, not returned
    /// (a result is written into the caller's buffer).
    fn reads_in_place(&self, op: OperationRef<'c, 'a>) -> bool {
        let Some(def) = catalog::lookup(&ir::op_name(&op)) else {
            return false;
        };
        let on_cpu = self
            .schedules
            .get(&(op.to_raw().ptr as usize))
            .is_some_and(|s| s.gpu_block().is_none());
        def.computes == catalog::Computes::Constant
            && on_cpu
            && op.result_count() == 1
            && op.attribute("value").is_ok_and(|v| {
                ir::is_dense_elements(v)
                    && ir::elements(v).is_some_and(|e| e.splat.is_none() && e.count > 0)
            })
    }

    /// `func.call @callee` with the callee's arguments and result buffers.
    fn lower_call(&mut self, op: OperationRef<'c, 'a>) -> Result<(), String> {
        let loc = op.location();
        let callee = op
            .attribute("callee")
            .ok()
            .and_then(|c| FlatSymbolRefAttribute::try_from(c).ok())
            .ok_or_else(|| "has no callee".to_owned())?;
        let mut args: Vec<Value<'c, 'a>> = op
            .operands()
            .map(|v| self.buffer(v))
            .collect::<Result<_, _>>()?;
        for (j, r) in op.results().enumerate() {
            let (buf, _) = self.result_buffer(r.into(), &format!("result #{j}"), loc)?;
            args.push(buf);
        }
        // Empty buffers cross the call as `memref<0xT>` (`boundary_type`).
        for a in &mut args {
            let ty = super::boundary_type(a.r#type());
            if ty != a.r#type() {
                *a = self.em.alloca(self.end(), ty, loc);
            }
        }
        let call = ods::func::call(self.em.ctx, &args, callee, loc);
        self.em.put(self.end(), call);
        Ok(())
    }

    /// Copies returned values into the result arguments that were not
    /// computed in place, frees the arena, returns.
    fn lower_return(
        &mut self,
        op: OperationRef<'c, 'a>,
        n_inputs: usize,
    ) -> Result<(), Located<'c>> {
        let loc = op.location();
        let mut used: Vec<usize> = Vec::new();
        for (i, v) in op.operands().enumerate() {
            let out: Value<'c, 'a> = self.entry.argument(n_inputs + i).expect("built").into();
            let src = self.buffer(v).map_err(|m| at(loc, m))?;
            if self.destinations.get(&key(v)).is_some_and(|d| *d == out) && !used.contains(&key(v))
            {
                used.push(key(v));
                continue;
            }
            if out.r#type() != src.r#type() {
                // An empty result passed as `memref<0xT>`: nothing to copy.
                continue;
            }
            let copy = ods::memref::copy(self.em.ctx, src, out, loc);
            self.em.put(self.end(), copy);
        }
        if let Some((arena, _)) = self.arena {
            let free = ods::memref::dealloc(self.em.ctx, arena, loc);
            self.em.put(self.end(), free);
        }
        let ret = ods::func::r#return(self.em.ctx, &[], loc);
        self.em.put(self.end(), ret);
        Ok(())
    }
}

/// Every `ocannl.layout` stands where the lowering honours it
/// ([`layout::check_uses`]).
fn check_layouts<'c>(ops: &[OperationRef<'c, '_>]) -> Result<(), Located<'c>> {
    let mut users: HashMap<usize, Vec<OperationRef<'c, '_>>> = HashMap::new();
    for op in ops {
        for v in op.operands() {
            users.entry(key(v)).or_default().push(*op);
        }
    }
    for op in ops {
        if op.attribute(layout::LAYOUT).is_err() {
            continue;
        }
        let fail = |m: String| at(op.location(), format!("'{}' op {m}", ir::op_name(op)));
        let v: Value<'c, '_> = op
            .result(0)
            .map_err(|_| fail("has no result".into()))?
            .into();
        let (_, dims, _) = buffer_type(v.r#type(), "result").map_err(fail)?;
        let readers = users.get(&key(v)).map_or(&[][..], Vec::as_slice);
        layout::check_uses(*op, dims.len(), readers).map_err(fail)?;
    }
    Ok(())
}
