//! The directory stack: `pushd`, `popd` and `dirs`. It lives in `DIRSTACK`, whose element 0
//! is the working directory (bash's own view of it), so subshells inherit it with the other
//! arrays.

use crate::state::{Shell, Value};

/// How `dirs` lists the stack.
#[derive(Clone, Copy, PartialEq)]
enum Listing {
    OneLine,
    PerLine,
    Numbered,
}

/// `+N` counts from the top of the stack (the working directory), `-N` from its bottom.
fn stack_index(word: &str, len: usize) -> Option<Result<usize, ()>> {
    let (from_top, digits) = match word.as_bytes().first() {
        Some(b'+') => (true, &word[1..]),
        Some(b'-') if word.len() > 1 && word[1..].bytes().all(|b| b.is_ascii_digit()) => {
            (false, &word[1..])
        }
        _ => return None,
    };
    let n: usize = match digits.parse() {
        Ok(n) => n,
        Err(_) => return None,
    };
    Some(match from_top {
        true if n < len => Ok(n),
        false if n < len => Ok(len - 1 - n),
        _ => Err(()),
    })
}

impl Shell {
    /// The directories below the working directory, most recently pushed first.
    pub fn directory_stack(&self) -> Vec<String> {
        match self.get_var("DIRSTACK").map(|v| &v.value) {
            Some(Value::Indexed(m)) => m.values().skip(1).cloned().collect(),
            _ => Vec::new(),
        }
    }

    /// The working directory, then the stack: what `dirs` lists and `+N` counts.
    fn stack_entries(&self) -> Vec<String> {
        std::iter::once(self.cwd.clone())
            .chain(self.directory_stack())
            .collect()
    }

    pub fn set_directory_stack(&mut self, stack: Vec<String>) {
        let entries = std::iter::once(self.cwd.clone())
            .chain(stack)
            .enumerate()
            .map(|(i, d)| (i as i64, d))
            .collect();
        let _ = self.set_value("DIRSTACK", Value::Indexed(entries));
    }

    /// `dir` as `dirs` shows it without `-l`: the home directory as `~`.
    fn tilde_form(&self, dir: &str) -> String {
        match self.get_scalar("HOME") {
            Some(home) if !home.is_empty() && home != "/" => match dir.strip_prefix(&home) {
                Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("~{rest}"),
                _ => dir.to_string(),
            },
            _ => dir.to_string(),
        }
    }

    fn print_stack(&mut self, listing: Listing, long: bool) {
        let entries: Vec<String> = self
            .stack_entries()
            .into_iter()
            .map(|d| if long { d } else { self.tilde_form(&d) })
            .collect();
        let text = match listing {
            Listing::OneLine => format!("{}\n", entries.join(" ")),
            Listing::PerLine => entries.iter().map(|d| format!("{d}\n")).collect(),
            Listing::Numbered => entries
                .iter()
                .enumerate()
                .map(|(i, d)| format!("{i:2}  {d}\n"))
                .collect(),
        };
        self.out(&text);
    }

    fn stack_index_error(&self, builtin: &str, word: &str) -> i32 {
        // `dirs` names the index without its `+`.
        let word = match builtin {
            "dirs" => word.trim_start_matches('+'),
            _ => word,
        };
        if self.directory_stack().is_empty() {
            self.error(&format!("{builtin}: directory stack empty"));
        } else {
            self.error(&format!(
                "{builtin}: {word}: directory stack index out of range"
            ));
        }
        1
    }

