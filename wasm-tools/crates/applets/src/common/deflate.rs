//! Deflate (RFC 1951) as GNU gzip 1.10 compresses: the same match search (hash chains over a
//! 64 KiB window that slides by 32 KiB, lazy evaluation at levels 4–9, gzip's table of
//! good/lazy/nice/chain lengths per level), the same points where a block ends (a full symbol
//! buffer, or gzip's estimate every 4096 symbols that the block stopped paying), and the same
//! choice and construction of each block's codes (stored, fixed or dynamic Huffman, with
//! gzip's tie-breaks when building trees). So `gzip`, `tar -z` and everything measured from
//! them (`ls -l` sizes, checksums of archives, `gzip -l` ratios) answer with GNU's bytes;
//! miniz_oxide, behind flate2, compresses as well but differently.
//!
//! Written from the algorithm as gzip documents and implements it (deflate.c, trees.c); the
//! differential tests run GNU gzip itself. The whole input is compressed at once: gzip reads
//! regular files in full windows, which is what this models.

use std::io::{self, Write};

const WSIZE: usize = 0x8000;
const WMASK: usize = WSIZE - 1;
const WINDOW_SIZE: usize = 2 * WSIZE;
const HASH_BITS: u32 = 15;
const HASH_SIZE: usize = 1 << HASH_BITS;
const HASH_MASK: usize = HASH_SIZE - 1;
/// Bits each byte shifts the hash by, so the last MIN_MATCH bytes determine it.
const H_SHIFT: u32 = HASH_BITS.div_ceil(MIN_MATCH as u32);
const MIN_MATCH: usize = 3;
const MAX_MATCH: usize = 258;
const MIN_LOOKAHEAD: usize = MAX_MATCH + MIN_MATCH + 1;
const MAX_DIST: usize = WSIZE - MIN_LOOKAHEAD;
/// A match of length 3 further back than this is not worth its distance code.
const TOO_FAR: usize = 4096;
/// Symbols a block holds at most (gzip's LIT_BUFSIZE; DIST_BUFSIZE is the same).
const LIT_BUFSIZE: usize = 0x8000;
/// Position 0 doubles as "no match": gzip never matches against the window's first byte.
const NIL: usize = 0;

const MAX_BITS: usize = 15;
const MAX_BL_BITS: usize = 7;
const LENGTH_CODES: usize = 29;
const LITERALS: usize = 256;
const END_BLOCK: usize = 256;
const L_CODES: usize = LITERALS + 1 + LENGTH_CODES;
const D_CODES: usize = 30;
const BL_CODES: usize = 19;
const HEAP_SIZE: usize = 2 * L_CODES + 1;
const REP_3_6: usize = 16;
const REPZ_3_10: usize = 17;
const REPZ_11_138: usize = 18;

const EXTRA_LBITS: [u8; LENGTH_CODES] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const EXTRA_DBITS: [u8; D_CODES] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
const EXTRA_BLBITS: [u8; BL_CODES] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 7];
/// The order the code-length code lengths are sent in.
const BL_ORDER: [usize; BL_CODES] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// gzip's configuration per level 1–9: (good_length, max_lazy, nice_length, max_chain).
/// Levels 1–3 take the fast path, where max_lazy is the longest match whose strings are
/// still inserted into the hash table.
const CONFIG: [(usize, usize, usize, usize); 10] = [
    (0, 0, 0, 0),
    (4, 4, 8, 4),
    (4, 5, 16, 8),
    (4, 6, 32, 32),
    (4, 4, 16, 16),
    (8, 16, 32, 32),
    (8, 16, 128, 128),
    (8, 32, 128, 256),
    (32, 128, 258, 1024),
    (32, 258, 258, 4096),
];

/// The code tables deflate fixes (RFC 1951 3.2.5) and the static trees.
struct Tables {
    length_code: [u8; 256],
    dist_code: [u8; 512],
    base_length: [u16; LENGTH_CODES],
    base_dist: [u16; D_CODES],
    static_ltree: Vec<Node>,
    static_dtree: Vec<Node>,
}

#[derive(Clone, Copy, Default)]
struct Node {
    freq: u32,
    code: u16,
    len: u16,
    dad: u16,
}

impl Tables {
    fn new() -> Tables {
        let mut length_code = [0u8; 256];
        let mut base_length = [0u16; LENGTH_CODES];
        let mut length = 0usize;
        for code in 0..LENGTH_CODES - 1 {
            base_length[code] = length as u16;
            for _ in 0..1 << EXTRA_LBITS[code] {
                length_code[length] = code as u8;
                length += 1;
            }
        }
        // Length 258 (index 255) has its own code, overwriting the last of the range above.
        length_code[length - 1] = (LENGTH_CODES - 1) as u8;
        base_length[LENGTH_CODES - 1] = (MAX_MATCH - MIN_MATCH) as u16;

        let mut dist_code = [0u8; 512];
        let mut base_dist = [0u16; D_CODES];
        let mut dist = 0usize;
        for code in 0..16 {
            base_dist[code] = dist as u16;
            for _ in 0..1 << EXTRA_DBITS[code] {
                dist_code[dist] = code as u8;
                dist += 1;
            }
        }
        dist >>= 7;
        for code in 16..D_CODES {
            base_dist[code] = (dist << 7) as u16;
            for _ in 0..1 << (EXTRA_DBITS[code] - 7) {
                dist_code[256 + dist] = code as u8;
                dist += 1;
            }
        }

        let mut static_ltree = vec![Node::default(); L_CODES + 2];
        let mut bl_count = [0u16; MAX_BITS + 1];
        for (n, node) in static_ltree.iter_mut().enumerate() {
            node.len = match n {
                0..=143 => 8,
                144..=255 => 9,
                256..=279 => 7,
                _ => 8,
            };
            bl_count[node.len as usize] += 1;
        }
        gen_codes(&mut static_ltree, L_CODES + 1, &bl_count);
        let mut static_dtree = vec![Node::default(); D_CODES];
        for (n, node) in static_dtree.iter_mut().enumerate() {
            node.len = 5;
            node.code = bi_reverse(n as u16, 5);
        }
        Tables {
            length_code,
            dist_code,
            base_length,
            base_dist,
            static_ltree,
            static_dtree,
        }
    }

