//! Discardable ("invalid") labels of block specs.
//!
//! Reference: `ocannl-shape-inference.md`, "Invalid variables in Block
//! specs" (OCANNL's `Shape.compute_block_discardable_vars`). A label `v` of
//! a concatenated axis `... ^ v ^ ...` on one side of a block spec (the
//! operands, or the result) is *discardable* when its part is projected
//! away: for **all** shapes on the other side there **exists** an axis such
//! that for **all** components of that axis, the *complement* of `v` (the
//! labels of the other components of its concatenation) meets the
//! component. Such labels may take the size 0, and the closing stages
//! guess them to 0 instead of 1.
//!
//! Components: a concatenated axis has one component per part (its label);
//! a plain label axis has one component, the label; a strided or
//! convolution axis has one component, its labels; `_` and fixed indices
//! have one component with no labels (it meets nothing).

use std::collections::{BTreeSet, HashSet};

use super::{EinsumAxis, EinsumSpec, SlotSpec};

/// The label set of each component of one axis.
fn components(axis: &EinsumAxis) -> Vec<BTreeSet<&str>> {
    match axis {
        EinsumAxis::Concat(parts) => parts.iter().map(|p| BTreeSet::from([p.as_str()])).collect(),
        EinsumAxis::Label(l) => vec![BTreeSet::from([l.as_str()])],
        EinsumAxis::Affine { over, conv, .. } => {
            let mut set = BTreeSet::from([over.as_str()]);
            if let Some(c) = conv {
                set.insert(c.kernel.as_str());
            }
            vec![set]
        }
        EinsumAxis::Fresh | EinsumAxis::Fixed(_) => vec![BTreeSet::new()],
    }
}

fn axes(slot: &SlotSpec) -> impl Iterator<Item = &EinsumAxis> {
    slot.rows().flat_map(|(_, row)| row.axes())
}

/// The discardable labels of `this` side's concatenations against the
/// shapes of the `other` side.
///
/// A component meets the complement of part `v` when it holds a label of
/// the concatenation other than `v`. So an axis (all of whose components
/// hold a part's label) covers every part except those that are the only
/// part label of one of its components, and a shape covers every part
/// except those no such axis covers. Computed this way, one concatenation
/// costs a pass over the other side's components, not one pass per part
/// (a concatenation of thousands of parts was quadratic).
fn side<'s>(this: &[&'s SlotSpec], other: &[&'s SlotSpec], out: &mut BTreeSet<String>) {
    let other_axes: Vec<Vec<Vec<BTreeSet<&str>>>> = other
        .iter()
        .map(|slot| axes(slot).map(components).collect())
        .collect();
    for axis in this.iter().flat_map(|slot| axes(slot)) {
        let EinsumAxis::Concat(parts) = axis else {
            continue;
        };
        let labels: HashSet<&str> = parts.iter().map(String::as_str).collect();
        // The parts some shape of the other side does not cover; `None`
        // when a shape covers none.
        let mut uncovered: Option<HashSet<&str>> = Some(HashSet::new());
        for shape in &other_axes {
            // Over the shape's covering axes: the parts each leaves out.
            let mut left_out: Option<BTreeSet<&str>> = None;
            for comps in shape {
                let mut only: BTreeSet<&str> = BTreeSet::new();
                let covering = comps.iter().all(|c| {
                    let mut held = c.iter().copied().filter(|l| labels.contains(l));
                    match (held.next(), held.next()) {
                        (None, _) => false,
                        (Some(one), None) => {
                            only.insert(one);
                            true
                        }
                        (Some(_), Some(_)) => true,
                    }
                });
                if covering {
                    left_out = Some(match left_out {
                        None => only,
                        Some(prev) => prev.intersection(&only).copied().collect(),
                    });
                }
            }
            match (left_out, &mut uncovered) {
                (Some(left), Some(set)) => set.extend(left),
                _ => uncovered = None,
            }
        }
        let Some(uncovered) = uncovered else {
            continue;
        };
        for v in parts {
            if !uncovered.contains(v.as_str()) {
                out.insert(v.clone());
            }
        }
    }
}

impl EinsumSpec {
    /// The labels of concatenated axes that the spec projects away (see the
    /// reference, "Invalid variables in Block specs"): a part of a
    /// concatenation is discardable when, in every shape of the other side,
    /// some axis has all its components meeting the part's complement.
    /// `a^b => a` discards `b`; `a; b => a^b` nothing.
    ///
    /// ```
    /// use ocannl_shape::spec::parse_block_spec;
    /// let spec = parse_block_spec("a^b => a")?;
    /// assert_eq!(spec.discardable_labels().into_iter().collect::<Vec<_>>(), ["b"]);
    /// # Ok::<(), ocannl_shape::spec::SpecError>(())
    /// ```
    pub fn discardable_labels(&self) -> BTreeSet<String> {
        let rhs: Vec<&SlotSpec> = self.rhs.iter().collect();
        let lhs = [&self.lhs];
        let mut out = BTreeSet::new();
        side(&rhs, &lhs, &mut out);
        side(&lhs, &rhs, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::parse_block_spec;

    fn discardable(spec: &str) -> Vec<String> {
        parse_block_spec(spec)
            .expect("parses")
            .discardable_labels()
            .into_iter()
            .collect()
    }

    /// The reference's examples, with the results it states.
    #[test]
    fn reference_examples() {
        assert_eq!(discardable("a^b => a"), ["b"]);
        assert_eq!(discardable("a^b => b"), ["a"]);
        assert!(discardable("a^b => a^b").is_empty());
        assert!(discardable("b^c => a").is_empty());
        assert!(discardable("a; b => a^b").is_empty());
        assert!(discardable("a; b => a^c").is_empty());
    }

    /// A concatenation of 20,000 parts, one of them kept: parsing and
    /// finding the discardable parts are linear in the parts (both were
    /// quadratic).
    #[test]
    fn many_parts() {
        const N: usize = 20_000;
        let parts: Vec<String> = (0..N).map(|i| format!("p{i}")).collect();
        let spec = format!("{} => p7", parts.join("^"));
        let found = discardable(&spec);
        assert_eq!(found.len(), N - 1);
        assert!(!found.iter().any(|p| p == "p7"));
    }

    #[test]
    fn more_cases() {
        // Slicing the middle of three parts keeps `b`, discards both others.
        assert_eq!(discardable("a^b^c => b"), ["a", "c"]);
        // Embedding into a larger axis: the new part is discardable.
        assert_eq!(discardable("a => a^b"), ["b"]);
        // Two operands that both have `a`: the complement `{a}` of `c`
        // covers both.
        assert_eq!(discardable("a; a => a^c"), ["c"]);
        // A fixed index or `_` meets no complement.
        assert!(discardable("a^b => 0").is_empty());
        assert!(discardable("a^b => _").is_empty());
        // Axes in other rows count: `a` is an output axis of the result.
        assert_eq!(discardable("i|a^b => i|a"), ["b"]);
        // Stacking (OCANNL's `stack`): nothing is discarded.
        assert!(discardable("x, ...; y, ... => x^y, ...").is_empty());
        // A complement of two labels must meet every component of one axis.
        assert_eq!(discardable("a^b^c => a^b"), ["c"]);
        // Any axis of the other side may do: here each part's complement
        // meets `a` or `b`, so all three are discardable (the rule as
        // stated; the result is then never written).
        assert_eq!(discardable("a^b^c => a, b"), ["a", "b", "c"]);
    }
}
