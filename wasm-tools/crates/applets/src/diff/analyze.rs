//! The comparison engine of GNU diffutils 3.8, re-implemented from its documented behaviour so
//! that the edit script — and therefore every hunk boundary — is the one GNU diff prints.
//!
//! A *minimal* diff is not unique: `a b a` against `b a b` has several shortest edit scripts,
//! and GNU's choice among them comes from the whole pipeline below, each step of which changes
//! which lines end up marked as inserted or deleted:
//!
//! 1. [`Text`]: the file as a buffer with a newline appended when the last line lacks one
//!    (remembered, so output can say `\ No newline at end of file`).
//! 2. The identical prefix and suffix are found *byte-wise* and excluded, except for
//!    `horizon` lines (the context size) kept at each end so hunks can still shift.
//! 3. Every remaining line gets an equivalence class; `-i -b -w -E -Z` decide which lines are
//!    equal. An incomplete last line only equals the other file's incomplete last line
//!    unless trailing white space is ignored.
//! 4. "Confusing" lines are discarded before the search: lines with no match in the other
//!    file, and runs of lines with very many matches (heuristic thresholds depending on the
//!    square root of the file length).
//! 5. Myers' O(ND) search with the linear-space middle-snake split, forward and backward
//!    searches interleaved, diagonals visited from the highest down, ties resolved towards
//!    the forward search; `too_expensive` (≈ √N, at least 4096) caps the cost unless
//!    `--minimal`, and `--speed-large-files` adds the big-snake heuristic.
//! 6. Change boundaries are slid so runs merge and, failing that, end as late as possible
//!    (`shift_boundaries`).
//! 7. The change flags become a list of [`Change`]s.

use std::collections::HashMap;

/// White-space handling, ordered as GNU orders it (a later option of lower rank does not
/// override a higher one: `-b` beats `-Z`, `-w` beats `-b`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum WhiteSpace {
    #[default]
    None = 0,
    /// `-E`
    TabExpansion = 1,
    /// `-Z`
    Trailing = 2,
    /// `-E -Z`
    TabExpansionAndTrailing = 3,
    /// `-b`
    SpaceChange = 4,
    /// `-w`
    AllSpace = 5,
}

/// What makes two lines equal, and how hard to search.
#[derive(Debug, Clone, Copy, Default)]
pub struct Compare {
    pub ignore_case: bool,
    pub white_space: WhiteSpace,
    pub tabsize: usize,
    /// `-d`: no `too_expensive` cut-off and no discarding of confusing lines.
    pub minimal: bool,
    /// `-H`
    pub speed_large_files: bool,
    /// Lines of the identical prefix and suffix to keep (the context size, at least).
    pub horizon: usize,
}

/// One file's text, split into lines.
#[derive(Debug, Clone, Default)]
pub struct Text {
    /// The contents, with a `\n` appended if the last line had none.
    pub buf: Vec<u8>,
    pub missing_newline: bool,
    /// Line *i* is `buf[starts[i]..starts[i + 1]]`, including its newline; the last entry is
    /// the end of the text, minus the appended newline when there was none.
    pub starts: Vec<usize>,
}

impl Text {
    pub fn new(mut buf: Vec<u8>) -> Text {
        let missing_newline = !buf.is_empty() && buf.last() != Some(&b'\n');
        if missing_newline {
            buf.push(b'\n');
        }
        let mut starts = vec![0];
        for (i, &b) in buf.iter().enumerate() {
            if b == b'\n' {
                starts.push(i + 1);
            }
        }
        if missing_newline && let Some(last) = starts.last_mut() {
            *last -= 1;
        }
        Text {
            buf,
            missing_newline,
            starts,
        }
    }

    pub fn lines(&self) -> usize {
        self.starts.len() - 1
    }

    /// Line `i` with its newline, if it has one.
    pub fn line(&self, i: usize) -> &[u8] {
        &self.buf[self.starts[i]..self.starts[i + 1]]
    }

