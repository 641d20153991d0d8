//! Growable postings lists of many terms in one paged byte pool.
//!
//! A list is a chain of *slices*: `size_log2 u8 | data[2^size_log2] | next u32`. Data holds the
//! list's varint deltas, which may continue from one slice into the next; `next` is the pool
//! address of the following slice (written when the slice fills up). Slices grow with the list
//! (8 bytes for a list of two, up to 4 KiB), so short lists waste little and long ones follow few
//! links. Pages of [`PAGE_BYTES`] are never reallocated: growing the pool copies nothing and its
//! memory is what it holds plus at most one page. Addresses are `page << PAGE_BITS | offset` in
//! a `u32`, which bounds the pool at 4 GiB (a bucket reaching it is refused with a limit error).
//!
//! Naive twin: a `Vec<u32>` per term (the property test in `terms` compares them).

/// Bits of the in-page offset of an address.
const PAGE_BITS: u32 = 20;
/// Bytes per page (1 MiB).
pub const PAGE_BYTES: usize = 1 << PAGE_BITS;
/// Smallest slice data size, as a power of two (8 bytes).
const MIN_LOG2: u32 = 3;
/// Largest slice data size, as a power of two (4 KiB).
const MAX_LOG2: u32 = 12;
/// Bytes of a slice around its data: the size byte and the link.
const FRAME: usize = 1 + 4;
/// Most pages a `u32` address can name.
const MAX_PAGES: usize = 1 << (32 - PAGE_BITS);

/// The pool is full (4 GiB of postings in one bucket).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolFull;

/// Where one list lives: its first slice and its write position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chain {
    /// Address of the first slice.
    head: u32,
    /// Address of the next byte to write.
    tail: u32,
    /// Address just past the data of the slice being written.
    end: u32,
}

/// Paged byte pool holding every chained list of a term index.
#[derive(Debug, Default)]
pub struct Pool {
    /// Pages of [`PAGE_BYTES`] bytes; the last one is being filled.
    pages: Vec<Box<[u8]>>,
    /// Bytes used in the last page.
    used: usize,
}

impl Pool {
    /// Bytes of memory held by the pool.
    pub fn heap_bytes(&self) -> usize {
        self.pages.len() * PAGE_BYTES
    }

    /// Allocates a slice of `2^log2` data bytes; returns the address of its data.
    fn alloc(&mut self, log2: u32) -> Result<u32, PoolFull> {
        let need = FRAME + (1usize << log2);
        if self.pages.is_empty() || self.used + need > PAGE_BYTES {
            if self.pages.len() == MAX_PAGES {
                return Err(PoolFull);
            }
            self.pages.push(vec![0u8; PAGE_BYTES].into_boxed_slice());
            self.used = 0;
        }
        let page = self.pages.len() - 1;
        self.pages[page][self.used] = log2 as u8;
        let data = ((page as u32) << PAGE_BITS) | (self.used as u32 + 1);
        self.used += need;
        Ok(data)
    }

    #[inline]
    fn byte_mut(&mut self, addr: u32) -> &mut u8 {
        &mut self.pages[(addr >> PAGE_BITS) as usize][(addr & (PAGE_BYTES as u32 - 1)) as usize]
    }

    #[inline]
    fn byte(&self, addr: u32) -> u8 {
        self.pages[(addr >> PAGE_BITS) as usize][(addr & (PAGE_BYTES as u32 - 1)) as usize]
    }

    /// Reads the link stored at `addr` (just past a slice's data).
    fn link(&self, addr: u32) -> u32 {
        let mut b = [0u8; 4];
        for (i, x) in b.iter_mut().enumerate() {
            *x = self.byte(addr + i as u32);
        }
        u32::from_le_bytes(b)
    }

    /// Size, as a power of two, of the slice after one of a list already `count` long.
    fn next_log2(count: u32) -> u32 {
        (32 - count.leading_zeros()).clamp(MIN_LOG2, MAX_LOG2)
    }

    /// Starts an empty list.
    pub fn start(&mut self) -> Result<Chain, PoolFull> {
        let data = self.alloc(MIN_LOG2)?;
        Ok(Chain {
            head: data,
            tail: data,
            end: data + (1 << MIN_LOG2),
        })
    }