    pub fn builtin_dirs(&mut self, args: &[String]) -> i32 {
        let (mut listing, mut long) = (Listing::OneLine, false);
        for arg in args {
            let len = self.directory_stack().len() + 1;
            if let Some(index) = stack_index(arg, len) {
                let Ok(i) = index else {
                    return self.stack_index_error("dirs", arg);
                };
                let dir = self.stack_entries().swap_remove(i);
                let shown = if long { dir } else { self.tilde_form(&dir) };
                self.out(&format!("{shown}\n"));
                return 0;
            }
            let Some(letters) = arg.strip_prefix('-').filter(|l| !l.is_empty()) else {
                self.error(&format!("dirs: {arg}: invalid argument"));
                self.err("dirs: usage: dirs [-clpv] [+N] [-N]\n");
                return 2;
            };
            for letter in letters.chars() {
                match letter {
                    'c' => self.set_directory_stack(Vec::new()),
                    'l' => long = true,
                    'p' => listing = listing.max_per_line(),
                    'v' => listing = Listing::Numbered,
                    // bash read the word as a `-N` that is not a number.
                    _ => {
                        self.error(&format!("dirs: {arg}: invalid number"));
                        self.err("dirs: usage: dirs [-clpv] [+N] [-N]\n");
                        return 2;
                    }
                }
            }
            if letters.contains('c') {
                return 0;
            }
        }
        self.print_stack(listing, long);
        0
    }

    pub fn builtin_pushd(&mut self, args: &[String]) -> i32 {
        let (no_change, words) = split_no_change(args);
        let mut stack = self.directory_stack();
        match words.first() {
            None if stack.is_empty() => {
                self.error("pushd: no other directory");
                return 1;
            }
            None => {
                // Swap the top two entries.
                let target = stack[0].clone();
                if !no_change {
                    if self.enter_directory("pushd", &target) != 0 {
                        return 1;
                    }
                    stack[0] = self.oldpwd.clone().unwrap_or_default();
                }
                self.set_directory_stack(stack);
            }
            Some(word) => match stack_index(word, stack.len() + 1) {
                Some(Err(())) => return self.stack_index_error("pushd", word),
                Some(Ok(i)) => {
                    // Rotate entry `i` to the top.
                    let mut entries = self.stack_entries();
                    entries.rotate_left(i);
                    let target = entries[0].clone();
                    if !no_change && self.enter_directory("pushd", &target) != 0 {
                        return 1;
                    }
                    self.set_directory_stack(entries[1..].to_vec());
                }
                None => {
                    let word = word.to_string();
                    if no_change {
                        stack.insert(0, word);
                    } else {
                        let before = self.cwd.clone();
                        if self.enter_directory("pushd", &word) != 0 {
                            return 1;
                        }
                        stack.insert(0, before);
                    }
                    self.set_directory_stack(stack);
                }
            },
        }
        self.print_stack(Listing::OneLine, false);
        0
    }

    pub fn builtin_popd(&mut self, args: &[String]) -> i32 {
        let (no_change, words) = split_no_change(args);
        let mut stack = self.directory_stack();
        if stack.is_empty() {
            self.error("popd: directory stack empty");
            return 1;
        }
        let index = match words.first() {
            None => 0,
            Some(word) => match stack_index(word, stack.len() + 1) {
                Some(Ok(i)) => i,
                Some(Err(())) => return self.stack_index_error("popd", word),
                None => {
                    self.error(&format!("popd: {word}: invalid argument"));
                    self.err("popd: usage: popd [-n] [+N | -N]\n");
                    return 2;
                }
            },
        };
        if index == 0 {
            let target = stack.remove(0);
            if !no_change && self.enter_directory("popd", &target) != 0 {
                return 1;
            }
        } else {
            stack.remove(index - 1);
        }
        self.set_directory_stack(stack);
        self.print_stack(Listing::OneLine, false);
        0
    }
}

impl Listing {
    /// `-p` lists one per line unless `-v` already numbered them.
    fn max_per_line(self) -> Listing {
        match self {
            Listing::Numbered => Listing::Numbered,
            _ => Listing::PerLine,
        }
    }
}

/// `-n` (change the stack, not the directory) and the other words, `--` dropped.
fn split_no_change(args: &[String]) -> (bool, Vec<&str>) {
    let mut no_change = false;
    let mut words = Vec::new();
    for arg in args {
        match arg.as_str() {
            "-n" => no_change = true,
            "--" => {}
            other => words.push(other),
        }
    }
    (no_change, words)
}
