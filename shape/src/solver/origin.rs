//! Where a constraint comes from ([`Origin`]): the op, the two rows it
//! relates (each a [`Role`] and a row kind), and the axis once known. Every
//! stored constraint carries one, so it is packed into 16 bytes; an error
//! names the rows and the axis from it, and [`Origin::sort_key`] orders
//! constraints by it cheaply.

use std::fmt;

use super::kind_name;
use crate::spec::RowKind;

/// Identifies the op (or function argument) a constraint comes from; the
/// caller maps it to a location.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId(pub u32);

/// Which tensor of an op a row belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// The op's result.
    Result,
    /// Operand `i` (0-based).
    Operand(u32),
    /// Slot `i` of the op's spec (`n` = number of operands: the result slot).
    SpecSlot(u32),
    /// A shape given by an attribute (e.g. `spec` of `ocannl.range`).
    Attribute,
}

impl Role {
    /// Operand `i`.
    pub fn operand(i: usize) -> Role {
        Role::Operand(u32::try_from(i).unwrap_or(u32::MAX))
    }

    /// Spec slot `i`.
    pub fn spec_slot(i: usize) -> Role {
        Role::SpecSlot(u32::try_from(i).unwrap_or(u32::MAX))
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (what, i) = match *self {
            Role::Result => return write!(f, "the result"),
            Role::Attribute => return write!(f, "the attribute spec"),
            Role::Operand(i) => ("operand", i),
            Role::SpecSlot(i) => ("spec slot", i),
        };
        if i >= Side::MAX_INDEX {
            // Origins keep 28 bits of the number (no op has that many
            // operands to parse): say so rather than name a wrong one.
            write!(f, "{what} #{} or later", Side::MAX_INDEX)
        } else {
            write!(f, "{what} #{i}")
        }
    }
}

/// A role and a row kind in 32 bits, ordered as the pair is: the role's
/// variant (2 bits), its number (28 bits, saturating), the kind (2 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Side(u32);

impl Side {
    /// The largest number kept; larger ones are kept as this.
    const MAX_INDEX: u32 = (1 << 28) - 1;

    fn new((role, kind): (Role, RowKind)) -> Self {
        let (tag, index) = match role {
            Role::Result => (0, 0),
            Role::Operand(i) => (1, i.min(Self::MAX_INDEX)),
            Role::SpecSlot(i) => (2, i.min(Self::MAX_INDEX)),
            Role::Attribute => (3, 0),
        };
        Side((tag << 30) | (index << 2) | kind as u32)
    }

    fn get(self) -> (Role, RowKind) {
        let index = (self.0 >> 2) & Self::MAX_INDEX;
        let role = match self.0 >> 30 {
            0 => Role::Result,
            1 => Role::Operand(index),
            2 => Role::SpecSlot(index),
            _ => Role::Attribute,
        };
        let kind = match self.0 & 3 {
            0 => RowKind::Batch,
            1 => RowKind::Input,
            _ => RowKind::Output,
        };
        (role, kind)
    }

    /// The 12 bits of [`Origin::sort_key`]: the number capped at 255, and
    /// whether it was (then the kind and what follows in the key are left
    /// out: they order only sides of equal numbers).
    fn key(self) -> (u128, bool) {
        let index = (self.0 >> 2) & Self::MAX_INDEX;
        let key = if index >= 255 {
            (self.0 >> 30) << 10 | 255 << 2
        } else {
            (self.0 >> 30) << 10 | index << 2 | (self.0 & 3)
        };
        (u128::from(key), index >= 255)
    }
}

/// Where a constraint comes from: the op, and the two rows it relates.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Origin {
    /// The op.
    pub op: OpId,
    /// The `cur` (or left) side ([`Origin::lhs`]).
    lhs: Side,
    /// The `subr` (or right) side ([`Origin::rhs`]).
    rhs: Side,
    /// The axis counted from the end of the row (1 = last) once known,
    /// with [`Origin::AXIS`] set ([`Origin::axis`]); until then the offset
    /// ([`Origin::offset`]): for a row constraint derived after the last
    /// axes of its rows were paired, how many axes of the rows as the op
    /// wrote them lie after the ends of these rows. Its own pairs are
    /// numbered from `offset + 1`, so an error names the axis of the rows
    /// as written (`[5,4,3] >= ..w..,3` pairs axis 1 and leaves
    /// `[5,4] >= ..w..`, whose last axis is axis 2). One field for both
    /// (an axis is known only once the offset is spent) keeps `Origin` 16
    /// bytes with 31 bits each: no row has 2^31 axes.
    at: u32,
}

// Every constraint carries one: it stays 16 bytes.
const _: () = assert!(std::mem::size_of::<Origin>() == 16);

impl fmt::Debug for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Origin")
            .field("op", &self.op)
            .field("lhs", &self.lhs())
            .field("rhs", &self.rhs())
            .field("axis", &self.axis())
            .field("offset", &self.offset())
            .finish()
    }
}

impl Origin {
    /// Where the op id starts in [`Origin::sort_key`].
    pub(crate) const OP_SHIFT: u32 = 57;

    /// The bit of [`Origin::at`] that says it holds the axis.
    const AXIS: u32 = 1 << 31;

    /// An origin relating `lhs` and `rhs` rows of op `op`.
    pub fn new(op: OpId, lhs: (Role, RowKind), rhs: (Role, RowKind)) -> Self {
        Origin {
            op,
            lhs: Side::new(lhs),
            rhs: Side::new(rhs),
            at: 0,
        }
    }

    /// The `cur` (or left) side: a role (its number capped at 2^28 - 1)
    /// and a row kind.
    pub fn lhs(&self) -> (Role, RowKind) {
        self.lhs.get()
    }

