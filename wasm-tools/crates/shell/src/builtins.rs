//! Builtins. They write through the shell's descriptor table so redirections and pipes apply
//! to them exactly as to external commands.

use crate::error::ExpandError;
use crate::quote::{ansi_c_or, double_quote, shell_quote};
use crate::state::{Flow, Shell, Value};
use brush_parser::ast::{self, BinaryPredicate as BP, UnaryPredicate as UP};
use std::collections::BTreeMap;

/// bash 5.1's `set -o` options, in the order `set -o` lists them.
pub const SET_O_OPTIONS: &[&str] = &[
    "allexport",
    "braceexpand",
    "emacs",
    "errexit",
    "errtrace",
    "functrace",
    "hashall",
    "histexpand",
    "history",
    "ignoreeof",
    "interactive-comments",
    "keyword",
    "monitor",
    "noclobber",
    "noexec",
    "noglob",
    "nolog",
    "notify",
    "nounset",
    "onecmd",
    "physical",
    "pipefail",
    "posix",
    "privileged",
    "verbose",
    "vi",
    "xtrace",
];

pub const BUILTINS: &[&str] = &[
    ":",
    ".",
    "[",
    "alias",
    "bind",
    "break",
    "bg",
    "builtin",
    "caller",
    "cd",
    "command",
    "compgen",
    "continue",
    "declare",
    "dirs",
    "disown",
    "echo",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fg",
    "getopts",
    "hash",
    "help",
    "history",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "wait",
    "which",
    "__intercode_status",
    "__intercode_function_line",
];

pub fn is_builtin(name: &str) -> bool {
    BUILTINS.contains(&name)
}

/// A variable as `declare -p` shows it: `declare -ax a=([0]="x" [1]=$'y\n')`; an
/// associative array's elements each end with a space (`declare -A m=([k]="v" )`).
fn declare_line(name: &str, var: &crate::state::Var) -> String {
    let quote = |v: &str| ansi_c_or(v, double_quote);
    let mut flags = String::new();
    match &var.value {
        Value::Indexed(_) => flags.push('a'),
        Value::Assoc(_) => flags.push('A'),
        Value::Scalar(_) => {}
    }
    if var.integer {
        flags.push('i');
    }
    if var.readonly {
        flags.push('r');
    }
    if var.exported {
        flags.push('x');
    }
    if flags.is_empty() {
        flags.push('-');
    }
    if var.declared_only {
        return format!("declare -{flags} {name}\n");
    }
    let value = match &var.value {
        Value::Scalar(v) => quote(v),
        Value::Indexed(m) => {
            let items: Vec<String> = m
                .iter()
                .map(|(i, v)| format!("[{i}]={}", quote(v)))
                .collect();
            format!("({})", items.join(" "))
        }
        Value::Assoc(m) => {
            let items: String = crate::state::in_bash_order(m)
                .map(|(k, v)| format!("[{k}]={} ", quote(v)))
                .collect();
            format!("({items})")
        }
    };
    format!("declare -{flags} {name}={value}\n")
}

/// A value as `set` shows it: bare when nothing in it needs quoting, in single quotes, or in
/// `$'…'` when it holds control characters.
fn set_quote(s: &str) -> String {
    ansi_c_or(s, shell_quote)
}

impl Shell {
    /// The line of the script bash read that function `f`'s definition starts on.
    fn definition_line(&self, f: &str) -> Option<i64> {
        let parsed = self.functions.get(f)?.fname.loc.as_ref()?.start.line as i64;
        Some(
            parsed
                + self
                    .function_line_base
                    .get(f)
                    .copied()
                    .unwrap_or(self.line_base),
        )
    }

    /// Script text that recreates this shell's state in a fresh instance (our `fork`).
    pub fn prelude(&self) -> String {
        let mut out = String::new();
        let mut names: Vec<&String> = self.globals.keys().collect();
        names.sort();
        let emit = |out: &mut String, name: &str, var: &crate::state::Var| {
            if !is_valid_name(name) {
                return;
            }
            // Declared without a value: its attributes alone (`declare -x y`).
            if var.declared_only {
                out.push_str(&declare_line(name, var));
                return;
            }
            if var.exported && matches!(var.value, Value::Scalar(_)) {
                return;
            }
            if var.integer {
                out.push_str(&format!("declare -i {name}\n"));
            }
            match &var.value {
                Value::Scalar(s) => out.push_str(&format!("{name}={}\n", shell_quote(s))),
                Value::Indexed(m) => {
                    let items: Vec<String> = m
                        .iter()
                        .map(|(k, v)| format!("[{k}]={}", shell_quote(v)))
                        .collect();
                    out.push_str(&format!("{name}=({})\n", items.join(" ")));
                }
                Value::Assoc(m) => {
                    let items: Vec<String> = m
                        .iter()
                        .map(|(k, v)| format!("[{}]={}", shell_quote(k), shell_quote(v)))
                        .collect();
                    out.push_str(&format!("declare -A {name}=({})\n", items.join(" ")));
                }
            }
        };
        for name in names {
            emit(&mut out, name, &self.globals[name]);
        }
        for scope in &self.locals {
            for (name, var) in scope {
                if let Some(var) = var {
                    emit(&mut out, name, var);
                }
            }
        }
        let mut fnames: Vec<&String> = self.functions.keys().collect();
        fnames.sort();
        for f in fnames {
            match self.function_texts.get(f) {
                Some(text) => out.push_str(text),
                None => out.push_str(&self.functions[f].to_string()),
            }
            out.push('\n');
            // Where the definition was, for the lines of messages and `LINENO` inside it.
            if let Some(line) = self.definition_line(f) {
                out.push_str(&format!("__intercode_function_line {f} {line}\n"));
            }
        }
        let mut flags = String::new();
        for (on, f) in [
            (self.options.errexit, "-e"),
            (self.options.nounset, "-u"),
            (self.options.xtrace, "-x"),
            (self.options.noglob, "-f"),
            (self.options.pipefail, "-o pipefail"),
            (self.editing.emacs_on(), "-o emacs"),
            (self.editing.vi_on(), "-o vi"),
        ] {
            if on {
                flags.push_str(&format!("set {f}\n"));
            }
        }
        out.push_str(&flags);
        if self.umask != 0o022 {
            out.push_str(&format!("umask {:04o}\n", self.umask));
        }
        if !self.positional.is_empty() {
            let q: Vec<String> = self.positional.iter().map(|p| shell_quote(p)).collect();
            out.push_str(&format!("set -- {}\n", q.join(" ")));
        }
        out.push_str(&format!("__intercode_status {}\n", self.last_status));
        out
    }