    fn d_code(&self, dist: usize) -> usize {
        if dist < 256 {
            self.dist_code[dist] as usize
        } else {
            self.dist_code[256 + (dist >> 7)] as usize
        }
    }
}

fn bi_reverse(code: u16, len: u16) -> u16 {
    code.reverse_bits() >> (16 - len)
}

/// Canonical codes from the lengths (`bl_count[b]`: how many codes have length `b`).
fn gen_codes(tree: &mut [Node], max_code: usize, bl_count: &[u16; MAX_BITS + 1]) {
    let mut next_code = [0u16; MAX_BITS + 1];
    let mut code = 0u16;
    for bits in 1..=MAX_BITS {
        code = (code.wrapping_add(bl_count[bits - 1])) << 1;
        next_code[bits] = code;
    }
    for node in tree.iter_mut().take(max_code + 1) {
        let len = node.len;
        if len == 0 {
            continue;
        }
        node.code = bi_reverse(next_code[len as usize], len);
        next_code[len as usize] += 1;
    }
}

/// Bits out, least significant first, as deflate wants them.
#[derive(Default)]
struct BitWriter {
    out: Vec<u8>,
    buf: u64,
    n: u32,
}

impl BitWriter {
    fn send_bits(&mut self, value: u32, length: u32) {
        self.buf |= u64::from(value) << self.n;
        self.n += length;
        while self.n >= 8 {
            self.out.push(self.buf as u8);
            self.buf >>= 8;
            self.n -= 8;
        }
    }

    fn send_code(&mut self, symbol: usize, tree: &[Node]) {
        self.send_bits(u32::from(tree[symbol].code), u32::from(tree[symbol].len));
    }

    /// Pads to a byte boundary.
    fn windup(&mut self) {
        if self.n > 0 {
            self.out.push(self.buf as u8);
        }
        self.buf = 0;
        self.n = 0;
    }
}

/// Which tree a `build_tree` call works on.
#[derive(Clone, Copy, PartialEq)]
enum Which {
    Literal,
    Distance,
    BitLength,
}

/// One block's symbols and the trees built for it (gzip's trees.c state).
struct Trees {
    t: Tables,
    level: usize,
    dyn_ltree: Vec<Node>,
    dyn_dtree: Vec<Node>,
    bl_tree: Vec<Node>,
    l_max_code: usize,
    d_max_code: usize,
    bl_count: [u16; MAX_BITS + 1],
    heap: [usize; HEAP_SIZE],
    heap_len: usize,
    heap_max: usize,
    depth: [u8; HEAP_SIZE],
    /// (literal or length - 3, distance or 0) per symbol of the block.
    symbols: Vec<(u8, u16)>,
    /// How many of the symbols are matches.
    last_dist: usize,
    /// The block's size in bits with its own (dynamic) codes, trees included…
    opt_len: i64,
    /// …and with deflate's fixed codes.
    static_len: i64,
    bits: BitWriter,
}

impl Trees {
    fn new(t: Tables, level: usize) -> Trees {
        let mut trees = Trees {
            t,
            level,
            dyn_ltree: vec![Node::default(); HEAP_SIZE],
            dyn_dtree: vec![Node::default(); 2 * D_CODES + 1],
            bl_tree: vec![Node::default(); 2 * BL_CODES + 1],
            l_max_code: 0,
            d_max_code: 0,
            bl_count: [0; MAX_BITS + 1],
            heap: [0; HEAP_SIZE],
            heap_len: 0,
            heap_max: 0,
            depth: [0; HEAP_SIZE],
            symbols: Vec::with_capacity(LIT_BUFSIZE),
            last_dist: 0,
            opt_len: 0,
            static_len: 0,
            bits: BitWriter::default(),
        };
        trees.init_block();
        trees
    }

    fn init_block(&mut self) {
        for n in self.dyn_ltree.iter_mut().take(L_CODES) {
            n.freq = 0;
        }
        for n in self.dyn_dtree.iter_mut().take(D_CODES) {
            n.freq = 0;
        }
        for n in self.bl_tree.iter_mut().take(BL_CODES) {
            n.freq = 0;
        }
        self.dyn_ltree[END_BLOCK].freq = 1;
        self.opt_len = 0;
        self.static_len = 0;
        self.symbols.clear();
        self.last_dist = 0;
    }