    /// Line `i` without its newline.
    pub fn content(&self, i: usize) -> &[u8] {
        let l = self.line(i);
        l.strip_suffix(b"\n").unwrap_or(l)
    }

    /// Whether line `i` ends with a newline in the file.
    pub fn has_newline(&self, i: usize) -> bool {
        self.line(i).last() == Some(&b'\n')
    }
}

/// A run of deleted and inserted lines; line numbers are 0-based indexes into the files. When
/// `deleted` is 0, `line0` is the line before which the insertion happens (and vice versa).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    pub line0: usize,
    pub line1: usize,
    pub deleted: usize,
    pub inserted: usize,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// The bytes two lines must share to be equal under `cmp` (equal keys ⇔ equal lines).
fn line_key(line: &[u8], cmp: &Compare) -> Vec<u8> {
    let fold = |c: u8| {
        if cmp.ignore_case {
            c.to_ascii_lowercase()
        } else {
            c
        }
    };
    let mut key = Vec::with_capacity(line.len());
    match cmp.white_space {
        WhiteSpace::AllSpace => {
            key.extend(line.iter().filter(|&&c| !is_space(c)).map(|&c| fold(c)))
        }
        WhiteSpace::SpaceChange => {
            let mut i = 0;
            while i < line.len() {
                if is_space(line[i]) {
                    while i < line.len() && is_space(line[i]) {
                        i += 1;
                    }
                    if i == line.len() {
                        break;
                    }
                    key.push(b' ');
                }
                key.push(fold(line[i]));
                i += 1;
            }
        }
        WhiteSpace::None => key.extend(line.iter().map(|&c| fold(c))),
        ws => {
            let trailing = matches!(
                ws,
                WhiteSpace::Trailing | WhiteSpace::TabExpansionAndTrailing
            );
            let expand = matches!(
                ws,
                WhiteSpace::TabExpansion | WhiteSpace::TabExpansionAndTrailing
            );
            let tab = cmp.tabsize.max(1);
            let mut column = 0usize;
            for (i, &c) in line.iter().enumerate() {
                if trailing && is_space(c) && line[i..].iter().all(|&b| is_space(b)) {
                    break;
                }
                let mut out = c;
                let mut reps = 1;
                if expand {
                    match c {
                        8 => column = column.saturating_sub(1),
                        b'\t' => {
                            out = b' ';
                            reps = tab - column % tab;
                            column += reps;
                        }
                        b'\r' => column = 0,
                        _ => column += 1,
                    }
                }
                for _ in 0..reps {
                    key.push(fold(out));
                }
            }
        }
    }
    key
}

/// Byte offsets where the compared middle of each file starts and ends (see module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ends {
    prefix_end: usize,
    suffix_begin: [usize; 2],
}

fn identical_ends(t: [&Text; 2], horizon: usize) -> Ends {
    let (b0, b1) = (&t[0].buf, &t[1].buf);
    let (n0, n1) = (b0.len(), b1.len());
    // First mismatching byte (running off the shorter buffer counts as a mismatch).
    let mut p = b0.iter().zip(b1.iter()).take_while(|(a, b)| a == b).count();
    // A missing newline must not count as part of a common prefix.
    if (n0 - usize::from(t[0].missing_newline) < p) != (n1 - usize::from(t[1].missing_newline) < p)
    {
        p -= 1;
    }
    // Back to the start of the line, then `horizon` more lines.
    let mut keep = horizon;
    while p != 0 {
        if b0[p - 1] == b'\n' {
            if keep == 0 {
                break;
            }
            keep -= 1;
        }
        p -= 1;
    }
    let prefix_end = p;
    let mut suffix_begin = [n0, n1];
    if t[0].missing_newline == t[1].missing_newline {
        let mut beg0 = prefix_end + n0.saturating_sub(n1);
        let (mut p0, mut p1) = (n0, n1);
        while p0 != beg0 {
            p0 -= 1;
            p1 -= 1;
            if b0[p0] != b1[p1] {
                p0 += 1;
                p1 += 1;
                beg0 = p0;
                break;
            }
        }
        let at_line_starts = (p0 == 0 || b0[p0 - 1] == b'\n') && (p1 == 0 || b1[p1 - 1] == b'\n');
        // Keep `horizon` lines of the suffix, and finish a partial line.
        let mut lines = horizon + usize::from(!at_line_starts);
        while lines > 0 && p0 != n0 {
            lines -= 1;
            while b0[p0] != b'\n' {
                p0 += 1;
            }
            p0 += 1;
        }
        p1 += p0 - beg0;
        suffix_begin = [p0, p1];
    }
    Ends {
        prefix_end,
        suffix_begin,
    }
}