    pub fn run_builtin(&mut self, argv: &[String]) -> i32 {
        let name = argv[0].as_str();
        let args = &argv[1..];
        match name {
            ":" | "true" => 0,
            "false" => 1,
            "__intercode_status" => args.first().and_then(|a| a.parse().ok()).unwrap_or(0),
            "__intercode_function_line" => {
                if let (Some(f), Some(line)) = (
                    args.first(),
                    args.get(1).and_then(|l| l.parse::<i64>().ok()),
                ) && let Some(parsed) = self.functions.get(f).and_then(|d| d.fname.loc.as_ref())
                {
                    let base = line - parsed.start.line as i64;
                    self.function_line_base.insert(f.clone(), base);
                }
                0
            }
            "echo" => self.builtin_echo(args),
            "printf" => self.builtin_printf(args),
            "cd" => self.builtin_cd(args),
            "pwd" => {
                // -L and -P print the same here (the tree's paths are physical); anything
                // else is bash's usage error.
                match args
                    .iter()
                    .find(|a| !matches!(a.as_str(), "-L" | "-P" | "--"))
                {
                    Some(bad) if bad.starts_with('-') && bad.len() > 1 => {
                        let option: String = bad.chars().take(2).collect();
                        self.error(&format!("pwd: {option}: invalid option"));
                        self.err("pwd: usage: pwd [-LP]\n");
                        2
                    }
                    _ => {
                        let ok = self.out_reporting("pwd", &format!("{}\n", self.cwd));
                        i32::from(!ok)
                    }
                }
            }
            "exit" => {
                let code = match args.first() {
                    Some(a) => match a.parse::<i64>() {
                        Ok(n) => (n & 0xff) as i32,
                        Err(_) => {
                            self.error(&format!("exit: {a}: numeric argument required"));
                            2
                        }
                    },
                    None => self.last_status,
                };
                self.flow = Flow::Exit;
                self.exit_code = Some(code);
                code
            }
            "return" => {
                if self.func_depth == 0 {
                    self.error("return: can only `return' from a function or sourced script");
                    return 2;
                }
                let code = match args.first() {
                    None => self.last_status,
                    Some(a) => match a.parse::<i64>() {
                        Ok(n) => (n & 0xff) as i32,
                        Err(_) => {
                            self.error(&format!("return: {a}: numeric argument required"));
                            2
                        }
                    },
                };
                self.flow = Flow::Return;
                self.last_status = code;
                code
            }
            "break" | "continue" => {
                // A subshell cannot tell whether it runs inside a loop of its parent.
                if self.loop_depth == 0 && !self.in_subshell {
                    self.error(&format!(
                        "{name}: only meaningful in a `for', `while', or `until' loop"
                    ));
                    return 0;
                }
                let n = match args.first() {
                    None => 1,
                    Some(a) => match a.parse::<i64>() {
                        Ok(n) if n > 0 => u32::try_from(n).unwrap_or(u32::MAX),
                        Ok(_) => {
                            // bash leaves every loop, and fails.
                            self.error(&format!("{name}: {a}: loop count out of range"));
                            self.flow = Flow::Break(u32::MAX);
                            return 1;
                        }
                        Err(_) => {
                            // Fatal to a non-interactive bash.
                            self.error(&format!("{name}: {a}: numeric argument required"));
                            self.flow = Flow::Exit;
                            self.exit_code = Some(128);
                            return 128;
                        }
                    },
                };
                self.flow = if name == "break" {
                    Flow::Break(n)
                } else {
                    Flow::Continue(n)
                };
                0
            }
            "export" | "readonly" | "declare" | "typeset" | "local" => {
                self.builtin_declare(name, args)
            }
            "unset" => {
                let mut funcs = false;
                for a in args {
                    match a.as_str() {
                        "-f" => funcs = true,
                        "-v" => funcs = false,
                        a => {
                            if funcs {
                                self.functions.remove(a);
                            } else if let Some((n, idx)) = a.split_once('[') {
                                let idx = idx.trim_end_matches(']');
                                if let Some(v) = self.get_var(n).map(|v| v.value.clone()) {
                                    let nv = match v {
                                        Value::Indexed(mut m) => {
                                            m.remove(&idx.parse().unwrap_or(-1));
                                            Value::Indexed(m)
                                        }
                                        Value::Assoc(mut m) => {
                                            m.remove(idx);
                                            Value::Assoc(m)
                                        }
                                        v => v,
                                    };
                                    let _ = self.set_value(n, nv);
                                }
                            } else {
                                self.unset(a);
                            }
                        }
                    }
                }
                0
            }
            "shift" => {
                let n = args.first().and_then(|a| a.parse().ok()).unwrap_or(1usize);
                if n > self.positional.len() {
                    return 1;
                }
                self.positional.drain(..n);
                0
            }
            "set" => self.builtin_set(args),
            "test" | "[" => {
                let mut args = args.to_vec();
                if name == "[" {
                    if args.last().map(String::as_str) != Some("]") {
                        self.error("[: missing `]'");
                        return 2;
                    }
                    args.pop();
                }
                // dash's test has no `==`: the word before it is "unexpected".
                if self.dialect == crate::dialect::Dialect::Dash
                    && let Some(i) = args.iter().skip(1).position(|a| a == "==")
                {
                    match args[i].as_str() {
                        "" => self.error(&format!("{name}: unexpected operator")),
                        before => self.error(&format!("{name}: {before}: unexpected operator")),
                    }
                    return 2;
                }
                self.builtin_test(name, &args)
            }
            "read" => self.builtin_read(args),
            "mapfile" | "readarray" => self.builtin_mapfile(name, args),
            "eval" => {
                let script = args.join(" ");
                self.trace_level += 1;
                let status = self.run_script_text(&script);
                self.trace_level -= 1;
                status
            }
            "source" | "." => {
                let Some(file) = args.first() else {
                    self.error(&format!("{name}: filename argument required"));
                    self.err(&format!("{name}: usage: {name} filename [arguments]\n"));
                    return 2;
                };
                let path = self.absolute(file);
                match std::fs::read_to_string(&path) {
                    Ok(text) => {
                        let saved = if args.len() > 1 {
                            Some(std::mem::replace(&mut self.positional, args[1..].to_vec()))
                        } else {
                            None
                        };
                        self.func_depth += 1;
                        let s = self.run_script_text(&text);
                        self.func_depth -= 1;
                        if self.flow == Flow::Return {
                            self.flow = Flow::Normal;
                        }
                        if let Some(p) = saved {
                            self.positional = p;
                        }
                        s
                    }
                    Err(e) => {
                        self.error(&format!("{file}: {}", crate::error::error_text(&e)));
                        1
                    }
                }
            }
            "type" | "which" | "command" | "builtin" => self.builtin_type(name, args),
            "let" => {
                let mut last = 0;
                for a in args {
                    match self.eval_arith_str(a) {
                        Ok(v) => last = v,
                        Err(e) => {
                            self.error(&format!("let: {}", e.0));
                            return 1;
                        }
                    }
                }
                (last == 0) as i32
            }
            "wait" => self.builtin_wait(args),
            "kill" => self.builtin_kill(args),
            "exec" => {
                if args.is_empty() {
                    return 0;
                }
                let status = self.run_argv(args);
                self.flow = Flow::Exit;
                self.exit_code = Some(status);
                status
            }
            "umask" => self.builtin_umask(args),
            "ulimit" => {
                self.out("unlimited\n");
                0
            }
            "compgen" => self.builtin_compgen(args),
            "shopt" => self.builtin_shopt(args),
            "getopts" => self.builtin_getopts(args),
            "trap" => self.builtin_trap(args),
            "alias" | "unalias" | "history" | "jobs" | "help" => 0,
            "hash" => self.builtin_hash(args),
            // The guest cannot read CPU times (see `crate::timing`): the shell's and its
            // children's user and system times, as zeros.
            "times" => {
                self.out("0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n");
                0
            }
            "bind" => self.builtin_bind(args),
            "dirs" => self.builtin_dirs(args),
            "caller" => self.builtin_caller(args),
            "fg" | "bg" => {
                self.error(&format!("{name}: no job control"));
                1
            }
            "suspend" => {
                self.error("suspend: cannot suspend: no job control");
                1
            }
            "logout" => {
                self.error("logout: not login shell: use `exit'");
                1
            }
            "disown" => self.builtin_disown(args),
            "pushd" => self.builtin_pushd(args),
            "popd" => self.builtin_popd(args),
            _ => 127,
        }
    }

    /// Runs argv as a command (for `exec`, `command`, `builtin`).
    fn run_argv(&mut self, argv: &[String]) -> i32 {
        let words: Vec<String> = argv.iter().map(|a| shell_quote(a)).collect();
        self.run_script_text(&words.join(" "))
    }

