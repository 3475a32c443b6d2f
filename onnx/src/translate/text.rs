//! The translated module's text, in pieces: written to a file as they are
//! (a model's weights are most of it: ResNet-50's 205 MB of hex was copied
//! three more times, into strings that grew by doubling, before it was
//! written; fresh pages were most of the importer's time), or joined into
//! one string of its size.

use std::{fmt::Write as _, io};

/// The text of the module `translate` made: the function's first line, its
/// body with the declared-shape checks inserted where they were recorded,
/// and its last lines.
pub struct ModuleText {
    pub(super) head: String,
    pub(super) body: String,
    /// Where in `body` each check goes (sorted), whether it joins an
    /// attribute dictionary, and the declared shape's spec.
    pub(super) checks: Vec<(usize, bool, String)>,
    /// Where in `body` each large constant's data goes, as hex (in order),
    /// and the data.
    pub(super) blobs: Vec<(usize, Vec<u8>)>,
    pub(super) tail: String,
}

/// What goes into the body at a position.
enum Insert<'a> {
    Check(bool, &'a str),
    Blob(&'a [u8]),
}

impl ModuleText {
    /// Each piece of the text, in order.
    fn pieces<E>(&self, mut f: impl FnMut(&str) -> Result<(), E>) -> Result<(), E> {
        f(&self.head)?;
        // Checks and blobs in the order of their positions (a check at the
        // position of a blob comes first: it belongs to the op before).
        let mut inserts: Vec<(usize, u8, Insert<'_>)> = self
            .checks
            .iter()
            .map(|(at, dict, spec)| (*at, 0, Insert::Check(*dict, spec)))
            .chain(
                self.blobs
                    .iter()
                    .map(|(at, data)| (*at, 1, Insert::Blob(data))),
            )
            .collect();
        inserts.sort_by_key(|(at, kind, _)| (*at, *kind));
        let mut from = 0;
        let mut text = String::new();
        for (at, _, insert) in inserts {
            f(&self.body[from..at])?;
            match insert {
                Insert::Check(dict, spec) => {
                    text.clear();
                    if dict {
                        let _ = write!(text, ", ocannl.declared_shape = \"{spec}\"");
                    } else {
                        let _ = write!(text, " {{ocannl.declared_shape = \"{spec}\"}}");
                    }
                    f(&text)?;
                }
                Insert::Blob(data) => {
                    for chunk in data.chunks(1 << 16) {
                        text.clear();
                        super::emit::hex(&mut text, chunk);
                        f(&text)?;
                    }
                }
            }
            from = at;
        }
        f(&self.body[from..])?;
        f(&self.tail)
    }

    /// Writes the text to `w` (buffer it: the checks are short writes).
    ///
    /// # Errors
    ///
    /// `w`'s.
    pub fn write_to(&self, w: &mut impl io::Write) -> io::Result<()> {
        self.pieces(|s| w.write_all(s.as_bytes()))
    }

    /// The text as one string.
    #[must_use]
    pub fn into_string(self) -> String {
        let blobs: usize = self.blobs.iter().map(|(_, d)| 2 * d.len()).sum();
        let len =
            self.head.len() + self.body.len() + self.tail.len() + 48 * self.checks.len() + blobs;
        let mut text = String::with_capacity(len);
        let _ = self.pieces(|s| {
            text.push_str(s);
            Ok::<(), ()>(())
        });
        text
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_graphs::{float_value, model as model_of};
    use crate::proto::{NodeProto, TensorProto, tensor_proto::DataType as D};
    use crate::{Model, Options};

    /// `y = x + w + v`, `w` large (its hex written with the text), `v`
    /// small (kept in it), `y` declared (a check inserted in the body).
    fn model() -> (Model, Vec<u8>) {
        let n = 2048;
        let w: Vec<u8> = (0..n)
            .flat_map(|i| (i as f32 * 0.5).to_le_bytes())
            .collect();
        let init = |name: &str, len: i64, raw: Vec<u8>| TensorProto {
            name: Some(name.into()),
            dims: vec![len],
            data_type: Some(D::Float as i32),
            raw_data: Some(raw),
            ..Default::default()
        };
        let add = |name: &str, a: &str, b: &str, out: &str| NodeProto {
            name: Some(name.into()),
            op_type: Some("Add".into()),
            input: vec![a.into(), b.into()],
            output: vec![out.into()],
            ..Default::default()
        };
        let m = model_of(
            vec![add("a", "x", "w", "s"), add("b", "s", "v", "y")],
            vec![
                init("w", n, w.clone()),
                init("v", 1, 3f32.to_le_bytes().to_vec()),
            ],
            vec![float_value("x", &[n])],
            vec![float_value("y", &[n])],
        );
        (m, w)
    }

    #[test]
    fn written_pieces_are_the_joined_text_with_the_hex_in_place() {
        let (m, w) = model();
        let opts = Options {
            source: "m.onnx".into(),
            ..Default::default()
        };
        let joined = crate::translate(&m, &opts).unwrap();
        let mut written = Vec::new();
        crate::translate_model(m, &opts)
            .unwrap()
            .write_to(&mut written)
            .unwrap();
        assert_eq!(String::from_utf8(written).unwrap(), joined);
        let mut hex = String::new();
        super::super::emit::hex(&mut hex, &w);
        assert!(
            joined.contains(&format!("value = dense<\"0x{hex}\"> : tensor<2048xf32>")),
            "{joined}"
        );
        assert!(joined.contains("value = 0x40400000 : f32"), "{joined}");
        assert!(
            joined.contains("ocannl.declared_shape = \"2048\""),
            "{joined}"
        );
        assert!(!joined.contains('\u{1}'));
    }
}