/// A flag per line with a permanent `false` before the first and after the last line.
struct Flags(Vec<bool>);

impl Flags {
    fn new(n: usize) -> Flags {
        Flags(vec![false; n + 2])
    }
    fn get(&self, i: isize) -> bool {
        self.0.get((i + 1) as usize).copied().unwrap_or(false)
    }
    fn set(&mut self, i: isize, v: bool) {
        self.0[(i + 1) as usize] = v;
    }
}

/// Marks lines that match nothing in the other file as changed (they need no search), and
/// drops long runs of lines that match too much. Returns, per file, the classes left to
/// search and their line indexes.
fn discard_confusing(
    equivs: [&[usize]; 2],
    nclasses: usize,
    minimal: bool,
    changed: &mut [Flags; 2],
) -> [(Vec<usize>, Vec<usize>); 2] {
    let mut counts = [vec![0usize; nclasses], vec![0usize; nclasses]];
    for f in 0..2 {
        for &e in equivs[f] {
            counts[f][e] += 1;
        }
    }
    // 0 = keep, 1 = discard, 2 = discard provisionally.
    let mut discards: [Vec<u8>; 2] = [vec![0; equivs[0].len()], vec![0; equivs[1].len()]];
    for f in 0..2 {
        let end = equivs[f].len();
        let other = &counts[1 - f];
        // About five times the square root of the number of lines.
        let mut many = 5usize;
        let mut tem = end / 64;
        loop {
            tem >>= 2;
            if tem == 0 {
                break;
            }
            many *= 2;
        }
        for i in 0..end {
            let nmatch = other[equivs[f][i]];
            if nmatch == 0 {
                discards[f][i] = 1;
            } else if nmatch > many {
                discards[f][i] = 2;
            }
        }
    }
    for d in &mut discards {
        let end = d.len();
        let mut i = 0;
        while i < end {
            if d[i] == 2 {
                d[i] = 0;
            } else if d[i] != 0 {
                // A run of discardable lines starting with a definite one.
                let mut provisional = 0usize;
                let mut j = i;
                while j < end && d[j] != 0 {
                    if d[j] == 2 {
                        provisional += 1;
                    }
                    j += 1;
                }
                while j > i && d[j - 1] == 2 {
                    j -= 1;
                    d[j] = 0;
                    provisional -= 1;
                }
                let length = j - i;
                if provisional * 4 > length {
                    for x in d[i..j].iter_mut() {
                        if *x == 2 {
                            *x = 0;
                        }
                    }
                } else {
                    // Subruns of `minimum` or more provisionals are kept.
                    let mut minimum = 1usize;
                    let mut tem = length >> 2;
                    loop {
                        tem >>= 2;
                        if tem == 0 {
                            break;
                        }
                        minimum <<= 1;
                    }
                    minimum += 1;
                    let mut consec = 0usize;
                    let mut k = 0isize;
                    while (k as usize) < length {
                        let idx = i + k as usize;
                        if d[idx] != 2 {
                            consec = 0;
                        } else {
                            consec += 1;
                            if consec == minimum {
                                // Back up to the start of the subrun to cancel it all.
                                k -= consec as isize;
                            } else if consec > minimum {
                                d[idx] = 0;
                            }
                        }
                        k += 1;
                    }
                    // Provisionals near either end of the run are kept until three
                    // definite discards in a row (or one eight lines in).
                    let mut consec = 0;
                    for k in 0..length {
                        let idx = i + k;
                        if k >= 8 && d[idx] == 1 {
                            break;
                        }
                        if d[idx] == 2 {
                            consec = 0;
                            d[idx] = 0;
                        } else if d[idx] == 0 {
                            consec = 0;
                        } else {
                            consec += 1;
                        }
                        if consec == 3 {
                            break;
                        }
                    }
                    i += length - 1;
                    let mut consec = 0;
                    for k in 0..length {
                        let idx = i - k;
                        if k >= 8 && d[idx] == 1 {
                            break;
                        }
                        if d[idx] == 2 {
                            consec = 0;
                            d[idx] = 0;
                        } else if d[idx] == 0 {
                            consec = 0;
                        } else {
                            consec += 1;
                        }
                        if consec == 3 {
                            break;
                        }
                    }
                }
            }
            i += 1;
        }
    }
    let mut out: [(Vec<usize>, Vec<usize>); 2] = Default::default();
    for f in 0..2 {
        for (i, &e) in equivs[f].iter().enumerate() {
            if minimal || discards[f][i] == 0 {
                out[f].0.push(e);
                out[f].1.push(i);
            } else {
                changed[f].set(i as isize, true);
            }
        }
    }
    out
}

