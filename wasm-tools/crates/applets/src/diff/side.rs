//! The side-by-side format (`diff -y`), laid out as GNU diffutils 3.8 does in the C locale:
//! each file's line in a half of `--width` columns (130 by default), a gutter with the
//! separator (` ` common, `|` changed, `<` only on the left, `>` only on the right, `(` a
//! common line shown on the left only with `--left-column`, `/` and `\` a changed pair where
//! only the left or only the right line ends in a newline), and runs of spaces written as tabs
//! unless `-t` expands them.
//!
//! Columns count as the C locale counts them: printable ASCII takes one, a tab moves to the
//! next stop, a backspace moves back, a carriage return starts the half over, and any other
//! byte (control characters, every byte of a UTF-8 sequence) is copied without taking a
//! column, while the cursor is still inside the half.

use super::analyze::Text;
use super::{NEW, OLD};

/// The gutter's narrowest width (GNU's `GUTTER_WIDTH_MINIMUM`).
const GUTTER_MIN: usize = 3;

pub struct Layout {
    /// Columns each half may fill.
    half_width: usize,
    /// The column where the right half starts.
    column2: usize,
    tabsize: usize,
    expand_tabs: bool,
    /// `--left-column`: common lines only on the left, with a `(` gutter.
    pub left_column: bool,
    /// `--suppress-common-lines`.
    pub suppress_common: bool,
}

impl Layout {
    pub fn new(width: usize, tabsize: usize, expand_tabs: bool) -> Layout {
        // The right half starts at a tab stop (a column with -t) near the middle, leaving
        // room for the gutter.
        let unit = if expand_tabs { 1 } else { tabsize.max(1) };
        let offset = width.saturating_add(unit + GUTTER_MIN) / (2 * unit) * unit;
        let half_width = offset
            .checked_sub(GUTTER_MIN)
            .map_or(0, |left_room| left_room.min(width.saturating_sub(offset)));
        Layout {
            half_width,
            column2: if half_width > 0 { offset } else { width },
            tabsize: tabsize.max(1),
            expand_tabs,
            left_column: false,
            suppress_common: false,
        }
    }

    /// Moves the cursor from column `from` to `to` with tabs (unless expanding them) and
    /// spaces; returns `to`.
    fn tab_from_to(&self, out: &mut Vec<u8>, mut from: usize, to: usize) -> usize {
        if !self.expand_tabs {
            let mut stop = from + self.tabsize - from % self.tabsize;
            while stop <= to {
                out.push(b'\t');
                from = stop;
                stop += self.tabsize;
            }
        }
        while from < to {
            out.push(b' ');
            from += 1;
        }
        to
    }

    /// Writes what fits of `line` (with or without its newline) in `bound` columns; `indent`
    /// is where the half starts, for a carriage return. Returns the column reached.
    fn half_line(&self, out: &mut Vec<u8>, line: &[u8], indent: usize, bound: usize) -> usize {
        let (mut input, mut output) = (0usize, 0usize);
        for &c in line {
            match c {
                b'\n' => break,
                b'\t' => {
                    let spaces = self.tabsize - input % self.tabsize;
                    if input == output {
                        let stop = output + spaces;
                        if self.expand_tabs {
                            while output < stop.min(bound) {
                                out.push(b' ');
                                output += 1;
                            }
                        } else if stop < bound {
                            output = stop;
                            out.push(c);
                        }
                    }
                    input += spaces;
                }
                b'\r' => {
                    out.push(c);
                    self.tab_from_to(out, 0, indent);
                    input = 0;
                    output = 0;
                }
                8 => {
                    if input != 0 {
                        input -= 1;
                        if input < bound {
                            if output <= input {
                                // Make up for a tab suppressed beyond the bound.
                                while output < input {
                                    out.push(b' ');
                                    output += 1;
                                }
                            } else {
                                output = input;
                                out.push(c);
                            }
                        }
                    }
                }
                0x20..=0x7e => {
                    if input < bound {
                        output = input + 1;
                        out.push(c);
                    }
                    input += 1;
                }
                _ => {
                    if input < bound {
                        out.push(c);
                    }
                }
            }
        }
        output
    }

    /// One output line: the left line, the gutter, the right line.
    fn row(&self, out: &mut Vec<u8>, left: Option<&[u8]>, sep: u8, right: Option<&[u8]>) {
        let ends_in_newline = |l: &[u8]| l.last() == Some(&b'\n');
        let mut newline = false;
        let mut column = 0;
        if let Some(l) = left {
            newline |= ends_in_newline(l);
            column = self.half_line(out, l, 0, self.half_width);
        }
        if sep != b' ' {
            let middle = self
                .half_width
                .saturating_add(self.column2)
                .saturating_sub(1)
                / 2;
            column = self.tab_from_to(out, column, middle) + 1;
            let sep = match right {
                Some(r) if sep == b'|' && newline != ends_in_newline(r) => {
                    if newline {
                        b'/'
                    } else {
                        b'\\'
                    }
                }
                _ => sep,
            };
            out.push(sep);
        }
        if let Some(r) = right {
            newline |= ends_in_newline(r);
            if r.first() != Some(&b'\n') {
                column = self.tab_from_to(out, column, self.column2);
                self.half_line(out, r, column, self.half_width);
            }
        }
        if newline {
            out.push(b'\n');
        }
    }

