//! The call graph of the functions a run of `ocannl-infer-shapes` covers:
//! which calls pass tensors to which function, recursion, and the
//! components that are solved together.

use std::collections::HashMap;

use melior::ir::{
    Value, ValueLike,
    operation::{OperationLike, OperationRef},
};
use ocannl_dialect::{ir, types::TensorType};

use super::Located;
use crate::ffi::flow::{SymbolTables, call_info};

/// A call that passes tensors, from one covered function to another.
pub(crate) struct CallSite<'c, 'a> {
    /// The call op.
    pub op: OperationRef<'c, 'a>,
    /// The index of the called function.
    pub callee: usize,
    /// The operands passed as arguments.
    pub args: Vec<Value<'c, 'a>>,
}

/// Per function (by index), the calls it makes that pass tensors.
pub(crate) struct CallGraph<'c, 'a> {
    calls: Vec<Vec<CallSite<'c, 'a>>>,
}

fn passes_tensors(op: OperationRef<'_, '_>) -> bool {
    op.operands()
        .map(|v| v.r#type())
        .chain(op.results().map(|r| r.r#type()))
        .any(|t| TensorType::classify(t).is_some())
}

impl<'c, 'a> CallGraph<'c, 'a> {
    /// The calls of `functions`; `resolve` is false when the pass runs on a
    /// single function and must not read others.
    ///
    /// # Errors
    ///
    /// Calls that pass tensors to a function that cannot be resolved or is
    /// not covered, and recursion; located at the call.
    pub(crate) fn new(
        functions: &[OperationRef<'c, 'a>],
        resolve: bool,
    ) -> Result<Self, Vec<Located<'c>>> {
        let index: HashMap<usize, usize> = functions
            .iter()
            .enumerate()
            .map(|(i, f)| (f.to_raw().ptr as usize, i))
            .collect();
        let mut errors = Vec::new();
        let mut calls = Vec::with_capacity(functions.len());
        let mut tables = resolve.then(SymbolTables::new);
        for &f in functions {
            let mut sites = Vec::new();
            let nested = ir::collect_ops(f, |_| ir::Select {
                keep: true,
                descend: true,
            });
            for op in nested {
                let Some(call) = call_info(op, tables.as_mut()) else {
                    continue;
                };
                if !passes_tensors(op) {
                    continue;
                }
                let name = ir::op_name(&op);
                let callee = match call.callee {
                    None if !resolve => {
                        errors.push(Located::at(
                            op,
                            format!("'{name}' op passes tensors to another function: run ocannl-infer-shapes on the module (not on one function) to infer shapes across calls"),
                        ));
                        continue;
                    }
                    None => {
                        errors.push(Located::at(
                            op,
                            format!("'{name}' op: cannot infer shapes through a call whose callee cannot be resolved (an indirect call or a missing function)"),
                        ));
                        continue;
                    }
                    Some(c) => c,
                };
                match index.get(&(callee.to_raw().ptr as usize)) {
                    Some(&callee) => sites.push(CallSite {
                        op,
                        callee,
                        args: call.args,
                    }),
                    None => errors.push(Located::at(
                        op,
                        format!("'{name}' op calls a function outside the op ocannl-infer-shapes runs on"),
                    )),
                }
            }
            calls.push(sites);
        }
        let graph = Self { calls };
        if let Some((f, k)) = graph.find_cycle() {
            let site = &graph.calls[f][k];
            let callee = ir::string_attr(&functions[site.callee], "sym_name").unwrap_or_default();
            errors.push(Located::at(
                site.op,
                format!("recursive call to '@{callee}': ocannl-infer-shapes does not support recursion (OCANNL shapes are monomorphic: each function is solved once)"),
            ));
        }
        if errors.is_empty() {
            Ok(graph)
        } else {
            Err(errors)
        }
    }

    /// The calls function `f` makes.
    pub(crate) fn calls_of(&self, f: usize) -> &[CallSite<'c, 'a>] {
        &self.calls[f]
    }

    /// A call (function, index among its calls) that closes a cycle.
    fn find_cycle(&self) -> Option<(usize, usize)> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Done,
        }
        let mut marks = vec![Mark::New; self.calls.len()];
        for start in 0..self.calls.len() {
            if marks[start] != Mark::New {
                continue;
            }
            // Iterative DFS: (function, next call to follow).
            let mut stack = vec![(start, 0usize)];
            marks[start] = Mark::Open;
            while let Some(&mut (f, ref mut k)) = stack.last_mut() {
                if let Some(site) = self.calls[f].get(*k) {
                    let at = *k;
                    *k += 1;
                    match marks[site.callee] {
                        Mark::Open => return Some((f, at)),
                        Mark::New => {
                            marks[site.callee] = Mark::Open;
                            stack.push((site.callee, 0));
                        }
                        Mark::Done => {}
                    }
                } else {
                    marks[f] = Mark::Done;
                    stack.pop();
                }
            }
        }
        None
    }

    /// The groups of functions linked by calls, each in function order.
    pub(crate) fn components(&self) -> Vec<Vec<usize>> {
        let n = self.calls.len();
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        for (f, sites) in self.calls.iter().enumerate() {
            for site in sites {
                let (a, b) = (find(&mut parent, f), find(&mut parent, site.callee));
                parent[a.max(b)] = a.min(b);
            }
        }
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut slot: HashMap<usize, usize> = HashMap::new();
        for f in 0..n {
            let root = find(&mut parent, f);
            let g = *slot.entry(root).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[g].push(f);
        }
        groups
    }
}
