//! Watch lists: the stuck constraints to look at again when a variable is
//! bound. One pool of linked-list nodes serves every variable, so a variable
//! costs one `u32` (its list's head) and watching allocates nothing per
//! variable; nodes of emptied lists are reused.

/// The end of a list (and an empty list's head).
pub(crate) const NIL: u32 = u32::MAX;

/// The nodes of all watch lists.
#[derive(Debug, Clone)]
pub(crate) struct WatchPool {
    /// Per node: the constraint watched, and the next node of its list (or
    /// of the free list). One entry per node: following a list reads one
    /// place per node, not two (at a million ops, each is a cache miss).
    nodes: Vec<[u32; 2]>,
    /// The first reusable node.
    free: u32,
}

impl Default for WatchPool {
    fn default() -> Self {
        WatchPool {
            nodes: vec![],
            free: NIL,
        }
    }
}

impl WatchPool {
    /// Adds constraint `id` to the list starting at `head`.
    pub(crate) fn push(&mut self, head: &mut u32, id: u32) {
        let node = if self.free == NIL {
            let node = u32::try_from(self.nodes.len()).expect("fewer than 2^32 watches");
            self.nodes.push([id, *head]);
            node
        } else {
            let node = self.free;
            let n = &mut self.nodes[node as usize];
            self.free = n[1];
            *n = [id, *head];
            node
        };
        *head = node;
    }

    /// Empties the list starting at `head` into `out`, in the order the
    /// constraints were added.
    pub(crate) fn take(&mut self, head: &mut u32, out: &mut Vec<u32>) {
        let start = out.len();
        let mut node = std::mem::replace(head, NIL);
        while node != NIL {
            let n = &mut self.nodes[node as usize];
            out.push(n[0]);
            let next = n[1];
            n[1] = self.free;
            self.free = node;
            node = next;
        }
        out[start..].reverse();
    }
}

#[cfg(test)]
mod tests {
    use super::{NIL, WatchPool};

    /// Lists keep their order, stay apart, and reuse freed nodes.
    #[test]
    fn lists_keep_order_and_reuse_nodes() {
        let mut pool = WatchPool::default();
        let (mut a, mut b) = (NIL, NIL);
        for i in 0..5 {
            pool.push(&mut a, i);
            pool.push(&mut b, 100 + i);
        }
        let mut out = vec![];
        pool.take(&mut a, &mut out);
        assert_eq!(out, [0, 1, 2, 3, 4]);
        assert_eq!(a, NIL);
        for i in 0..5 {
            pool.push(&mut a, 10 + i);
        }
        assert_eq!(pool.nodes.len(), 10, "freed nodes are reused");
        out.clear();
        pool.take(&mut b, &mut out);
        pool.take(&mut a, &mut out);
        assert_eq!(out, [100, 101, 102, 103, 104, 10, 11, 12, 13, 14]);
    }
}