    /// Parses and runs script text in this shell (eval, source, -c).
    pub fn run_script_text(&mut self, text: &str) -> i32 {
        match crate::syntax::parse_with_source(text, self.dialect) {
            Ok((program, source)) => {
                let outer = self.source.replace(source.into());
                let status = self.run_program(&program);
                self.source = outer;
                status
            }
            Err(e) => {
                // The complete commands before the error run first, as bash and dash read
                // and run a script one command at a time.
                if let Some(before) = crate::syntax::runnable_prefix(text, self.dialect, e.line) {
                    // The script's last command is after the error: none of these is it.
                    self.oneshot_allowed = false;
                    let outer = self.source.take();
                    self.run_program(&before);
                    self.source = outer;
                    if self.flow != Flow::Normal {
                        return self.last_status;
                    }
                }
                let message = self.syntax_error_in_context(&e.message);
                self.syntax_error(&self.name, &message);
                self.last_status = 2;
                2
            }
        }
    }

    /// A command substitution's text is parsed in its subshell: bash names it so, with the
    /// line counted in the script that holds it (`bash: command substitution: line 5: …`).
    fn syntax_error_in_context(&self, message: &str) -> String {
        if !self.in_subshell || self.dialect != crate::dialect::Dialect::Bash {
            return message.to_string();
        }
        message
            .lines()
            .map(|l| {
                let Some(rest) = l.strip_prefix("-c: line ") else {
                    return l.to_string();
                };
                let (n, tail) = rest.split_once(':').unwrap_or((rest, ""));
                match n.parse::<usize>() {
                    Ok(n) => format!("command substitution: line {}:{tail}", self.shifted(n)),
                    Err(_) => l.to_string(),
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn builtin_echo(&mut self, args: &[String]) -> i32 {
        if self.dialect == crate::dialect::Dialect::Dash {
            return self.dash_echo(args);
        }
        let mut newline = true;
        let mut escapes = false;
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            if a.len() > 1 && a.starts_with('-') && a[1..].chars().all(|c| "neE".contains(c)) {
                for c in a[1..].chars() {
                    match c {
                        'n' => newline = false,
                        'e' => escapes = true,
                        'E' => escapes = false,
                        _ => {}
                    }
                }
                i += 1;
            } else {
                break;
            }
        }
        let mut out = String::new();
        for (j, a) in args[i..].iter().enumerate() {
            if j > 0 {
                out.push(' ');
            }
            if escapes {
                let (text, stop) = echo_escapes(a);
                out.push_str(&text);
                if stop {
                    return if self.out_reporting("echo", &out) {
                        0
                    } else {
                        1
                    };
                }
            } else {
                out.push_str(a);
            }
        }
        if newline {
            out.push('\n');
        }
        if self.out_reporting("echo", &out) {
            0
        } else {
            1
        }
    }

    /// dash's echo: `-n` only as the whole first argument, backslash escapes always read.
    fn dash_echo(&mut self, args: &[String]) -> i32 {
        let (newline, args) = match args.split_first() {
            Some((first, rest)) if first == "-n" => (false, rest),
            _ => (true, args),
        };
        let mut out = String::new();
        for (j, a) in args.iter().enumerate() {
            if j > 0 {
                out.push(' ');
            }
            let (text, stop) = dash_echo_escapes(a);
            out.push_str(&text);
            if stop {
                return if self.out(&out) { 0 } else { 1 };
            }
        }
        if newline {
            out.push('\n');
        }
        if self.out(&out) { 0 } else { 1 }
    }

    fn builtin_printf(&mut self, args: &[String]) -> i32 {
        let (var, args) = if args.first().map(String::as_str) == Some("-v") && args.len() > 1 {
            (Some(args[1].clone()), &args[2..])
        } else {
            (None, args)
        };
        let args = if args.first().map(String::as_str) == Some("--") {
            &args[1..]
        } else {
            args
        };
        let Some(format) = args.first() else {
            self.err("printf: usage: printf [-v var] format [arguments]\n");
            return 2;
        };
        let (text, status, errors) = crate::printf::format(format, &args[1..]);
        for e in errors {
            self.error(&format!("printf: {e}"));
        }
        match var {
            Some(v) => self.set_scalar(&v, text),
            None => {
                if !self.out_reporting("printf", &text) {
                    return 1;
                }
            }
        }
        status
    }

    fn builtin_cd(&mut self, args: &[String]) -> i32 {
        let args: Vec<&String> = args
            .iter()
            .filter(|a| !matches!(a.as_str(), "-L" | "-P"))
            .collect();
        // `cd ''` stays where it is, in bash and dash.
        if args.len() == 1 && args[0].is_empty() {
            return 0;
        }
        let dash = self.dialect == crate::dialect::Dialect::Dash;
        if dash
            && let Some(target) = args.first()
            && !matches!(target.as_str(), "-" | "~")
            && !std::fs::metadata(self.absolute(target)).is_ok_and(|m| m.is_dir())
        {
            // dash names no reason, and ignores words after the first.
            self.error(&format!("cd: can't cd to {target}"));
            return 2;
        }
        if args.len() > 1 && !dash {
            self.error("cd: too many arguments");
            return 1;
        }
        let target = match args.first().map(|s| s.as_str()) {
            None | Some("~") => self.get_scalar("HOME").unwrap_or_else(|| "/".into()),
            Some("-") => match &self.oldpwd {
                Some(o) => {
                    let o = o.clone();
                    self.out(&format!("{o}\n"));
                    o
                }
                None => {
                    self.error("cd: OLDPWD not set");
                    return 1;
                }
            },
            Some(t) => t.to_string(),
        };
        self.enter_directory("cd", &target)
    }

    /// Makes `target` the working directory for `builtin` (`cd`, `pushd`, `popd`), with
    /// bash's messages; `PWD`, `OLDPWD` and `DIRSTACK[0]` follow.
    pub fn enter_directory(&mut self, builtin: &str, target: &str) -> i32 {
        let path = self.absolute(target);
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => {
                if std::env::set_current_dir(&path).is_err() {
                    self.error(&format!("{builtin}: {target}: Permission denied"));
                    return 1;
                }
                self.oldpwd = Some(std::mem::replace(&mut self.cwd, path.clone()));
                let old = self.oldpwd.clone().unwrap_or_default();
                self.set_scalar("OLDPWD", old);
                self.set_scalar("PWD", path);
                let stack = self.directory_stack();
                self.set_directory_stack(stack);
                0
            }
            Ok(_) => {
                self.error(&format!("{builtin}: {target}: Not a directory"));
                1
            }
            Err(e) => {
                self.error(&format!(
                    "{builtin}: {target}: {}",
                    crate::error::error_text(&e)
                ));
                1
            }
        }
    }

    fn builtin_declare(&mut self, name: &str, args: &[String]) -> i32 {
        let mut export = name == "export";
        let mut readonly = name == "readonly";
        let mut assoc = false;
        let mut indexed = false;
        let mut integer = false;
        let mut print = false;
        let mut functions = false;
        let mut function_names_only = false;
        let mut global = false;
        let mut names = Vec::new();
        for a in args {
            if let Some(flags) = a.strip_prefix('-').filter(|_| names.is_empty()) {
                for c in flags.chars() {
                    match c {
                        'x' => export = true,
                        'r' => readonly = true,
                        'A' => assoc = true,
                        'a' => indexed = true,
                        'i' => integer = true,
                        'p' => print = true,
                        'g' => global = true,
                        'f' => functions = true,
                        'F' => {
                            functions = true;
                            function_names_only = true;
                        }
                        _ => {}
                    }
                }
                continue;
            }
            if let Some(flags) = a.strip_prefix('+').filter(|_| names.is_empty()) {
                if flags.contains('x') {
                    export = false;
                }
                continue;
            }
            names.push(a.clone());
        }
        if functions {
            // Named functions in the order asked (a missing one fails quietly), or all sorted.
            let listed: Vec<String> = if names.is_empty() {
                let mut all: Vec<String> = self.functions.keys().cloned().collect();
                all.sort();
                all
            } else {
                names.clone()
            };
            let mut text = String::new();
            let mut status = 0;
            for f in &listed {
                match self.functions.get(f) {
                    None => status = 1,
                    Some(_) if function_names_only && names.is_empty() => {
                        text.push_str(&format!("declare -f {f}\n"))
                    }
                    Some(_) if function_names_only => text.push_str(&format!("{f}\n")),
                    Some(def) => text.push_str(&format!("{def}\n")),
                }
            }
            self.out(&text);
            return status;
        }
        if names.is_empty() || print {
            let only_exported = export || name == "export";
            let only_readonly = name == "readonly";
            if !names.is_empty() {
                let mut text = String::new();
                let mut status = 0;
                for n in &names {
                    match self.get_declared(n) {
                        Some(v) => text.push_str(&declare_line(n, v)),
                        None => {
                            self.out(&std::mem::take(&mut text));
                            self.error(&format!("{name}: {n}: not found"));
                            status = 1;
                        }
                    }
                }
                self.out(&text);
                return status;
            }
            let mut all: Vec<(String, crate::state::Var)> = self
                .globals
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            all.sort_by(|a, b| a.0.cmp(&b.0));
            let mut text = String::new();
            for (k, v) in all {
                if (only_exported && !v.exported) || (only_readonly && !v.readonly) {
                    continue;
                }
                text.push_str(&declare_line(&k, &v));
            }
            self.out(&text);
            return 0;
        }
        let mut status = 0;
        for n in names {
            let (var, value) = match n.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(v.to_string())),
                None => (n.clone(), None),
            };
            let (var, append) = match var.strip_suffix('+') {
                Some(v) => (v.to_string(), true),
                None => (var, false),
            };
            if !is_valid_name(&var) {
                self.error(&format!("{name}: `{n}': not a valid identifier"));
                status = 1;
                continue;
            }
            if name == "local" && self.func_depth == 0 {
                self.error("local: can only be used in a function");
                return 1;
            }
            // `declare` and `typeset` in a function make locals too, unless `-g`.
            let local = name == "local"
                || (self.func_depth > 0 && matches!(name, "declare" | "typeset") && !global);
            if local && let Some(scope) = self.locals.last_mut() {
                scope.entry(var.clone()).or_insert(None);
            }
            if assoc && self.get_var(&var).is_none() {
                let _ = self.set_value(&var, Value::Assoc(Default::default()));
            } else if indexed && self.get_var(&var).is_none() {
                let _ = self.set_value(&var, Value::Indexed(Default::default()));
            } else if value.is_none() {
                self.declare_only(&var, local);
            }
            if integer {
                self.set_integer(&var);
            }
            if let Some(v) = value {
                let r = if v.starts_with('(') && v.ends_with(')') {
                    self.run_script_text(&format!("{var}{}={v}", if append { "+" } else { "" }));
                    Ok(())
                } else {
                    match self.integer_value(&var, v, append) {
                        Ok(v) => self.set_value(&var, Value::Scalar(v)),
                        Err(e) => Err(e.0),
                    }
                };
                if let Err(e) = r {
                    self.error(&format!("{name}: {e}"));
                    status = 1;
                    continue;
                }
            }
            if export {
                self.export(&var);
            }
            if readonly {
                self.make_readonly(&var);
            }
        }
        status
    }

