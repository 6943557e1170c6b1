//! The shell's state: variables, functions, positional parameters, options, the working
//! directory and the descriptor table (shell fd → host handle).

use crate::text::output_bytes;
use brush_parser::ast;
use hostcalls::Handle;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Scalar(String),
    Indexed(BTreeMap<i64, String>),
    Assoc(BTreeMap<String, String>),
}

impl Value {
    /// `$name` of an array is its element 0.
    pub fn scalar(&self) -> String {
        match self {
            Value::Scalar(s) => s.clone(),
            Value::Indexed(m) => m.get(&0).cloned().unwrap_or_default(),
            Value::Assoc(m) => m.get("0").cloned().unwrap_or_default(),
        }
    }

    pub fn elements(&self) -> Vec<String> {
        match self {
            Value::Scalar(s) => vec![s.clone()],
            Value::Indexed(m) => m.values().cloned().collect(),
            Value::Assoc(m) => in_bash_order(m).map(|(_, v)| v.clone()).collect(),
        }
    }
}

/// An associative array's elements in the order bash 5.1 walks its hash table: by bucket
/// (the key's 32-bit FNV-1 hash modulo its 1024 buckets), for `${!m[@]}`, `${m[@]}`,
/// `declare -p`. (Keys sharing a bucket are listed newest first by bash; by name here.)
pub fn in_bash_order(m: &BTreeMap<String, String>) -> impl Iterator<Item = (&String, &String)> {
    let mut items: Vec<(&String, &String)> = m.iter().collect();
    items.sort_by_key(|(k, _)| bash_bucket(k, 1024));
    items.into_iter()
}

/// The bucket `key` falls in in one of bash's hash tables of `buckets` buckets (a power of
/// two): its `hash_string`, 32-bit FNV-1. Tables are walked bucket by bucket, so this is the
/// order bash lists them in: associative arrays (1024), variables (1024), `hash` (256).
pub fn bash_bucket(key: &str, buckets: u32) -> u32 {
    let hash = key.bytes().fold(2_166_136_261_u32, |h, b| {
        h.wrapping_mul(16_777_619) ^ u32::from(b)
    });
    hash & (buckets - 1)
}

#[derive(Debug, Clone)]
pub struct Var {
    pub value: Value,
    pub exported: bool,
    pub readonly: bool,
    /// `declare -i`: assignments are evaluated as arithmetic (`n+=1` adds).
    pub integer: bool,
    /// Declared without a value (`local x`, `export y`, `declare -i n`): its attributes
    /// exist, for `declare -p` and later assignments, but reading it finds it unset.
    pub declared_only: bool,
}

