//! Permission bits: `ls -l` style strings and GNU symbolic/octal mode expressions
//! (`chmod` and `find -perm`).
//!
//! Mode expressions follow the semantics of gnulib's `modechange` as documented for chmod:
//! an absent *who* means "all, filtered by the umask"; `X` adds execute only for directories or
//! files that already have some execute bit; `u`/`g`/`o` as permissions copy that class's
//! current bits; a directory keeps its set-user-ID and set-group-ID bits unless the expression
//! mentions them (an octal mode mentions them only with five or more digits or when it sets
//! them).

use hostcalls::{S_IFDIR, S_IFLNK, S_IFMT, S_IFREG};

pub const S_IFIFO: u32 = 0o010000;
pub const S_IFCHR: u32 = 0o020000;
pub const S_IFBLK: u32 = 0o060000;
pub const S_IFSOCK: u32 = 0o140000;

const S_ISUID: u32 = 0o4000;
const S_ISGID: u32 = 0o2000;
const S_ISVTX: u32 = 0o1000;
const ALL_BITS: u32 = 0o7777;

/// The type letter of `ls -l` (`-`, `d`, `l`, …).
pub fn type_char(mode: u32) -> char {
    match mode & S_IFMT {
        S_IFREG => '-',
        S_IFDIR => 'd',
        S_IFLNK => 'l',
        S_IFCHR => 'c',
        S_IFBLK => 'b',
        S_IFIFO => 'p',
        S_IFSOCK => 's',
        _ => '?',
    }
}

/// `drwxr-xr-x`, with `s`/`S` and `t`/`T` for the special bits.
pub fn mode_string(mode: u32) -> String {
    let mut s = String::with_capacity(10);
    s.push(type_char(mode));
    s.push_str(&perm_string(mode));
    s
}

/// The nine permission letters only (`rwxr-xr-x`).
pub fn perm_string(mode: u32) -> String {
    let mut s = String::with_capacity(9);
    let bit = |b: u32, c: char| if mode & b != 0 { c } else { '-' };
    for (shift, special, lower, upper) in [
        (6, S_ISUID, 's', 'S'),
        (3, S_ISGID, 's', 'S'),
        (0, S_ISVTX, 't', 'T'),
    ] {
        s.push(bit(4 << shift, 'r'));
        s.push(bit(2 << shift, 'w'));
        let x = mode & (1 << shift) != 0;
        s.push(match (mode & special != 0, x) {
            (true, true) => lower,
            (true, false) => upper,
            (false, true) => 'x',
            (false, false) => '-',
        });
    }
    s
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flag {
    Ordinary,
    CopyExisting,
    XIfAnyX,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Change {
    op: u8,
    flag: Flag,
    /// Bits selected by *who*; 0 when *who* was omitted (umask applies).
    affected: u32,
    value: u32,
    /// Bits the expression mentions explicitly (protects directories' setuid/setgid).
    mentioned: u32,
}

/// A compiled mode expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeChange {
    changes: Vec<Change>,
    /// The expression was a plain octal number.
    pub octal: Option<u32>,
}

impl ModeChange {
    /// Compiles `755`, `u+x`, `a=rw,go-w`, `-o=w`'s `o=w` … `None` if invalid.
    pub fn parse(s: &str) -> Option<ModeChange> {
        if s.is_empty() {
            return None;
        }
        if s.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
            let v = u32::from_str_radix(s, 8).ok()?;
            if v > ALL_BITS {
                return None;
            }
            let mentioned = if s.len() < 5 {
                (v & (S_ISUID | S_ISGID)) | S_ISVTX | 0o777
            } else {
                ALL_BITS
            };
            return Some(ModeChange {
                changes: vec![Change {
                    op: b'=',
                    flag: Flag::Ordinary,
                    affected: ALL_BITS,
                    value: v,
                    mentioned,
                }],
                octal: Some(v),
            });
        }
        let b = s.as_bytes();
        let mut i = 0;
        let mut changes = Vec::new();
        loop {
            let mut who = 0u32;
            while i < b.len() {
                who |= match b[i] {
                    b'u' => S_ISUID | 0o700,
                    b'g' => S_ISGID | 0o070,
                    b'o' => S_ISVTX | 0o007,
                    b'a' => ALL_BITS,
                    _ => break,
                };
                i += 1;
            }
            // At least one operator per clause.
            if i >= b.len() || !matches!(b[i], b'=' | b'+' | b'-') {
                return None;
            }
            while i < b.len() && matches!(b[i], b'=' | b'+' | b'-') {
                let op = b[i];
                i += 1;
                let mut value = 0u32;
                let mut flag = Flag::Ordinary;
                if i < b.len() && matches!(b[i], b'u' | b'g' | b'o') {
                    value = match b[i] {
                        b'u' => 0o700,
                        b'g' => 0o070,
                        _ => 0o007,
                    };
                    flag = Flag::CopyExisting;
                    i += 1;
                } else {
                    while i < b.len() {
                        match b[i] {
                            b'r' => value |= 0o444,
                            b'w' => value |= 0o222,
                            b'x' => value |= 0o111,
                            b'X' => flag = Flag::XIfAnyX,
                            b's' => value |= S_ISUID | S_ISGID,
                            b't' => value |= S_ISVTX,
                            _ => break,
                        }
                        i += 1;
                    }
                }
                let scope = if who == 0 { ALL_BITS } else { who };
                let mentioned = scope & (value | if flag == Flag::Ordinary { 0 } else { 0o777 });
                changes.push(Change {
                    op,
                    flag,
                    affected: who,
                    value,
                    mentioned,
                });
            }
            if i == b.len() {
                break;
            }
            if b[i] != b',' {
                return None;
            }
            i += 1;
        }
        Some(ModeChange {
            changes,
            octal: None,
        })
    }

    /// Applies the expression to `old` (permission bits; type bits are ignored) for a file that
    /// is a directory or not, with the given umask. Returns the new permission bits.
    pub fn apply(&self, old: u32, is_dir: bool, umask: u32) -> u32 {
        self.apply_explicitly(old, is_dir, umask).0
    }

    /// [`apply`](Self::apply), with the bits the expression sets or clears explicitly (gnulib's
    /// `mode_bits`): `mkdir -m` lets the umask clear the others.
    pub fn apply_explicitly(&self, old: u32, is_dir: bool, umask: u32) -> (u32, u32) {
        let mut mode = old & ALL_BITS;
        let mut explicit = 0;
        for c in &self.changes {
            let omit = if is_dir {
                (S_ISUID | S_ISGID) & !c.mentioned
            } else {
                0
            };
            let mut value = c.value;
            match c.flag {
                Flag::Ordinary => {}
                Flag::CopyExisting => {
                    value &= mode;
                    let spread = |mask: u32| if value & mask != 0 { mask } else { 0 };
                    value |= spread(0o444) | spread(0o222) | spread(0o111);
                }
                Flag::XIfAnyX => {
                    if mode & 0o111 != 0 || is_dir {
                        value |= 0o111;
                    }
                }
            }
            value &= (if c.affected != 0 { c.affected } else { !umask }) & !omit;
            match c.op {
                b'=' => {
                    let preserved = (if c.affected != 0 { !c.affected } else { umask }) | omit;
                    mode = (mode & preserved) | value;
                    explicit |= ALL_BITS & !preserved;
                }
                b'+' => {
                    mode |= value;
                    explicit |= value;
                }
                _ => {
                    mode &= !value;
                    explicit |= value;
                }
            }
            mode &= ALL_BITS;
        }
        (mode, explicit)
    }
}