    /// `set` without arguments: every variable, sorted by name, in bash's notation
    /// (`name='a b'`, `IFS=$' \t\n'`, `BASH_VERSINFO=([0]="5" [1]="1" …)`).
    fn print_variables(&mut self) {
        let mut all: BTreeMap<String, Value> = self
            .globals
            .iter()
            .filter(|(_, v)| !v.declared_only)
            .map(|(k, v)| (k.clone(), v.value.clone()))
            .collect();
        if self.dialect == crate::dialect::Dialect::Bash {
            all.insert("BASHOPTS".into(), Value::Scalar(self.bashopts()));
            all.insert("SHELLOPTS".into(), Value::Scalar(self.shellopts()));
            all.insert("PPID".into(), Value::Scalar("0".into()));
        }
        let mut text = String::new();
        for (name, value) in all {
            if !is_valid_name(&name) {
                continue;
            }
            let shown = match value {
                Value::Scalar(v) => set_quote(&v),
                Value::Indexed(m) => {
                    let items: Vec<String> = m
                        .iter()
                        .map(|(i, v)| format!("[{i}]={}", double_quote(v)))
                        .collect();
                    format!("({})", items.join(" "))
                }
                Value::Assoc(m) if m.is_empty() => "()".into(),
                Value::Assoc(m) => {
                    let items: String = crate::state::in_bash_order(&m)
                        .map(|(k, v)| format!("[{k}]={} ", double_quote(v)))
                        .collect();
                    format!("({items})")
                }
            };
            text.push_str(&format!("{name}={shown}\n"));
        }
        self.out(&text);
    }

    /// `$BASHOPTS`: the `shopt` options that are on, in `shopt`'s order.
    pub fn bashopts(&self) -> String {
        SHOPT_DEFAULTS
            .iter()
            .filter(|(name, _)| self.shopt_value(name) == Some(true))
            .map(|(name, _)| *name)
            .collect::<Vec<_>>()
            .join(":")
    }

    /// The value of `set -o NAME`, for each of bash's `set -o` options.
    fn set_o_value(&self, name: &str) -> bool {
        let o = &self.options;
        match name {
            "errexit" => o.errexit,
            "noclobber" => o.noclobber,
            "noglob" => o.noglob,
            "nounset" => o.nounset,
            "pipefail" => o.pipefail,
            "xtrace" => o.xtrace,
            "emacs" => self.editing.emacs_on(),
            "vi" => self.editing.vi_on(),
            other => o.other_set_o.get(other).copied().unwrap_or(matches!(
                other,
                "braceexpand" | "hashall" | "interactive-comments"
            )),
        }
    }

    /// `$SHELLOPTS`: the `set -o` options that are on, in alphabetical order.
    pub fn shellopts(&self) -> String {
        SET_O_OPTIONS
            .iter()
            .filter(|name| self.set_o_value(name))
            .copied()
            .collect::<Vec<_>>()
            .join(":")
    }

    /// `set -o NAME` / `set +o NAME`; false (after bash's message) for a name bash lacks.
    fn set_long_option(&mut self, name: &str, on: bool) -> bool {
        match name {
            "pipefail" => self.options.pipefail = on,
            "errexit" => self.options.errexit = on,
            "nounset" => self.options.nounset = on,
            "xtrace" => self.options.xtrace = on,
            "noglob" => self.options.noglob = on,
            "noclobber" => self.options.noclobber = on,
            "emacs" => self.editing.set(false, on),
            "vi" => self.editing.set(true, on),
            other if SET_O_OPTIONS.contains(&other) => {
                self.options.other_set_o.insert(other.to_string(), on);
            }
            other => {
                self.error(&format!("set: {other}: invalid option name"));
                return false;
            }
        }
        true
    }

    /// `set -o` (a table) and `set +o` (commands that restore the options).
    fn print_set_o(&self, table: bool) {
        let mut out = String::new();
        for name in SET_O_OPTIONS {
            let on = self.set_o_value(name);
            if table {
                out.push_str(&format!("{name:<15}\t{}\n", if on { "on" } else { "off" }));
            } else {
                out.push_str(&format!("set {}o {name}\n", if on { '-' } else { '+' }));
            }
        }
        self.out(&out);
    }

    fn builtin_bind(&mut self, args: &[String]) -> i32 {
        let dir = self.cwd.clone();
        let outcome = self.bindings.run(self.editing, args, |file| {
            let path = if file.starts_with('/') {
                file.to_string()
            } else {
                format!("{}/{file}", dir.trim_end_matches('/'))
            };
            std::fs::read(path).map_err(|e| crate::error::error_text(&e))
        });
        for e in &outcome.errors {
            self.error(&format!("bind: {e}"));
        }
        if outcome.usage {
            self.err(&format!("{}\n", crate::readline::USAGE));
        }
        self.write_fd(1, &outcome.stdout);
        for complaint in &outcome.readline_errors {
            self.err(&format!("{complaint}\n"));
        }
        outcome.status
    }