impl Var {
    /// A variable declared without a value, with no attributes yet.
    pub fn declared() -> Var {
        Var {
            value: Value::Scalar(String::new()),
            exported: false,
            readonly: false,
            integer: false,
            declared_only: true,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub errexit: bool,
    pub nounset: bool,
    pub xtrace: bool,
    pub pipefail: bool,
    pub noglob: bool,
    pub noclobber: bool,
    pub nullglob: bool,
    pub failglob: bool,
    pub dotglob: bool,
    pub extglob: bool,
    pub globstar: bool,
    pub nocaseglob: bool,
    /// `shopt` options the shell keeps but does not act on.
    pub other_shopts: std::collections::BTreeMap<String, bool>,
    /// `set -o` options the shell keeps but does not act on.
    pub other_set_o: std::collections::BTreeMap<String, bool>,
}

/// Why the normal flow of execution stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Flow {
    Normal,
    Break(u32),
    Continue(u32),
    Return,
    Exit,
    /// bash 5.1 found a syntax error in a `$(…)` while expanding a word: the rest of the
    /// complete command is dropped, the shell reads the next one (`$?` is 1), and a subshell
    /// ends (see [`Shell::run_program`]).
    Discard,
}

pub struct Shell {
    /// `$0`: what messages are prefixed with (`/bin/bash: line 1: …`).
    pub name: String,
    /// The shell program this instance was started as (`bash`, `sh`): what its own subshells
    /// are started as. Not `$0`, which `sh -c 'script' NAME` sets to any word.
    pub program: String,
    /// bash, or dash when started as `sh` (see [`crate::dialect`]).
    pub dialect: crate::dialect::Dialect,
    pub globals: HashMap<String, Var>,
    /// Stack of function-local scopes (`local`).
    pub locals: Vec<HashMap<String, Option<Var>>>,
    pub functions: HashMap<String, Rc<ast::FunctionDefinition>>,
    pub positional: Vec<String>,
    pub last_status: i32,
    /// How many `$(…)` have run: a command of assignments and redirections only takes the
    /// status of the last one it ran, or 0 when it ran none.
    pub command_substitutions: u64,
    pub pipestatus: Vec<i32>,
    pub options: Options,
    /// `set -o emacs`/`set -o vi`, which `bind` consults.
    pub editing: crate::readline::EditingMode,
    /// The key bindings `bind` lists and changes.
    pub bindings: crate::readline::Bindings,
    pub cwd: String,
    pub oldpwd: Option<String>,
    /// Shell fd → host handle.
    pub fds: BTreeMap<i32, Handle>,
    pub applets: Vec<String>,
    pub flow: Flow,
    pub exit_code: Option<i32>,
    /// Source line of the command being run, for error messages.
    pub line: usize,
    /// Lines before this shell's script in its parent's (a subshell reports the parent's
    /// line numbers, as bash's command substitutions and subshells do). Inside a function
    /// it maps the lines of the text the function was parsed from to the lines of its
    /// definition (see `function_line_base`), so it can be negative.
    pub line_base: i64,
    /// The `line_base` each function runs with: its definition's line in the script bash
    /// read, minus the line it has in the text this shell parsed it from (a subshell gets
    /// its functions from the prelude).
    pub function_line_base: HashMap<String, i64>,
    /// Each function's definition as written, when it could be cut from the script: the
    /// prelude hands it to subshells as it was, so lines inside it keep their numbers.
    pub function_texts: HashMap<String, Rc<str>>,
    /// The text the running program was parsed from, as the parser read it: a subshell's
    /// commands are cut from it with their line breaks, so their lines count as bash counts.
    pub source: Option<std::rc::Rc<str>>,
    pub pid: u32,
    pub last_bg_pid: Option<u32>,
    pub background: Vec<crate::jobs::Job>,
    /// Jobs reaped after a foreground command, with their statuses, for a later `wait PID`
    /// (bash remembers them too).
    pub reaped: Vec<(u32, i32)>,
    pub func_depth: usize,
    /// Loops running around the current command in this function (bash's `loop_level`: a
    /// function body starts at 0, so `break` there is "only meaningful in a loop").
    pub loop_depth: usize,
    /// The expansion error being reported is `set -u`'s or `${x?}`'s (fatal, status 127).
    pub unset_parameter_failed: bool,
    /// `trap` handlers: 0 is `EXIT`, then signal numbers, then DEBUG, ERR, RETURN (see
    /// [`crate::trap`]).
    pub traps: BTreeMap<i32, String>,
    /// The `ERR` trap is running (a failure inside it does not run it again).
    pub running_err_trap: bool,
    /// What bash's messages name instead of `$0` while a function runs: `BASH_SOURCE[0]` of
    /// its definition. bash runs a `-c` script before it counts itself initialised, so a
    /// function defined there comes "from the environment": `environment: line 1: …`.
    pub function_source: Option<Rc<str>>,
    /// Where each function was defined (see `function_source`).
    pub function_sources: HashMap<String, Rc<str>>,
    /// The source given to functions defined outside any function: `environment` in a `-c`
    /// script and its subshells, `$0` (a script's name) otherwise.
    pub definition_source: Option<Rc<str>>,
    pub subst_depth: usize,
    pub temp_counter: u32,
    /// Set while running the condition of if/while/&&/|| where `set -e` does not apply.
    pub errexit_suppressed: usize,
    pub in_subshell: bool,
    /// The simple command about to run is the last of the script bash was started with: an
    /// external one runs in bash's place (no fork) and sees `SHLVL` lowered, as after `exec`.
    pub oneshot: bool,
    /// Set for the script text bash was started with (`-c`, or a subshell's script), taken by
    /// the first [`Shell::run_program`].
    pub oneshot_allowed: bool,
    /// Temporary files of `<( )` to remove after the command.
    pub pending_cleanup: Vec<String>,
    /// `>( )` readers to run after the command: (file, command text).
    pub pending_writers: Vec<(String, String)>,
    /// Where `getopts` stopped inside a word of grouped options.
    pub getopts_position: crate::getopts::GetoptsPosition,
    /// `set -x`'s indirection level: command and process substitutions and `eval` show
    /// PS4's first character once more each (`++ echo sub`).
    pub trace_level: usize,
    /// The prelude a subshell starts with is not the user's: `set -x` does not show it.
    pub in_prelude: bool,
    /// `umask`'s value (see [`crate::umask`]).
    pub umask: u32,
    /// The programs this shell found on `PATH` (see [`crate::hash`]).
    pub hashed: Vec<crate::hash::Hashed>,
}

/// Nesting limit for functions, `source` and substitutions: deep recursion must end in a
/// bash-like error, not a guest stack overflow.
pub const MAX_DEPTH: usize = 200;

impl Shell {
    pub fn new(name: String, applets: &[&str]) -> Shell {
        let mut globals = HashMap::new();
        for (k, v) in std::env::vars() {
            globals.insert(
                k,
                Var {
                    value: Value::Scalar(v),
                    exported: true,
                    readonly: false,
                    integer: false,
                    declared_only: false,
                },
            );
        }
        // Where the host started this process.
        let cwd = hostcalls::start_dir()
            .map(str::to_string)
            .or_else(|| std::env::var("PWD").ok())
            .unwrap_or_else(|| "/".into());
        let pid: u32 = std::env::var("INTERCODE_PID")
            .ok()
            .and_then(|p| p.parse().ok())
            .unwrap_or(1);
        let program = name.rsplit('/').next().unwrap_or_default().to_string();
        let mut sh = Shell {
            name,
            dialect: crate::dialect::Dialect::of_program(&program),
            program,
            globals,
            locals: Vec::new(),
            functions: HashMap::new(),
            positional: Vec::new(),
            last_status: 0,
            command_substitutions: 0,
            // Nothing has run yet: `${PIPESTATUS[0]}` is empty.
            pipestatus: Vec::new(),
            options: Options::default(),
            editing: Default::default(),
            bindings: Default::default(),
            cwd,
            oldpwd: None,
            fds: BTreeMap::from([(0, 0), (1, 1), (2, 2)]),
            applets: applets.iter().map(|s| s.to_string()).collect(),
            flow: Flow::Normal,
            exit_code: None,
            line: 1,
            line_base: 0,
            function_line_base: HashMap::new(),
            function_texts: HashMap::new(),
            source: None,
            pid,
            last_bg_pid: None,
            background: Vec::new(),
            reaped: Vec::new(),
            func_depth: 0,
            loop_depth: 0,
            unset_parameter_failed: false,
            traps: BTreeMap::new(),
            running_err_trap: false,
            function_source: None,
            function_sources: HashMap::new(),
            definition_source: None,
            subst_depth: 0,
            temp_counter: 0,
            errexit_suppressed: 0,
            in_subshell: false,
            pending_cleanup: Vec::new(),
            pending_writers: Vec::new(),
            oneshot: false,
            oneshot_allowed: false,
            getopts_position: Default::default(),
            trace_level: 0,
            in_prelude: false,
            umask: 0o022,
            hashed: Vec::new(),
        };
        for (k, v) in [("IFS", " \t\n"), ("OPTIND", "1"), ("PS4", "+ ")] {
            if sh.get_var(k).is_none() {
                sh.set_scalar(k, v.to_string());
            }
        }
        let cwd = sh.cwd.clone();
        sh.set_scalar("PWD", cwd);
        sh
    }