    /// Records a literal (`dist` 0) or a match; true when the block should end here.
    /// `pending` is how many input bytes the block covers so far (gzip's strstart -
    /// block_start at the call).
    fn tally(&mut self, dist: usize, lc: usize, pending: usize) -> bool {
        self.symbols.push((lc as u8, dist as u16));
        if dist == 0 {
            self.dyn_ltree[lc].freq += 1;
        } else {
            let dist = dist - 1;
            self.dyn_ltree[self.t.length_code[lc] as usize + LITERALS + 1].freq += 1;
            self.dyn_dtree[self.t.d_code(dist)].freq += 1;
            self.last_dist += 1;
        }
        let last_lit = self.symbols.len();
        if self.level > 2 && last_lit & 0xfff == 0 {
            // Stop the block early when it already compresses well and mostly by matches.
            let mut out_length = last_lit as u64 * 8;
            for (code, node) in self.dyn_dtree.iter().take(D_CODES).enumerate() {
                out_length += u64::from(node.freq) * (5 + u64::from(EXTRA_DBITS[code]));
            }
            out_length >>= 3;
            if self.last_dist < last_lit / 2 && out_length < pending as u64 / 2 {
                return true;
            }
        }
        last_lit == LIT_BUFSIZE - 1 || self.last_dist == LIT_BUFSIZE
    }

    fn tree(&mut self, which: Which) -> &mut Vec<Node> {
        match which {
            Which::Literal => &mut self.dyn_ltree,
            Which::Distance => &mut self.dyn_dtree,
            Which::BitLength => &mut self.bl_tree,
        }
    }

    fn smaller(tree: &[Node], depth: &[u8], n: usize, m: usize) -> bool {
        tree[n].freq < tree[m].freq || (tree[n].freq == tree[m].freq && depth[n] <= depth[m])
    }

    fn pqdownheap(&mut self, which: Which, mut k: usize) {
        let v = self.heap[k];
        let mut j = k << 1;
        let heap_len = self.heap_len;
        while j <= heap_len {
            let tree = match which {
                Which::Literal => &self.dyn_ltree,
                Which::Distance => &self.dyn_dtree,
                Which::BitLength => &self.bl_tree,
            };
            if j < heap_len && Self::smaller(tree, &self.depth, self.heap[j + 1], self.heap[j]) {
                j += 1;
            }
            if Self::smaller(tree, &self.depth, v, self.heap[j]) {
                break;
            }
            self.heap[k] = self.heap[j];
            k = j;
            j <<= 1;
        }
        self.heap[k] = v;
    }

    /// Builds the Huffman tree for the block's frequencies; returns its max_code.
    fn build_tree(&mut self, which: Which) -> usize {
        let (elems, has_static) = match which {
            Which::Literal => (L_CODES, true),
            Which::Distance => (D_CODES, true),
            Which::BitLength => (BL_CODES, false),
        };
        let mut max_code: isize = -1;
        self.heap_len = 0;
        self.heap_max = HEAP_SIZE;
        for n in 0..elems {
            if self.tree(which)[n].freq != 0 {
                self.heap_len += 1;
                self.heap[self.heap_len] = n;
                max_code = n as isize;
                self.depth[n] = 0;
            } else {
                self.tree(which)[n].len = 0;
            }
        }
        // At least two codes of non-zero frequency, so that a code exists at all.
        while self.heap_len < 2 {
            let new = if max_code < 2 {
                max_code += 1;
                max_code as usize
            } else {
                0
            };
            self.heap_len += 1;
            self.heap[self.heap_len] = new;
            self.tree(which)[new].freq = 1;
            self.depth[new] = 0;
            self.opt_len -= 1;
            if has_static {
                let stree = match which {
                    Which::Literal => &self.t.static_ltree,
                    _ => &self.t.static_dtree,
                };
                self.static_len -= i64::from(stree[new].len);
            }
        }
        let max_code = max_code as usize;
        for n in (1..=self.heap_len / 2).rev() {
            self.pqdownheap(which, n);
        }
        let mut node = elems;
        loop {
            let n = self.heap[1];
            self.heap[1] = self.heap[self.heap_len];
            self.heap_len -= 1;
            self.pqdownheap(which, 1);
            let m = self.heap[1];
            self.heap_max -= 1;
            self.heap[self.heap_max] = n;
            self.heap_max -= 1;
            self.heap[self.heap_max] = m;
            let depth = self.depth[n].max(self.depth[m]) + 1;
            let tree = self.tree(which);
            tree[node].freq = tree[n].freq + tree[m].freq;
            tree[n].dad = node as u16;
            tree[m].dad = node as u16;
            self.depth[node] = depth;
            self.heap[1] = node;
            node += 1;
            self.pqdownheap(which, 1);
            if self.heap_len < 2 {
                break;
            }
        }
        self.heap_max -= 1;
        self.heap[self.heap_max] = self.heap[1];
        self.gen_bitlen(which, max_code);
        let bl_count = self.bl_count;
        gen_codes(self.tree(which), max_code, &bl_count);
        max_code
    }