    fn builtin_set(&mut self, args: &[String]) -> i32 {
        if args.is_empty() {
            self.print_variables();
            return 0;
        }
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            if a == "--" {
                self.positional = args[i + 1..].to_vec();
                return 0;
            }
            let (on, flags) = match (a.strip_prefix('-'), a.strip_prefix('+')) {
                (Some(f), _) => (true, f),
                (_, Some(f)) => (false, f),
                _ => {
                    self.positional = args[i..].to_vec();
                    return 0;
                }
            };
            if flags == "o" {
                if let Some(opt) = args.get(i + 1) {
                    if !self.set_long_option(opt, on) {
                        return 2;
                    }
                    i += 2;
                    continue;
                }
                self.print_set_o(on);
                return 0;
            }
            let mut option_names = 0;
            for c in flags.chars() {
                match c {
                    // `set -eo pipefail`: each `o` in a group names the next argument.
                    'o' => {
                        option_names += 1;
                        if let Some(opt) = args.get(i + option_names)
                            && !self.set_long_option(opt, on)
                        {
                            return 2;
                        }
                    }
                    'e' => self.options.errexit = on,
                    'u' => self.options.nounset = on,
                    'x' => self.options.xtrace = on,
                    'f' => self.options.noglob = on,
                    'C' => self.options.noclobber = on,
                    'a' | 'b' | 'h' | 'k' | 'm' | 'n' | 'p' | 't' | 'v' | 'B' | 'H' | 'P' => {}
                    other => {
                        let sign = if on { '-' } else { '+' };
                        self.error(&format!("set: {sign}{other}: invalid option"));
                        self.err(
                            "set: usage: set [-abefhkmnptuvxBCHP] [-o option-name] [--] [arg ...]\n",
                        );
                        return 2;
                    }
                }
            }
            i += 1 + option_names;
        }
        0
    }

    /// bash's words for a builtin's bad option, then its usage line; status 2.
    fn builtin_option_error(
        &mut self,
        name: &str,
        e: &crate::builtin_options::OptionError,
        usage: &str,
    ) -> i32 {
        use crate::builtin_options::OptionError;
        match e {
            OptionError::Invalid(c) => self.error(&format!("{name}: -{c}: invalid option")),
            OptionError::MissingValue(c) => {
                self.error(&format!("{name}: -{c}: option requires an argument"))
            }
        }
        self.err(usage);
        2
    }

    /// `mapfile`/`readarray`: the records of standard input (or `-u FD`) into an indexed array
    /// (`MAPFILE` unless named), as bash 5.1 reads them.
    fn builtin_mapfile(&mut self, name: &str, args: &[String]) -> i32 {
        let usage = format!(
            "{name}: usage: {name} [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]\n"
        );
        let parsed = match crate::builtin_options::parse(args, "t", "dnOsuCc") {
            Ok(parsed) => parsed,
            Err(e) => return self.builtin_option_error(name, &e, &usage),
        };
        let mut delim = b'\n';
        let mut count = 0usize;
        let mut origin: Option<i64> = None;
        let mut skip = 0usize;
        let mut trim = false;
        let mut fd: Option<i32> = None;
        let mut callback: Option<String> = None;
        let mut quantum = 5000usize;
        for (flag, value) in parsed.options {
            let value = value.unwrap_or_default();
            let number = value.parse::<i64>().ok();
            match flag {
                't' => trim = true,
                'd' => delim = value.bytes().next().unwrap_or(0),
                'n' | 's' | 'c' => {
                    let Some(n) = number.filter(|n| *n >= 0 && (flag != 'c' || *n > 0)) else {
                        let what = match flag {
                            'c' => "invalid callback quantum",
                            _ => "invalid line count",
                        };
                        self.error(&format!("{name}: {value}: {what}"));
                        return 1;
                    };
                    let n = n as usize;
                    match flag {
                        'n' => count = n,
                        's' => skip = n,
                        _ => quantum = n,
                    }
                }
                'O' => match number.filter(|n| *n >= 0) {
                    Some(n) => origin = Some(n),
                    None => {
                        self.error(&format!("{name}: {value}: invalid array origin"));
                        return 1;
                    }
                },
                'u' => match number
                    .and_then(|n| i32::try_from(n).ok())
                    .filter(|n| *n >= 0)
                {
                    Some(n) if self.fd(n).is_some() => fd = Some(n),
                    _ => {
                        self.error(&format!(
                            "{name}: {value}: invalid file descriptor: Bad file descriptor"
                        ));
                        return 1;
                    }
                },
                _ => callback = Some(value),
            }
        }
        let operands = parsed.operands;
        let array = operands
            .first()
            .cloned()
            .unwrap_or_else(|| "MAPFILE".into());
        if !is_valid_name(&array) {
            self.error(&format!("{name}: `{array}': not a valid identifier"));
            return 1;
        }
        let handle = self.fd(fd.unwrap_or(0)).unwrap_or(0);
        let mut records: Vec<Vec<u8>> = Vec::new();
        let mut current: Vec<u8> = Vec::new();
        let mut byte = [0u8; 1];
        let mut seen = 0usize;
        // One byte at a time, as bash reads a pipe: what follows the last record read stays
        // for the next reader.
        while count == 0 || records.len() < count {
            match hostcalls::read(handle, &mut byte) {
                Ok(1) => {
                    let end = byte[0] == delim;
                    if !(end && trim) {
                        current.push(byte[0]);
                    }
                    if end {
                        seen += 1;
                        let record = std::mem::take(&mut current);
                        if seen > skip {
                            records.push(record);
                        }
                    }
                }
                _ => break,
            }
        }
        if !current.is_empty() && (count == 0 || records.len() < count) {
            seen += 1;
            if seen > skip {
                records.push(current);
            }
        }
        let start = match origin {
            Some(o) => o,
            None => {
                if let Err(e) = self.set_value(&array, Value::Indexed(Default::default())) {
                    self.error(&e);
                    return 1;
                }
                0
            }
        };
        for (k, record) in records.into_iter().enumerate() {
            // A shell string ends at a NUL, as bash's C strings do.
            let end = record.iter().position(|&b| b == 0).unwrap_or(record.len());
            let text = String::from_utf8_lossy(&record[..end]).into_owned();
            let index = start + k as i64;
            if let Some(cb) = &callback
                && k % quantum == 0
            {
                let line = format!("{cb} {index} {}", shell_quote(&text));
                self.run_script_text(&line);
            }
            if let Err(e) = self.set_element(&array, &index.to_string(), text) {
                self.error(&e);
                return 1;
            }
        }
        0
    }

    fn builtin_read(&mut self, args: &[String]) -> i32 {
        const USAGE: &str = "read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]\n";
        let parsed = match crate::builtin_options::parse(args, "ers", "adinNptu") {
            Ok(parsed) => parsed,
            Err(e) => return self.builtin_option_error("read", &e, USAGE),
        };
        let mut raw = false;
        let mut delim = b'\n';
        let mut array: Option<String> = None;
        let mut max: Option<usize> = None;
        for (option, value) in parsed.options {
            let value = value.unwrap_or_default();
            match option {
                'r' => raw = true,
                'd' => delim = value.bytes().next().unwrap_or(0),
                'a' => array = Some(value),
                'n' | 'N' => max = value.parse().ok(),
                // -p: bash shows the prompt only when reading from a terminal, which an
                // action's input never is; -e, -s, -i, -t, -u change nothing here.
                _ => {}
            }
        }
        let mut names = parsed.operands;
        let fd = self.fd(0).unwrap_or(0);
        let mut line: Vec<u8> = Vec::new();
        let mut got_delim = false;
        let mut byte = [0u8; 1];
        loop {
            if max.is_some_and(|m| line.len() >= m) {
                got_delim = true;
                break;
            }
            match hostcalls::read(fd, &mut byte) {
                Ok(1) => {
                    if byte[0] == delim {
                        got_delim = true;
                        break;
                    }
                    if !raw && byte[0] == b'\\' {
                        match hostcalls::read(fd, &mut byte) {
                            Ok(1) if byte[0] == b'\n' => continue,
                            Ok(1) => line.push(byte[0]),
                            _ => break,
                        }
                        continue;
                    }
                    line.push(byte[0]);
                }
                _ => break,
            }
        }
        let text = String::from_utf8_lossy(&line).into_owned();
        let ifs = self.ifs();
        if let Some(arr) = array {
            let fields: Vec<String> = text
                .split(|c: char| ifs.contains(c))
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
            let m = fields
                .into_iter()
                .enumerate()
                .map(|(i, f)| (i as i64, f))
                .collect();
            let _ = self.set_value(&arr, Value::Indexed(m));
        } else {
            if names.is_empty() {
                names.push("REPLY".into());
                let _ = self.set_value("REPLY", Value::Scalar(text.clone()));
            } else {
                let values = split_for_read(&text, &ifs, names.len());
                for (n, v) in names.iter().zip(values) {
                    let _ = self.set_value(n, Value::Scalar(v));
                }
            }
        }
        if got_delim { 0 } else { 1 }
    }

    fn builtin_type(&mut self, name: &str, args: &[String]) -> i32 {
        if name == "command" || name == "builtin" {
            let (flags, rest): (Vec<&String>, Vec<&String>) =
                args.iter().partition(|a| a.starts_with('-') && a.len() > 1);
            let verbose = flags.iter().any(|f| f.contains('V'));
            if name == "command" && (verbose || flags.iter().any(|f| f.contains('v'))) {
                let mut status = 0;
                for a in rest {
                    match self.describe_command(a).into_iter().next() {
                        Some((_, text, short)) => {
                            self.out(&format!("{}\n", if verbose { text } else { short }));
                        }
                        None => {
                            if verbose {
                                self.error(&format!("command: {a}: not found"));
                            }
                            status = 1;
                        }
                    }
                }
                return status;
            }
            let argv: Vec<String> = rest.into_iter().cloned().collect();
            if argv.is_empty() {
                return 0;
            }
            if name == "builtin" {
                return self.run_builtin(&argv);
            }
            // `command x`: skip functions.
            if is_builtin(&argv[0]) {
                return self.run_builtin(&argv);
            }
            let saved = std::mem::take(&mut self.functions);
            let s = self.run_argv(&argv);
            self.functions = saved;
            return s;
        }
        let mut status = 0;
        let mut all = false;
        let mut path_only = false;
        // `-P` looks on `$PATH` even for a builtin; `-p` prints a path only when the name
        // runs a file, and is content (status 0) with what it found otherwise.
        let mut search_path = false;
        let mut type_only = false;
        let mut named = false;
        for a in args {
            match a.as_str() {
                "-a" => all = true,
                "-p" => path_only = true,
                "-P" => {
                    path_only = true;
                    search_path = true;
                }
                "-t" => type_only = true,
                a => {
                    named = true;
                    let applet = self.applets.iter().any(|x| x == a);
                    if name == "which" {
                        if applet {
                            self.out(&format!("/usr/bin/{a}\n"));
                            if all {
                                self.out(&format!("/bin/{a}\n"));
                            }
                        } else {
                            status = 1;
                        }
                        continue;
                    }
                    let described = self.describe_command(a);
                    let known = !described.is_empty();
                    // `type -a` lists where PATH finds the program, not the remembered path.
                    let found: Vec<(&str, String, String)> = described
                        .into_iter()
                        .filter(|(kind, _, _)| !(all && *kind == "hashed"))
                        .map(|(kind, text, short)| {
                            (if kind == "hashed" { "file" } else { kind }, text, short)
                        })
                        .filter(|(kind, _, _)| !search_path || *kind == "file")
                        .take(if all { usize::MAX } else { 1 })
                        .filter(|(kind, _, _)| !path_only || *kind == "file")
                        .collect();
                    if found.is_empty() && !(path_only && !search_path && known) {
                        if !type_only && !path_only {
                            self.error(&format!("type: {a}: not found"));
                        }
                        status = 1;
                    }
                    for (kind, text, short) in found {
                        let shown = match (type_only, path_only) {
                            (true, _) => kind.to_string(),
                            (_, true) => short,
                            _ => text,
                        };
                        self.out(&format!("{shown}\n"));
                    }
                }
            }
        }
        // Debian's `which` with nothing to look up finds nothing: status 1.
        if name == "which" && !named {
            return 1;
        }
        status
    }

    /// What a name runs, in bash's order (keyword, function, builtin, files on `$PATH`): the
    /// kind `type -t` prints, `type`'s sentence, and `command -v`'s word.
    fn describe_command(&self, a: &str) -> Vec<(&'static str, String, String)> {
        let mut found = Vec::new();
        if crate::compgen::KEYWORDS.contains(&a) {
            found.push(("keyword", format!("{a} is a shell keyword"), a.to_string()));
        }
        if let Some(f) = self.functions.get(a) {
            found.push(("function", format!("{a} is a function\n{f}"), a.to_string()));
        }
        if is_builtin(a) && a != "which" && self.dialect.has_builtin(a) {
            found.push(("builtin", format!("{a} is a shell builtin"), a.to_string()));
        }
        // Upstream's image has merged /usr: each program is found on `$PATH` as /usr/bin/NAME
        // and again as /bin/NAME.
        if let Some(path) = self.hashed_path(a) {
            found.push((
                "hashed",
                format!("{a} is hashed ({path})"),
                path.to_string(),
            ));
        }
        if self.applets.iter().any(|x| x == a) || a == "which" {
            for dir in ["/usr/bin", "/bin"] {
                found.push(("file", format!("{a} is {dir}/{a}"), format!("{dir}/{a}")));
            }
        }
        found
    }

    /// A `shopt` option's value, `None` for a name bash 5.1 does not have.
    fn shopt_value(&self, name: &str) -> Option<bool> {
        let o = &self.options;
        Some(match name {
            "nullglob" => o.nullglob,
            "dotglob" => o.dotglob,
            "extglob" => o.extglob,
            "globstar" => o.globstar,
            "nocaseglob" => o.nocaseglob,
            "failglob" => o.failglob,
            _ => match o.other_shopts.get(name) {
                Some(v) => *v,
                None => SHOPT_DEFAULTS.iter().find(|(n, _)| *n == name)?.1,
            },
        })
    }

    fn set_shopt(&mut self, name: &str, v: bool) -> bool {
        let o = &mut self.options;
        match name {
            "nullglob" => o.nullglob = v,
            "dotglob" => o.dotglob = v,
            "extglob" => o.extglob = v,
            "globstar" => o.globstar = v,
            "nocaseglob" => o.nocaseglob = v,
            "failglob" => o.failglob = v,
            _ if SHOPT_DEFAULTS.iter().any(|(n, _)| *n == name) => {
                o.other_shopts.insert(name.to_string(), v);
            }
            _ => return false,
        }
        true
    }

    /// bash 5.1's `shopt [-pqsu] [optname ...]` (`-o` names `set -o` options, which are not
    /// listed here).
    fn builtin_shopt(&mut self, args: &[String]) -> i32 {
        let (mut set, mut unset, mut print, mut quiet) = (false, false, false, false);
        let mut names = args;
        while let Some(first) = names.first() {
            let Some(flags) = first.strip_prefix('-').filter(|f| !f.is_empty()) else {
                break;
            };
            if flags == "-" {
                names = &names[1..];
                break;
            }
            for c in flags.chars() {
                match c {
                    's' => set = true,
                    'u' => unset = true,
                    'p' => print = true,
                    'q' => quiet = true,
                    'o' => {}
                    _ => {
                        self.error(&format!("shopt: -{c}: invalid option"));
                        self.err("shopt: usage: shopt [-pqsu] [-o] [optname ...]\n");
                        return 2;
                    }
                }
            }
            names = &names[1..];
        }
        if set && unset {
            self.error("shopt: cannot set and unset shell options simultaneously");
            return 1;
        }
        let line = |name: &str, on: bool| {
            if print {
                format!("shopt {} {name}\n", if on { "-s" } else { "-u" })
            } else {
                format!("{name:<15}\t{}\n", if on { "on" } else { "off" })
            }
        };
        if names.is_empty() {
            // List every option, or with -s/-u those set/unset.
            let mut text = String::new();
            for (name, _) in SHOPT_DEFAULTS {
                let on = self.shopt_value(name).unwrap_or(false);
                if (!set && !unset) || on == set {
                    text.push_str(&line(name, on));
                }
            }
            if !quiet {
                self.out(&text);
            }
            return 0;
        }
        let mut status = 0;
        for name in names {
            if set || unset {
                if !self.set_shopt(name, set) {
                    self.error(&format!("shopt: {name}: invalid shell option name"));
                    status = 1;
                }
                continue;
            }
            match self.shopt_value(name) {
                None => {
                    self.error(&format!("shopt: {name}: invalid shell option name"));
                    status = 1;
                }
                Some(on) => {
                    if !quiet {
                        self.out(&line(name, on));
                    }
                    if !on {
                        status = 1;
                    }
                }
            }
        }
        status
    }

    /// `test ARGS` or `[ ARGS ]` (`name` is how it was called: bash's errors name it).
    pub fn builtin_test(&mut self, name: &str, args: &[String]) -> i32 {
        match brush_parser::test_command::parse(args) {
            Ok(expr) => match self.eval_test(&expr) {
                Ok(true) => 0,
                Ok(false) => 1,
                Err(e) => {
                    self.error(&format!("{name}: {}", e.0));
                    2
                }
            },
            Err(_) => {
                let what = args.first().cloned().unwrap_or_default();
                self.error(&format!("{name}: {what}: unary operator expected"));
                2
            }
        }
    }

    fn eval_test(&mut self, e: &ast::TestExpr) -> Result<bool, ExpandError> {
        use ast::TestExpr as T;
        Ok(match e {
            T::False => false,
            T::Literal(s) => !s.is_empty(),
            T::And(a, b) => self.eval_test(a)? && self.eval_test(b)?,
            T::Or(a, b) => self.eval_test(a)? || self.eval_test(b)?,
            T::Not(a) => !self.eval_test(a)?,
            T::Parenthesized(a) => self.eval_test(a)?,
            T::UnaryTest(p, s) => self.unary_test(p, s),
            T::BinaryTest(p, a, b) => self.binary_test(p, a, b, false)?,
        })
    }

    pub fn eval_extended_test(&mut self, e: &ast::ExtendedTestExpr) -> Result<bool, ExpandError> {
        self.eval_extended_test_traced(e, "")
    }

    /// `negation` is `"! "` for a test right under `!`, which `set -x` shows with it
    /// (`+ [[ ! -f x ]]`); each test is shown when it is evaluated, operands expanded.
    fn eval_extended_test_traced(
        &mut self,
        e: &ast::ExtendedTestExpr,
        negation: &str,
    ) -> Result<bool, ExpandError> {
        use ast::ExtendedTestExpr as X;
        Ok(match e {
            X::And(a, b) => self.eval_extended_test(a)? && self.eval_extended_test(b)?,
            X::Or(a, b) => self.eval_extended_test(a)? || self.eval_extended_test(b)?,
            X::Not(a) => !self.eval_extended_test_traced(a, "! ")?,
            X::Parenthesized(a) => self.eval_extended_test(a)?,
            X::UnaryTest(p, w) => {
                let v = self.expand_single(&w.value)?;
                self.trace(&format!("[[ {negation}{p} {v} ]]"));
                self.unary_test(p, &v)
            }
            X::BinaryTest(p, a, b) => {
                let left = self.expand_single(&a.value)?;
                // `set -x` shows a pattern's quoted characters escaped (`\a\ \b`).
                let mut shown = None;
                let right = match p {
                    BP::StringExactlyMatchesPattern | BP::StringDoesNotExactlyMatchPattern => {
                        let expanded = self.expand_raw(&b.value)?;
                        shown = Some(
                            expanded
                                .chars
                                .iter()
                                .flat_map(|&(c, quoted)| {
                                    quoted.then_some('\\').into_iter().chain([c])
                                })
                                .collect::<String>(),
                        );
                        crate::expand::pattern_text(&expanded.chars)
                    }
                    BP::StringMatchesRegex => self.expand_regex(&b.value)?,
                    _ => self.expand_single(&b.value)?,
                };
                let shown = shown.as_deref().unwrap_or(&right);
                self.trace(&format!("[[ {negation}{left} {p} {shown} ]]"));
                self.binary_test(p, &left, &right, true)?
            }
        })
    }

    /// Right side of `=~`: quoted parts match literally.
    fn expand_regex(&mut self, w: &str) -> Result<String, ExpandError> {
        let exp = self.expand_raw(w)?;
        let mut s = String::new();
        for (c, q) in exp.chars {
            if q {
                s.push_str(&regex::escape(&c.to_string()));
            } else {
                s.push(c);
            }
        }
        Ok(s)
    }

    fn unary_test(&mut self, p: &UP, s: &str) -> bool {
        let stat = |follow: bool| hostcalls::stat(&self.absolute(s), follow).ok();
        match p {
            UP::StringHasZeroLength => s.is_empty(),
            UP::StringHasNonZeroLength => !s.is_empty(),
            UP::FileExists => !s.is_empty() && stat(true).is_some(),
            UP::FileExistsAndIsDir => stat(true).is_some_and(|m| m.is_dir()),
            UP::FileExistsAndIsRegularFile => stat(true).is_some_and(|m| m.is_file()),
            UP::FileExistsAndIsSymlink => stat(false).is_some_and(|m| m.is_symlink()),
            UP::FileExistsAndIsNotZeroLength => stat(true).is_some_and(|m| m.size > 0),
            // The episode runs as root: read and write are allowed whatever the mode bits.
            UP::FileExistsAndIsReadable | UP::FileExistsAndIsWritable => stat(true).is_some(),
            UP::FileExistsAndIsExecutable => {
                stat(true).is_some_and(|m| m.is_dir() || m.permissions() & 0o111 != 0)
            }
            UP::FileExistsAndOwnedByEffectiveUserId | UP::FileExistsAndOwnedByEffectiveGroupId => {
                stat(true).is_some()
            }
            UP::FileExistsAndIsSetuid => stat(true).is_some_and(|m| m.mode & 0o4000 != 0),
            UP::FileExistsAndIsSetgid => stat(true).is_some_and(|m| m.mode & 0o2000 != 0),
            UP::FileExistsAndHasStickyBit => stat(true).is_some_and(|m| m.mode & 0o1000 != 0),
            UP::ShellVariableIsSetAndAssigned => self.get_var(s).is_some(),
            UP::ShellOptionEnabled => false,
            UP::FdIsOpenTerminal => false,
            _ => false,
        }
    }

    fn binary_test(
        &mut self,
        p: &BP,
        a: &str,
        b: &str,
        extended: bool,
    ) -> Result<bool, ExpandError> {
        let num = |s: &str, sh: &mut Shell| -> Result<i64, ExpandError> {
            if extended {
                sh.eval_arith_str(s)
            } else {
                s.trim()
                    .parse()
                    .map_err(|_| ExpandError(format!("{s}: integer expression expected")))
            }
        };
        Ok(match p {
            BP::StringExactlyMatchesPattern => {
                if extended {
                    crate::glob::matches(b, a)
                } else {
                    a == b
                }
            }
            BP::StringDoesNotExactlyMatchPattern => {
                if extended {
                    !crate::glob::matches(b, a)
                } else {
                    a != b
                }
            }
            BP::StringExactlyMatchesString => a == b,
            BP::StringDoesNotExactlyMatchString => a != b,
            BP::StringContainsSubstring => a.contains(b),
            BP::StringMatchesRegex => {
                let re = regex::Regex::new(b)
                    .map_err(|_| ExpandError(format!("{b}: invalid regular expression")))?;
                match re.captures(a) {
                    Some(caps) => {
                        let m = caps
                            .iter()
                            .enumerate()
                            .map(|(i, c)| {
                                (
                                    i as i64,
                                    c.map(|c| c.as_str().to_string()).unwrap_or_default(),
                                )
                            })
                            .collect();
                        let _ = self.set_value("BASH_REMATCH", Value::Indexed(m));
                        true
                    }
                    None => false,
                }
            }
            BP::LeftSortsBeforeRight => a < b,
            BP::LeftSortsAfterRight => a > b,
            BP::ArithmeticEqualTo => num(a, self)? == num(b, self)?,
            BP::ArithmeticNotEqualTo => num(a, self)? != num(b, self)?,
            BP::ArithmeticLessThan => num(a, self)? < num(b, self)?,
            BP::ArithmeticLessThanOrEqualTo => num(a, self)? <= num(b, self)?,
            BP::ArithmeticGreaterThan => num(a, self)? > num(b, self)?,
            BP::ArithmeticGreaterThanOrEqualTo => num(a, self)? >= num(b, self)?,
            BP::FilesReferToSameDeviceAndInodeNumbers => {
                let sa = hostcalls::stat(&self.absolute(a), true).ok();
                let sb = hostcalls::stat(&self.absolute(b), true).ok();
                matches!((sa, sb), (Some(x), Some(y)) if x.ino == y.ino && x.dev == y.dev)
            }
            BP::LeftFileIsNewerOrExistsWhenRightDoesNot
            | BP::LeftFileIsOlderOrDoesNotExistWhenRightDoes => {
                let ta = hostcalls::stat(&self.absolute(a), true)
                    .ok()
                    .map(|s| s.mtime_ns);
                let tb = hostcalls::stat(&self.absolute(b), true)
                    .ok()
                    .map(|s| s.mtime_ns);
                if matches!(p, BP::LeftFileIsNewerOrExistsWhenRightDoesNot) {
                    match (ta, tb) {
                        (Some(x), Some(y)) => x > y,
                        (Some(_), None) => true,
                        _ => false,
                    }
                } else {
                    match (ta, tb) {
                        (Some(x), Some(y)) => x < y,
                        (None, Some(_)) => true,
                        _ => false,
                    }
                }
            }
        })
    }
}