    /// The variable `name` as assigned: one declared without a value is unset to a reader.
    fn lookup(&self, name: &str) -> Option<&Var> {
        self.get_declared(name).filter(|v| !v.declared_only)
    }

    /// The variable `name` with its attributes, whether or not it has a value (`declare -p`).
    pub fn get_declared(&self, name: &str) -> Option<&Var> {
        for scope in self.locals.iter().rev() {
            if let Some(v) = scope.get(name) {
                return v.as_ref();
            }
        }
        self.globals.get(name)
    }

    /// Declares `name` without a value where it does not exist yet, in the innermost scope
    /// when `local`; an existing variable keeps its value.
    pub fn declare_only(&mut self, name: &str, local: bool) {
        if local && let Some(scope) = self.locals.last_mut() {
            let slot = scope.entry(name.to_string()).or_insert(None);
            if slot.is_none() {
                *slot = Some(Var::declared());
            }
            return;
        }
        if self.get_declared(name).is_some() {
            return;
        }
        match self.lookup_mut(name) {
            // A local that was unset: declared again in its scope.
            Some(slot) => *slot = Some(Var::declared()),
            None => {
                self.globals.insert(name.to_string(), Var::declared());
            }
        }
    }

    /// Sets an attribute of `name` whether or not it has a value.
    fn declared_mut(&mut self, name: &str) -> Option<&mut Var> {
        let in_scope = self
            .locals
            .iter()
            .rposition(|scope| scope.contains_key(name));
        match in_scope {
            Some(i) => self.locals[i].get_mut(name).and_then(Option::as_mut),
            None => self.globals.get_mut(name),
        }
    }

