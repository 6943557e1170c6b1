//! `compgen [-abcdefkuvg] [-A ACTION] [-W WORDS] [-P PREFIX] [-S SUFFIX] [-X FILTER] [WORD]`:
//! the words bash would complete WORD to, each action's list in bash's order.

use crate::builtin_options::{self, OptionError};
use crate::state::{Shell, Value};

/// bash 5.1's builtins this shell does not have (completion and history are for terminals,
/// which an action's shell has none of): `compgen -b` still lists them, as bash does.
const BUILTINS_NOT_HERE: &[&str] = &["complete", "compopt", "enable", "fc"];

/// bash's builtins, sorted as its table is.
fn bash_builtins() -> Vec<String> {
    let mut all: Vec<String> = crate::builtins::BUILTINS
        .iter()
        .chain(BUILTINS_NOT_HERE)
        .filter(|b| !b.starts_with("__") && **b != "which")
        .map(|b| b.to_string())
        .collect();
    all.sort();
    all
}

/// bash's reserved words in the order of its table.
pub const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc",
];

/// Variables bash computes when read: `compgen -v` names them though `set` does not list them.
const DYNAMIC_VARIABLES: &[&str] = &[
    "BASHPID",
    "BASH_ARGV0",
    "BASH_COMMAND",
    "BASH_SUBSHELL",
    "COMP_WORDBREAKS",
    "EPOCHREALTIME",
    "EPOCHSECONDS",
    "HISTCMD",
    "LINENO",
    "PIPESTATUS",
    "RANDOM",
    "SECONDS",
    "SRANDOM",
];

const USAGE: &str = "compgen: usage: compgen [-abcdefgjksuv] [-o option] [-A action] [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [word]\n";

impl Shell {
    pub fn builtin_compgen(&mut self, args: &[String]) -> i32 {
        let parsed = match builtin_options::parse(args, "abcdefgjksuvDEI", "oAGWFCXPSV") {
            Ok(p) => p,
            Err(OptionError::Invalid(c)) => {
                self.error(&format!("compgen: -{c}: invalid option"));
                self.err(USAGE);
                return 2;
            }
            Err(OptionError::MissingValue(c)) => {
                self.error(&format!("compgen: -{c}: option requires an argument"));
                self.err(USAGE);
                return 2;
            }
        };
        let word = parsed.operands.first().cloned().unwrap_or_default();
        let (mut prefix, mut suffix, mut filter) = (String::new(), String::new(), None);
        let mut candidates: Vec<String> = Vec::new();
        for (option, value) in &parsed.options {
            let action = match (option, value.as_deref()) {
                ('a', _) => "alias",
                ('b', _) => "builtin",
                ('c', _) => "command",
                ('d', _) => "directory",
                ('e', _) => "export",
                ('f', _) => "file",
                ('g', _) => "group",
                ('j', _) => "job",
                ('k', _) => "keyword",
                ('s', _) => "service",
                ('u', _) => "user",
                ('v', _) => "variable",
                ('A', Some(action)) => action,
                ('W', Some(words)) => {
                    let ifs = self.ifs();
                    candidates.extend(
                        words
                            .split(|c| ifs.contains(c))
                            .filter(|w| !w.is_empty() && w.starts_with(&word))
                            .map(String::from),
                    );
                    continue;
                }
                ('P', Some(p)) => {
                    prefix = p.to_string();
                    continue;
                }
                ('S', Some(s)) => {
                    suffix = s.to_string();
                    continue;
                }
                ('X', Some(x)) => {
                    filter = Some(x.to_string());
                    continue;
                }
                _ => continue,
            };
            match self.completions(action, &word) {
                Some(found) => candidates.extend(found),
                None => {
                    self.error(&format!("compgen: {action}: invalid action name"));
                    return 2;
                }
            }
        }
        if let Some(pattern) = filter {
            // `-X PAT` drops the matches; `-X '!PAT'` keeps only them.
            let (keep_matches, pattern) = match pattern.strip_prefix('!') {
                Some(p) => (true, p.to_string()),
                None => (false, pattern),
            };
            candidates.retain(|c| crate::glob::matches(&pattern, c) == keep_matches);
        }
        if candidates.is_empty() {
            return 1;
        }
        let text: String = candidates
            .iter()
            .map(|c| format!("{prefix}{c}{suffix}\n"))
            .collect();
        self.out(&text);
        0
    }