pub fn is_valid_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// `read a b c`: split on IFS, the last name takes the rest of the line.
fn split_for_read(text: &str, ifs: &str, n: usize) -> Vec<String> {
    let is_ifs = |c: char| ifs.contains(c);
    let mut rest = text.trim_start_matches(|c: char| is_ifs(c) && c.is_whitespace());
    let mut out = Vec::new();
    while out.len() + 1 < n {
        match rest.find(is_ifs) {
            Some(i) => {
                out.push(rest[..i].to_string());
                rest = rest[i..].trim_start_matches(|c: char| is_ifs(c) && c.is_whitespace());
                if let Some(r) = rest.strip_prefix(|c: char| is_ifs(c) && !c.is_whitespace()) {
                    rest = r.trim_start_matches(|c: char| is_ifs(c) && c.is_whitespace());
                }
            }
            None => {
                out.push(rest.to_string());
                rest = "";
            }
        }
    }
    out.push(
        rest.trim_end_matches(|c: char| is_ifs(c) && c.is_whitespace())
            .to_string(),
    );
    out.resize(n, String::new());
    out
}

/// `echo -e` escapes; the bool is true after `\c` (stop output).
fn echo_escapes(s: &str) -> (String, bool) {
    crate::text::unescape(s, &gnu::escape::BASH_ECHO)
}

