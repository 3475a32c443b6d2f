//! ONNX Einsum: the equation's terms as rows of `ocannl.einsum` (a letter
//! `x` is the label `ex`, `...` the row variable `..e..`), an implicit
//! output being the letters used once, in alphabetical order, after the
//! ellipsis.

use super::super::{Attrs, R, Translator, Val};
use crate::proto::NodeProto;

/// One term of an equation: its letters, and where its ellipsis is.
#[derive(Debug, PartialEq)]
struct Term {
    letters: Vec<char>,
    ellipsis: Option<usize>,
}

impl Term {
    fn parse(s: &str) -> Result<Self, String> {
        let mut letters = Vec::new();
        let mut ellipsis = None;
        let mut rest = s.trim();
        while let Some(c) = rest.chars().next() {
            if let Some(r) = rest.strip_prefix("...") {
                if ellipsis.replace(letters.len()).is_some() {
                    return Err(format!("the term '{s}' has two ellipses"));
                }
                rest = r;
            } else if c.is_ascii_alphabetic() {
                letters.push(c);
                rest = &rest[1..];
            } else if c.is_whitespace() {
                rest = &rest[1..];
            } else {
                return Err(format!("the term '{s}' holds '{c}'"));
            }
        }
        Ok(Self { letters, ellipsis })
    }

    /// The term as an ocannl row.
    fn row(&self) -> String {
        let mut axes: Vec<String> = self.letters.iter().map(|c| format!("e{c}")).collect();
        if let Some(k) = self.ellipsis {
            axes.insert(k, "..e..".into());
        }
        axes.join(",")
    }
}

/// The equation's operand terms and its output term.
fn parse_equation(eq: &str) -> Result<(Vec<Term>, Term), String> {
    let (ins, out) = match eq.split_once("->") {
        Some((i, o)) => (i, Some(o)),
        None => (eq, None),
    };
    let terms = ins
        .split(',')
        .map(Term::parse)
        .collect::<Result<Vec<_>, _>>()?;
    let out = match out {
        Some(o) => Term::parse(o)?,
        None => {
            // The letters used once, sorted; the ellipsis first.
            let mut once: Vec<char> = Vec::new();
            for c in terms.iter().flat_map(|t| &t.letters) {
                let n = terms
                    .iter()
                    .flat_map(|t| &t.letters)
                    .filter(|d| *d == c)
                    .count();
                if n == 1 {
                    once.push(*c);
                }
            }
            once.sort_unstable();
            let ellipsis = terms.iter().any(|t| t.ellipsis.is_some()).then_some(0);
            Term {
                letters: once,
                ellipsis,
            }
        }
    };
    for c in &out.letters {
        if !terms.iter().any(|t| t.letters.contains(c)) {
            return Err(format!("the output's '{c}' is in no operand"));
        }
        if out.letters.iter().filter(|d| *d == c).count() > 1 {
            return Err(format!("the output repeats '{c}'"));
        }
    }
    if out.ellipsis.is_some() && terms.iter().all(|t| t.ellipsis.is_none()) {
        return Err("the output has an ellipsis that no operand has".into());
    }
    Ok((terms, out))
}

/// The result's dims from the operands' (all known), each letter's size
/// read where it occurs, the ellipsis's from the first operand that has
/// one.
fn out_dims(terms: &[Term], out: &Term, shapes: &[Option<&Vec<u64>>]) -> Option<Vec<u64>> {
    let mut size = std::collections::HashMap::new();
    let mut ell: Option<Vec<u64>> = None;
    for (t, s) in terms.iter().zip(shapes) {
        let s = (*s)?;
        let w = s.len().checked_sub(t.letters.len())?;
        let e = t.ellipsis.unwrap_or(t.letters.len());
        if t.ellipsis.is_none() && w != 0 {
            return None;
        }
        for (i, c) in t.letters.iter().enumerate() {
            size.insert(*c, s[if i < e { i } else { i + w }]);
        }
        if t.ellipsis.is_some() && ell.is_none() {
            ell = Some(s[e..e + w].to_vec());
        }
    }
    let mut dims: Vec<u64> = Vec::new();
    for (i, c) in out.letters.iter().enumerate() {
        if out.ellipsis == Some(i) {
            dims.extend(ell.as_ref()?);
        }
        dims.push(*size.get(c)?);
    }
    if out.ellipsis == Some(out.letters.len()) {
        dims.extend(ell.as_ref()?);
    }
    Some(dims)
}

