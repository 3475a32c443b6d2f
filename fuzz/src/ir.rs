//! A small model of the programs the fuzzer writes: functions holding ops
//! in MLIR's generic syntax, kept structured so that mutations can target
//! an op's attributes, the types, or a function's name before the program
//! is printed as text.

use std::fmt::{self, Write as _};

/// A tensor type as written in the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ty {
    /// `!ocannl.tensor<ELEM, "SPEC">`; the spec is held as bytes, printed
    /// with MLIR's string escapes.
    Ocannl {
        /// The element type, e.g. `f32`.
        elem: String,
        /// The shape spec.
        spec: Vec<u8>,
    },
    /// `tensor<2x?xf32>` (`dims: Some`) or `tensor<*xf32>` (`dims: None`).
    Builtin {
        /// The element type.
        elem: String,
        /// The dimensions (`None`: `?`), or `None` when unranked.
        dims: Option<Vec<Option<u64>>>,
    },
    /// Any other type, verbatim (`i1`, `index`, ...).
    Raw(String),
}

impl Ty {
    /// An ocannl tensor type with a textual spec.
    pub fn ocannl(elem: &str, spec: &str) -> Ty {
        Ty::Ocannl {
            elem: elem.to_string(),
            spec: spec.as_bytes().to_vec(),
        }
    }

    /// The element type, for the tensor types.
    pub fn elem(&self) -> Option<&str> {
        match self {
            Ty::Ocannl { elem, .. } | Ty::Builtin { elem, .. } => Some(elem),
            Ty::Raw(_) => None,
        }
    }

    /// Replaces the element type of a tensor type.
    pub fn set_elem(&mut self, new: &str) {
        if let Ty::Ocannl { elem, .. } | Ty::Builtin { elem, .. } = self {
            *elem = new.to_string();
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Ocannl { elem, spec } => write!(f, "!ocannl.tensor<{elem}, {}>", mlir_string(spec)),
            Ty::Builtin { elem, dims: None } => write!(f, "tensor<*x{elem}>"),
            Ty::Builtin {
                elem,
                dims: Some(dims),
            } => {
                f.write_str("tensor<")?;
                for d in dims {
                    match d {
                        Some(n) => write!(f, "{n}x")?,
                        None => f.write_str("?x")?,
                    }
                }
                write!(f, "{elem}>")
            }
            Ty::Raw(t) => f.write_str(t),
        }
    }
}

/// A string literal in MLIR syntax: printable ASCII verbatim, `"` and `\`
/// escaped, every other byte as `\XX`.
pub fn mlir_string(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() + 2);
    s.push('"');
    for &b in bytes {
        match b {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            0x20..=0x7e => s.push(char::from(b)),
            _ => {
                let _ = write!(s, "\\{b:02X}");
            }
        }
    }
    s.push('"');
    s
}

/// A symbol reference `@name`, quoted when `name` is not a bare identifier.
pub fn symbol(name: &str) -> String {
    let bare = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'));
    if bare {
        format!("@{name}")
    } else {
        format!("@{}", mlir_string(name.as_bytes()))
    }
}

/// One op in generic syntax: `%r = "name"(%a, %b) {attrs} : (A, B) -> R`.
#[derive(Debug, Clone, PartialEq)]
pub struct Op {
    /// Result names, without `%`.
    pub results: Vec<String>,
    /// The op name, e.g. `ocannl.add`.
    pub name: String,
    /// Operand names, without `%`.
    pub operands: Vec<String>,
    /// Attributes: name and value text (`"ij=>ji"`, `1.5 : f32`).
    pub attrs: Vec<(String, String)>,
    /// Operand types.
    pub operand_tys: Vec<Ty>,
    /// Result types.
    pub result_tys: Vec<Ty>,
}

impl Op {
    /// The value text of attribute `name`, if present.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets (or adds) attribute `name`.
    pub fn set_attr(&mut self, name: &str, value: String) {
        match self.attrs.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => self.attrs.push((name.to_string(), value)),
        }
    }

    /// Removes attribute `name`.
    pub fn remove_attr(&mut self, name: &str) {
        self.attrs.retain(|(n, _)| n != name);
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.results.is_empty() {
            let names: Vec<String> = self.results.iter().map(|r| format!("%{r}")).collect();
            write!(f, "{} = ", names.join(", "))?;
        }
        let operands: Vec<String> = self.operands.iter().map(|o| format!("%{o}")).collect();
        write!(f, "\"{}\"({})", self.name, operands.join(", "))?;
        if !self.attrs.is_empty() {
            let attrs: Vec<String> = self
                .attrs
                .iter()
                .map(|(n, v)| format!("{n} = {v}"))
                .collect();
            write!(f, " {{{}}}", attrs.join(", "))?;
        }
        write!(
            f,
            " : ({}) -> {}",
            join(&self.operand_tys),
            result_list(&self.result_tys)
        )
    }
}

