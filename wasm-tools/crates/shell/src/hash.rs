//! bash's table of programs found on `PATH` (`hash`): a name is remembered, with a count of
//! its uses, when this shell runs it; pipeline stages and substitutions run in other shells
//! and leave it as it was, as bash's forked children do.

use crate::state::{Shell, bash_bucket};

/// bash's command table has 256 buckets; `hash` lists them in bucket order, the newest
/// entry of a bucket first.
const BUCKETS: u32 = 256;

#[derive(Debug, Clone)]
pub struct Hashed {
    name: String,
    path: String,
    hits: u32,
}

impl Shell {
    /// Where `PATH` finds the program `name` in the sandbox (upstream's image has merged
    /// /usr: /usr/bin comes first).
    fn program_path(&self, name: &str) -> Option<String> {
        self.applets
            .iter()
            .any(|a| a == name)
            .then(|| format!("/usr/bin/{name}"))
    }

    /// Records a run of `name` found on `PATH`.
    pub fn remember_program(&mut self, name: &str) {
        if name.contains('/') {
            return;
        }
        if let Some(entry) = self.hashed.iter_mut().find(|h| h.name == name) {
            entry.hits += 1;
            return;
        }
        if let Some(path) = self.program_path(name) {
            self.hashed.push(Hashed {
                name: name.to_string(),
                path,
                hits: 1,
            });
        }
    }

    /// The remembered path of `name`, for `type` (`ls is hashed (/usr/bin/ls)`).
    pub fn hashed_path(&self, name: &str) -> Option<&str> {
        self.hashed
            .iter()
            .find(|h| h.name == name)
            .map(|h| h.path.as_str())
    }

    fn in_table_order(&self) -> Vec<&Hashed> {
        let mut entries: Vec<&Hashed> = self.hashed.iter().rev().collect();
        entries.sort_by_key(|h| bash_bucket(&h.name, BUCKETS));
        entries
    }

    /// `hash [-lr] [-p PATH] [-dt] [NAME ...]`.
    pub fn builtin_hash(&mut self, args: &[String]) -> i32 {
        let (mut list_reusable, mut delete, mut show_path) = (false, false, false);
        let mut given_path = None;
        let mut names = Vec::new();
        let mut i = 0;
        while i < args.len() {
            match args[i].as_str() {
                "-r" => self.hashed.clear(),
                "-l" => list_reusable = true,
                "-d" => delete = true,
                "-t" => show_path = true,
                "-p" => {
                    given_path = args.get(i + 1).cloned();
                    i += 1;
                }
                "--" => {}
                name => names.push(name.to_string()),
            }
            i += 1;
        }
        if names.is_empty() {
            if args.iter().any(|a| a == "-r") {
                return 0;
            }
            return self.print_hash_table(list_reusable);
        }
        let mut status = 0;
        for name in names {
            if delete {
                match self.hashed.iter().position(|h| h.name == name) {
                    Some(i) => {
                        self.hashed.remove(i);
                    }
                    None => {
                        self.error(&format!("hash: {name}: not found"));
                        status = 1;
                    }
                }
                continue;
            }
            if show_path {
                let path = self
                    .hashed_path(&name)
                    .map(String::from)
                    .or_else(|| self.program_path(&name));
                match path {
                    Some(path) => {
                        self.out(&format!("{path}\n"));
                    }
                    None => {
                        self.error(&format!("hash: {name}: not found"));
                        status = 1;
                    }
                }
                continue;
            }
            self.hashed.retain(|h| h.name != name);
            let path = match &given_path {
                Some(path) => Some(path.clone()),
                // A builtin or function is not looked up.
                None if crate::builtins::is_builtin(&name)
                    || self.functions.contains_key(&name) =>
                {
                    continue;
                }
                None => self.program_path(&name),
            };
            match path {
                Some(path) => self.hashed.push(Hashed {
                    name,
                    path,
                    hits: 0,
                }),
                None => {
                    self.error(&format!("hash: {name}: not found"));
                    status = 1;
                }
            }
        }
        status
    }

    fn print_hash_table(&mut self, reusable: bool) -> i32 {
        if self.hashed.is_empty() {
            self.out("hash: hash table empty\n");
            return 0;
        }
        let text: String = if reusable {
            self.in_table_order()
                .iter()
                .map(|h| format!("builtin hash -p {} {}\n", h.path, h.name))
                .collect()
        } else {
            std::iter::once("hits\tcommand\n".to_string())
                .chain(
                    self.in_table_order()
                        .iter()
                        .map(|h| format!("{:4}\t{}\n", h.hits, h.path)),
                )
                .collect()
        };
        self.out(&text);
        0
    }
}