    fn lookup_mut(&mut self, name: &str) -> Option<&mut Option<Var>> {
        self.locals
            .iter_mut()
            .rev()
            .find_map(|scope| scope.get_mut(name))
    }

    pub fn get_var(&self, name: &str) -> Option<&Var> {
        self.lookup(name)
    }

    /// `declare -i` on a variable (created empty when it does not exist).
    pub fn set_integer(&mut self, name: &str) {
        self.declare_only(name, false);
        if let Some(var) = self.declared_mut(name) {
            var.integer = true;
        }
    }

    pub fn is_integer(&self, name: &str) -> bool {
        self.get_declared(name).is_some_and(|v| v.integer)
    }

    pub fn get_scalar(&self, name: &str) -> Option<String> {
        match name {
            "RANDOM" => Some(((self.temp_counter as u64 * 1103515245 + 12345) % 32768).to_string()),
            "PWD" if self.lookup("PWD").is_none() => Some(self.cwd.clone()),
            _ => self.lookup(name).map(|v| v.value.scalar()),
        }
    }

    pub fn set_value(&mut self, name: &str, value: Value) -> Result<(), String> {
        if let Some(slot) = self.lookup_mut(name) {
            match slot {
                Some(v) if v.readonly => return Err(format!("{name}: readonly variable")),
                Some(v) => {
                    v.value = value;
                    v.declared_only = false;
                }
                None => {
                    *slot = Some(Var {
                        value,
                        exported: false,
                        readonly: false,
                        integer: false,
                        declared_only: false,
                    })
                }
            }
            return Ok(());
        }
        match self.globals.get_mut(name) {
            Some(v) if v.readonly => Err(format!("{name}: readonly variable")),
            Some(v) => {
                v.value = value;
                v.declared_only = false;
                Ok(())
            }
            None => {
                self.globals.insert(
                    name.to_string(),
                    Var {
                        value,
                        exported: false,
                        readonly: false,
                        integer: false,
                        declared_only: false,
                    },
                );
                Ok(())
            }
        }
    }

    pub fn set_scalar(&mut self, name: &str, value: String) {
        let _ = self.set_value(name, Value::Scalar(value));
    }

    pub fn set_element(&mut self, name: &str, index: &str, value: String) -> Result<(), String> {
        let current = self.lookup(name).map(|v| v.value.clone());
        let new = match current {
            Some(Value::Assoc(mut m)) => {
                m.insert(index.to_string(), value);
                Value::Assoc(m)
            }
            Some(Value::Indexed(mut m)) => {
                m.insert(index.parse().unwrap_or(0), value);
                Value::Indexed(m)
            }
            Some(Value::Scalar(s)) => {
                let mut m = BTreeMap::new();
                m.insert(0, s);
                m.insert(index.parse().unwrap_or(0), value);
                Value::Indexed(m)
            }
            None => {
                let mut m = BTreeMap::new();
                m.insert(index.parse().unwrap_or(0), value);
                Value::Indexed(m)
            }
        };
        self.set_value(name, new)
    }

    pub fn unset(&mut self, name: &str) {
        if let Some(slot) = self.lookup_mut(name) {
            *slot = None;
            return;
        }
        self.globals.remove(name);
    }

    /// Marks `name` exported; a name with no variable is declared without a value.
    pub fn export(&mut self, name: &str) {
        self.declare_only(name, false);
        if let Some(v) = self.declared_mut(name) {
            v.exported = true;
        }
    }

    /// Marks `name` read-only; a name with no variable is declared without a value.
    pub fn make_readonly(&mut self, name: &str) {
        self.declare_only(name, false);
        if let Some(v) = self.declared_mut(name) {
            v.readonly = true;
        }
    }

