//! The find command line: leading options, starting points, and the expression, parsed into
//! an [`Expr`] tree with GNU's precedence (`!` > `-a` > `-o` > `,`) and GNU's error texts.

use super::printf::{self, Piece};
use crate::common::getopt::parse_uint;
use crate::common::mode::ModeChange;
use crate::common::rx::{self, Rx, Syntax};
use crate::common::sys;
use crate::common::time::parse_date;

const DAY_NS: i64 = 86_400 * 1_000_000_000;
const MIN_NS: i64 = 60 * 1_000_000_000;

/// How symbolic links are treated (`-P`, `-H`, `-L`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    Never,
    CommandLine,
    Always,
}

/// A numeric comparison `+n`, `-n`, `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Eq,
    Gt,
}

impl Cmp {
    pub fn test(self, value: u64, n: u64) -> bool {
        match self {
            Cmp::Lt => value < n,
            Cmp::Eq => value == n,
            Cmp::Gt => value > n,
        }
    }
}

/// Which timestamp a time test looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeField {
    Access,
    Change,
    Modify,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermKind {
    Exact,
    All,
    Any,
}

/// Where an output action writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sink {
    Stdout,
    Stderr,
    Null,
    /// Index into [`Command::files`].
    File(usize),
}

/// One `-exec`/`-execdir`/`-ok`/`-okdir` occurrence.
#[derive(Debug, Clone)]
pub struct ExecSpec {
    /// The command and its arguments; for the `+` form without the `{}`.
    pub argv: Vec<String>,
    /// `-exec … {} +`.
    pub batch: bool,
    /// `-execdir`/`-okdir`: run in the file's directory with `./name`.
    pub in_dir: bool,
    /// `-ok`/`-okdir`: ask first (answered "no", see the module docs).
    pub ask: bool,
}

/// The expression tree: tests, actions and operators.
#[derive(Debug)]
pub enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
    Const(bool),
    Name {
        pat: String,
        icase: bool,
    },
    Path {
        pat: String,
        icase: bool,
    },
    LName {
        pat: String,
        icase: bool,
    },
    Regex(Box<Rx>),
    /// Set of type letters.
    Type(Vec<char>),
    XType(Vec<char>),
    Size {
        cmp: Cmp,
        n: u64,
        unit: u64,
    },
    Empty,
    /// `-mtime` & co.: compare against `reference` (ns); `Eq` matches
    /// `[reference, reference + window)`.
    Time {
        field: TimeField,
        cmp: Cmp,
        reference: i64,
        window: i64,
    },
    /// `-newer` & co.: the file's `field` is later than `reference` (ns).
    Newer {
        field: TimeField,
        reference: i64,
    },
    Perm {
        kind: PermKind,
        mode: u32,
    },
    Uid(Cmp, u64),
    Gid(Cmp, u64),
    NoUser,
    NoGroup,
    Links(Cmp, u64),
    Inum(Cmp, u64),
    SameFile {
        dev: u64,
        ino: u64,
    },
    /// `-fstype TYPE`: the type of the mount holding the file, in upstream's mount table.
    FsType(String),
    Readable,
    Writable,
    Executable,
    Prune,
    Quit,
    Print {
        sink: Sink,
        nul: bool,
    },
    Printf {
        sink: Sink,
        fmt: Vec<Piece>,
    },
    Ls {
        sink: Sink,
    },
    Delete,
    Exec(usize),
}

/// Everything the command line asked for.
#[derive(Debug)]
pub struct Command {
    pub follow: Follow,
    pub paths: Vec<String>,
    pub expr: Expr,
    pub maxdepth: Option<usize>,
    pub mindepth: usize,
    pub depth_first: bool,
    pub xdev: bool,
    pub execs: Vec<ExecSpec>,
    /// Files named by `-fprint` & co., opened (truncated) before the walk.
    pub files: Vec<String>,
    /// Warnings GNU prints while parsing (printed before the walk).
    pub warnings: Vec<String>,
}

/// Parse errors carry GNU's message; `usage` adds nothing (find prints no usage line).
#[derive(Debug)]
pub struct ParseError(pub String);

fn err<T>(msg: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError(msg.into()))
}

