//! `umask [-p] [-S] [MODE]`: the file-creation mask as bash reads and prints it, octal or
//! symbolic (`u=rwx,g=rx,o=`, `g+w`, `o-r`). The sandbox's files are created by the host with
//! its own mask, so the value is kept and shown (and inherited by subshells) but does not
//! change the modes of new files.

use crate::state::Shell;

/// The mode bits `who` (a `u`/`g`/`o`/`a` set) and `perms` (`rwx`) name.
fn bits(who: u32, perms: u32) -> u32 {
    let mut out = 0;
    for (shift, flag) in [(6, 4), (3, 2), (0, 1)] {
        if who & flag != 0 {
            out |= perms << shift;
        }
    }
    out
}

/// A symbolic mode applied to the permissions the mask lets through (`!mask`); the error is
/// bash's message.
fn apply_symbolic(mode: &str, mask: u32) -> Result<u32, String> {
    let mut allowed = !mask & 0o777;
    for clause in mode.split(',') {
        let mut chars = clause.chars().peekable();
        let mut who = 0;
        while let Some(&c) = chars.peek() {
            who |= match c {
                'u' => 4,
                'g' => 2,
                'o' => 1,
                'a' => 7,
                _ => break,
            };
            chars.next();
        }
        if who == 0 {
            who = 7;
        }
        let op = match chars.next() {
            Some(op @ ('+' | '-' | '=')) => op,
            Some(other) => return Err(format!("`{other}': invalid symbolic mode operator")),
            None => return Err(format!("`{clause}': invalid symbolic mode operator")),
        };
        let mut perms = 0;
        for c in chars {
            perms |= match c {
                'r' => 4,
                'w' => 2,
                'x' => 1,
                other => return Err(format!("`{other}': invalid symbolic mode character")),
            };
        }
        let changed = bits(who, perms);
        allowed = match op {
            '+' => allowed | changed,
            '-' => allowed & !changed,
            _ => (allowed & !bits(who, 7)) | changed,
        };
    }
    Ok(!allowed & 0o777)
}

/// `u=rwx,g=rx,o=rx`: what the mask lets through.
fn symbolic(mask: u32) -> String {
    let allowed = !mask & 0o777;
    let part = |name: &str, shift: u32| {
        let p = (allowed >> shift) & 7;
        let letters: String = [(4, 'r'), (2, 'w'), (1, 'x')]
            .iter()
            .filter(|(bit, _)| p & bit != 0)
            .map(|(_, l)| *l)
            .collect();
        format!("{name}={letters}")
    };
    format!("{},{},{}", part("u", 6), part("g", 3), part("o", 0))
}

impl Shell {
    pub fn builtin_umask(&mut self, args: &[String]) -> i32 {
        let (mut print_reusable, mut print_symbolic) = (false, false);
        let mut operands = Vec::new();
        for arg in args {
            match arg.as_str() {
                "-p" if operands.is_empty() => print_reusable = true,
                "-S" if operands.is_empty() => print_symbolic = true,
                "-pS" | "-Sp" if operands.is_empty() => {
                    print_reusable = true;
                    print_symbolic = true;
                }
                _ => operands.push(arg.as_str()),
            }
        }
        if let Some(mode) = operands.first() {
            let parsed = if mode.starts_with(|c: char| c.is_ascii_digit()) {
                u32::from_str_radix(mode, 8)
                    .ok()
                    .filter(|m| *m <= 0o777)
                    .ok_or_else(|| format!("{mode}: octal number out of range"))
            } else {
                apply_symbolic(mode, self.umask)
            };
            match parsed {
                Ok(mask) => self.umask = mask,
                Err(message) => {
                    self.error(&format!("umask: {message}"));
                    return 1;
                }
            }
            // Setting prints only with -S.
            if !print_symbolic {
                return 0;
            }
        }
        let shown = if print_symbolic {
            symbolic(self.umask)
        } else {
            format!("{:04o}", self.umask)
        };
        let prefix = match (print_reusable, print_symbolic) {
            (true, true) => "umask -S ",
            (true, false) => "umask ",
            _ => "",
        };
        self.out(&format!("{prefix}{shown}\n"));
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbolic_modes_as_bash() {
        assert_eq!(apply_symbolic("u=rwx,g=,o=", 0o022), Ok(0o077));
        assert_eq!(apply_symbolic("g+w", 0o077), Ok(0o057));
        assert_eq!(apply_symbolic("o-r", 0o027), Ok(0o027));
        assert_eq!(apply_symbolic("+x", 0o022), Ok(0o022));
        assert_eq!(apply_symbolic("=", 0o022), Ok(0o777));
        assert_eq!(apply_symbolic("u=r", 0o000), Ok(0o300));
        assert_eq!(
            apply_symbolic("abc", 0o022),
            Err("`b': invalid symbolic mode operator".into())
        );
        assert_eq!(symbolic(0o022), "u=rwx,g=rx,o=rx");
        assert_eq!(symbolic(0o777), "u=,g=,o=");
    }
}
