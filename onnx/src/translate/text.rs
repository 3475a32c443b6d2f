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
    pub(super) tail: String,
}

impl ModuleText {
    /// Each piece of the text, in order.
    fn pieces<E>(&self, mut f: impl FnMut(&str) -> Result<(), E>) -> Result<(), E> {
        f(&self.head)?;
        let mut from = 0;
        let mut check = String::new();
        for (at, dict, spec) in &self.checks {
            f(&self.body[from..*at])?;
            check.clear();
            if *dict {
                let _ = write!(check, ", ocannl.declared_shape = \"{spec}\"");
            } else {
                let _ = write!(check, " {{ocannl.declared_shape = \"{spec}\"}}");
            }
            f(&check)?;
            from = *at;
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
        let len = self.head.len() + self.body.len() + self.tail.len() + 48 * self.checks.len();
        let mut text = String::with_capacity(len);
        let _ = self.pieces(|s| {
            text.push_str(s);
            Ok::<(), ()>(())
        });
        text
    }
}