/// Types joined by `, `.
pub fn join(tys: &[Ty]) -> String {
    tys.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A result type list: `T`, `()` or `(A, B)`.
pub fn result_list(tys: &[Ty]) -> String {
    if tys.len() == 1 {
        tys[0].to_string()
    } else {
        format!("({})", join(tys))
    }
}

/// A statement of a function body.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// An op in generic syntax.
    Op(Op),
    /// `%r = func.call @callee(%a) : (A) -> R`.
    Call {
        /// Result names.
        results: Vec<String>,
        /// The callee's name.
        callee: String,
        /// Argument names.
        args: Vec<String>,
        /// Argument types.
        arg_tys: Vec<Ty>,
        /// Result types.
        result_tys: Vec<Ty>,
    },
    /// Verbatim text (control flow, upstream ops, block labels), one or
    /// more lines.
    Raw(String),
    /// `return %a, %b : A, B`.
    Return(Vec<(String, Ty)>),
}

/// A `func.func`.
#[derive(Debug, Clone, PartialEq)]
pub struct Func {
    /// The symbol name (printed with [`symbol`]).
    pub name: String,
    /// Arguments: name (without `%`) and type.
    pub args: Vec<(String, Ty)>,
    /// Result types.
    pub results: Vec<Ty>,
    /// The body; empty for a declaration.
    pub body: Vec<Stmt>,
    /// A `private` declaration without a body.
    pub declaration: bool,
}

/// A module-level item.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A function.
    Func(Func),
    /// Verbatim text at module level.
    Raw(String),
}

/// A whole program.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Program {
    /// Comment lines printed first (without `// `).
    pub header: Vec<String>,
    /// The module's items.
    pub items: Vec<Item>,
    /// The function `ocannl-run` should run.
    pub entry: Option<String>,
}

impl Program {
    /// The functions, mutably.
    pub fn funcs_mut(&mut self) -> impl Iterator<Item = &mut Func> {
        self.items.iter_mut().filter_map(|i| match i {
            Item::Func(f) => Some(f),
            Item::Raw(_) => None,
        })
    }

    /// The functions.
    pub fn funcs(&self) -> impl Iterator<Item = &Func> {
        self.items.iter().filter_map(|i| match i {
            Item::Func(f) => Some(f),
            Item::Raw(_) => None,
        })
    }

    /// Every op of every function, mutably.
    pub fn ops_mut(&mut self) -> impl Iterator<Item = &mut Op> {
        self.funcs_mut().flat_map(|f| {
            f.body.iter_mut().filter_map(|s| match s {
                Stmt::Op(op) => Some(op),
                _ => None,
            })
        })
    }

    /// Every type written in the program's functions, mutably (arguments,
    /// results, op and call operands and results, returns).
    pub fn types_mut(&mut self) -> Vec<&mut Ty> {
        let mut out = Vec::new();
        for f in self.funcs_mut() {
            out.extend(f.args.iter_mut().map(|(_, t)| t));
            out.extend(f.results.iter_mut());
            for s in &mut f.body {
                match s {
                    Stmt::Op(op) => {
                        out.extend(op.operand_tys.iter_mut());
                        out.extend(op.result_tys.iter_mut());
                    }
                    Stmt::Call {
                        arg_tys,
                        result_tys,
                        ..
                    } => {
                        out.extend(arg_tys.iter_mut());
                        out.extend(result_tys.iter_mut());
                    }
                    Stmt::Return(vals) => out.extend(vals.iter_mut().map(|(_, t)| t)),
                    Stmt::Raw(_) => {}
                }
            }
        }
        out
    }

    /// Replaces the text `old` by `new` in every verbatim statement (the
    /// control flow), so a type changed everywhere stays consistent there.
    pub fn replace_in_raw(&mut self, old: &str, new: &str) {
        for f in self.funcs_mut() {
            for s in &mut f.body {
                if let Stmt::Raw(text) = s {
                    *text = text.replace(old, new);
                }
            }
        }
    }