    /// Code lengths from the tree, limited to the tree's maximum length as gzip limits them.
    fn gen_bitlen(&mut self, which: Which, max_code: usize) {
        let (extra, base, max_length): (&[u8], usize, usize) = match which {
            Which::Literal => (&EXTRA_LBITS, LITERALS + 1, MAX_BITS),
            Which::Distance => (&EXTRA_DBITS, 0, MAX_BITS),
            Which::BitLength => (&EXTRA_BLBITS, 0, MAX_BL_BITS),
        };
        self.bl_count = [0; MAX_BITS + 1];
        let root = self.heap[self.heap_max];
        self.tree(which)[root].len = 0;
        let mut overflow = 0i32;
        let mut h = self.heap_max + 1;
        while h < HEAP_SIZE {
            let n = self.heap[h];
            h += 1;
            let tree = self.tree(which);
            let mut bits = tree[tree[n].dad as usize].len as usize + 1;
            if bits > max_length {
                bits = max_length;
                overflow += 1;
            }
            tree[n].len = bits as u16;
            if n > max_code {
                continue;
            }
            let f = i64::from(tree[n].freq);
            self.bl_count[bits] += 1;
            let xbits = if n >= base {
                i64::from(extra[n - base])
            } else {
                0
            };
            self.opt_len += f * (bits as i64 + xbits);
            let static_len = match which {
                Which::Literal => Some(self.t.static_ltree[n].len),
                Which::Distance => Some(self.t.static_dtree[n].len),
                Which::BitLength => None,
            };
            if let Some(len) = static_len {
                self.static_len += f * (i64::from(len) + xbits);
            }
        }
        if overflow == 0 {
            return;
        }
        // Move overflowed leaves up the tree: take a leaf from the deepest level that has
        // one short of the limit and hang two below it.
        loop {
            let mut bits = max_length - 1;
            while self.bl_count[bits] == 0 {
                bits -= 1;
            }
            self.bl_count[bits] -= 1;
            self.bl_count[bits + 1] += 2;
            self.bl_count[max_length] -= 1;
            overflow -= 2;
            if overflow <= 0 {
                break;
            }
        }
        // Lengths again, by frequency order (the heap's), longest first.
        let mut h = HEAP_SIZE;
        for bits in (1..=max_length).rev() {
            let mut n = self.bl_count[bits];
            while n != 0 {
                h -= 1;
                let m = self.heap[h];
                if m > max_code {
                    continue;
                }
                let tree = self.tree(which);
                if tree[m].len as usize != bits {
                    let delta = (bits as i64 - i64::from(tree[m].len)) * i64::from(tree[m].freq);
                    tree[m].len = bits as u16;
                    self.opt_len += delta;
                }
                n -= 1;
            }
        }
    }

    /// Counts the code-length symbols `send_tree` will use for `tree`.
    fn scan_tree(&mut self, which: Which, max_code: usize) {
        let lens = self.lengths(which, max_code);
        for_runs(&lens, |run| match run {
            Run::Each(len, count) => self.bl_tree[len].freq += count as u32,
            Run::Repeat(len, new, _) => {
                if new {
                    self.bl_tree[len].freq += 1;
                }
                self.bl_tree[REP_3_6].freq += 1;
            }
            Run::Zeros(count) if count <= 10 => self.bl_tree[REPZ_3_10].freq += 1,
            Run::Zeros(_) => self.bl_tree[REPZ_11_138].freq += 1,
        });
    }

    fn send_tree(&mut self, which: Which, max_code: usize) {
        let lens = self.lengths(which, max_code);
        let bl_tree = &self.bl_tree;
        let bits = &mut self.bits;
        for_runs(&lens, |run| match run {
            Run::Each(len, count) => {
                for _ in 0..count {
                    bits.send_code(len, bl_tree);
                }
            }
            Run::Repeat(len, new, mut count) => {
                if new {
                    bits.send_code(len, bl_tree);
                    count -= 1;
                }
                bits.send_code(REP_3_6, bl_tree);
                bits.send_bits(count as u32 - 3, 2);
            }
            Run::Zeros(count) if count <= 10 => {
                bits.send_code(REPZ_3_10, bl_tree);
                bits.send_bits(count as u32 - 3, 3);
            }
            Run::Zeros(count) => {
                bits.send_code(REPZ_11_138, bl_tree);
                bits.send_bits(count as u32 - 11, 7);
            }
        });
    }

    /// The code lengths of codes 0..=max_code of a literal or distance tree.
    fn lengths(&self, which: Which, max_code: usize) -> Vec<u16> {
        let tree = match which {
            Which::Literal => &self.dyn_ltree,
            _ => &self.dyn_dtree,
        };
        tree.iter().take(max_code + 1).map(|n| n.len).collect()
    }

    fn build_bl_tree(&mut self) -> usize {
        self.scan_tree(Which::Literal, self.l_max_code);
        self.scan_tree(Which::Distance, self.d_max_code);
        self.build_tree(Which::BitLength);
        let mut max_blindex = BL_CODES - 1;
        while max_blindex >= 3 {
            if self.bl_tree[BL_ORDER[max_blindex]].len != 0 {
                break;
            }
            max_blindex -= 1;
        }
        self.opt_len += 3 * (max_blindex as i64 + 1) + 5 + 5 + 4;
        max_blindex
    }

    fn send_all_trees(&mut self, lcodes: usize, dcodes: usize, blcodes: usize) {
        self.bits.send_bits((lcodes - 257) as u32, 5);
        self.bits.send_bits((dcodes - 1) as u32, 5);
        self.bits.send_bits((blcodes - 4) as u32, 4);
        for &order in BL_ORDER.iter().take(blcodes) {
            self.bits.send_bits(u32::from(self.bl_tree[order].len), 3);
        }
        self.send_tree(Which::Literal, lcodes - 1);
        self.send_tree(Which::Distance, dcodes - 1);
    }

    fn compress_block(&mut self, dynamic: bool) {
        let (ltree, dtree) = if dynamic {
            (&self.dyn_ltree, &self.dyn_dtree)
        } else {
            (&self.t.static_ltree, &self.t.static_dtree)
        };
        for &(lc, dist) in &self.symbols {
            let lc = lc as usize;
            if dist == 0 {
                self.bits.send_code(lc, ltree);
                continue;
            }
            let code = self.t.length_code[lc] as usize;
            self.bits.send_code(code + LITERALS + 1, ltree);
            let extra = u32::from(EXTRA_LBITS[code]);
            if extra != 0 {
                self.bits
                    .send_bits((lc - self.t.base_length[code] as usize) as u32, extra);
            }
            let dist = dist as usize - 1;
            let code = self.t.d_code(dist);
            self.bits.send_code(code, dtree);
            let extra = u32::from(EXTRA_DBITS[code]);
            if extra != 0 {
                self.bits
                    .send_bits((dist - self.t.base_dist[code] as usize) as u32, extra);
            }
        }
        self.bits.send_code(END_BLOCK, ltree);
    }