/// dash's echo escapes: bash's set without `\E`, `\x` and `\u`, and octal with or without the
/// leading `0` (`\101` and `\0101` are both `A`).
fn dash_echo_escapes(s: &str) -> (String, bool) {
    crate::text::unescape(s, &gnu::escape::DASH_ECHO)
}

/// bash 5.1's `shopt` options and their values in a non-interactive shell, in its order
/// (`bash -c shopt` on upstream's image).
pub const SHOPT_DEFAULTS: &[(&str, bool)] = &[
    ("autocd", false),
    ("assoc_expand_once", false),
    ("cdable_vars", false),
    ("cdspell", false),
    ("checkhash", false),
    ("checkjobs", false),
    ("checkwinsize", true),
    ("cmdhist", true),
    ("compat31", false),
    ("compat32", false),
    ("compat40", false),
    ("compat41", false),
    ("compat42", false),
    ("compat43", false),
    ("compat44", false),
    ("complete_fullquote", true),
    ("direxpand", false),
    ("dirspell", false),
    ("dotglob", false),
    ("execfail", false),
    ("expand_aliases", false),
    ("extdebug", false),
    ("extglob", false),
    ("extquote", true),
    ("failglob", false),
    ("force_fignore", true),
    ("globasciiranges", true),
    ("globstar", false),
    ("gnu_errfmt", false),
    ("histappend", false),
    ("histreedit", false),
    ("histverify", false),
    ("hostcomplete", true),
    ("huponexit", false),
    ("inherit_errexit", false),
    ("interactive_comments", true),
    ("lastpipe", false),
    ("lithist", false),
    ("localvar_inherit", false),
    ("localvar_unset", false),
    ("login_shell", false),
    ("mailwarn", false),
    ("no_empty_cmd_completion", false),
    ("nocaseglob", false),
    ("nocasematch", false),
    ("nullglob", false),
    ("progcomp", true),
    ("progcomp_alias", false),
    ("promptvars", true),
    ("restricted_shell", false),
    ("shift_verbose", false),
    ("sourcepath", true),
    ("xpg_echo", false),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dash_echo() {
        // dash 0.5.12: `sh -c 'echo "\0101\101\x41\e\E"'` prints `AA\x41`, ESC, `\E`.
        assert_eq!(
            dash_echo_escapes("\\0101\\101\\x41\\e\\E"),
            ("AA\\x41\x1b\\E".to_string(), false)
        );
        assert_eq!(dash_echo_escapes("a\\tb\\cd"), ("a\tb".to_string(), true));
    }

    #[test]
    fn quoting_round_trips_through_the_parser() {
        assert_eq!(shell_quote("abc"), "abc");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn read_splitting() {
        assert_eq!(split_for_read("  a b  c d ", " \t\n", 2), ["a", "b  c d"]);
        assert_eq!(split_for_read("a", " \t\n", 3), ["a", "", ""]);
        assert_eq!(split_for_read("a:b:c", ":", 2), ["a", "b:c"]);
    }

    #[test]
    fn echo_e() {
        assert_eq!(echo_escapes(r"a\tb\n"), ("a\tb\n".to_string(), false));
        assert_eq!(echo_escapes(r"x\cy"), ("x".to_string(), true));
        // Bytes above 0x7f are bytes, not code points.
        let (text, _) = echo_escapes(r"\x7f\x80\xff\0377A");
        assert_eq!(
            crate::text::output_bytes(&text).as_ref(),
            b"\x7f\x80\xff\xffA"
        );
    }
}