    /// The variables bash 5.1 sets at start-up (upstream's image: aarch64, root), for a shell
    /// started as `argv0` to run `script` (`BASH_EXECUTION_STRING`). `SHELLOPTS`, `BASHOPTS`,
    /// `PPID` and the like are computed where they are read.
    pub fn init_bash_variables(&mut self, argv0: &str, script: Option<&str>) {
        let bash = if argv0.contains('/') {
            argv0.to_string()
        } else {
            "/usr/bin/bash".to_string()
        };
        let machine = "aarch64-unknown-linux-gnu";
        let scalars = [
            ("BASH", bash.as_str()),
            ("BASH_VERSION", "5.1.16(1)-release"),
            ("HOSTTYPE", "aarch64"),
            ("MACHTYPE", machine),
            ("OSTYPE", "linux-gnu"),
            ("OPTERR", "1"),
            ("TERM", "dumb"),
            ("SHELL", "/bin/bash"),
        ];
        for (name, value) in scalars {
            if self.get_var(name).is_none() {
                self.set_scalar(name, value.to_string());
            }
        }
        if let Some(text) = script {
            self.set_scalar("BASH_EXECUTION_STRING", text.to_string());
        }
        // bash starts with OLDPWD exported and unset (`declare -x OLDPWD`) when the
        // environment has none; `cd` gives it a value.
        if self.get_declared("OLDPWD").is_none() {
            self.export("OLDPWD");
        }
        let mut readonly = |name: &str, value: Value| {
            self.globals.insert(
                name.to_string(),
                Var {
                    value,
                    exported: false,
                    readonly: true,
                    integer: false,
                    declared_only: false,
                },
            );
        };
        readonly("EUID", Value::Scalar("0".into()));
        readonly("UID", Value::Scalar("0".into()));
        let versinfo = ["5", "1", "16", "1", "release", machine];
        readonly(
            "BASH_VERSINFO",
            Value::Indexed(
                versinfo
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (i as i64, v.to_string()))
                    .collect(),
            ),
        );
        for name in [
            "BASH_ALIASES",
            "BASH_ARGC",
            "BASH_ARGV",
            "BASH_CMDS",
            "BASH_LINENO",
            "BASH_SOURCE",
            "DIRSTACK",
            "GROUPS",
        ] {
            if self.get_var(name).is_none() {
                let value = if name == "BASH_ALIASES" || name == "BASH_CMDS" {
                    Value::Assoc(Default::default())
                } else if name == "DIRSTACK" {
                    Value::Indexed(BTreeMap::from([(0, self.cwd.clone())]))
                } else if name == "GROUPS" {
                    // The root user's groups.
                    Value::Indexed(BTreeMap::from([(0, "0".to_string())]))
                } else {
                    Value::Indexed(BTreeMap::new())
                };
                let _ = self.set_value(name, value);
            }
        }
    }

    /// A new shell (not a subshell) raises `SHLVL` by one, as bash does at start-up.
    pub fn enter_shell_level(&mut self) {
        let level = self
            .get_scalar("SHLVL")
            .and_then(|v| v.trim().parse::<i64>().ok())
            .unwrap_or(0);
        self.globals.insert(
            "SHLVL".into(),
            Var {
                value: Value::Scalar((level + 1).max(0).to_string()),
                exported: true,
                readonly: false,
                integer: false,
                declared_only: false,
            },
        );
    }

    /// The environment handed to a child: exported variables, innermost scope winning.
    pub fn child_env(&self, extra: &[(String, String)]) -> Vec<(String, String)> {
        let mut env: BTreeMap<String, String> = BTreeMap::new();
        for (k, v) in &self.globals {
            if v.exported && !v.declared_only {
                env.insert(k.clone(), v.value.scalar());
            }
        }
        for scope in &self.locals {
            for (k, v) in scope {
                match v {
                    Some(v) if v.exported && !v.declared_only => {
                        env.insert(k.clone(), v.value.scalar());
                    }
                    _ => {}
                }
            }
        }
        for (k, v) in extra {
            env.insert(k.clone(), v.clone());
        }
        // bash exports PWD; an assignment before the command (`PWD=/x printenv PWD`) wins.
        env.entry("PWD".into()).or_insert_with(|| self.cwd.clone());
        env.into_iter().collect()
    }

