//! The buffer plan of one program: liveness over its steps and a greedy best-fit
//! placement of every buffer in the program's arena, so that buffers whose live ranges
//! do not overlap share memory (a dead buffer is reused by a later one of at most its
//! size). Parameters live in the caller's memory and are never placed here.

/// A free-list allocator over one arena (offsets in bytes, 64-byte granules).
#[derive(Default)]
pub(crate) struct Arena {
    /// Free blocks `(offset, size)`, sorted by offset, adjacent blocks merged.
    free: Vec<(usize, usize)>,
    /// The arena's size so far.
    pub top: usize,
}

fn granule(bytes: usize) -> usize {
    bytes.div_ceil(64) * 64
}

impl Arena {
    /// Places a buffer of `bytes` bytes: the smallest free block that fits, else the top.
    pub(crate) fn alloc(&mut self, bytes: usize) -> usize {
        let size = granule(bytes);
        if size == 0 {
            return 0;
        }
        let best = self.free.iter().enumerate().filter(|(_, b)| b.1 >= size).min_by_key(|(_, b)| b.1).map(|(i, _)| i);
        match best {
            Some(i) => {
                let (off, len) = self.free[i];
                if len == size {
                    self.free.remove(i);
                } else {
                    self.free[i] = (off + size, len - size);
                }
                off
            }
            None => {
                // Grow the top, absorbing a free block that ends there.
                if let Some(&(off, len)) = self.free.last()
                    && off + len == self.top
                {
                    self.free.pop();
                    self.top = off + size;
                    return off;
                }
                let off = self.top;
                self.top += size;
                off
            }
        }
    }

    /// Returns the buffer at `offset` of `bytes` bytes to the free list.
    pub(crate) fn release(&mut self, offset: usize, bytes: usize) {
        let size = granule(bytes);
        if size == 0 {
            return;
        }
        let i = self.free.partition_point(|b| b.0 < offset);
        self.free.insert(i, (offset, size));
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

#[cfg(test)]
mod tests {
    use super::Arena;

    #[test]
    fn dead_buffers_are_reused_best_fit() {
        let mut a = Arena::default();
        let x = a.alloc(100); // 128 bytes
        let y = a.alloc(1000); // 1024
        let z = a.alloc(64);
        assert_eq!((x, y, z), (0, 128, 1152));
        a.release(y, 1000);
        a.release(x, 100);
        // Best fit: the 64-byte buffer goes into the merged 1152-byte hole at 0, and a
        // later 1000-byte buffer still fits after it.
        assert_eq!(a.alloc(64), 0);
        assert_eq!(a.alloc(1000), 64);
        assert_eq!(a.top, 1216);
    }

    #[test]
    fn a_free_block_at_the_top_grows() {
        let mut a = Arena::default();
        let x = a.alloc(64);
        let y = a.alloc(64);
        a.release(y, 64);
        assert_eq!((x, a.alloc(256), a.top), (0, 64, 320));
    }
}