    /// The `subr` (or right) side.
    pub fn rhs(&self) -> (Role, RowKind) {
        self.rhs.get()
    }

    /// The axis, counted from the end of the rows (1 = last), once known.
    pub fn axis(&self) -> Option<u32> {
        (self.at & Self::AXIS != 0).then_some(self.at & !Self::AXIS)
    }

    /// How many axes of the rows as the op wrote them lie after the ends of
    /// this constraint's rows (0 once the axis is known).
    pub fn offset(&self) -> u32 {
        if self.at & Self::AXIS != 0 {
            0
        } else {
            self.at
        }
    }

    /// `n` as 31 bits (saturating: no row has 2^31 axes).
    fn bits31(n: usize) -> u32 {
        u32::try_from(n).map_or(Self::AXIS - 1, |n| n.min(Self::AXIS - 1))
    }

    /// A number below 2^89 that orders origins as `Ord` does, up to ties
    /// (`a < b` implies `a.sort_key() <= b.sort_key()`, and equal origins
    /// have equal keys), for sorting many origins cheaply; the op id is its
    /// top 32 bits (from bit [`Origin::OP_SHIFT`]). The roles' numbers are
    /// capped at 255 in the key, and after a capped one the rest of the
    /// key is 0: origins that tie are told apart by comparing them.
    pub(crate) fn sort_key(&self) -> u128 {
        let op = u128::from(self.op.0) << Self::OP_SHIFT;
        let (lhs, capped) = self.lhs.key();
        if capped {
            return op | lhs << 45;
        }
        let (rhs, capped) = self.rhs.key();
        if capped {
            return op | lhs << 45 | rhs << 33;
        }
        op | lhs << 45 | rhs << 33 | u128::from(self.at)
    }

    /// The origin of the pair at `axis_from_end` of this row constraint's
    /// rows (1 = their last axis), numbered in the rows as the op wrote
    /// them ([`Origin::offset`]).
    pub(super) fn at_axis(mut self, axis_from_end: usize) -> Self {
        let offset = usize::try_from(self.offset()).unwrap_or(usize::MAX);
        self.at = Self::AXIS | Self::bits31(axis_from_end.saturating_add(offset));
        self
    }

    /// The origin of what is left of a row constraint once the last
    /// `paired` axes of its rows are paired (an origin whose axis is known
    /// stays as it is).
    pub(super) fn after_pairs(mut self, paired: usize) -> Self {
        if self.axis().is_none() {
            let offset = usize::try_from(self.offset()).unwrap_or(usize::MAX);
            self.at = Self::bits31(offset.saturating_add(paired));
        }
        self
    }

    /// E.g. `output axis 1 (from the end) of the result vs output axis 1 of operand #1`.
    pub fn describe(&self) -> String {
        let (lr, lk) = self.lhs();
        let (rr, rk) = self.rhs();
        match self.axis() {
            Some(a) => format!(
                "{} axis {a} (from the end) of {lr} vs {} axis {a} of {rr}",
                kind_name(lk),
                kind_name(rk)
            ),
            None => format!(
                "{} row of {lr} vs {} row of {rr}",
                kind_name(lk),
                kind_name(rk)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Origin::sort_key` orders as `Origin`'s `Ord` does, up to ties, and
    /// the sides read back as written (numbers up to 2^28 - 1).
    #[test]
    fn sort_key_orders_as_origin() {
        let roles = [
            Role::Result,
            Role::Operand(0),
            Role::Operand(254),
            Role::Operand(255),
            Role::Operand(70_000),
            Role::SpecSlot(0),
            Role::SpecSlot(7),
            Role::SpecSlot(300),
            Role::Attribute,
        ];
        let kinds = [RowKind::Batch, RowKind::Input, RowKind::Output];
        let mut origins = vec![];
        for op in [0, 1, u32::MAX] {
            for &lr in &roles {
                for &rr in &roles[..5] {
                    for &k in &kinds {
                        for axis in [None, Some(0), Some(1), Some(70_000), Some(usize::MAX)] {
                            for offset in [0, 1, 70_000, usize::MAX] {
                                let sides = ((lr, k), (rr, kinds[2 - k as usize]));
                                let mut o =
                                    Origin::new(OpId(op), sides.0, sides.1).after_pairs(offset);
                                assert_eq!((o.lhs(), o.rhs()), sides);
                                if let Some(a) = axis {
                                    o = o.at_axis(a);
                                }
                                origins.push(o);
                            }
                        }
                    }
                }
            }
        }
        for a in &origins {
            assert!(a.sort_key() < 1 << 89);
            for b in &origins {
                if a < b {
                    assert!(a.sort_key() <= b.sort_key(), "{a:?} vs {b:?}");
                } else if a == b {
                    assert_eq!(a.sort_key(), b.sort_key());
                }
            }
        }
    }

    /// The largest numbers saturate, and an error says so.
    #[test]
    fn numbers_past_28_bits_saturate_visibly() {
        let o = Origin::new(
            OpId(0),
            (Role::operand(usize::MAX), RowKind::Output),
            (Role::spec_slot(1 << 28), RowKind::Output),
        );
        assert_eq!(o.lhs().0, Role::Operand(Side::MAX_INDEX));
        assert_eq!(
            o.describe(),
            "output row of operand #268435455 or later vs output row of spec slot #268435455 or later"
        );
        let o = Origin::new(
            OpId(0),
            (Role::operand(1000), RowKind::Batch),
            (Role::spec_slot(1000), RowKind::Batch),
        );
        assert_eq!(
            o.describe(),
            "batch row of operand #1000 vs batch row of spec slot #1000"
        );
    }
}