struct Partition {
    xmid: isize,
    ymid: isize,
    lo_minimal: bool,
    hi_minimal: bool,
}

/// The Myers search over the undiscarded lines.
struct Search<'a> {
    xv: &'a [usize],
    yv: &'a [usize],
    /// Furthest-reaching x per diagonal, forward and backward, indexed by `d + off`.
    fd: Vec<isize>,
    bd: Vec<isize>,
    off: isize,
    heuristic: bool,
    too_expensive: isize,
}

const SNAKE_LIMIT: isize = 20;

impl Search<'_> {
    fn eq(&self, x: isize, y: isize) -> bool {
        self.xv[x as usize] == self.yv[y as usize]
    }
    fn f(&self, d: isize) -> isize {
        self.fd[(d + self.off) as usize]
    }
    fn b(&self, d: isize) -> isize {
        self.bd[(d + self.off) as usize]
    }
    fn set_f(&mut self, d: isize, v: isize) {
        self.fd[(d + self.off) as usize] = v;
    }
    fn set_b(&mut self, d: isize, v: isize) {
        self.bd[(d + self.off) as usize] = v;
    }

    /// Finds the midpoint of a shortest edit script for `[xoff, xlim) × [yoff, ylim)`, whose
    /// first and last lines are known to differ.
    fn diag(
        &mut self,
        xoff: isize,
        xlim: isize,
        yoff: isize,
        ylim: isize,
        find_minimal: bool,
    ) -> Partition {
        let dmin = xoff - ylim;
        let dmax = xlim - yoff;
        let fmid = xoff - yoff;
        let bmid = xlim - ylim;
        let (mut fmin, mut fmax, mut bmin, mut bmax) = (fmid, fmid, bmid, bmid);
        let odd = (fmid - bmid) & 1 != 0;
        self.set_f(fmid, xoff);
        self.set_b(bmid, xlim);
        let mut c: isize = 1;
        loop {
            let mut big_snake = false;
            if fmin > dmin {
                fmin -= 1;
                self.set_f(fmin - 1, -1);
            } else {
                fmin += 1;
            }
            if fmax < dmax {
                fmax += 1;
                self.set_f(fmax + 1, -1);
            } else {
                fmax -= 1;
            }
            let mut d = fmax;
            while d >= fmin {
                let (tlo, thi) = (self.f(d - 1), self.f(d + 1));
                let x0 = if tlo < thi { thi } else { tlo + 1 };
                let (mut x, mut y) = (x0, x0 - d);
                while x < xlim && y < ylim && self.eq(x, y) {
                    x += 1;
                    y += 1;
                }
                if x - x0 > SNAKE_LIMIT {
                    big_snake = true;
                }
                self.set_f(d, x);
                if odd && bmin <= d && d <= bmax && self.b(d) <= x {
                    return Partition {
                        xmid: x,
                        ymid: y,
                        lo_minimal: true,
                        hi_minimal: true,
                    };
                }
                d -= 2;
            }
            if bmin > dmin {
                bmin -= 1;
                self.set_b(bmin - 1, isize::MAX);
            } else {
                bmin += 1;
            }
            if bmax < dmax {
                bmax += 1;
                self.set_b(bmax + 1, isize::MAX);
            } else {
                bmax -= 1;
            }
            let mut d = bmax;
            while d >= bmin {
                let (tlo, thi) = (self.b(d - 1), self.b(d + 1));
                let x0 = if tlo < thi { tlo } else { thi - 1 };
                let (mut x, mut y) = (x0, x0 - d);
                while xoff < x && yoff < y && self.eq(x - 1, y - 1) {
                    x -= 1;
                    y -= 1;
                }
                if x0 - x > SNAKE_LIMIT {
                    big_snake = true;
                }
                self.set_b(d, x);
                if !odd && fmin <= d && d <= fmax && x <= self.f(d) {
                    return Partition {
                        xmid: x,
                        ymid: y,
                        lo_minimal: true,
                        hi_minimal: true,
                    };
                }
                d -= 2;
            }
            if find_minimal {
                c += 1;
                continue;
            }
            if self.heuristic && c > 200 && big_snake {
                if let Some(p) = self.big_snake_forward(xoff, xlim, yoff, ylim, fmin, fmax, fmid, c)
                {
                    return p;
                }
                if let Some(p) =
                    self.big_snake_backward(xoff, xlim, yoff, ylim, bmin, bmax, bmid, c)
                {
                    return p;
                }
            }
            if c >= self.too_expensive {
                return self.give_up(xoff, xlim, yoff, ylim, (fmin, fmax), (bmin, bmax));
            }
            c += 1;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn big_snake_forward(
        &self,
        xoff: isize,
        xlim: isize,
        yoff: isize,
        ylim: isize,
        fmin: isize,
        fmax: isize,
        fmid: isize,
        c: isize,
    ) -> Option<Partition> {
        let mut best = 0;
        let mut mid = (0, 0);
        let mut d = fmax;
        while d >= fmin {
            let dd = d - fmid;
            let x = self.f(d);
            let y = x - d;
            let v = (x - xoff) * 2 - dd;
            if v > 12 * (c + dd.abs())
                && v > best
                && xoff + SNAKE_LIMIT <= x
                && x < xlim
                && yoff + SNAKE_LIMIT <= y
                && y < ylim
            {
                // Insist on a significant snake ending here.
                let mut k = 1;
                while self.eq(x - k, y - k) {
                    if k == SNAKE_LIMIT {
                        best = v;
                        mid = (x, y);
                        break;
                    }
                    k += 1;
                }
            }
            d -= 2;
        }
        (best > 0).then_some(Partition {
            xmid: mid.0,
            ymid: mid.1,
            lo_minimal: true,
            hi_minimal: false,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn big_snake_backward(
        &self,
        xoff: isize,
        xlim: isize,
        yoff: isize,
        ylim: isize,
        bmin: isize,
        bmax: isize,
        bmid: isize,
        c: isize,
    ) -> Option<Partition> {
        let mut best = 0;
        let mut mid = (0, 0);
        let mut d = bmax;
        while d >= bmin {
            let dd = d - bmid;
            let x = self.b(d);
            let y = x - d;
            let v = (xlim - x) * 2 + dd;
            if v > 12 * (c + dd.abs())
                && v > best
                && xoff < x
                && x <= xlim - SNAKE_LIMIT
                && yoff < y
                && y <= ylim - SNAKE_LIMIT
            {
                let mut k = 0;
                while self.eq(x + k, y + k) {
                    if k == SNAKE_LIMIT - 1 {
                        best = v;
                        mid = (x, y);
                        break;
                    }
                    k += 1;
                }
            }
            d -= 2;
        }
        (best > 0).then_some(Partition {
            xmid: mid.0,
            ymid: mid.1,
            lo_minimal: false,
            hi_minimal: true,
        })
    }

    /// Too expensive: split halfway between the furthest forward and backward reaches.
    fn give_up(
        &self,
        xoff: isize,
        xlim: isize,
        yoff: isize,
        ylim: isize,
        (fmin, fmax): (isize, isize),
        (bmin, bmax): (isize, isize),
    ) -> Partition {
        let mut fxybest = -1;
        let mut fxbest = 0;
        let mut d = fmax;
        while d >= fmin {
            let mut x = self.f(d).min(xlim);
            let mut y = x - d;
            if ylim < y {
                x = ylim + d;
                y = ylim;
            }
            if fxybest < x + y {
                fxybest = x + y;
                fxbest = x;
            }
            d -= 2;
        }
        let mut bxybest = isize::MAX;
        let mut bxbest = 0;
        let mut d = bmax;
        while d >= bmin {
            let mut x = self.b(d).max(xoff);
            let mut y = x - d;
            if y < yoff {
                x = yoff + d;
                y = yoff;
            }
            if x + y < bxybest {
                bxybest = x + y;
                bxbest = x;
            }
            d -= 2;
        }
        if (xlim + ylim) - bxybest < fxybest - (xoff + yoff) {
            Partition {
                xmid: fxbest,
                ymid: fxybest - fxbest,
                lo_minimal: true,
                hi_minimal: false,
            }
        } else {
            Partition {
                xmid: bxbest,
                ymid: bxybest - bxbest,
                lo_minimal: false,
                hi_minimal: true,
            }
        }
    }

    /// Marks the lines of `[xoff, xlim)` and `[yoff, ylim)` outside a longest common
    /// subsequence. An explicit stack replaces GNU's recursion (the order in which the halves
    /// are processed does not matter: each only sets flags).
    fn compareseq(
        &mut self,
        range: (isize, isize, isize, isize),
        minimal: bool,
        note: &mut dyn FnMut(usize, isize),
    ) {
        let mut stack = vec![(range, minimal)];
        while let Some(((mut xoff, mut xlim, mut yoff, mut ylim), find_minimal)) = stack.pop() {
            while xoff < xlim && yoff < ylim && self.eq(xoff, yoff) {
                xoff += 1;
                yoff += 1;
            }
            while xoff < xlim && yoff < ylim && self.eq(xlim - 1, ylim - 1) {
                xlim -= 1;
                ylim -= 1;
            }
            if xoff == xlim {
                for y in yoff..ylim {
                    note(1, y);
                }
            } else if yoff == ylim {
                for x in xoff..xlim {
                    note(0, x);
                }
            } else {
                let part = self.diag(xoff, xlim, yoff, ylim, find_minimal);
                stack.push(((part.xmid, xlim, part.ymid, ylim), part.hi_minimal));
                stack.push(((xoff, part.xmid, yoff, part.ymid), part.lo_minimal));
            }
        }
    }
}

/// Slides runs of changes so that they merge where possible and otherwise end as late as the
/// identical lines around them allow, preferring a position that lines up with a change in
/// the other file.
fn shift_boundaries(equivs: [&[usize]; 2], changed: &mut [Flags; 2]) {
    for (f, eq) in equivs.into_iter().enumerate() {
        let (a, b) = changed.split_at_mut(1);
        let (changed, other) = if f == 0 {
            (&mut a[0], &b[0])
        } else {
            (&mut b[0], &a[0])
        };
        let e = |i: isize| eq[i as usize];
        let i_end = eq.len() as isize;
        let (mut i, mut j): (isize, isize) = (0, 0);
        loop {
            while i < i_end && !changed.get(i) {
                loop {
                    let v = other.get(j);
                    j += 1;
                    if !v {
                        break;
                    }
                }
                i += 1;
            }
            if i == i_end {
                break;
            }
            let mut start = i;
            i += 1;
            while changed.get(i) {
                i += 1;
            }
            while other.get(j) {
                j += 1;
            }
            let mut corresponding;
            loop {
                let runlength = i - start;
                // Move the run back while the line before it equals its last line.
                while start > 0 && e(start - 1) == e(i - 1) {
                    start -= 1;
                    changed.set(start, true);
                    i -= 1;
                    changed.set(i, false);
                    while changed.get(start - 1) {
                        start -= 1;
                    }
                    loop {
                        j -= 1;
                        if !other.get(j) {
                            break;
                        }
                    }
                }
                corresponding = if other.get(j - 1) { i } else { i_end };
                // Then forward while its first line equals the line after it.
                while i != i_end && e(start) == e(i) {
                    changed.set(start, false);
                    start += 1;
                    changed.set(i, true);
                    i += 1;
                    while changed.get(i) {
                        i += 1;
                    }
                    loop {
                        j += 1;
                        if other.get(j) {
                            corresponding = i;
                        } else {
                            break;
                        }
                    }
                }
                if runlength == i - start {
                    break;
                }
            }
            // Back to where it lines up with a change in the other file, if it can.
            while corresponding < i {
                start -= 1;
                changed.set(start, true);
                i -= 1;
                changed.set(i, false);
                loop {
                    j -= 1;
                    if !other.get(j) {
                        break;
                    }
                }
            }
        }
    }
}

/// The edit script turning `t[0]` into `t[1]`, as GNU diff computes it.
pub fn diff(t: [&Text; 2], cmp: &Compare) -> Vec<Change> {
    let ends = identical_ends(t, cmp.horizon);
    let prefix_lines = t[0].buf[..ends.prefix_end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    // Lines of the middle part of each file (those starting before the suffix).
    let mut middle = [0usize; 2];
    for f in 0..2 {
        let mut k = prefix_lines;
        while k < t[f].lines() && t[f].starts[k] < ends.suffix_begin[f] {
            k += 1;
        }
        middle[f] = k - prefix_lines;
    }
    // Equivalence classes, numbered from 1 in order of appearance.
    let mut classes: HashMap<(Vec<u8>, bool), usize> = HashMap::new();
    let incomplete_is_special = cmp.white_space < WhiteSpace::Trailing;
    let mut equivs: [Vec<usize>; 2] = Default::default();
    for f in 0..2 {
        for k in prefix_lines..prefix_lines + middle[f] {
            let incomplete = incomplete_is_special && k + 1 == t[f].lines() && t[f].missing_newline;
            let key = (line_key(t[f].content(k), cmp), incomplete);
            let next = classes.len() + 1;
            equivs[f].push(*classes.entry(key).or_insert(next));
        }
    }
    let nclasses = classes.len() + 1;
    let mut changed = [Flags::new(middle[0]), Flags::new(middle[1])];
    let [(xv, xreal), (yv, yreal)] = discard_confusing(
        [&equivs[0], &equivs[1]],
        nclasses,
        cmp.minimal,
        &mut changed,
    );
    // Search cost limit: about the square root of the input size, at least 4096.
    let mut diags = xv.len() + yv.len() + 3;
    let mut too_expensive: isize = 1;
    while diags != 0 {
        too_expensive <<= 1;
        diags >>= 2;
    }
    let size = xv.len() + yv.len() + 3;
    let mut search = Search {
        xv: &xv,
        yv: &yv,
        fd: vec![0; size],
        bd: vec![0; size],
        off: yv.len() as isize + 1,
        heuristic: cmp.speed_large_files,
        too_expensive: too_expensive.max(4096),
    };
    {
        let real = [&xreal, &yreal];
        let mut note = |f: usize, i: isize| changed[f].set(real[f][i as usize] as isize, true);
        search.compareseq(
            (0, xv.len() as isize, 0, yv.len() as isize),
            cmp.minimal,
            &mut note,
        );
    }
    shift_boundaries([&equivs[0], &equivs[1]], &mut changed);
    // Collect the runs, last first, as GNU's build_script does.
    let mut script = Vec::new();
    let (mut i0, mut i1) = (middle[0] as isize, middle[1] as isize);
    while i0 >= 0 || i1 >= 0 {
        if changed[0].get(i0 - 1) || changed[1].get(i1 - 1) {
            let (line0, line1) = (i0, i1);
            while changed[0].get(i0 - 1) {
                i0 -= 1;
            }
            while changed[1].get(i1 - 1) {
                i1 -= 1;
            }
            script.push(Change {
                line0: prefix_lines + i0 as usize,
                line1: prefix_lines + i1 as usize,
                deleted: (line0 - i0) as usize,
                inserted: (line1 - i1) as usize,
            });
        }
        i0 -= 1;
        i1 -= 1;
    }
    script.reverse();
    script
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(a: &str, b: &str) -> Vec<(usize, usize, usize, usize)> {
        let (ta, tb) = (Text::new(a.into()), Text::new(b.into()));
        diff([&ta, &tb], &Compare::default())
            .into_iter()
            .map(|c| (c.line0, c.line1, c.deleted, c.inserted))
            .collect()
    }

    #[test]
    fn text_lines_and_missing_newline() {
        let t = Text::new(b"a\nbc".to_vec());
        assert_eq!(t.lines(), 2);
        assert!(t.missing_newline);
        assert_eq!(t.line(1), b"bc");
        assert!(!t.has_newline(1));
        assert_eq!(Text::new(Vec::new()).lines(), 0);
    }

    #[test]
    fn simple_scripts() {
        assert_eq!(run("a\nb\nc\n", "a\nb\nc\n"), vec![]);
        assert_eq!(run("a\nb\nc\n", "a\nc\n"), vec![(1, 1, 1, 0)]);
        assert_eq!(run("a\nc\n", "a\nb\nc\n"), vec![(1, 1, 0, 1)]);
        assert_eq!(run("a\n", "b\n"), vec![(0, 0, 1, 1)]);
        assert_eq!(run("", "x\n"), vec![(0, 0, 0, 1)]);
        // A missing newline makes the last lines differ.
        assert_eq!(run("a\nb", "a\nb\n"), vec![(1, 1, 1, 1)]);
    }

    #[test]
    fn boundaries_shift_down() {
        // Deleting one of two identical lines: GNU reports the later one.
        assert_eq!(run("a\nx\nx\nb\n", "a\nx\nb\n"), vec![(2, 2, 1, 0)]);
        assert_eq!(run("x\ny\nx\ny\n", "x\ny\n"), vec![(2, 2, 2, 0)]);
    }

    #[test]
    fn white_space_keys() {
        let c = |ws, icase| Compare {
            white_space: ws,
            ignore_case: icase,
            tabsize: 8,
            ..Compare::default()
        };
        assert_eq!(
            line_key(b" a  b ", &c(WhiteSpace::SpaceChange, false)),
            b" a b"
        );
        assert_eq!(line_key(b" a \tB", &c(WhiteSpace::AllSpace, true)), b"ab");
        assert_eq!(
            line_key(b"a\tb  ", &c(WhiteSpace::Trailing, false)),
            b"a\tb"
        );
        assert_eq!(
            line_key(b"a\tb", &c(WhiteSpace::TabExpansion, false)),
            b"a       b"
        );
    }
}
