//! Which shell this instance imitates. Upstream's image is Ubuntu, where `/bin/sh` is dash:
//! what agents run through `sh -c`, `find -exec sh -c`, `xargs sh -c` or a `#!/bin/sh` script
//! answers as dash does — no `[[`, arrays, `<( )`, brace expansion or bash-only builtins, an
//! `echo` that always reads backslash escapes, and messages shaped `sh: 1: foo: not found`.

use brush_parser::ParserOptions;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Bash,
    Dash,
}

/// bash builtins dash does not have: under dash these names are looked up as programs.
const BASH_ONLY_BUILTINS: &[&str] = &[
    "bind",
    "builtin",
    "compgen",
    "declare",
    "dirs",
    "help",
    "history",
    "let",
    "mapfile",
    "popd",
    "pushd",
    "readarray",
    "shopt",
    "source",
    "typeset",
];

impl Dialect {
    /// The dialect of a shell started as `program` (a command name, no directory).
    pub fn of_program(program: &str) -> Dialect {
        match program {
            "sh" | "dash" => Dialect::Dash,
            _ => Dialect::Bash,
        }
    }

    pub fn parser_options(self) -> ParserOptions {
        ParserOptions {
            enable_extended_globbing: false,
            sh_mode: self == Dialect::Dash,
            ..ParserOptions::default()
        }
    }

    pub fn has_builtin(self, name: &str) -> bool {
        self == Dialect::Bash || !BASH_ONLY_BUILTINS.contains(&name)
    }

    /// The message for a command that is neither builtin, function nor program.
    pub fn not_found(self, name: &str) -> String {
        match self {
            // bash's `printable_filename`: a name with unprintable bytes in `$'…'`.
            Dialect::Bash if crate::quote::needs_ansi_c_quoting(name) => {
                format!("{}: command not found", crate::quote::ansi_c_quote(name))
            }
            Dialect::Bash => format!("{name}: command not found"),
            Dialect::Dash => format!("{name}: not found"),
        }
    }
}