struct Parser<'a> {
    args: &'a [String],
    pos: usize,
    now: i64,
    /// The origin of day-based time tests: `now - 1 day`, or today's midnight after
    /// `-daystart` (GNU's `cur_day_start`).
    day_start: i64,
    follow: Follow,
    maxdepth: Option<usize>,
    mindepth: usize,
    depth_first: bool,
    explicit_depth: bool,
    xdev: bool,
    regex_syntax: Syntax,
    execs: Vec<ExecSpec>,
    files: Vec<String>,
    warnings: Vec<String>,
    warn: bool,
    has_action: bool,
    has_delete: bool,
    has_prune: bool,
    /// The last test or action seen (for "global option after argument" warnings).
    last_non_option: Option<String>,
    /// The last predicate that took an argument (for "possible unquoted pattern").
    last_pred_with_arg: Option<String>,
}

/// Parses `args` (without argv[0]); `now` is the start time in ns.
pub fn parse(args: &[String], now: i64) -> Result<Command, ParseError> {
    let mut p = Parser {
        args,
        pos: 0,
        now,
        day_start: now - DAY_NS,
        follow: Follow::Never,
        maxdepth: None,
        mindepth: 0,
        depth_first: false,
        explicit_depth: false,
        xdev: false,
        regex_syntax: Syntax::Emacs,
        execs: Vec::new(),
        files: Vec::new(),
        warnings: Vec::new(),
        warn: false,
        has_action: false,
        has_delete: false,
        has_prune: false,
        last_non_option: None,
        last_pred_with_arg: None,
    };
    // Leading options.
    while let Some(a) = args.get(p.pos) {
        match a.as_str() {
            "-P" => p.follow = Follow::Never,
            "-H" => p.follow = Follow::CommandLine,
            "-L" => p.follow = Follow::Always,
            "-D" => {
                p.pos += 1;
                if args.get(p.pos).is_none() {
                    return err("Missing argument after the -D option.");
                }
            }
            "--" => {
                p.pos += 1;
                break;
            }
            s if s.starts_with("-O") => {}
            s if s.starts_with("-D") => {}
            _ => break,
        }
        p.pos += 1;
    }
    // Starting points.
    let mut paths = Vec::new();
    while let Some(a) = args.get(p.pos) {
        if looks_like_expression(a) {
            break;
        }
        paths.push(a.clone());
        p.pos += 1;
    }
    if paths.is_empty() {
        paths.push(".".to_string());
    }
    let expr = if p.pos < args.len() {
        let e = p.parse_comma()?;
        if let Some(tok) = args.get(p.pos) {
            if tok == ")" {
                return err("you have too many ')'");
            }
            return p.paths_must_precede(tok);
        }
        e
    } else {
        Expr::Const(true)
    };
    let expr = if p.has_action {
        expr
    } else {
        Expr::And(
            Box::new(expr),
            Box::new(Expr::Print {
                sink: Sink::Stdout,
                nul: false,
            }),
        )
    };
    if p.has_delete && p.has_prune && !p.explicit_depth {
        return err(
            "The -delete action automatically turns on -depth, but -prune does nothing when -depth is in effect.  If you want to carry on anyway, just explicitly use the -depth option.",
        );
    }
    Ok(Command {
        follow: p.follow,
        paths,
        expr,
        maxdepth: p.maxdepth,
        mindepth: p.mindepth,
        depth_first: p.depth_first || p.has_delete,
        xdev: p.xdev,
        execs: p.execs,
        files: p.files,
        warnings: p.warnings,
    })
}