/// The umask applied to symbolic modes without *who*: the sandbox's (and upstream
/// containers') default for root.
pub const UMASK: u32 = 0o022;

#[cfg(test)]
mod tests {
    use super::*;

    fn ap(expr: &str, old: u32, dir: bool) -> u32 {
        ModeChange::parse(expr).unwrap().apply(old, dir, UMASK)
    }

    #[test]
    fn strings() {
        assert_eq!(mode_string(S_IFDIR | 0o755), "drwxr-xr-x");
        assert_eq!(mode_string(S_IFREG | 0o4755), "-rwsr-xr-x");
        assert_eq!(mode_string(S_IFREG | 0o2644), "-rw-r-Sr--");
        assert_eq!(mode_string(S_IFDIR | 0o1777), "drwxrwxrwt");
        assert_eq!(mode_string(S_IFLNK | 0o777), "lrwxrwxrwx");
    }

    #[test]
    fn octal() {
        assert_eq!(ap("755", 0o644, false), 0o755);
        assert_eq!(ap("0", 0o4755, false), 0);
        // Directories keep setgid under a short octal mode, lose it with five digits.
        assert_eq!(ap("755", 0o2775, true), 0o2755);
        assert_eq!(ap("00755", 0o2775, true), 0o755);
        assert!(ModeChange::parse("8").is_none());
        assert!(ModeChange::parse("17777").is_none());
    }

    #[test]
    fn symbolic() {
        assert_eq!(ap("a+x", 0o644, false), 0o755);
        assert_eq!(ap("u=rw,go=r", 0o777, false), 0o644);
        assert_eq!(ap("+w", 0o444, false), 0o644); // umask keeps g/o write off
        // Without *who* the umask protects bits from removal too (GNU then warns).
        assert_eq!(ap("-w", 0o666, false), 0o466);
        assert_eq!(ap("o=w", 0, false), 0o002);
        assert_eq!(ap("g=u", 0o750, false), 0o770);
        assert_eq!(ap("a+X", 0o644, false), 0o644);
        assert_eq!(ap("a+X", 0o744, false), 0o755);
        assert_eq!(ap("a+X", 0o644, true), 0o755);
        assert_eq!(ap("u+s,+t", 0o755, false), 0o5755);
        assert_eq!(ap("g-s", 0o2755, true), 0o755);
        assert_eq!(ap("u-x+w", 0o500, false), 0o600);
        for bad in ["", "q", "u", "u+q", "a+x,", "u+x,,g+x", "+r7"] {
            assert!(ModeChange::parse(bad).is_none(), "{bad}");
        }
    }
}