    /// Renames function `old` to `new` everywhere (definition, calls,
    /// entry).
    pub fn rename_func(&mut self, old: &str, new: &str) {
        for f in self.funcs_mut() {
            if f.name == old {
                f.name = new.to_string();
            }
            for s in &mut f.body {
                if let Stmt::Call { callee, .. } = s
                    && callee == old
                {
                    *callee = new.to_string();
                }
            }
        }
        if self.entry.as_deref() == Some(old) {
            self.entry = Some(new.to_string());
        }
    }

    /// The program as MLIR text.
    pub fn render(&self) -> String {
        let mut s = String::new();
        for h in &self.header {
            let _ = writeln!(s, "// {h}");
        }
        for item in &self.items {
            match item {
                Item::Func(f) => render_func(&mut s, f),
                Item::Raw(text) => {
                    s.push_str(text);
                    if !text.ends_with('\n') {
                        s.push('\n');
                    }
                }
            }
        }
        s
    }
}

fn render_func(s: &mut String, f: &Func) {
    let results = match f.results.len() {
        0 => String::new(),
        1 => format!(" -> {}", f.results[0]),
        _ => format!(" -> ({})", join(&f.results)),
    };
    if f.declaration {
        let _ = writeln!(
            s,
            "func.func private {}({}){results}",
            symbol(&f.name),
            join(&f.args.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>())
        );
        return;
    }
    let args: Vec<String> = f.args.iter().map(|(n, t)| format!("%{n}: {t}")).collect();
    let _ = writeln!(
        s,
        "func.func {}({}){results} {{",
        symbol(&f.name),
        args.join(", ")
    );
    for stmt in &f.body {
        match stmt {
            Stmt::Op(op) => {
                let _ = writeln!(s, "  {op}");
            }
            Stmt::Call {
                results,
                callee,
                args,
                arg_tys,
                result_tys,
            } => {
                let res: Vec<String> = results.iter().map(|r| format!("%{r}")).collect();
                let a: Vec<String> = args.iter().map(|r| format!("%{r}")).collect();
                let lhs = if res.is_empty() {
                    String::new()
                } else {
                    format!("{} = ", res.join(", "))
                };
                let _ = writeln!(
                    s,
                    "  {lhs}func.call {}({}) : ({}) -> {}",
                    symbol(callee),
                    a.join(", "),
                    join(arg_tys),
                    result_list(result_tys)
                );
            }
            Stmt::Raw(text) => {
                for line in text.lines() {
                    let _ = writeln!(s, "  {line}");
                }
            }
            Stmt::Return(vals) => {
                if vals.is_empty() {
                    let _ = writeln!(s, "  return");
                } else {
                    let names: Vec<String> = vals.iter().map(|(n, _)| format!("%{n}")).collect();
                    let tys: Vec<Ty> = vals.iter().map(|(_, t)| t.clone()).collect();
                    let _ = writeln!(s, "  return {} : {}", names.join(", "), join(&tys));
                }
            }
        }
    }
    s.push_str("}\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_print_as_mlir() {
        assert_eq!(
            Ty::ocannl("f32", "b|3->4").to_string(),
            "!ocannl.tensor<f32, \"b|3->4\">"
        );
        let t = Ty::Builtin {
            elem: "f32".into(),
            dims: Some(vec![Some(4), None]),
        };
        assert_eq!(t.to_string(), "tensor<4x?xf32>");
        let t = Ty::Builtin {
            elem: "i32".into(),
            dims: None,
        };
        assert_eq!(t.to_string(), "tensor<*xi32>");
    }

    #[test]
    fn strings_and_symbols_are_escaped() {
        assert_eq!(mlir_string(b"a\"b\\\x01"), "\"a\\\"b\\\\\\01\"");
        assert_eq!(symbol("expf"), "@expf");
        assert_eq!(symbol("a.b$c"), "@a.b$c");
        assert_eq!(symbol(""), "@\"\"");
        assert_eq!(symbol("1x"), "@\"1x\"");
    }

    #[test]
    fn an_op_renders_in_generic_syntax() {
        let op = Op {
            results: vec!["0".into()],
            name: "ocannl.einsum".into(),
            operands: vec!["a".into()],
            attrs: vec![("spec".into(), "\"i => i\"".into())],
            operand_tys: vec![Ty::ocannl("f32", "3")],
            result_tys: vec![Ty::ocannl("f32", "3")],
        };
        assert_eq!(
            op.to_string(),
            "%0 = \"ocannl.einsum\"(%a) {spec = \"i => i\"} : (!ocannl.tensor<f32, \"3\">) -> !ocannl.tensor<f32, \"3\">"
        );
    }
}