    /// Ends the block holding `stored` (the input it covers, if still in the window) in its
    /// cheapest form.
    fn flush_block(&mut self, stored: Option<&[u8]>, stored_len: usize, eof: bool) {
        self.l_max_code = self.build_tree(Which::Literal);
        self.d_max_code = self.build_tree(Which::Distance);
        let max_blindex = self.build_bl_tree();
        let mut opt_lenb = (self.opt_len + 3 + 7) >> 3;
        let static_lenb = (self.static_len + 3 + 7) >> 3;
        if static_lenb <= opt_lenb {
            opt_lenb = static_lenb;
        }
        let eof_bit = u32::from(eof);
        match stored {
            Some(data) if stored_len as i64 + 4 <= opt_lenb => {
                self.bits.send_bits(eof_bit, 3);
                self.bits.windup();
                let len = stored_len as u16;
                self.bits.out.extend_from_slice(&len.to_le_bytes());
                self.bits.out.extend_from_slice(&(!len).to_le_bytes());
                self.bits.out.extend_from_slice(data);
            }
            _ if static_lenb == opt_lenb => {
                self.bits.send_bits((1 << 1) + eof_bit, 3);
                self.compress_block(false);
            }
            _ => {
                self.bits.send_bits((2 << 1) + eof_bit, 3);
                self.send_all_trees(self.l_max_code + 1, self.d_max_code + 1, max_blindex + 1);
                self.compress_block(true);
            }
        }
        self.init_block();
        if eof {
            self.bits.windup();
        }
    }
}

/// A run of code lengths as deflate sends them.
enum Run {
    /// `count` (fewer than a repeat needs) lengths `len`, each sent as itself.
    Each(usize, usize),
    /// `count` times the non-zero length `len`; `true` when it differs from the length before
    /// the run, so the first is sent as itself.
    Repeat(usize, bool, usize),
    /// `count` zeros.
    Zeros(usize),
}

/// Walks the code lengths in gzip's runs (a guard past the last ends the final run).
fn for_runs(lens: &[u16], mut f: impl FnMut(Run)) {
    let mut prevlen: i32 = -1;
    let mut nextlen = i32::from(lens[0]);
    let mut count = 0usize;
    let (mut max_count, mut min_count) = if nextlen == 0 { (138, 3) } else { (7, 4) };
    for n in 0..lens.len() {
        let curlen = nextlen;
        nextlen = lens.get(n + 1).map_or(0xffff, |&l| i32::from(l));
        count += 1;
        if count < max_count && curlen == nextlen {
            continue;
        } else if count < min_count {
            f(Run::Each(curlen as usize, count));
        } else if curlen != 0 {
            f(Run::Repeat(curlen as usize, curlen != prevlen, count));
        } else {
            f(Run::Zeros(count));
        }
        count = 0;
        prevlen = curlen;
        (max_count, min_count) = if nextlen == 0 {
            (138, 3)
        } else if curlen == nextlen {
            (6, 3)
        } else {
            (7, 4)
        };
    }
}

/// Input gathered before the deflater runs on it: it reads a window at a time, as gzip reads
/// a regular file.
const RUN_EVERY: usize = 256 * 1024;

/// gzip's deflate.c state: the window, the hash chains and the match in progress. Input is
/// pushed in; [`Deflater::run`] goes as far as gzip would with what it has, stopping where
/// gzip would read and the read could not yet be whole.
struct Deflater {
    /// Input not yet read into the window starts at `input_pos`.
    input: Vec<u8>,
    input_pos: usize,
    /// No more input will come.
    input_done: bool,
    started: bool,
    finished: bool,
    level: usize,
    good_match: usize,
    max_lazy_match: usize,
    nice_match: usize,
    max_chain_length: usize,
    /// Two windows' worth, plus room for what gzip may read past the end of its array.
    window: Vec<u8>,
    prev: Vec<u16>,
    head: Vec<u16>,
    ins_h: usize,
    strstart: usize,
    /// Where the current block began; negative once that has slid out of the window.
    block_start: isize,
    lookahead: usize,
    match_start: usize,
    prev_length: usize,
    /// The match found at the current position (kept between runs).
    match_length: usize,
    /// Lazy evaluation: a literal at strstart - 1 waits for the next position's match.
    match_available: bool,
    eofile: bool,
    trees: Trees,
}

impl Deflater {
    fn new(level: u32) -> Deflater {
        let level = level.clamp(1, 9) as usize;
        let (good, lazy, nice, chain) = CONFIG[level];
        Deflater {
            input: Vec::new(),
            input_pos: 0,
            input_done: false,
            started: false,
            finished: false,
            level,
            good_match: good,
            max_lazy_match: lazy,
            nice_match: nice,
            max_chain_length: chain,
            window: vec![0; WINDOW_SIZE + MAX_MATCH + MIN_MATCH],
            prev: vec![0; WSIZE],
            head: vec![0; HASH_SIZE],
            ins_h: 0,
            strstart: 0,
            block_start: 0,
            lookahead: 0,
            match_start: 0,
            prev_length: MIN_MATCH - 1,
            match_length: if level <= 3 { 0 } else { MIN_MATCH - 1 },
            match_available: false,
            eofile: false,
            trees: Trees::new(Tables::new(), level),
        }
    }

