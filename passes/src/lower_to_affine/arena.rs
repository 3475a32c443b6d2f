//! Where each intermediate buffer of a function lives: one arena per
//! function, allocated once, and a static offset per buffer, reused once
//! the buffer's last reader has run (a linear scan with first-fit
//! placement over the ops in program order).
//!
//! One allocation instead of one per op keeps the lowered IR small (a
//! `memref.alloc` is some twenty LLVM ops, a `memref.view` a handful) and
//! the program free of `malloc` calls between ops; the arena's size is
//! exactly the most memory the intermediates need at once, which
//! `ocannl-run` checks before running.

/// Buffers start at multiples of this many bytes (a cache line; what
/// vector loads like).
pub(super) const ALIGNMENT: u64 = 64;

/// A first-fit allocator over one arena.
#[derive(Debug, Default)]
pub(super) struct Arena {
    /// Free ranges `(offset, size)`, sorted by offset, never adjacent.
    free: Vec<(u64, u64)>,
    /// The end of the highest range ever used.
    top: u64,
}

/// The arena is larger than buffers can be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ArenaOverflow;

impl Arena {
    /// The bytes the arena needs.
    pub(super) fn size(&self) -> u64 {
        self.top
    }

    /// Places `bytes` and returns the offset.
    pub(super) fn alloc(&mut self, bytes: u64) -> Result<u64, ArenaOverflow> {
        let size = bytes
            .checked_next_multiple_of(ALIGNMENT)
            .ok_or(ArenaOverflow)?;
        if size == 0 {
            return Ok(0);
        }
        if let Some(i) = self.free.iter().position(|&(_, s)| s >= size) {
            let (offset, s) = self.free[i];
            if s == size {
                self.free.remove(i);
            } else {
                self.free[i] = (offset + size, s - size);
            }
            return Ok(offset);
        }
        // Grow: the last free range may end at the top.
        let start = match self.free.last() {
            Some(&(o, s)) if o + s == self.top => {
                self.free.pop();
                o
            }
            _ => self.top,
        };
        let end = start
            .checked_add(size)
            .filter(|&e| e <= i64::MAX as u64)
            .ok_or(ArenaOverflow)?;
        self.top = end;
        Ok(start)
    }

    /// Returns the range `alloc` gave for `bytes` at `offset`.
    pub(super) fn release(&mut self, offset: u64, bytes: u64) {
        let size = bytes.next_multiple_of(ALIGNMENT);
        if size == 0 {
            return;
        }
        let i = self.free.partition_point(|&(o, _)| o < offset);
        self.free.insert(i, (offset, size));
        // Coalesce with the neighbours.
        if i + 1 < self.free.len() && self.free[i].0 + self.free[i].1 == self.free[i + 1].0 {
            self.free[i].1 += self.free[i + 1].1;
            self.free.remove(i + 1);
        }
        if i > 0 && self.free[i - 1].0 + self.free[i - 1].1 == self.free[i].0 {
            self.free[i - 1].1 += self.free[i].1;
            self.free.remove(i);
        }
    }
}