fn looks_like_expression(a: &str) -> bool {
    (a.starts_with('-') && a.len() > 1) || matches!(a, "(" | "!" | ")" | ",")
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.args.get(self.pos).map(String::as_str)
    }

    fn paths_must_precede<T>(&self, tok: &str) -> Result<T, ParseError> {
        let mut msg = format!("paths must precede expression: `{tok}'");
        // GNU adds a hint when the stray word names an existing file: a glob the shell
        // expanded after a pattern predicate.
        if hostcalls::stat(tok, false).is_ok()
            && let Some(pred) = &self.last_pred_with_arg
        {
            msg.push_str(&format!(
                "\nfind: possible unquoted pattern after predicate `{pred}'?"
            ));
        }
        err(msg)
    }

    fn parse_comma(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.parse_or()?;
        while self.peek() == Some(",") {
            self.pos += 1;
            if self.peek().is_none() || self.peek() == Some(")") {
                return err("expected an expression after ','");
            }
            let right = self.parse_or()?;
            left = Expr::Comma(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn parse_or(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.parse_and()?;
        while let Some(op @ ("-o" | "-or")) = self.peek() {
            let op = op.to_string();
            self.pos += 1;
            if self.peek().is_none() || self.peek() == Some(")") {
                return err(format!("expected an expression after '{op}'"));
            }
            let right = self.parse_and()?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn parse_and(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.parse_unary()?;
        loop {
            match self.peek() {
                None | Some(")" | "," | "-o" | "-or") => return Ok(left),
                Some(op @ ("-a" | "-and")) => {
                    let op = op.to_string();
                    self.pos += 1;
                    if self.peek().is_none() || self.peek() == Some(")") {
                        return err(format!("expected an expression after '{op}'"));
                    }
                }
                Some(_) => {}
            }
            let right = self.parse_unary()?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
    }

    fn parse_unary(&mut self) -> Result<Expr, ParseError> {
        let Some(tok) = self.peek() else {
            return err("invalid expression");
        };
        match tok {
            "!" | "-not" => {
                let tok = tok.to_string();
                self.pos += 1;
                if self.peek().is_none() || self.peek() == Some(")") {
                    return err(format!("expected an expression after '{tok}'"));
                }
                Ok(Expr::Not(Box::new(self.parse_unary()?)))
            }
            "(" => {
                self.pos += 1;
                if self.peek() == Some(")") {
                    return err("invalid expression; empty parentheses are not allowed.");
                }
                if self.peek().is_none() {
                    return err(
                        "invalid expression; I was expecting to find a ')' somewhere but did not see one.",
                    );
                }
                let e = self.parse_comma()?;
                if self.peek() != Some(")") {
                    return err(
                        "invalid expression; I was expecting to find a ')' somewhere but did not see one.",
                    );
                }
                self.pos += 1;
                Ok(e)
            }
            ")" => err("you have too many ')'"),
            "-o" | "-or" | "-a" | "-and" | "," => err(format!(
                "invalid expression; you have used a binary operator '{tok}' with nothing before it."
            )),
            _ => {
                self.pos += 1;
                let tok = tok.to_string();
                self.primary(&tok)
            }
        }
    }

    fn arg(&mut self, pred: &str) -> Result<String, ParseError> {
        match self.args.get(self.pos) {
            Some(a) => {
                self.pos += 1;
                self.last_pred_with_arg = Some(pred.to_string());
                Ok(a.clone())
            }
            None => err(format!("missing argument to `{pred}'")),
        }
    }

    fn global_option(&mut self, name: &str) {
        if self.warn
            && let Some(prev) = &self.last_non_option
        {
            self.warnings.push(format!(
                "warning: you have specified the global option {name} after the argument {prev}, but global options are not positional, i.e., {name} affects tests specified before it as well as those specified after it.  Please specify global options before other arguments."
            ));
        }
    }

    fn depth_arg(&mut self, pred: &str) -> Result<usize, ParseError> {
        let a = self.arg(pred)?;
        match parse_uint(&a) {
            Some(n) if !a.starts_with('+') => Ok(n as usize),
            _ => err(format!(
                "Expected a positive decimal integer argument to {pred}, but got '{a}'"
            )),
        }
    }

    fn numeric(&mut self, pred: &str) -> Result<(Cmp, u64), ParseError> {
        let a = self.arg(pred)?;
        let (cmp, digits) = split_cmp(&a);
        match digits.parse::<u64>() {
            Ok(n) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
                Ok((cmp, n))
            }
            _ => err(format!("invalid argument `{a}' to `{pred}'")),
        }
    }

    fn sink_file(&mut self, pred: &str) -> Result<Sink, ParseError> {
        let f = self.arg(pred)?;
        Ok(match f.as_str() {
            "/dev/stdout" => Sink::Stdout,
            "/dev/stderr" => Sink::Stderr,
            "/dev/null" => Sink::Null,
            _ => {
                self.files.push(f);
                Sink::File(self.files.len() - 1)
            }
        })
    }

    fn primary(&mut self, tok: &str) -> Result<Expr, ParseError> {
        let is_option = matches!(
            tok,
            "-maxdepth"
                | "-mindepth"
                | "-depth"
                | "-d"
                | "-xdev"
                | "-mount"
                | "-noleaf"
                | "-ignore_readdir_race"
                | "-noignore_readdir_race"
                | "-follow"
                | "-regextype"
                | "-warn"
                | "-nowarn"
                | "-daystart"
        );
        if !is_option {
            self.last_non_option = Some(tok.to_string());
        }
        let e = match tok {
            "-maxdepth" => {
                self.global_option(tok);
                self.maxdepth = Some(self.depth_arg(tok)?);
                Expr::Const(true)
            }
            "-mindepth" => {
                self.global_option(tok);
                self.mindepth = self.depth_arg(tok)?;
                Expr::Const(true)
            }
            "-depth" | "-d" => {
                self.global_option(tok);
                self.depth_first = true;
                self.explicit_depth = true;
                Expr::Const(true)
            }
            "-xdev" | "-mount" => {
                self.global_option(tok);
                self.xdev = true;
                Expr::Const(true)
            }
            "-noleaf" | "-ignore_readdir_race" | "-noignore_readdir_race" => Expr::Const(true),
            "-warn" => {
                self.warn = true;
                Expr::Const(true)
            }
            "-nowarn" => {
                self.warn = false;
                Expr::Const(true)
            }
            "-follow" => {
                self.global_option(tok);
                self.follow = Follow::Always;
                Expr::Const(true)
            }
            "-daystart" => {
                // Local midnight today; the sandbox's zone is UTC.
                let secs = self.now.div_euclid(1_000_000_000);
                self.day_start = secs.div_euclid(86_400) * 86_400 * 1_000_000_000;
                Expr::Const(true)
            }
            "-regextype" => {
                let t = self.arg(tok)?;
                self.regex_syntax = match t.as_str() {
                    "emacs" | "findutils-default" => Syntax::Emacs,
                    "posix-basic" | "posix-minimal-basic" | "ed" | "sed" | "grep" => Syntax::Basic,
                    "posix-extended" | "posix-egrep" | "egrep" | "posix-awk" | "awk"
                    | "gnu-awk" => Syntax::Extended,
                    _ => {
                        return err(format!(
                            "Unknown regular expression type '{t}'; valid types are 'findutils-default', 'ed', 'emacs', 'gnu-awk', 'grep', 'posix-awk', 'awk', 'posix-basic', 'posix-egrep', 'egrep', 'posix-extended', 'posix-minimal-basic', 'sed'."
                        ));
                    }
                };
                Expr::Const(true)
            }
            "-true" => Expr::Const(true),
            "-false" => Expr::Const(false),
            "-name" | "-iname" => {
                let pat = self.arg(tok)?;
                if self.warn && pat.contains('/') && pat != "/" {
                    self.warnings.push(format!("warning: '{tok}' matches against basenames only, but the given pattern contains a directory separator ('/'), thus the expression will evaluate to false all the time.  Did you mean '-wholename'?"));
                }
                Expr::Name {
                    pat,
                    icase: tok == "-iname",
                }
            }
            "-path" | "-wholename" | "-ipath" | "-iwholename" => Expr::Path {
                pat: self.arg(tok)?,
                icase: tok.starts_with("-i"),
            },
            "-lname" | "-ilname" => Expr::LName {
                pat: self.arg(tok)?,
                icase: tok == "-ilname",
            },
            "-regex" | "-iregex" => {
                let pat = self.arg(tok)?;
                let t = rx::translate(&pat, self.regex_syntax, rx::TrOptions::default())
                    .map_err(ParseError)?;
                // find matches the whole path.
                let anchored = rx::Translated {
                    pattern: format!("\\A(?:{})\\z", t.pattern),
                    ..t
                };
                Expr::Regex(Box::new(
                    Rx::from_translated(&anchored, tok == "-iregex").map_err(ParseError)?,
                ))
            }
            "-type" | "-xtype" => {
                let a = self.arg(tok)?;
                let types = parse_types(&a, tok)?;
                if tok == "-type" {
                    Expr::Type(types)
                } else {
                    Expr::XType(types)
                }
            }
            "-size" => {
                let a = self.arg(tok)?;
                let (cmp, rest) = split_cmp(&a);
                let (digits, unit) = match rest.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
                    Some((i, _)) => (&rest[..i], &rest[i..]),
                    None => (rest, ""),
                };
                let unit = match unit {
                    "" | "b" => 512,
                    "c" => 1,
                    "w" => 2,
                    "k" => 1024,
                    "M" => 1024 * 1024,
                    "G" => 1024 * 1024 * 1024,
                    u if u.len() == 1 => return err(format!("invalid -size type `{u}'")),
                    _ => return err(format!("Invalid argument `{a}' to -size")),
                };
                let Ok(n) = digits.parse::<u64>() else {
                    return err(format!("Invalid argument `{a}' to -size"));
                };
                Expr::Size { cmp, n, unit }
            }
            "-empty" => Expr::Empty,
            "-mtime" | "-atime" | "-ctime" | "-mmin" | "-amin" | "-cmin" => {
                let a = self.arg(tok)?;
                let field = time_field(tok);
                let (cmp, num) = split_cmp(&a);
                let valid = !num.is_empty()
                    && num.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                    && num.bytes().filter(|&b| b == b'.').count() <= 1;
                let n: f64 = match num.parse() {
                    Ok(n) if valid => n,
                    _ => return err(format!("invalid argument `{a}' to `{tok}'")),
                };
                let minutes = tok.ends_with("min");
                let (unit, origin) = if minutes {
                    // GNU measures minutes from `cur_day_start + 1 day`: now, or tomorrow's
                    // midnight after -daystart.
                    (MIN_NS, self.day_start + DAY_NS)
                } else if cmp == Cmp::Lt {
                    (DAY_NS, self.day_start + DAY_NS)
                } else {
                    (DAY_NS, self.day_start)
                };
                let offset = (n * unit as f64) as i64;
                Expr::Time {
                    field,
                    cmp,
                    reference: origin - offset,
                    window: unit,
                }
            }
            "-newer" | "-anewer" | "-cnewer" => {
                let f = self.arg(tok)?;
                let st = self.reference(&f)?;
                let field = match tok {
                    "-anewer" => TimeField::Access,
                    "-cnewer" => TimeField::Change,
                    _ => TimeField::Modify,
                };
                Expr::Newer {
                    field,
                    reference: st.mtime_ns,
                }
            }
            t if t.starts_with("-newer") && t.len() == 8 => {
                let x = t.as_bytes()[6];
                let y = t.as_bytes()[7];
                if !b"aBcm".contains(&x) || !b"aBcmt".contains(&y) {
                    return err(format!("invalid predicate `{t}'"));
                }
                let field = match x {
                    b'a' => TimeField::Access,
                    b'c' => TimeField::Change,
                    b'm' => TimeField::Modify,
                    _ => return err(format!("unknown predicate `{t}'")),
                };
                // GNU words a missing reference for these differently from other tests.
                let a = self
                    .arg(tok)
                    .or_else(|_| err(format!("The '{t}' test needs an argument")))?;
                let reference = if y == b't' {
                    match parse_date(&a) {
                        Some(ns) => ns,
                        None => {
                            return err(format!(
                                "I cannot figure out how to interpret `{a}' as a date or time"
                            ));
                        }
                    }
                } else {
                    let st = self.reference(&a)?;
                    match y {
                        b'a' => st.atime_ns,
                        b'c' => st.ctime_ns,
                        b'm' => st.mtime_ns,
                        _ => return err(format!("unknown predicate `{t}'")),
                    }
                };
                Expr::Newer { field, reference }
            }
            "-perm" => {
                let a = self.arg(tok)?;
                let (kind, body) = if let Some(b) = a.strip_prefix('-') {
                    (PermKind::All, b)
                } else if let Some(b) = a.strip_prefix('/') {
                    (PermKind::Any, b)
                } else {
                    (PermKind::Exact, a.as_str())
                };
                let Some(mc) = ModeChange::parse(body) else {
                    return err(format!("invalid mode '{a}'"));
                };
                // Symbolic modes are applied to 0 with no umask.
                let mode = mc.apply(0, false, 0);
                Expr::Perm { kind, mode }
            }
            "-user" => {
                let a = self.arg(tok)?;
                match sys::passwd().id(&a) {
                    Some(uid) => Expr::Uid(Cmp::Eq, u64::from(uid)),
                    None => match a.parse::<u64>() {
                        Ok(n) if a.bytes().all(|b| b.is_ascii_digit()) => Expr::Uid(Cmp::Eq, n),
                        _ => return err(format!("'{a}' is not the name of a known user")),
                    },
                }
            }
            "-group" => {
                let a = self.arg(tok)?;
                match sys::group().id(&a) {
                    Some(gid) => Expr::Gid(Cmp::Eq, u64::from(gid)),
                    None => match a.parse::<u64>() {
                        Ok(n) if a.bytes().all(|b| b.is_ascii_digit()) => Expr::Gid(Cmp::Eq, n),
                        _ => return err(format!("'{a}' is not the name of an existing group")),
                    },
                }
            }
            "-uid" => {
                let (c, n) = self.numeric(tok)?;
                Expr::Uid(c, n)
            }
            "-gid" => {
                let (c, n) = self.numeric(tok)?;
                Expr::Gid(c, n)
            }
            "-nouser" => Expr::NoUser,
            "-nogroup" => Expr::NoGroup,
            "-links" => {
                let (c, n) = self.numeric(tok)?;
                Expr::Links(c, n)
            }
            "-inum" => {
                let (c, n) = self.numeric(tok)?;
                Expr::Inum(c, n)
            }
            "-samefile" => {
                let f = self.arg(tok)?;
                let st = self.reference(&f)?;
                Expr::SameFile {
                    dev: st.dev,
                    ino: st.ino,
                }
            }
            "-fstype" => Expr::FsType(self.arg(tok)?),
            "-readable" => Expr::Readable,
            "-writable" => Expr::Writable,
            "-executable" => Expr::Executable,
            "-prune" => {
                self.has_prune = true;
                Expr::Prune
            }
            "-quit" => Expr::Quit,
            "-print" | "-print0" => {
                self.has_action = true;
                Expr::Print {
                    sink: Sink::Stdout,
                    nul: tok == "-print0",
                }
            }
            "-fprint" | "-fprint0" => {
                self.has_action = true;
                Expr::Print {
                    sink: self.sink_file(tok)?,
                    nul: tok == "-fprint0",
                }
            }
            "-printf" => {
                self.has_action = true;
                let f = self.arg(tok)?;
                let (fmt, warnings) = printf::compile(&f);
                self.warnings.extend(warnings);
                Expr::Printf {
                    sink: Sink::Stdout,
                    fmt,
                }
            }
            "-fprintf" => {
                self.has_action = true;
                let sink = self.sink_file(tok)?;
                let f = self.arg(tok)?;
                let (fmt, warnings) = printf::compile(&f);
                self.warnings.extend(warnings);
                Expr::Printf { sink, fmt }
            }
            "-ls" => {
                self.has_action = true;
                Expr::Ls { sink: Sink::Stdout }
            }
            "-fls" => {
                self.has_action = true;
                Expr::Ls {
                    sink: self.sink_file(tok)?,
                }
            }
            "-delete" => {
                self.has_action = true;
                self.has_delete = true;
                Expr::Delete
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                self.has_action = true;
                self.parse_exec(tok)?
            }
            "-help" | "--help" | "-version" | "--version" => {
                return err(format!("unsupported option `{tok}' in this build"));
            }
            _ => {
                if tok.starts_with('-') && tok.len() > 1 {
                    return err(format!("unknown predicate `{tok}'"));
                }
                return self.paths_must_precede(tok);
            }
        };
        Ok(e)
    }

    fn reference(&self, f: &str) -> Result<hostcalls::Stat, ParseError> {
        let follow = self.follow != Follow::Never;
        hostcalls::stat(f, follow)
            .or_else(|e| {
                if follow {
                    hostcalls::stat(f, false)
                } else {
                    Err(e)
                }
            })
            .map_err(|e| ParseError(format!("'{f}': {}", sys::strerror(&e))))
    }

    fn parse_exec(&mut self, tok: &str) -> Result<Expr, ParseError> {
        let name: &'static str = match tok {
            "-exec" => "-exec",
            "-execdir" => "-execdir",
            "-ok" => "-ok",
            _ => "-okdir",
        };
        let start = self.pos;
        let mut argv = Vec::new();
        let mut batch = false;
        loop {
            let Some(a) = self.args.get(self.pos) else {
                return err(format!("missing argument to `{name}'"));
            };
            self.pos += 1;
            if a == ";" {
                break;
            }
            if a == "+" && !argv.is_empty() && name.starts_with("-exec") {
                let prev: &String = argv.last().unwrap_or(a);
                if prev == "{}" {
                    argv.pop();
                    if argv.iter().any(|x: &String| x.contains("{}")) {
                        return err(format!(
                            "Only one instance of {{}} is supported with {name} ... +"
                        ));
                    }
                    batch = true;
                    break;
                }
                if prev.contains("{}") {
                    return err(format!(
                        "In '{name} ... {{}} +' the '{{}}' must appear by itself, but you specified '{prev}'"
                    ));
                }
            }
            argv.push(a.clone());
        }
        if argv.is_empty() {
            let term = &self.args[self.pos - 1];
            let _ = start;
            return err(format!("invalid argument `{term}' to `{name}'"));
        }
        self.execs.push(ExecSpec {
            argv,
            batch,
            in_dir: name.ends_with("dir"),
            ask: name.starts_with("-ok"),
        });
        Ok(Expr::Exec(self.execs.len() - 1))
    }
}

fn time_field(tok: &str) -> TimeField {
    match tok.as_bytes()[1] {
        b'a' => TimeField::Access,
        b'c' => TimeField::Change,
        _ => TimeField::Modify,
    }
}

fn split_cmp(a: &str) -> (Cmp, &str) {
    if let Some(r) = a.strip_prefix('+') {
        (Cmp::Gt, r)
    } else if let Some(r) = a.strip_prefix('-') {
        (Cmp::Lt, r)
    } else {
        (Cmp::Eq, a)
    }
}

fn parse_types(a: &str, pred: &str) -> Result<Vec<char>, ParseError> {
    let mut types = Vec::new();
    let chars: Vec<char> = a.chars().collect();
    if chars.is_empty() {
        return err(format!(
            "Arguments to {pred} should contain at least one letter"
        ));
    }
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !"bcdpflsD".contains(c) {
            return err(format!("Unknown argument to {pred}: {c}"));
        }
        if types.contains(&c) {
            return err(format!(
                "Duplicate file type '{c}' in the argument list to {pred}."
            ));
        }
        types.push(c);
        i += 1;
        if i < chars.len() {
            if chars[i] != ',' {
                return err(format!(
                    "Must separate multiple arguments to {pred} using: ','"
                ));
            }
            i += 1;
            if i == chars.len() {
                return err(format!(
                    "Last file type in list argument to {pred} is missing, i.e., list is ending on: ','"
                ));
            }
        }
    }
    Ok(types)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Command, ParseError> {
        let v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse(&v, 1_000 * DAY_NS)
    }

    fn e(args: &[&str]) -> String {
        p(args).unwrap_err().0
    }

    #[test]
    fn paths_and_default_print() {
        let c = p(&["/a", "b", "-name", "x"]).unwrap();
        assert_eq!(c.paths, vec!["/a", "b"]);
        assert!(matches!(c.expr, Expr::And(_, _)));
        let c = p(&[]).unwrap();
        assert_eq!(c.paths, vec!["."]);
    }

    #[test]
    fn gnu_error_texts() {
        assert_eq!(e(&[".", "-foo"]), "unknown predicate `-foo'");
        assert_eq!(e(&[".", "-name"]), "missing argument to `-name'");
        // findutils 4.8 (upstream's image).
        assert_eq!(
            e(&[".", "-newermt"]),
            "The '-newermt' test needs an argument"
        );
        assert_eq!(e(&[".", "-newerxt", "x"]), "invalid predicate `-newerxt'");
        assert_eq!(
            e(&[".", "-name", "a", "/nonexistent-b"]),
            "paths must precede expression: `/nonexistent-b'"
        );
        assert_eq!(e(&[".", "-type", "q"]), "Unknown argument to -type: q");
        assert_eq!(
            e(&[".", "-type", "f,"]),
            "Last file type in list argument to -type is missing, i.e., list is ending on: ','"
        );
        assert_eq!(
            e(&[".", "-type", "fd"]),
            "Must separate multiple arguments to -type using: ','"
        );
        assert_eq!(e(&[".", "-size", "3z"]), "invalid -size type `z'");
        assert_eq!(
            e(&[".", "-size", "1.5k"]),
            "Invalid argument `1.5k' to -size"
        );
        assert_eq!(e(&[".", "-mtime", "x"]), "invalid argument `x' to `-mtime'");
        assert_eq!(e(&[".", "-perm", "9"]), "invalid mode '9'");
        assert_eq!(
            e(&[".", "-maxdepth", "-1"]),
            "Expected a positive decimal integer argument to -maxdepth, but got '-1'"
        );
        assert_eq!(
            e(&[".", "(", "-name", "a"]),
            "invalid expression; I was expecting to find a ')' somewhere but did not see one."
        );
        assert_eq!(e(&[".", "-name", "a", ")"]), "you have too many ')'");
        assert_eq!(e(&[".", "!"]), "expected an expression after '!'");
        assert_eq!(
            e(&[".", "-o", "-name", "a"]),
            "invalid expression; you have used a binary operator '-o' with nothing before it."
        );
        assert_eq!(
            e(&[".", "-name", "a", "-o"]),
            "expected an expression after '-o'"
        );
        assert_eq!(
            e(&[".", "(", ")"]),
            "invalid expression; empty parentheses are not allowed."
        );
        assert_eq!(e(&[".", "-exec", "echo"]), "missing argument to `-exec'");
        assert_eq!(e(&[".", "-exec", ";"]), "invalid argument `;' to `-exec'");
        assert_eq!(
            e(&[".", "-exec", "echo", "{}x", "+"]),
            "In '-exec ... {} +' the '{}' must appear by itself, but you specified '{}x'"
        );
        assert_eq!(
            e(&[".", "-exec", "echo", "{}", "{}", "+"]),
            "Only one instance of {} is supported with -exec ... +"
        );
        assert_eq!(
            e(&[".", "-user", "nobody-such"]),
            "'nobody-such' is not the name of a known user"
        );
    }

    #[test]
    fn exec_forms() {
        let c = p(&[".", "-exec", "echo", "a", "+", ";"]).unwrap();
        assert_eq!(c.execs[0].argv, vec!["echo", "a", "+"]);
        assert!(!c.execs[0].batch);
        let c = p(&[".", "-exec", "md5sum", "{}", "+"]).unwrap();
        assert_eq!(c.execs[0].argv, vec!["md5sum"]);
        assert!(c.execs[0].batch);
    }

    #[test]
    fn time_references() {
        let now = 1_000 * DAY_NS;
        let c = p(&[".", "-mtime", "+7"]).unwrap();
        let Expr::And(l, _) = c.expr else { panic!() };
        let Expr::Time { cmp, reference, .. } = *l else {
            panic!()
        };
        assert_eq!(cmp, Cmp::Gt);
        assert_eq!(reference, now - 8 * DAY_NS);
        let c = p(&[".", "-mmin", "-60"]).unwrap();
        let Expr::And(l, _) = c.expr else { panic!() };
        let Expr::Time { reference, .. } = *l else {
            panic!()
        };
        assert_eq!(reference, now - 60 * MIN_NS);
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date("@10"), Some(10_000_000_000));
        assert_eq!(parse_date("1970-01-02"), Some(DAY_NS));
        assert_eq!(parse_date("1970-01-01 00:01"), Some(MIN_NS));
        assert_eq!(parse_date("yesterday"), None);
    }

    #[test]
    fn delete_with_prune_needs_depth() {
        assert!(e(&[".", "-delete", "-prune"]).starts_with("The -delete action"));
        assert!(p(&[".", "-depth", "-delete", "-prune"]).is_ok());
    }
}