    /// Appends `v` as a varint to the list `c`, which already holds `count` numbers.
    #[inline]
    pub fn push_varint(&mut self, c: &mut Chain, mut v: u32, count: u32) -> Result<(), PoolFull> {
        if v < 0x80 && c.tail != c.end {
            // The common case: a one-byte delta with room in the slice.
            *self.byte_mut(c.tail) = v as u8;
            c.tail += 1;
            return Ok(());
        }
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                return self.push_byte(c, byte, count);
            }
            self.push_byte(c, byte | 0x80, count)?;
        }
    }

    #[inline]
    fn push_byte(&mut self, c: &mut Chain, b: u8, count: u32) -> Result<(), PoolFull> {
        if c.tail == c.end {
            let log2 = Self::next_log2(count);
            let next = self.alloc(log2)?;
            for (i, x) in next.to_le_bytes().into_iter().enumerate() {
                *self.byte_mut(c.end + i as u32) = x;
            }
            c.tail = next;
            c.end = next + (1 << log2);
        }
        *self.byte_mut(c.tail) = b;
        c.tail += 1;
        Ok(())
    }

    /// Hints the CPU to load the next byte `c` writes to.
    #[inline]
    pub fn prefetch_tail(&self, c: Chain) {
        self.prefetch_byte(c.tail);
    }

    /// Hints the CPU to load the start of list `c` (what [`Pool::bytes`] reads first).
    #[inline]
    pub fn prefetch_head(&self, c: Chain) {
        self.prefetch_byte(c.head.wrapping_sub(1));
    }

    /// Hints the CPU to load the pool byte at `pos` (nothing if there is none).
    #[inline]
    fn prefetch_byte(&self, pos: u32) {
        if let Some(page) = self.pages.get((pos >> PAGE_BITS) as usize) {
            super::prefetch(
                page.as_ptr()
                    .wrapping_add((pos & (PAGE_BYTES as u32 - 1)) as usize),
            );
        }
    }

    /// The bytes written to list `c`, in order.
    pub fn bytes(&self, c: Chain) -> ChainBytes<'_> {
        let size = 1u32 << self.byte(c.head - 1);
        ChainBytes {
            pool: self,
            pos: c.head,
            end: c.head + size,
            tail: c.tail,
        }
    }
}

/// Iterator over the bytes of one chained list.
#[derive(Clone)]
pub struct ChainBytes<'a> {
    pool: &'a Pool,
    /// Address of the next byte.
    pos: u32,
    /// End of the current slice's data.
    end: u32,
    /// End of the list.
    tail: u32,
}

impl<'a> ChainBytes<'a> {
    /// Moves to the start of the next slice (the current one is used up).
    #[inline]
    fn follow_link(&mut self) {
        let next = self.pool.link(self.end);
        self.pos = next;
        self.end = next + (1u32 << self.pool.byte(next - 1));
    }

    /// The bytes left in the current slice, then moves to the next slice: the list's bytes a
    /// contiguous run at a time (empty at the end).
    #[inline]
    pub fn next_run(&mut self) -> &'a [u8] {
        if self.pos == self.tail {
            return &[];
        }
        if self.pos == self.end {
            self.follow_link();
            if self.pos == self.tail {
                return &[];
            }
        }
        // A slice lies within one page, and the list's end is in its last slice.
        let stop = if self.tail > self.pos && self.tail <= self.end {
            self.tail
        } else {
            self.end
        };
        let page = &self.pool.pages[(self.pos >> PAGE_BITS) as usize];
        let mask = PAGE_BYTES as u32 - 1;
        let run = &page[(self.pos & mask) as usize..((stop - 1) & mask) as usize + 1];
        self.pos = stop;
        run
    }
}

impl Iterator for ChainBytes<'_> {
    type Item = u8;

    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.pos == self.tail {
            return None;
        }
        if self.pos == self.end {
            self.follow_link();
        }
        let b = self.pool.byte(self.pos);
        self.pos += 1;
        Some(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Naive twin: one `Vec<u8>` per list.
        #[test]
        fn interleaved_lists_read_back(ops in proptest::collection::vec((0usize..5, 0u32..u32::MAX), 0..2000)) {
            let mut pool = Pool::default();
            let mut chains: Vec<Option<(Chain, u32)>> = vec![None; 5];
            let mut naive: Vec<Vec<u8>> = vec![Vec::new(); 5];
            for (list, v) in ops {
                let v = v >> (v % 29); // mostly small numbers, some large
                let (c, count) = match &mut chains[list] {
                    Some(s) => s,
                    slot => slot.insert((pool.start().unwrap(), 0)),
                };
                pool.push_varint(c, v, *count).unwrap();
                *count += 1;
                crate::codec::put_varint(&mut naive[list], v as u64);
            }
            for (c, n) in chains.iter().zip(&naive) {
                let got: Vec<u8> = c.map(|(c, _)| pool.bytes(c).collect()).unwrap_or_default();
                prop_assert_eq!(&got, n);
            }
        }
    }

    #[test]
    fn long_list_spans_many_slices_and_pages() {
        let mut pool = Pool::default();
        let mut c = pool.start().unwrap();
        for i in 0..1_500_000u32 {
            pool.push_varint(&mut c, i % 300, i).unwrap();
        }
        assert!(pool.pages.len() > 1);
        let mut naive = Vec::new();
        for i in 0..1_500_000u32 {
            crate::codec::put_varint(&mut naive, (i % 300) as u64);
        }
        assert!(pool.bytes(c).eq(naive.into_iter()));
    }
}