    fn available(&self) -> usize {
        self.input.len() - self.input_pos
    }

    /// Whether a read of `size` bytes would come back short only because input is still to
    /// come.
    fn must_wait(&self, size: usize) -> bool {
        !self.input_done && self.available() < size
    }

    /// Copies up to `size` more input bytes into the window at `at`.
    fn read_buf(&mut self, at: usize, size: usize) -> usize {
        let n = size.min(self.available());
        self.window[at..at + n].copy_from_slice(&self.input[self.input_pos..self.input_pos + n]);
        self.input_pos += n;
        if self.input_pos >= RUN_EVERY {
            self.input.drain(..self.input_pos);
            self.input_pos = 0;
        }
        n
    }

    /// lm_init: the first read fills both halves of the window.
    fn start(&mut self) {
        self.lookahead = self.read_buf(0, WINDOW_SIZE);
        if self.lookahead == 0 {
            self.eofile = true;
            return;
        }
        while self.lookahead < MIN_LOOKAHEAD && !self.eofile {
            self.fill_window();
        }
        for j in 0..MIN_MATCH - 1 {
            self.update_hash(self.window[j]);
        }
    }

    /// Compresses as far as the input allows; with all input in, to the end of the stream.
    fn run(&mut self) {
        if self.finished {
            return;
        }
        if !self.started {
            if self.must_wait(WINDOW_SIZE) {
                return;
            }
            self.start();
            self.started = true;
        }
        loop {
            while self.lookahead < MIN_LOOKAHEAD && !self.eofile {
                if self.must_wait(self.fill_size()) {
                    return;
                }
                self.fill_window();
            }
            if self.lookahead == 0 {
                break;
            }
            if self.level <= 3 {
                self.fast_step();
            } else {
                self.lazy_step();
            }
        }
        if self.level > 3 && self.match_available {
            let literal = self.window[self.strstart - 1] as usize;
            self.trees.tally(0, literal, self.pending());
        }
        self.flush_block(true);
        self.finished = true;
    }

    fn update_hash(&mut self, c: u8) {
        self.ins_h = ((self.ins_h << H_SHIFT) ^ c as usize) & HASH_MASK;
    }

    /// Inserts the string at `s` into the hash chains; returns the previous head of its chain.
    fn insert_string(&mut self, s: usize) -> usize {
        self.update_hash(self.window[s + MIN_MATCH - 1]);
        let head = self.head[self.ins_h];
        self.prev[s & WMASK] = head;
        self.head[self.ins_h] = s as u16;
        head as usize
    }

    /// How much `fill_window` will ask to read now.
    fn fill_size(&self) -> usize {
        let more = WINDOW_SIZE - self.lookahead - self.strstart;
        if self.strstart >= WSIZE + MAX_DIST {
            more + WSIZE
        } else {
            more
        }
    }

    /// Slides the window when the current position is in its upper half, then reads more.
    fn fill_window(&mut self) {
        let more = self.fill_size();
        if self.strstart >= WSIZE + MAX_DIST {
            self.window.copy_within(WSIZE..WINDOW_SIZE, 0);
            self.match_start = self.match_start.wrapping_sub(WSIZE);
            self.strstart -= WSIZE;
            self.block_start -= WSIZE as isize;
            for h in self.head.iter_mut().chain(self.prev.iter_mut()) {
                *h = if *h as usize >= WSIZE {
                    *h - WSIZE as u16
                } else {
                    NIL as u16
                };
            }
        }
        if !self.eofile {
            let at = self.strstart + self.lookahead;
            let n = self.read_buf(at, more);
            if n == 0 {
                self.eofile = true;
                // Keep bytes left from earlier data out of the last strings' hashes.
                self.window[at..at + MIN_MATCH - 1].fill(0);
            } else {
                self.lookahead += n;
            }
        }
    }

    /// The longest match for the string at strstart along the chain from `cur_match`,
    /// longer than prev_length; sets match_start.
    fn longest_match(&mut self, mut cur_match: usize) -> usize {
        let mut chain_length = self.max_chain_length;
        let scan = self.strstart;
        let mut best_len = self.prev_length;
        let limit = if self.strstart > MAX_DIST {
            self.strstart - MAX_DIST
        } else {
            NIL
        };
        let w = &self.window;
        let strend = scan + MAX_MATCH;
        let mut scan_end1 = w[scan + best_len - 1];
        let mut scan_end = w[scan + best_len];
        if self.prev_length >= self.good_match {
            chain_length >>= 2;
        }
        loop {
            let m = cur_match;
            if w[m + best_len] == scan_end
                && w[m + best_len - 1] == scan_end1
                && w[m] == w[scan]
                && w[m + 1] == w[scan + 1]
            {
                // The first two bytes match and, the hashes being equal, so does the third
                // (gzip does not compare it); compare from the fourth, up to MAX_MATCH.
                let mut s = scan + 3;
                let mut t = m + 3;
                while s < strend && w[s] == w[t] {
                    s += 1;
                    t += 1;
                }
                let len = s - scan;
                if len > best_len {
                    self.match_start = cur_match;
                    best_len = len;
                    if len >= self.nice_match {
                        break;
                    }
                    scan_end1 = w[scan + best_len - 1];
                    scan_end = w[scan + best_len];
                }
            }
            cur_match = self.prev[cur_match & WMASK] as usize;
            if cur_match <= limit {
                break;
            }
            chain_length -= 1;
            if chain_length == 0 {
                break;
            }
        }
        best_len
    }