    /// Lines `next[f]..limit[f]` of both files, which the edit script leaves alone.
    fn common(&self, out: &mut Vec<u8>, t: &[Text; 2], next: &mut [usize; 2], limit: [usize; 2]) {
        let [mut i0, mut i1] = *next;
        if !self.suppress_common {
            if !self.left_column {
                while i0 < limit[0] && i1 < limit[1] {
                    self.row(out, Some(t[0].line(i0)), b' ', Some(t[1].line(i1)));
                    i0 += 1;
                    i1 += 1;
                }
                while i1 < limit[1] {
                    self.row(out, None, b')', Some(t[1].line(i1)));
                    i1 += 1;
                }
            }
            while i0 < limit[0] {
                self.row(out, Some(t[0].line(i0)), b'(', None);
                i0 += 1;
            }
        }
        *next = limit;
    }

    /// The whole comparison. `hunks` holds, per change of the edit script, the kinds of
    /// change it makes (`OLD`, `NEW`, both, or 0 when every line of it may be ignored) and its
    /// first and last line on each side.
    pub fn print(&self, out: &mut Vec<u8>, t: &[Text; 2], hunks: &[(u8, [isize; 4])]) {
        let mut next = [0usize; 2];
        for &(kinds, [first0, last0, first1, last1]) in hunks {
            if kinds == 0 {
                continue;
            }
            let (first0, first1) = (first0 as usize, first1 as usize);
            let (end0, end1) = ((last0 + 1) as usize, (last1 + 1) as usize);
            self.common(out, t, &mut next, [first0, first1]);
            let (mut i, mut j) = (first0, first1);
            if kinds == OLD | NEW {
                while i < end0 && j < end1 {
                    self.row(out, Some(t[0].line(i)), b'|', Some(t[1].line(j)));
                    i += 1;
                    j += 1;
                }
                next = [i, j];
            }
            if kinds & NEW != 0 {
                for j in j..end1 {
                    self.row(out, None, b'>', Some(t[1].line(j)));
                }
                next[1] = end1;
            }
            if kinds & OLD != 0 {
                for i in i..end0 {
                    self.row(out, Some(t[0].line(i)), b'<', None);
                }
                next[0] = end0;
            }
        }
        self.common(out, t, &mut next, [t[0].lines(), t[1].lines()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(layout: &Layout, left: Option<&str>, sep: u8, right: Option<&str>) -> String {
        let mut out = Vec::new();
        layout.row(
            &mut out,
            left.map(str::as_bytes),
            sep,
            right.map(str::as_bytes),
        );
        String::from_utf8(out).unwrap()
    }

    // Expected rows: GNU diff 3.8, `LC_ALL=C diff -y -W N [-t] [--tabsize=3]`.
    #[test]
    fn rows_as_gnu_lays_them_out() {
        let tabs = Layout::new(30, 8, false);
        assert_eq!(
            row(
                &tabs,
                Some("abcdefghijklmnopqrstuvwxyz0123456789\n"),
                b'|',
                Some("abcdefghijklmnopqrstuvwxyz0123456789X\n")
            ),
            "abcdefghijklm |\tabcdefghijklm\n"
        );
        assert_eq!(
            row(&tabs, Some("\ttab\ta\n"), b'|', Some("\ttab\tb\n")),
            "\ttab   |\t\ttab\n"
        );
        let wider = Layout::new(40, 8, false);
        assert_eq!(row(&wider, None, b'>', Some("y\n")), "\t\t   >\ty\n");
        assert_eq!(
            row(&tabs, Some("ab\x08c\n"), b'<', None),
            "ab\x08c\t      <\n"
        );
        assert_eq!(
            row(&tabs, Some("same\n"), b'|', Some("same")),
            "same\t      /\tsame\n"
        );
        let spaces = Layout::new(30, 8, true);
        assert_eq!(
            row(&spaces, Some("\ttab\ta\n"), b'|', Some("\ttab\tb\n")),
            "        tab   |          tab  \n"
        );
        let small_tabs = Layout::new(30, 3, false);
        assert_eq!(
            row(&small_tabs, Some("\ttab\ta\n"), b'|', Some("\ttab\tb\n")),
            "\ttab\ta\t  |\t\ttab\tb\n"
        );
        let narrow = Layout::new(1, 8, false);
        assert_eq!(row(&narrow, Some("a\n"), b' ', Some("a\n")), " \n");
        assert_eq!(row(&narrow, Some("b\n"), b'|', Some("B\n")), "|\n");
    }

    #[test]
    fn default_width_puts_the_right_half_at_column_64() {
        let l = Layout::new(130, 8, false);
        assert_eq!((l.half_width, l.column2), (61, 64));
        assert_eq!(
            row(&l, Some("a\n"), b' ', Some("a\n")),
            "a\t\t\t\t\t\t\t\ta\n"
        );
    }
}