    /// The completions of `word` for one of bash's action names; `None` for an unknown action.
    fn completions(&self, action: &str, word: &str) -> Option<Vec<String>> {
        let mut found: Vec<String> = match action {
            "alias" | "job" | "running" | "stopped" | "disabled" | "hostname" | "service"
            | "binding" => Vec::new(),
            "builtin" | "enabled" => bash_builtins(),
            "keyword" => KEYWORDS.iter().map(|k| k.to_string()).collect(),
            "function" => sorted(self.functions.keys().cloned().collect()),
            "variable" => sorted(self.variable_names(|_| true)),
            "export" => sorted(self.variable_names(|v| v.exported)),
            "arrayvar" => sorted(
                self.variable_names(|v| matches!(v.value, Value::Indexed(_) | Value::Assoc(_))),
            ),
            "setopt" => crate::builtins::SET_O_OPTIONS
                .iter()
                .map(|o| o.to_string())
                .collect(),
            "shopt" => crate::builtins::SHOPT_DEFAULTS
                .iter()
                .map(|(o, _)| o.to_string())
                .collect(),
            "signal" => std::iter::once("EXIT".to_string())
                .chain(
                    (1..=hostcalls::proc::signal::RTMAX)
                        .filter_map(hostcalls::proc::signal::name)
                        .map(|n| format!("SIG{n}")),
                )
                .collect(),
            "user" => database_names("/etc/passwd"),
            "group" => database_names("/etc/group"),
            "command" => {
                let mut all: Vec<String> = KEYWORDS.iter().map(|k| k.to_string()).collect();
                all.extend(bash_builtins());
                all.extend(sorted(self.functions.keys().cloned().collect()));
                all.extend(self.applets.iter().cloned());
                all
            }
            "file" | "directory" => self.file_completions(word, action == "directory"),
            _ => return None,
        };
        if action != "file" && action != "directory" {
            found.retain(|w| w.starts_with(word));
        }
        Some(found)
    }

    /// The shell's variables by name, a function's locals over the globals they hide.
    fn visible_variables(&self) -> Vec<(String, crate::state::Var)> {
        let mut all: std::collections::BTreeMap<String, Option<crate::state::Var>> = self
            .globals
            .iter()
            .map(|(n, v)| (n.clone(), Some(v.clone())))
            .collect();
        for scope in &self.locals {
            for (n, v) in scope {
                all.insert(n.clone(), v.clone());
            }
        }
        all.into_iter()
            .filter(|(n, _)| crate::builtins::is_valid_name(n))
            .filter_map(|(n, v)| v.filter(|v| !v.declared_only).map(|v| (n, v)))
            .collect()
    }

    /// Every variable name `set` lists, plus bash's computed ones, that satisfies `keep`.
    fn variable_names(&self, keep: impl Fn(&crate::state::Var) -> bool) -> Vec<String> {
        let mut names: Vec<String> = self
            .visible_variables()
            .into_iter()
            .filter(|(_, v)| keep(v))
            .map(|(n, _)| n)
            .collect();
        let probe = crate::state::Var {
            value: Value::Scalar(String::new()),
            exported: false,
            readonly: false,
            integer: false,
            declared_only: false,
        };
        if keep(&probe) {
            names.extend(DYNAMIC_VARIABLES.iter().map(|n| n.to_string()));
            if self.dialect == crate::dialect::Dialect::Bash {
                names.extend(["BASHOPTS", "SHELLOPTS", "PPID"].map(String::from));
            }
        }
        names.sort();
        names.dedup();
        names
    }

    /// Files (or directories only) whose path starts with `word`, as a glob `word*` finds them,
    /// dot files only when `word`'s last part starts with a dot.
    fn file_completions(&self, word: &str, directories_only: bool) -> Vec<String> {
        let escaped: String = word
            .chars()
            .flat_map(|c| match c {
                '*' | '?' | '[' | '\\' => vec!['\\', c],
                _ => vec![c],
            })
            .collect();
        let mut options = self.glob_options();
        options.dotglob |= word
            .rsplit('/')
            .next()
            .is_some_and(|last| last.starts_with('.'));
        crate::glob::expand(&format!("{escaped}*"), &self.cwd, options)
            .into_iter()
            .filter(|path| {
                !directories_only
                    || std::fs::metadata(self.absolute(path)).is_ok_and(|m| m.is_dir())
            })
            .collect()
    }
}

fn sorted(mut words: Vec<String>) -> Vec<String> {
    words.sort();
    words
}

/// The first field of each line of `/etc/passwd` or `/etc/group`, in file order.
fn database_names(path: &str) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split(':').next())
        .filter(|n| !n.is_empty())
        .map(String::from)
        .collect()
}