    /// Ends the block at strstart.
    fn flush_block(&mut self, eof: bool) {
        let stored_len = (self.strstart as isize - self.block_start) as usize;
        let stored = (self.block_start >= 0).then(|| {
            let start = self.block_start as usize;
            &self.window[start..start + stored_len]
        });
        self.trees.flush_block(stored, stored_len, eof);
        self.block_start = self.strstart as isize;
    }

    fn pending(&self) -> usize {
        (self.strstart as isize - self.block_start) as usize
    }

    fn may_match(&self, hash_head: usize) -> bool {
        hash_head != NIL
            && self.strstart - hash_head <= MAX_DIST
            && self.strstart <= WINDOW_SIZE - MIN_LOOKAHEAD
    }

    /// Levels 1–3, one position: a match is taken as soon as it is found.
    fn fast_step(&mut self) {
        let hash_head = self.insert_string(self.strstart);
        if self.may_match(hash_head) {
            self.match_length = self.longest_match(hash_head).min(self.lookahead);
        }
        let flush;
        if self.match_length >= MIN_MATCH {
            flush = self.trees.tally(
                self.strstart - self.match_start,
                self.match_length - MIN_MATCH,
                self.pending(),
            );
            self.lookahead -= self.match_length;
            if self.match_length <= self.max_lazy_match {
                // Every string of the match goes into the hash table.
                self.match_length -= 1;
                while self.match_length != 0 {
                    self.strstart += 1;
                    self.insert_string(self.strstart);
                    self.match_length -= 1;
                }
                self.strstart += 1;
            } else {
                self.strstart += self.match_length;
                self.match_length = 0;
                self.ins_h = self.window[self.strstart] as usize;
                self.update_hash(self.window[self.strstart + 1]);
            }
        } else {
            let literal = self.window[self.strstart] as usize;
            flush = self.trees.tally(0, literal, self.pending());
            self.lookahead -= 1;
            self.strstart += 1;
        }
        if flush {
            self.flush_block(false);
        }
    }

    /// Levels 4–9, one position: a match is kept only if the next position does not start a
    /// longer one.
    fn lazy_step(&mut self) {
        let hash_head = self.insert_string(self.strstart);
        self.prev_length = self.match_length;
        let prev_match = self.match_start;
        self.match_length = MIN_MATCH - 1;
        if self.prev_length < self.max_lazy_match && self.may_match(hash_head) {
            self.match_length = self.longest_match(hash_head).min(self.lookahead);
            if self.match_length == MIN_MATCH && self.strstart - self.match_start > TOO_FAR {
                self.match_length -= 1;
            }
        }
        if self.prev_length >= MIN_MATCH && self.match_length <= self.prev_length {
            let flush = self.trees.tally(
                self.strstart - 1 - prev_match,
                self.prev_length - MIN_MATCH,
                self.pending(),
            );
            self.lookahead -= self.prev_length - 1;
            let mut left = self.prev_length - 2;
            while left != 0 {
                self.strstart += 1;
                self.insert_string(self.strstart);
                left -= 1;
            }
            self.match_available = false;
            self.match_length = MIN_MATCH - 1;
            self.strstart += 1;
            if flush {
                self.flush_block(false);
            }
        } else if self.match_available {
            let literal = self.window[self.strstart - 1] as usize;
            if self.trees.tally(0, literal, self.pending()) {
                self.flush_block(false);
            }
            self.strstart += 1;
            self.lookahead -= 1;
        } else {
            self.match_available = true;
            self.strstart += 1;
            self.lookahead -= 1;
        }
    }
}

/// A gzip member (RFC 1952) as GNU gzip writes it: its header (the stored name and time when
/// given, the level's XFL byte, OS 3 = Unix), gzip's deflate stream, CRC-32 and size. Input is
/// compressed as it comes, a window at a time; flushing writes nothing, as gzip ends blocks
/// only where its own rules say. The member is completed by [`GzipWriter::finish`] or, with
/// errors unreported, on drop.
pub struct GzipWriter<W: Write> {
    inner: Option<W>,
    deflater: Deflater,
    name: Option<Vec<u8>>,
    mtime: u32,
    header_written: bool,
    crc: flate2::Crc,
}

impl<W: Write> GzipWriter<W> {
    pub fn new(inner: W, level: u32) -> GzipWriter<W> {
        GzipWriter {
            inner: Some(inner),
            deflater: Deflater::new(level),
            name: None,
            mtime: 0,
            header_written: false,
            crc: flate2::Crc::new(),
        }
    }

    /// Stores the original file name and modification time, as gzip does without `-n`.
    pub fn with_name(mut self, name: &[u8], mtime: u32) -> GzipWriter<W> {
        self.name = Some(name.to_vec());
        self.mtime = mtime;
        self
    }

