//! `getopts OPTSTRING NAME [ARG…]`, as bash 5.1 reads options: grouped letters (`-abc`), an
//! argument glued on or in the next word, `--` and `-` ending the options, a leading `:` for
//! silent error reporting, `OPTERR=0`, and `OPTIND` left where the next call must start.

use crate::state::Shell;

/// Where the previous call stopped inside a word of grouped options: bash keeps this beside
/// `OPTIND` and starts again at the word's first letter when `OPTIND` was changed meanwhile.
#[derive(Debug, Default, Clone, Copy)]
pub struct GetoptsPosition {
    /// The `OPTIND` the previous call left.
    optind: usize,
    /// The next letter's byte offset in that word; 0 before the word was entered.
    next_letter: usize,
}

impl Shell {
    pub fn builtin_getopts(&mut self, args: &[String]) -> i32 {
        let (Some(optstring), Some(var)) = (args.first(), args.get(1)) else {
            self.err("getopts: usage: getopts optstring name [arg ...]\n");
            return 2;
        };
        let params: Vec<String> = if args.len() > 2 {
            args[2..].to_vec()
        } else {
            self.positional.clone()
        };
        let (silent, letters) = match optstring.strip_prefix(':') {
            Some(rest) => (true, rest),
            None => (false, optstring.as_str()),
        };
        let report = !silent && self.get_scalar("OPTERR").is_none_or(|v| v.trim() != "0");
        let mut optind = self
            .get_scalar("OPTIND")
            .and_then(|s| s.trim().parse::<usize>().ok())
            .unwrap_or(1)
            .max(1);
        let mut next_letter = if optind == self.getopts_position.optind {
            self.getopts_position.next_letter
        } else {
            0
        };
        let end = |sh: &mut Shell, optind: usize| {
            sh.set_scalar(var, "?".into());
            sh.unset("OPTARG");
            sh.set_scalar("OPTIND", optind.to_string());
            sh.getopts_position = GetoptsPosition::default();
            1
        };
        let Some(word) = params.get(optind - 1).cloned() else {
            // Past the last word: bash leaves OPTIND just after it.
            return end(self, optind.min(params.len() + 1));
        };
        if next_letter == 0 {
            if word == "--" {
                return end(self, optind + 1);
            }
            if !word.starts_with('-') || word == "-" {
                return end(self, optind);
            }
            next_letter = 1;
        }
        let letter = word[next_letter..].chars().next().unwrap_or('?');
        next_letter += letter.len_utf8();
        let word_done = next_letter >= word.len();
        let known = (letter != ':').then(|| letters.find(letter)).flatten();
        let takes_argument =
            known.is_some_and(|at| letters[at + letter.len_utf8()..].starts_with(':'));
        let mut optarg = None;
        let mut name_value = letter.to_string();
        if known.is_none() {
            if report {
                self.err(&format!("{}: illegal option -- {letter}\n", self.name));
            } else if silent {
                optarg = Some(letter.to_string());
            }
            name_value = "?".into();
        }
        if takes_argument {
            if !word_done {
                optarg = Some(word[next_letter..].to_string());
                optind += 1;
            } else if let Some(value) = params.get(optind) {
                optarg = Some(value.clone());
                optind += 2;
            } else {
                optind += 1;
                if silent {
                    optarg = Some(letter.to_string());
                    name_value = ":".into();
                } else {
                    if report {
                        self.err(&format!(
                            "{}: option requires an argument -- {letter}\n",
                            self.name
                        ));
                    }
                    name_value = "?".into();
                }
            }
            next_letter = 0;
        } else if word_done {
            optind += 1;
            next_letter = 0;
        }
        match optarg {
            Some(value) => self.set_scalar("OPTARG", value),
            None => self.unset("OPTARG"),
        }
        self.set_scalar(var, name_value);
        self.set_scalar("OPTIND", optind.to_string());
        self.getopts_position = GetoptsPosition {
            optind,
            next_letter,
        };
        0
    }
}