impl Translator {
    /// ONNX Einsum (up to three operands).
    pub(super) fn einsum_node(&mut self, node: &NodeProto) -> R<()> {
        let Some(eq) = Attrs::of(node).string("equation") else {
            return self.err("Einsum needs its 'equation'");
        };
        let (terms, out) =
            parse_equation(&eq).map_err(|m| self.error(format!("equation '{eq}': {m}")))?;
        if terms.len() != node.input.len() {
            return self.err(format!(
                "equation '{eq}' has {} operands, the node {}",
                terms.len(),
                node.input.len()
            ));
        }
        if terms.len() > 3 {
            return self.err("Einsum of more than three operands is not supported");
        }
        let mut xs: Vec<Val> = Vec::new();
        for (i, t) in terms.iter().enumerate() {
            let x = self.input(node, i)?;
            if x.elem.is_bool() {
                return self.err("Einsum of bool tensors is not supported");
            }
            if let Some(r) = x.rank {
                let n = t.letters.len();
                if (t.ellipsis.is_none() && r != n) || r < n {
                    return self.err(format!(
                        "the term {} of equation '{eq}' for a rank-{r} operand",
                        i + 1
                    ));
                }
            }
            xs.push(x);
        }
        let rows: Vec<String> = terms.iter().map(Term::row).collect();
        let spec = format!("{} => {}", rows.join("; "), out.row());
        let refs: Vec<&Val> = xs.iter().collect();
        let v = if out.letters.is_empty()
            && out.ellipsis.is_none()
            && rows.iter().all(String::is_empty)
        {
            // Scalars only: their product (`",->"`), or the one's copy.
            let mut p = self.unary("identity", &xs[0], "...".into());
            for x in &xs[1..] {
                p = self.binary("mul", &p, x, "...".into())?;
            }
            p
        } else {
            self.einsum(&spec, &refs, None, None, "...".into())
        };
        let shapes: Vec<Option<&Vec<u64>>> = xs.iter().map(|x| x.shape.as_ref()).collect();
        let dims = out_dims(&terms, &out, &shapes);
        let rank = out.ellipsis.map_or(Some(out.letters.len()), |_| None);
        let v = super::index::known(v, dims, rank);
        self.bind(node, 0, v);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{out_dims, parse_equation};

    #[test]
    fn equations_parse_with_implicit_outputs() {
        let (t, o) = parse_equation("bij, bjk -> bik").unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(o.row(), "eb,ei,ek");
        let (t, o) = parse_equation("...ii ->...i").unwrap();
        assert_eq!(t[0].row(), "..e..,ei,ei");
        assert_eq!(o.row(), "..e..,ei");
        let (_, o) = parse_equation("ij,jk").unwrap();
        assert_eq!(o.row(), "ei,ek");
        let (_, o) = parse_equation("i,i").unwrap();
        assert_eq!(o.row(), "");
        assert!(parse_equation("ij->k").is_err());
        assert!(parse_equation("i.j->i").is_err());
        let (t, o) = parse_equation("bij,bjk->bik").unwrap();
        let (a, b) = (vec![5, 2, 3], vec![5, 3, 4]);
        assert_eq!(out_dims(&t, &o, &[Some(&a), Some(&b)]), Some(vec![5, 2, 4]));
        let (t, o) = parse_equation("...ii->...i").unwrap();
        let a = vec![7, 3, 5, 5];
        assert_eq!(out_dims(&t, &o, &[Some(&a)]), Some(vec![7, 3, 5]));
        assert_eq!(out_dims(&t, &o, &[None]), None);
    }
}