    /// Writes the rest of the member and hands back the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.end_member()?;
        Ok(self.inner.take().expect("finished once"))
    }

    fn header(&self) -> Vec<u8> {
        let mut header = vec![0x1f, 0x8b, 8];
        header.push(if self.name.is_some() { 0x08 } else { 0 });
        header.extend_from_slice(&self.mtime.to_le_bytes());
        header.push(match self.deflater.level {
            1 => 4,
            9 => 2,
            _ => 0,
        });
        header.push(3);
        if let Some(name) = &self.name {
            header.extend_from_slice(name);
            header.push(0);
        }
        header
    }

    /// Runs the deflater on what it has and passes on the bytes it produced.
    fn pump(&mut self) -> io::Result<()> {
        self.deflater.run();
        let header = (!self.header_written).then(|| self.header());
        let Some(out) = self.inner.as_mut() else {
            return Ok(());
        };
        if let Some(header) = header {
            out.write_all(&header)?;
            self.header_written = true;
        }
        let produced = std::mem::take(&mut self.deflater.trees.bits.out);
        out.write_all(&produced)
    }

    fn end_member(&mut self) -> io::Result<()> {
        if self.inner.is_none() || self.deflater.finished {
            return Ok(());
        }
        self.deflater.input_done = true;
        self.pump()?;
        let size = self.crc.amount();
        let sum = self.crc.sum();
        let out = self.inner.as_mut().expect("checked above");
        out.write_all(&sum.to_le_bytes())?;
        out.write_all(&size.to_le_bytes())?;
        out.flush()
    }
}

impl<W: Write> Write for GzipWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.crc.update(buf);
        self.deflater.input.extend_from_slice(buf);
        if self.deflater.available() >= RUN_EVERY {
            self.pump()?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<W: Write> Drop for GzipWriter<W> {
    fn drop(&mut self) {
        let _ = self.end_member();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The raw deflate stream GNU gzip writes for `data` at `level` (1–9).
    fn deflate(data: &[u8], level: u32) -> Vec<u8> {
        let mut d = Deflater::new(level);
        d.input.extend_from_slice(data);
        d.input_done = true;
        d.run();
        std::mem::take(&mut d.trees.bits.out)
    }
    use std::io::Read;
    use std::process::{Command, Stdio};

    fn inflate(stream: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        flate2::read::DeflateDecoder::new(stream)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    /// Inputs that reach every path: empty, tiny, text, repetitive (long matches, the 258
    /// cap), incompressible (stored blocks), and larger than the window (slides, early block
    /// ends, buffer-full block ends).
    fn inputs() -> Vec<(String, Vec<u8>)> {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut random = |n: usize| -> Vec<u8> {
            (0..n)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect()
        };
        let text: Vec<u8> = include_str!("../tar.rs").bytes().collect();
        let mut words = Vec::new();
        for i in 0..40_000u32 {
            words.extend_from_slice(format!("line {} of {}\n", i % 977, i % 13).as_bytes());
        }
        let mut mixed = random(20_000);
        mixed.extend_from_slice(&text[..30_000]);
        mixed.extend(random(3_000));
        mixed.extend_from_slice(&text);
        vec![
            ("empty".into(), Vec::new()),
            ("one byte".into(), b"a".to_vec()),
            ("three".into(), b"abc".to_vec()),
            ("hello".into(), b"hello world\n".to_vec()),
            ("zeros".into(), vec![0; 100_000]),
            ("abab".into(), b"ab".repeat(70_000)),
            ("random small".into(), random(1_000)),
            ("random large".into(), random(200_000)),
            ("source text".into(), text.clone()),
            ("three texts".into(), text.repeat(3)),
            ("counted lines".into(), words),
            ("mixed".into(), mixed),
        ]
    }

    #[test]
    fn what_it_writes_inflates_to_the_input_at_every_level() {
        for (name, data) in inputs() {
            for level in 1..=9 {
                assert_eq!(inflate(&deflate(&data, level)), data, "{name} at -{level}");
            }
        }
    }

    #[test]
    fn written_in_pieces_it_is_the_same_member() {
        for (name, data) in inputs() {
            let whole = {
                let mut w = GzipWriter::new(Vec::new(), 6);
                w.write_all(&data).unwrap();
                w.finish().unwrap()
            };
            assert_eq!(&whole[10..whole.len() - 8], deflate(&data, 6), "{name}");
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(&whole[..])
                .read_to_end(&mut out)
                .unwrap();
            assert_eq!(out, data, "{name}");
            for piece in [1, 1000, 70_000] {
                let mut w = GzipWriter::new(Vec::new(), 6);
                for chunk in data.chunks(piece) {
                    w.write_all(chunk).unwrap();
                }
                assert_eq!(w.finish().unwrap(), whole, "{name} in pieces of {piece}");
            }
        }
    }

    /// GNU gzip's own bytes for the same input and level (the member's deflate stream).
    fn gnu_deflate(gzip: &str, data: &[u8], level: u32) -> Option<Vec<u8>> {
        let mut child = Command::new(gzip)
            .args(["-n", "-c", &format!("-{level}")])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .ok()?;
        let mut stdin = child.stdin.take().unwrap();
        let input = data.to_vec();
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let out = child.wait_with_output().ok()?;
        writer.join().unwrap().unwrap();
        Some(out.stdout[10..out.stdout.len() - 8].to_vec())
    }

    #[test]
    fn the_bytes_are_gnu_gzips() {
        // GNU gzip on the host (CI installs it; elsewhere its absence skips the comparison).
        let gzip = "gzip".to_string();
        let is_gnu = Command::new(&gzip)
            .arg("--version")
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).starts_with("gzip "));
        if !is_gnu {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "GNU gzip is required under CI"
            );
            eprintln!("SKIP: GNU gzip not installed");
            return;
        }
        let mut differing = Vec::new();
        let mut compared = 0;
        for (name, data) in inputs() {
            for level in 1..=9 {
                let Some(gnu) = gnu_deflate(&gzip, &data, level) else {
                    continue;
                };
                compared += 1;
                if deflate(&data, level) != gnu {
                    differing.push(format!("{name} at -{level}"));
                }
            }
        }
        assert!(compared > 0);
        assert!(differing.is_empty(), "not GNU's bytes: {differing:?}");
    }
}