    pub fn fd(&self, n: i32) -> Option<Handle> {
        self.fds.get(&n).copied()
    }

    /// Writes to a shell fd; errors (a closed pipe) are ignored like bash ignores EPIPE
    /// after SIGPIPE (the host already ended us if the pipe broke).
    pub fn write_fd(&self, n: i32, bytes: &[u8]) -> bool {
        self.try_write_fd(n, bytes).is_some_and(|r| r.is_ok())
    }

    /// The write's outcome, or `None` when the shell has no fd `n`.
    fn try_write_fd(&self, n: i32, bytes: &[u8]) -> Option<std::io::Result<()>> {
        self.fd(n).map(|h| hostcalls::write_all(h, bytes))
    }

    pub fn out(&self, s: &str) -> bool {
        self.write_fd(1, &output_bytes(s))
    }

    /// [`Self::out`] for a builtin that, as bash's `echo` and `printf` do, reports a failed
    /// write (`echo: write error: No space left on device`). A closed pipe is not reported:
    /// bash dies of SIGPIPE there.
    pub fn out_reporting(&self, builtin: &str, s: &str) -> bool {
        match self.try_write_fd(1, &output_bytes(s)) {
            None => false,
            Some(Ok(())) => true,
            Some(Err(e)) => {
                if e.kind() != std::io::ErrorKind::BrokenPipe {
                    let text = crate::error::error_text(&e);
                    self.error(&format!("{builtin}: write error: {text}"));
                }
                false
            }
        }
    }

    pub fn err(&self, s: &str) {
        self.write_fd(2, &output_bytes(s));
    }

    /// A parse error from [`crate::parse`]: bash prefixes each of its lines with its name.
    pub fn syntax_error(&self, prefix: &str, msg: &str) {
        let text: String = msg.lines().map(|l| format!("{prefix}: {l}\n")).collect();
        self.err(&text);
    }

    /// A line of the parsed text as bash numbers it (see `line_base`).
    pub fn shifted(&self, line: usize) -> usize {
        (line as i64 + self.line_base).max(0) as usize
    }

    /// `bash: line 3: message` — the prefix bash uses for errors in `-c` scripts.
    pub fn error(&self, msg: &str) {
        // A dropped command says nothing more (its expansion's failure has been reported).
        if self.flow == Flow::Discard {
            return;
        }
        let line = self.shifted(self.line);
        match self.dialect {
            crate::dialect::Dialect::Bash => {
                let name = self.function_source.as_deref().unwrap_or(&self.name);
                self.err(&format!("{name}: line {line}: {msg}\n"))
            }
            // dash: `sh: 1: foo: not found`
            crate::dialect::Dialect::Dash => self.err(&format!("{}: {line}: {msg}\n", self.name)),
        }
    }

    pub fn ifs(&self) -> String {
        self.get_scalar("IFS").unwrap_or_else(|| " \t\n".into())
    }

    /// Resolves a path against the shell's cwd, lexically (like bash's logical paths).
    /// `path` made absolute against the working directory; the empty path stays empty (it
    /// names no file, as on Linux, rather than the working directory).
    pub fn absolute(&self, path: &str) -> String {
        if path.is_empty() {
            return String::new();
        }
        let joined = if path.starts_with('/') {
            path.to_string()
        } else {
            format!("{}/{}", self.cwd.trim_end_matches('/'), path)
        };
        normalize(&joined)
    }

    pub fn next_temp_path(&mut self, what: &str) -> String {
        self.temp_counter += 1;
        format!("/tmp/.intercode-{what}-{}-{}", self.pid, self.temp_counter)
    }
}

/// Lexical normalisation of an absolute path: `.`, `..`, duplicate slashes.
pub fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_paths() {
        assert_eq!(normalize("/a/./b/../c//d/"), "/a/c/d");
        assert_eq!(normalize("/../.."), "/");
    }

    #[test]
    fn locals_shadow_globals() {
        let mut sh = Shell::new("bash".into(), &[]);
        sh.set_scalar("x", "g".into());
        sh.locals.push(HashMap::from([("x".to_string(), None)]));
        assert_eq!(sh.get_scalar("x"), None);
        sh.set_scalar("x", "l".into());
        assert_eq!(sh.get_scalar("x").as_deref(), Some("l"));
        sh.locals.pop();
        assert_eq!(sh.get_scalar("x").as_deref(), Some("g"));
    }
}
