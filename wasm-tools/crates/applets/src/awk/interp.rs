//! The tree-walking interpreter: records and fields, variables and arrays, statements,
//! builtins, redirections and the main input loop.

use super::array::{Array, Sub};
use super::ast::*;
use super::format::{FormatError, sprintf};
use super::io::{CmdReader, CmdWriter, RecordReader, RsMode, system};
use super::lexer::{Builtin, unescape};
use super::regex::AwkRegex;
use super::value::{Str, Value, compare, num_to_str, to_int32};
use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::rc::Rc;

/// Function-call depth limit. Each awk call costs several interpreter frames on the guest's
/// (fixed, small) wasm stack; past this an error beats a stack-overflow trap.
const MAX_CALL_DEPTH: usize = 400;

/// Dynamic regexes compiled from strings are cached; the cache is cleared when full.
const REGEX_CACHE_MAX: usize = 256;

type ArrRef = Rc<RefCell<Array>>;

#[derive(Debug)]
enum Cell {
    Val(Value),
    Arr(ArrRef),
}

/// Non-local control flow and fatal errors, carried through `Result::Err`.
#[derive(Debug)]
pub enum Jump {
    Next,
    NextFile,
    Exit,
    Return(Value),
    Break,
    Continue,
    /// `run time error: …` with FILENAME/FNR/NR appended, exit 2.
    Runtime(String),
    /// A plain fatal message (`cannot open x (No such file or directory)`), exit 2.
    Fatal(String),
    /// Writing to a closed pipe: mawk dies of SIGPIPE, silently.
    BrokenPipe,
}

type R<T> = Result<T, Jump>;

/// Field separation mode, from FS.
#[derive(Clone)]
enum FieldSep {
    /// FS = " ": runs of blanks and newlines, leading and trailing ignored.
    Blank,
    Byte(u8),
    /// FS = "": one field per byte (mawk, gawk).
    Chars,
    Regex(Rc<AwkRegex>),
}

enum LRef {
    Global(usize),
    Local(usize),
    Field(usize),
    Elem(ArrRef, Str),
}

pub struct Io {
    pub stdin: Box<dyn Read>,
    pub stdout: Box<dyn Write>,
    pub stderr: Box<dyn Write>,
}

enum Output {
    Stdout,
    Stderr,
    File(io::BufWriter<std::fs::File>),
    Pipe(CmdWriter),
}

enum MainSrc {
    Stdin,
    File(RecordReader),
}

pub struct Interp {
    funcs: Rc<Vec<Function>>,
    rules: Rc<Vec<Rule>>,
    /// Global names, for `name=value` operands met while reading input.
    names: Rc<Vec<String>>,
    globals: Vec<Cell>,
    frames: Vec<Vec<Cell>>,
    gawk: bool,
    pub prog_name: String,

    // The record: `$0` (rebuilt from fields when `rec_dirty`) and its fields.
    record: Value,
    rec_dirty: bool,
    fields: Vec<Value>,
    fields_valid: bool,
    /// FS as it was when the record was read: a later FS change applies to the next record.
    record_fs: FieldSep,

    // Cached special variables.
    fs: FieldSep,
    rs: RsMode,
    ofs: Vec<u8>,
    ors: Vec<u8>,
    subsep: Vec<u8>,
    convfmt: Vec<u8>,
    ofmt: Vec<u8>,

    stdout: Box<dyn Write>,
    stderr: Box<dyn Write>,
    stdin_src: Option<Box<dyn Read>>,
    stdin: Option<RecordReader>,
    outputs: Vec<(Vec<u8>, Output)>,
    files_in: HashMap<Vec<u8>, RecordReader>,
    cmds_in: HashMap<Vec<u8>, (RecordReader, CmdReader)>,

    main_src: Option<MainSrc>,
    next_arg: usize,
    saw_file_arg: bool,
    main_done: bool,

    range_active: Vec<bool>,
    regex_cache: HashMap<Vec<u8>, Rc<AwkRegex>>,
    rng_state: u64,
    seed: f64,
    exit_code: i32,
    depth: usize,
    stack_base: usize,
}

fn cstr_err(e: &io::Error) -> String {
    // Rust appends " (os error N)" to the C message; awk prints only the message.
    let s = e.to_string();
    match s.find(" (os error") {
        Some(p) => s[..p].to_string(),
        None => s,
    }
}

fn str_rc(s: &[u8]) -> Str {
    Rc::from(s)
}

impl Interp {
    pub fn new(prog: Program, io: Io, gawk: bool, prog_name: String) -> Interp {
        let globals = prog
            .global_is_array
            .iter()
            .map(|&a| {
                if a {
                    Cell::Arr(Rc::new(RefCell::new(Array::default())))
                } else {
                    Cell::Val(Value::Uninit)
                }
            })
            .collect();
        let nrules = prog.rules.len();
        let mut it = Interp {
            funcs: Rc::new(prog.funcs),
            rules: Rc::new(prog.rules),
            names: Rc::new(prog.global_names),
            globals,
            frames: Vec::new(),
            gawk,
            prog_name,
            record: Value::Str(str_rc(b"")),
            rec_dirty: false,
            fields: Vec::new(),
            fields_valid: true,
            record_fs: FieldSep::Blank,
            fs: FieldSep::Blank,
            rs: RsMode::Byte(b'\n'),
            ofs: b" ".to_vec(),
            ors: b"\n".to_vec(),
            subsep: b"\x1c".to_vec(),
            convfmt: b"%.6g".to_vec(),
            ofmt: b"%.6g".to_vec(),
            stdout: io.stdout,
            stderr: io.stderr,
            stdin_src: Some(io.stdin),
            stdin: None,
            outputs: Vec::new(),
            files_in: HashMap::new(),
            cmds_in: HashMap::new(),
            main_src: None,
            next_arg: 1,
            saw_file_arg: false,
            main_done: false,
            range_active: vec![false; nrules],
            regex_cache: HashMap::new(),
            rng_state: 0,
            seed: 0.0,
            exit_code: 0,
            depth: 0,
            stack_base: super::stack::here(),
        };
        it.reseed(0.0);
        let s = |b: &[u8]| Value::Str(str_rc(b));
        it.globals[special::NR] = Cell::Val(Value::Num(0.0));
        it.globals[special::FNR] = Cell::Val(Value::Num(0.0));
        it.globals[special::NF] = Cell::Val(Value::Num(0.0));
        it.globals[special::FS] = Cell::Val(s(b" "));
        it.globals[special::OFS] = Cell::Val(s(b" "));
        it.globals[special::ORS] = Cell::Val(s(b"\n"));
        it.globals[special::RS] = Cell::Val(s(b"\n"));
        it.globals[special::SUBSEP] = Cell::Val(s(b"\x1c"));
        it.globals[special::CONVFMT] = Cell::Val(s(b"%.6g"));
        it.globals[special::OFMT] = Cell::Val(s(b"%.6g"));
        it.globals[special::RSTART] = Cell::Val(Value::Num(0.0));
        it.globals[special::RLENGTH] = Cell::Val(Value::Num(-1.0));
        it.globals[special::FILENAME] = Cell::Val(s(b""));
        it
    }

    /// Sets ARGV/ARGC and ENVIRON.
    pub fn set_args(&mut self, argv: &[Vec<u8>], env: &[(Vec<u8>, Vec<u8>)]) {
        if let Cell::Arr(a) = &self.globals[special::ARGV] {
            let mut a = a.borrow_mut();
            for (i, v) in argv.iter().enumerate() {
                let val = if i == 0 {
                    Value::Str(str_rc(v))
                } else {
                    Value::from_input(v)
                };
                let key = str_rc(i.to_string().as_bytes());
                if let Some(slot) = a.find(&key, Sub::Int(i as i32), true) {
                    a.set_value(slot, val);
                }
            }
        }
        self.globals[special::ARGC] = Cell::Val(Value::Num(argv.len() as f64));
        if let Cell::Arr(a) = &self.globals[special::ENVIRON] {
            let mut a = a.borrow_mut();
            for (k, v) in env {
                if let Some(slot) = a.find(&str_rc(k), Sub::Str, true) {
                    a.set_value(slot, Value::from_input(v));
                }
            }
        }
    }

    /// A `name=value` assignment from `-v` or an operand. Returns false when `s` is not one.
    pub fn command_line_assign(&mut self, s: &[u8]) -> bool {
        let Some(eq) = s.iter().position(|&c| c == b'=') else {
            return false;
        };
        let name = &s[..eq];
        let valid = !name.is_empty()
            && (name[0].is_ascii_alphabetic() || name[0] == b'_')
            && name.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_');
        if !valid {
            return false;
        }
        let value = Value::from_input(&unescape(&s[eq + 1..]));
        if let Some(i) = self.names.iter().position(|n| n.as_bytes() == name)
            && matches!(self.globals[i], Cell::Val(_))
        {
            self.set_global(i, value);
        }
        true
    }

    // ----- running -----

    pub fn run(&mut self, begin: &[Vec<Stmt>], end: &[Vec<Stmt>]) -> i32 {
        let r = self.run_inner(begin, end);
        let code = match r {
            Ok(()) => self.exit_code,
            Err(Jump::Runtime(msg)) => {
                let fname = self.get_global(special::FILENAME);
                let fnr = self.get_global(special::FNR);
                let nr = self.get_global(special::NR);
                let m = format!(
                    "{}: run time error: {}\n\tFILENAME=\"{}\" FNR={} NR={}\n",
                    self.prog_name,
                    msg,
                    String::from_utf8_lossy(&fname.to_str_with(b"%.6g")),
                    String::from_utf8_lossy(&fnr.to_str_with(b"%.6g")),
                    String::from_utf8_lossy(&nr.to_str_with(b"%.6g")),
                );
                // mawk's stdout is block-buffered and flushed at exit, after the message.
                let _ = self.stderr.write_all(m.as_bytes());
                2
            }
            Err(Jump::Fatal(msg)) => {
                let _ = writeln!(self.stderr, "{}: {}", self.prog_name, msg);
                2
            }
            Err(Jump::BrokenPipe) => {
                self.close_all();
                return 141;
            }
            // Stray control flow cannot escape the parser's checks; treat as a normal end.
            Err(_) => self.exit_code,
        };
        self.close_all();
        if self.stdout.flush().is_err() {
            return if code == 0 { 2 } else { code };
        }
        let _ = self.stderr.flush();
        code
    }

    fn run_inner(&mut self, begin: &[Vec<Stmt>], end: &[Vec<Stmt>]) -> R<()> {
        let mut exited = false;
        for b in begin {
            match self.exec_block(b) {
                Ok(()) => {}
                Err(Jump::Exit) => {
                    exited = true;
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if !exited && (!self.rules.is_empty() || !end.is_empty()) {
            let rules = self.rules.clone();
            'records: while let Some(rec) = self.next_main_record()? {
                self.set_record(rec);
                for (i, rule) in rules.iter().enumerate() {
                    let matched = match &rule.pattern {
                        Pattern::All => Ok(true),
                        Pattern::Expr(e) => self.eval_bool(e),
                        Pattern::Range(a, b) => self.range_match(i, a, b),
                    };
                    let matched = match matched {
                        Ok(m) => m,
                        Err(Jump::Exit) => {
                            exited = true;
                            break 'records;
                        }
                        Err(e) => return Err(e),
                    };
                    if !matched {
                        continue;
                    }
                    let r = match &rule.action {
                        Some(body) => self.exec_block(body),
                        None => self.print_record(),
                    };
                    match r {
                        Ok(()) => {}
                        Err(Jump::Next) => continue 'records,
                        Err(Jump::NextFile) => {
                            self.main_src = None;
                            continue 'records;
                        }
                        Err(Jump::Exit) => {
                            exited = true;
                            break 'records;
                        }
                        Err(e) => return Err(e),
                    }
                }
            }
        }
        let _ = exited;
        for b in end {
            match self.exec_block(b) {
                Ok(()) => {}
                Err(Jump::Exit) => break,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn range_match(&mut self, i: usize, a: &Expr, b: &Expr) -> R<bool> {
        if !self.range_active[i] {
            if !self.eval_bool(a)? {
                return Ok(false);
            }
            self.range_active[i] = true;
        }
        if self.eval_bool(b)? {
            self.range_active[i] = false;
        }
        Ok(true)
    }

    fn print_record(&mut self) -> R<()> {
        let rec = self.get_field(0)?;
        let mut out = Vec::new();
        rec.append_to(&mut out, &self.ofmt);
        out.extend_from_slice(&self.ors);
        self.write_stdout(&out)
    }

    fn write_stdout(&mut self, data: &[u8]) -> R<()> {
        self.stdout
            .write_all(data)
            .map_err(|e| self.write_error(&e))
    }

    fn write_error(&self, e: &io::Error) -> Jump {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Jump::BrokenPipe
        } else {
            Jump::Fatal(format!("write failure ({})", cstr_err(e)))
        }
    }

    fn close_all(&mut self) {
        // mawk closes redirections (waiting for `print | cmd` children) before its own
        // stdout is flushed at exit.
        for (_, o) in std::mem::take(&mut self.outputs) {
            match o {
                Output::File(mut f) => {
                    let _ = f.flush();
                }
                Output::Pipe(p) => {
                    p.close();
                }
                Output::Stdout | Output::Stderr => {}
            }
        }
        for (_, (r, c)) in std::mem::take(&mut self.cmds_in) {
            drop(r);
            c.close();
        }
    }

    fn flush_all(&mut self) {
        let _ = self.stdout.flush();
        let _ = self.stderr.flush();
        for (_, o) in self.outputs.iter_mut() {
            match o {
                Output::File(f) => {
                    let _ = f.flush();
                }
                Output::Pipe(p) => {
                    let _ = p.flush();
                }
                Output::Stdout | Output::Stderr => {}
            }
        }
    }

    // ----- main input -----

    fn stdin_reader(&mut self) -> &mut RecordReader {
        if self.stdin.is_none() {
            let src = self
                .stdin_src
                .take()
                .unwrap_or_else(|| Box::new(io::empty()));
            self.stdin = Some(RecordReader::new(src));
        }
        self.stdin.as_mut().expect("just set")
    }

    fn argc(&self) -> usize {
        let n = self.get_global(special::ARGC).to_num();
        if n.is_finite() && n > 0.0 {
            n as usize
        } else {
            0
        }
    }

    fn argv(&self, i: usize) -> Option<Value> {
        match &self.globals[special::ARGV] {
            Cell::Arr(a) => {
                let a = a.borrow();
                a.slot_of(i.to_string().as_bytes())
                    .map(|slot| a.value(slot).clone())
            }
            Cell::Val(_) => None,
        }
    }

    /// Opens the next input operand, performing `var=value` operands on the way.
    fn open_next_main(&mut self) -> R<bool> {
        while self.next_arg < self.argc() {
            let i = self.next_arg;
            self.next_arg += 1;
            let Some(arg) = self.argv(i) else { continue };
            let arg = arg.to_str_with(&self.convfmt);
            if arg.is_empty() {
                continue;
            }
            if self.command_line_assign(&arg) {
                continue;
            }
            self.saw_file_arg = true;
            self.set_global(special::FNR, Value::Num(0.0));
            if &*arg == b"-" || &*arg == b"/dev/stdin" {
                self.set_global(special::FILENAME, Value::Str(arg.clone()));
                self.main_src = Some(MainSrc::Stdin);
                return Ok(true);
            }
            let path = String::from_utf8_lossy(&arg).into_owned();
            match std::fs::File::open(&path) {
                Ok(f) => {
                    self.set_global(special::FILENAME, Value::Str(arg.clone()));
                    self.main_src = Some(MainSrc::File(RecordReader::new(Box::new(f))));
                    return Ok(true);
                }
                Err(e) => {
                    return Err(Jump::Fatal(format!(
                        "cannot open {} ({})",
                        path,
                        cstr_err(&e)
                    )));
                }
            }
        }
        if !self.saw_file_arg {
            // No file operands: read standard input once. mawk calls it "-".
            self.saw_file_arg = true;
            self.set_global(special::FILENAME, Value::Str(str_rc(b"-")));
            self.main_src = Some(MainSrc::Stdin);
            return Ok(true);
        }
        Ok(false)
    }

    /// Whether the main input being read (`FILENAME`) is a directory.
    fn main_is_directory(&self) -> bool {
        let name = self.get_global(special::FILENAME).to_str_with(b"%.6g");
        let name = String::from_utf8_lossy(&name);
        name != "-" && std::fs::metadata(&*name).is_ok_and(|m| m.is_dir())
    }

    /// The next main-input record, counting NR and FNR.
    fn next_main_record(&mut self) -> R<Option<Str>> {
        loop {
            if self.main_done {
                return Ok(None);
            }
            if self.main_src.is_none() && !self.open_next_main()? {
                self.main_done = true;
                return Ok(None);
            }
            let rs = self.rs.clone();
            let r = match self.main_src.as_mut() {
                Some(MainSrc::File(rd)) => rd.read_record(&rs),
                Some(MainSrc::Stdin) => self.stdin_reader().read_record(&rs),
                None => Ok(None),
            };
            match r {
                Ok(Some(rec)) => {
                    let nr = self.get_global(special::NR).to_num() + 1.0;
                    let fnr = self.get_global(special::FNR).to_num() + 1.0;
                    self.set_global(special::NR, Value::Num(nr));
                    self.set_global(special::FNR, Value::Num(fnr));
                    return Ok(Some(rec));
                }
                Ok(None) => self.main_src = None,
                // mawk opens a directory and fails reading it with EISDIR; WASI's read of a
                // directory says EBADF.
                Err(_) if self.main_is_directory() => {
                    return Err(Jump::Fatal("read error (Is a directory)".into()));
                }
                Err(e) => return Err(Jump::Fatal(format!("read error ({})", cstr_err(&e)))),
            }
        }
    }

    // ----- records and fields -----

    fn set_record(&mut self, text: Str) {
        self.record = Value::from_input_rc(text);
        self.rec_dirty = false;
        self.fields_valid = false;
        self.record_fs = self.fs.clone();
    }

    fn ensure_split(&mut self) {
        if self.fields_valid {
            return;
        }
        let text = self.record.to_str_with(&self.convfmt);
        let fs = self.record_fs.clone();
        self.fields = split_text(&text, &fs)
            .into_iter()
            .map(Value::from_input_rc)
            .collect();
        self.fields_valid = true;
        let nf = self.fields.len() as f64;
        self.globals[special::NF] = Cell::Val(Value::Num(nf));
    }

    fn rebuild_record(&mut self) {
        let mut out = Vec::new();
        for (i, f) in self.fields.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(&self.ofs);
            }
            f.append_to(&mut out, &self.convfmt);
        }
        self.record = Value::from_input_rc(Rc::from(out));
        self.rec_dirty = false;
    }

    fn field_index(&self, v: &Value) -> R<usize> {
        let d = v.to_num();
        let i = to_int32(d);
        if i < 0 {
            return Err(Jump::Runtime(format!(
                "negative field index ${}",
                String::from_utf8_lossy(&num_to_str(d, b"%.6g"))
            )));
        }
        Ok(i as usize)
    }

    fn get_field(&mut self, i: usize) -> R<Value> {
        if i == 0 {
            if self.rec_dirty {
                self.rebuild_record();
            }
            return Ok(self.record.clone());
        }
        self.ensure_split();
        // mawk: a field past NF is an empty string (so `$9 == 0` is false).
        Ok(self.fields.get(i - 1).cloned().unwrap_or_else(empty_str))
    }

    fn set_field(&mut self, i: usize, v: Value) -> R<()> {
        if i == 0 {
            let s = v.to_str_with(&self.convfmt);
            self.record = Value::from_input_rc(s);
            self.rec_dirty = false;
            self.fields_valid = false;
            self.record_fs = self.fs.clone();
            return Ok(());
        }
        // A sanity bound: `$1e9 = x` would otherwise allocate gigabytes.
        if i > 10_000_000 {
            return Err(Jump::Runtime(format!("field index ${i} too large")));
        }
        self.ensure_split();
        if i > self.fields.len() {
            self.fields.resize_with(i, empty_str);
            self.globals[special::NF] = Cell::Val(Value::Num(i as f64));
        }
        self.fields[i - 1] = v;
        self.rec_dirty = true;
        Ok(())
    }

    fn set_nf(&mut self, v: &Value) -> R<()> {
        self.ensure_split();
        let n = to_int32(v.to_num());
        if n < 0 {
            return Err(Jump::Runtime(format!("NF set to negative value {n}")));
        }
        let n = n as usize;
        if n > 10_000_000 {
            return Err(Jump::Runtime(format!("NF set to too large value {n}")));
        }
        self.fields.resize_with(n, empty_str);
        self.globals[special::NF] = Cell::Val(Value::Num(n as f64));
        self.rec_dirty = true;
        Ok(())
    }

    // ----- variables -----

    fn get_global(&self, i: usize) -> Value {
        match &self.globals[i] {
            Cell::Val(v) => v.clone(),
            Cell::Arr(_) => Value::Uninit,
        }
    }

    fn set_global(&mut self, i: usize, v: Value) {
        if i < special::COUNT {
            let s = || v.to_str_with(b"%.6g");
            match i {
                special::NF => {
                    // Assignments from awk code go through `set_nf` and report errors; here
                    // (operands, -v) a bad value just leaves NF alone.
                    let _ = self.set_nf(&v);
                    return;
                }
                special::FS => self.fs = field_sep(&s(), self.gawk, &mut self.regex_cache),
                special::RS => self.rs = record_sep(&s(), self.gawk),
                special::OFS => self.ofs = s().to_vec(),
                special::ORS => self.ors = s().to_vec(),
                special::SUBSEP => self.subsep = s().to_vec(),
                special::CONVFMT => self.convfmt = s().to_vec(),
                special::OFMT => self.ofmt = s().to_vec(),
                _ => {}
            }
        }
        self.globals[i] = Cell::Val(v);
    }

    fn get_var(&mut self, v: Var) -> R<Value> {
        match v {
            Var::Global(i) => {
                if i == special::NF {
                    self.ensure_split();
                }
                match &self.globals[i] {
                    Cell::Val(v) => Ok(v.clone()),
                    Cell::Arr(_) => Err(Jump::Runtime("can't use array in scalar context".into())),
                }
            }
            Var::Local(i) => match self.frames.last().and_then(|f| f.get(i)) {
                Some(Cell::Val(v)) => Ok(v.clone()),
                _ => Err(Jump::Runtime("can't use array in scalar context".into())),
            },
        }
    }

    fn array(&mut self, v: Var) -> R<ArrRef> {
        let cell = match v {
            Var::Global(i) => &mut self.globals[i],
            Var::Local(i) => self
                .frames
                .last_mut()
                .and_then(|f| f.get_mut(i))
                .ok_or_else(|| Jump::Runtime("bad local".into()))?,
        };
        match cell {
            Cell::Arr(a) => Ok(a.clone()),
            Cell::Val(Value::Uninit) => {
                let a: ArrRef = Rc::default();
                *cell = Cell::Arr(a.clone());
                Ok(a)
            }
            Cell::Val(_) => Err(Jump::Runtime("can't use scalar as array".into())),
        }
    }

    /// The subscript's string form and how mawk looks it up: an integral number by its
    /// value, anything else by string.
    fn subscript(&mut self, subs: &[Expr]) -> R<(Str, Sub)> {
        if subs.len() == 1 {
            let v = self.eval(&subs[0])?;
            if let Value::Num(d) = v {
                let i = to_int32(d);
                if i as f64 == d {
                    return Ok((str_rc(i.to_string().as_bytes()), Sub::Int(i as i32)));
                }
            }
            return Ok((v.to_str_with(&self.convfmt), Sub::Str));
        }
        let mut key = Vec::new();
        for (i, e) in subs.iter().enumerate() {
            if i > 0 {
                key.extend_from_slice(&self.subsep);
            }
            let v = self.eval(e)?;
            v.append_to(&mut key, &self.convfmt);
        }
        Ok((Rc::from(key), Sub::Str))
    }

    fn resolve(&mut self, lv: &Expr) -> R<LRef> {
        match lv {
            Expr::Var(Var::Global(i)) => Ok(LRef::Global(*i)),
            Expr::Var(Var::Local(i)) => Ok(LRef::Local(*i)),
            Expr::Field(e) => {
                let v = self.eval(e)?;
                Ok(LRef::Field(self.field_index(&v)?))
            }
            Expr::Index(a, subs) => {
                let (key, sub) = self.subscript(subs)?;
                let arr = self.array(*a)?;
                // Like mawk, the element exists (and moves to the front) before the
                // right-hand side is evaluated.
                arr.borrow_mut().find(&key, sub, true);
                Ok(LRef::Elem(arr, key))
            }
            Expr::Group(e) => self.resolve(e),
            _ => Err(Jump::Runtime("assignment to non-variable".into())),
        }
    }

    fn get_ref(&mut self, r: &LRef) -> R<Value> {
        match r {
            LRef::Global(i) => self.get_var(Var::Global(*i)),
            LRef::Local(i) => self.get_var(Var::Local(*i)),
            LRef::Field(i) => self.get_field(*i),
            LRef::Elem(a, k) => Ok(elem_slot(a, k, |a, slot| a.value(slot).clone())),
        }
    }

    fn set_ref(&mut self, r: &LRef, v: Value) -> R<()> {
        match r {
            LRef::Global(i) if *i == special::NF => self.set_nf(&v)?,
            LRef::Global(i) if *i == special::FS => {
                check_fs(&v.to_str_with(&self.convfmt), self.gawk).map_err(Jump::Runtime)?;
                self.set_global(*i, v);
            }
            LRef::Global(i) => self.set_global(*i, v),
            LRef::Local(i) => {
                if let Some(f) = self.frames.last_mut() {
                    f[*i] = Cell::Val(v);
                }
            }
            LRef::Field(i) => self.set_field(*i, v)?,
            LRef::Elem(a, k) => elem_slot(a, k, |a, slot| a.set_value(slot, v)),
        }
        Ok(())
    }

    fn assign(&mut self, lv: &Expr, v: Value) -> R<()> {
        let r = self.resolve(lv)?;
        self.set_ref(&r, v)
    }

    // ----- regexes -----

    fn regex_for(&mut self, e: &Expr) -> R<Rc<AwkRegex>> {
        if let Expr::Regex(re) = e {
            return Ok(re.clone());
        }
        let v = self.eval(e)?;
        let s = v.to_str_with(&self.convfmt);
        self.dyn_regex(&s)
    }

    fn dyn_regex(&mut self, s: &[u8]) -> R<Rc<AwkRegex>> {
        if let Some(r) = self.regex_cache.get(s) {
            return Ok(r.clone());
        }
        let re = AwkRegex::new(s, self.gawk).map_err(|why| {
            Jump::Runtime(format!(
                "regular expression compile failed ({why})\n{}",
                String::from_utf8_lossy(s)
            ))
        })?;
        let re = Rc::new(re);
        if self.regex_cache.len() >= REGEX_CACHE_MAX {
            self.regex_cache.clear();
        }
        self.regex_cache.insert(s.to_vec(), re.clone());
        Ok(re)
    }

    // ----- statements -----

    fn exec_block(&mut self, stmts: &[Stmt]) -> R<()> {
        for s in stmts {
            self.exec(s)?;
        }
        Ok(())
    }

    fn exec(&mut self, s: &Stmt) -> R<()> {
        if super::stack::exhausted(self.stack_base) {
            return Err(too_deep());
        }
        match s {
            Stmt::Expr(e) => {
                self.eval(e)?;
            }
            Stmt::Print(args, redir) => {
                let mut out = Vec::new();
                if args.is_empty() {
                    let rec = self.get_field(0)?;
                    rec.append_to(&mut out, &self.ofmt);
                } else {
                    for (i, a) in args.iter().enumerate() {
                        if i > 0 {
                            out.extend_from_slice(&self.ofs);
                        }
                        let v = self.eval(a)?;
                        v.append_to(&mut out, &self.ofmt);
                    }
                }
                out.extend_from_slice(&self.ors);
                self.emit(redir.as_ref(), &out)?;
            }
            Stmt::Printf(args, redir) => match self.format_call(args, "printf") {
                Ok(out) => self.emit(redir.as_ref(), &out)?,
                Err((partial, e)) => {
                    // mawk writes what it formatted before the missing argument.
                    self.emit(redir.as_ref(), &partial)?;
                    return Err(e);
                }
            },
            Stmt::If(c, t, e) => {
                if self.eval_bool(c)? {
                    self.exec(t)?;
                } else if let Some(e) = e {
                    self.exec(e)?;
                }
            }
            Stmt::While(c, body) => {
                while self.eval_bool(c)? {
                    match self.exec(body) {
                        Ok(()) | Err(Jump::Continue) => {}
                        Err(Jump::Break) => break,
                        Err(e) => return Err(e),
                    }
                }
            }
            Stmt::Do(body, c) => loop {
                match self.exec(body) {
                    Ok(()) | Err(Jump::Continue) => {}
                    Err(Jump::Break) => break,
                    Err(e) => return Err(e),
                }
                if !self.eval_bool(c)? {
                    break;
                }
            },
            Stmt::For(init, cond, step, body) => {
                if let Some(i) = init {
                    self.eval(i)?;
                }
                loop {
                    if let Some(c) = cond
                        && !self.eval_bool(c)?
                    {
                        break;
                    }
                    match self.exec(body) {
                        Ok(()) | Err(Jump::Continue) => {}
                        Err(Jump::Break) => break,
                        Err(e) => return Err(e),
                    }
                    if let Some(st) = step {
                        self.eval(st)?;
                    }
                }
            }
            Stmt::ForIn(var, arr, body) => {
                let a = self.array(*arr)?;
                // mawk loops over a snapshot of the keys: deleted ones still come, and the
                // loop variable is a string (not a strnum).
                let keys = a.borrow_mut().loop_keys();
                for k in keys {
                    let r = self.resolve(&Expr::Var(*var))?;
                    self.set_ref(&r, Value::Str(k))?;
                    match self.exec(body) {
                        Ok(()) | Err(Jump::Continue) => {}
                        Err(Jump::Break) => break,
                        Err(e) => return Err(e),
                    }
                }
            }
            Stmt::Block(b) => self.exec_block(b)?,
            Stmt::Next => return Err(Jump::Next),
            Stmt::NextFile => return Err(Jump::NextFile),
            Stmt::Exit(e) => {
                if let Some(e) = e {
                    let v = self.eval(e)?.to_num();
                    self.exit_code = to_int32(v) as i32;
                }
                return Err(Jump::Exit);
            }
            Stmt::Return(e) => {
                let v = match e {
                    Some(e) => self.eval(e)?,
                    None => Value::Uninit,
                };
                return Err(Jump::Return(v));
            }
            Stmt::Break => return Err(Jump::Break),
            Stmt::Continue => return Err(Jump::Continue),
            Stmt::Delete(arr, subs) => {
                let a = self.array(*arr)?;
                match subs {
                    Some(subs) => {
                        let (k, sub) = self.subscript(subs)?;
                        a.borrow_mut().delete(&k, sub);
                    }
                    None => a.borrow_mut().clear(),
                }
            }
            Stmt::Nop => {}
        }
        Ok(())
    }

    /// Formats for printf/sprintf; an error comes with the output formatted before it.
    fn format_call(&mut self, args: &[Expr], what: &str) -> Result<Vec<u8>, (Vec<u8>, Jump)> {
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.eval(a).map_err(|e| (Vec::new(), e))?);
        }
        let fmt = vals[0].to_str_with(&self.convfmt);
        sprintf(&fmt, &vals[1..], &self.convfmt).map_err(|e| match e {
            FormatError::NotEnoughArgs(partial) => (
                partial,
                Jump::Runtime(format!(
                    "not enough arguments passed to {what}(\"{}\")",
                    String::from_utf8_lossy(&fmt)
                )),
            ),
            FormatError::Improper(n) => (
                Vec::new(),
                Jump::Runtime(format!(
                    "improper conversion(number {n}) in {what}(\"{}\")",
                    String::from_utf8_lossy(&fmt)
                )),
            ),
        })
    }

    fn emit(&mut self, redir: Option<&(Redir, Expr)>, data: &[u8]) -> R<()> {
        let Some((kind, target)) = redir else {
            return self.write_stdout(data);
        };
        let name = self.eval(target)?.to_str_with(&self.convfmt).to_vec();
        let idx = match self.outputs.iter().position(|(n, _)| *n == name) {
            Some(i) => i,
            None => {
                let out = self.open_output(*kind, &name)?;
                self.outputs.push((name, out));
                self.outputs.len() - 1
            }
        };
        let r = match &mut self.outputs[idx].1 {
            Output::Stdout => self.stdout.write_all(data),
            Output::Stderr => self
                .stderr
                .write_all(data)
                .and_then(|()| self.stderr.flush()),
            Output::File(f) => f.write_all(data),
            Output::Pipe(p) => p.write_all(data),
        };
        r.map_err(|e| self.write_error(&e))
    }

    fn open_output(&mut self, kind: Redir, name: &[u8]) -> R<Output> {
        match (kind, name) {
            (Redir::File | Redir::Append, b"/dev/stdout" | b"-") => return Ok(Output::Stdout),
            (Redir::File | Redir::Append, b"/dev/stderr") => return Ok(Output::Stderr),
            _ => {}
        }
        let path = String::from_utf8_lossy(name).into_owned();
        match kind {
            Redir::Pipe => {
                self.flush_all();
                CmdWriter::spawn(name).map(Output::Pipe).map_err(|e| {
                    Jump::Fatal(format!("cannot open pipe \"{path}\" ({})", cstr_err(&e)))
                })
            }
            Redir::File | Redir::Append => {
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(kind == Redir::File)
                    .append(kind == Redir::Append)
                    .open(&path)
                    .map_err(|e| {
                        Jump::Fatal(format!(
                            "cannot open \"{path}\" for output ({})",
                            cstr_err(&e)
                        ))
                    })?;
                Ok(Output::File(io::BufWriter::new(f)))
            }
        }
    }

    // ----- expressions -----

    /// Evaluates an expression. Leaves are handled here without the big frame of
    /// [`Self::eval_node`]; most evaluations in a loop are leaves.
    #[inline]
    fn eval(&mut self, e: &Expr) -> R<Value> {
        match e {
            Expr::Num(n) => Ok(Value::Num(*n)),
            Expr::Str(s) => Ok(Value::Str(s.clone())),
            Expr::Var(Var::Global(i)) if *i != special::NF => match &self.globals[*i] {
                Cell::Val(v) => Ok(v.clone()),
                Cell::Arr(_) => self.eval_node(e),
            },
            _ => self.eval_node(e),
        }
    }

    /// A number, without building a `Value` for arithmetic subexpressions.
    fn eval_num(&mut self, e: &Expr) -> R<f64> {
        match e {
            Expr::Num(n) => Ok(*n),
            Expr::Var(Var::Global(i)) if *i != special::NF => match &self.globals[*i] {
                Cell::Val(v) => Ok(v.to_num()),
                Cell::Arr(_) => Ok(self.eval_node(e)?.to_num()),
            },
            Expr::Var(Var::Local(i)) => match self.frames.last().and_then(|f| f.get(*i)) {
                Some(Cell::Val(v)) => Ok(v.to_num()),
                _ => Ok(self.eval_node(e)?.to_num()),
            },
            Expr::Binary(op, a, b) => {
                if super::stack::exhausted(self.stack_base) {
                    return Err(too_deep());
                }
                let x = self.eval_num(a)?;
                let y = self.eval_num(b)?;
                Ok(arith(*op, x, y))
            }
            Expr::Neg(a) => Ok(-self.eval_num(a)?),
            Expr::Plus(a) | Expr::Group(a) => self.eval_num(a),
            _ => Ok(self.eval(e)?.to_num()),
        }
    }

    /// A truth value, without building a `Value` for conditions.
    fn eval_bool(&mut self, e: &Expr) -> R<bool> {
        match e {
            Expr::And(a, b) => Ok(self.eval_bool(a)? && self.eval_bool(b)?),
            Expr::Or(a, b) => Ok(self.eval_bool(a)? || self.eval_bool(b)?),
            Expr::Not(a) => Ok(!self.eval_bool(a)?),
            Expr::Group(a) => self.eval_bool(a),
            Expr::Cmp(op, a, b) => self.compare_op(*op, a, b),
            _ => Ok(self.eval(e)?.truthy()),
        }
    }

    fn compare_op(&mut self, op: CmpOp, a: &Expr, b: &Expr) -> R<bool> {
        let x = self.eval(a)?;
        let y = self.eval(b)?;
        let o = compare(&x, &y, &self.convfmt);
        use std::cmp::Ordering::*;
        Ok(match op {
            CmpOp::Lt => o == Less,
            CmpOp::Le => o != Greater,
            CmpOp::Gt => o == Greater,
            CmpOp::Ge => o != Less,
            CmpOp::Eq => o == Equal,
            CmpOp::Ne => o != Equal,
        })
    }

    fn eval_node(&mut self, e: &Expr) -> R<Value> {
        if super::stack::exhausted(self.stack_base) {
            return Err(too_deep());
        }
        Ok(match e {
            Expr::Num(n) => Value::Num(*n),
            Expr::Str(s) => Value::Str(s.clone()),
            Expr::Regex(re) => {
                let rec = self.get_field(0)?;
                let s = rec.to_str_with(&self.convfmt);
                bool_val(re.is_match(&s))
            }
            Expr::Var(v) => self.get_var(*v)?,
            Expr::Field(ie) => {
                let v = self.eval(ie)?;
                let i = self.field_index(&v)?;
                self.get_field(i)?
            }
            Expr::Index(a, subs) => {
                let (key, sub) = self.subscript(subs)?;
                let arr = self.array(*a)?;
                let mut ar = arr.borrow_mut();
                match ar.find(&key, sub, true) {
                    Some(slot) => ar.value(slot).clone(),
                    None => Value::Uninit,
                }
            }
            Expr::Assign(lv, op, rhs) => {
                let r = self.resolve(lv)?;
                let v = match op {
                    None => self.eval(rhs)?,
                    Some(op) => {
                        let y = self.eval_num(rhs)?;
                        let cur = self.get_ref(&r)?.to_num();
                        Value::Num(arith(*op, cur, y))
                    }
                };
                self.set_ref(&r, v.clone())?;
                // `$3 = x` yields the assigned value; for NF the normalised count.
                v
            }
            Expr::Cond(c, a, b) => {
                if self.eval_bool(c)? {
                    self.eval(a)?
                } else {
                    self.eval(b)?
                }
            }
            Expr::And(..) | Expr::Or(..) | Expr::Not(_) => bool_val(self.eval_bool(e)?),
            Expr::Plus(a) => Value::Num(self.eval(a)?.to_num()),
            Expr::Binary(..) | Expr::Neg(_) => Value::Num(self.eval_num(e)?),
            Expr::Cmp(op, a, b) => bool_val(self.compare_op(*op, a, b)?),
            Expr::Concat(a, b) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                let mut out = Vec::new();
                x.append_to(&mut out, &self.convfmt);
                y.append_to(&mut out, &self.convfmt);
                Value::Str(Rc::from(out))
            }
            Expr::Match(neg, l, r) => {
                let s = self.eval(l)?.to_str_with(&self.convfmt);
                let re = self.regex_for(r)?;
                bool_val(re.is_match(&s) != *neg)
            }
            Expr::In(subs, a) => {
                let (key, sub) = self.subscript(subs)?;
                let arr = self.array(*a)?;
                let has = arr.borrow_mut().find(&key, sub, false).is_some();
                bool_val(has)
            }
            Expr::IncDec { lv, inc, pre } => {
                let r = self.resolve(lv)?;
                let old = self.get_ref(&r)?.to_num();
                let new = if *inc { old + 1.0 } else { old - 1.0 };
                self.set_ref(&r, Value::Num(new))?;
                Value::Num(if *pre { new } else { old })
            }
            Expr::Call(fi, args) => self.call(*fi, args)?,
            Expr::Builtin(b, args) => self.builtin(*b, args)?,
            Expr::Getline { src, lv } => self.getline(src, lv.as_deref())?,
            Expr::Group(e) => self.eval(e)?,
        })
    }

    fn call(&mut self, fi: usize, args: &[Expr]) -> R<Value> {
        let funcs = self.funcs.clone();
        let f = &funcs[fi];
        if args.len() > f.nparams {
            return Err(Jump::Runtime(format!(
                "too many arguments in call to {}",
                f.name
            )));
        }
        if self.depth >= MAX_CALL_DEPTH {
            // mawk's words when its evaluation stack overflows (about 500 simple calls).
            return Err(Jump::Fatal(
                "program limit exceeded: eval stack size=1024".into(),
            ));
        }
        let mut frame = Vec::with_capacity(f.nparams);
        for i in 0..f.nparams {
            if f.param_is_array[i] {
                let a = match args.get(i) {
                    Some(Expr::Var(v)) => self.array(*v)?,
                    Some(_) => {
                        return Err(Jump::Runtime(format!(
                            "type error in arg({}) in call to {}",
                            i + 1,
                            f.name
                        )));
                    }
                    None => Rc::default(),
                };
                frame.push(Cell::Arr(a));
            } else {
                let v = match args.get(i) {
                    Some(Expr::Var(v)) => {
                        // A name whose kind was never settled may hold an array at run time.
                        match self.var_cell_is_array(*v) {
                            Some(a) => {
                                frame.push(Cell::Arr(a));
                                continue;
                            }
                            None => self.get_var(*v)?,
                        }
                    }
                    Some(e) => self.eval(e)?,
                    None => Value::Uninit,
                };
                frame.push(Cell::Val(v));
            }
        }
        self.frames.push(frame);
        self.depth += 1;
        let r = self.exec_block(&f.body);
        self.depth -= 1;
        self.frames.pop();
        match r {
            Ok(()) => Ok(Value::Uninit),
            Err(Jump::Return(v)) => Ok(v),
            Err(e) => Err(e),
        }
    }

    fn var_cell_is_array(&self, v: Var) -> Option<ArrRef> {
        let cell = match v {
            Var::Global(i) => self.globals.get(i),
            Var::Local(i) => self.frames.last().and_then(|f| f.get(i)),
        };
        match cell {
            Some(Cell::Arr(a)) => Some(a.clone()),
            _ => None,
        }
    }

    fn str_arg(&mut self, e: &Expr) -> R<Str> {
        Ok(self.eval(e)?.to_str_with(&self.convfmt))
    }

    fn num_arg(&mut self, e: &Expr) -> R<f64> {
        Ok(self.eval(e)?.to_num())
    }

    fn builtin(&mut self, b: Builtin, args: &[Expr]) -> R<Value> {
        Ok(match b {
            Builtin::Length => {
                let n = match args.first() {
                    None => self.get_field(0)?.to_str_with(&self.convfmt).len(),
                    Some(Expr::Var(v)) => match self.var_cell_is_array(*v) {
                        Some(a) => a.borrow().len(),
                        None => self.get_var(*v)?.to_str_with(&self.convfmt).len(),
                    },
                    Some(e) => self.str_arg(e)?.len(),
                };
                Value::Num(n as f64)
            }
            Builtin::Substr => {
                let s = self.str_arg(&args[0])?;
                let m = self.num_arg(&args[1])?;
                let n = match args.get(2) {
                    Some(e) => Some(self.num_arg(e)?),
                    None => None,
                };
                Value::Str(str_rc(substr(&s, m, n)))
            }
            Builtin::Index => {
                let s = self.str_arg(&args[0])?;
                let t = self.str_arg(&args[1])?;
                let i = if t.is_empty() {
                    // mawk finds the empty string at position 1.
                    1
                } else {
                    s.windows(t.len())
                        .position(|w| w == &t[..])
                        .map_or(0, |p| p + 1)
                };
                Value::Num(i as f64)
            }
            Builtin::Split => self.split(args)?,
            Builtin::Sub | Builtin::Gsub => self.substitute(b == Builtin::Gsub, args)?,
            Builtin::Match => {
                let s = self.str_arg(&args[0])?;
                let re = self.regex_for(&args[1])?;
                let (start, len) = match re.find_at(&s, 0) {
                    Some((a, b)) => (a as f64 + 1.0, (b - a) as f64),
                    None => (0.0, -1.0),
                };
                self.set_global(special::RSTART, Value::Num(start));
                self.set_global(special::RLENGTH, Value::Num(len));
                Value::Num(start)
            }
            Builtin::Sprintf => match self.format_call(args, "sprintf") {
                Ok(s) => Value::Str(Rc::from(s)),
                Err((_, e)) => return Err(e),
            },
            Builtin::Sin => Value::Num(self.num_arg(&args[0])?.sin()),
            Builtin::Cos => Value::Num(self.num_arg(&args[0])?.cos()),
            Builtin::Atan2 => {
                let y = self.num_arg(&args[0])?;
                let x = self.num_arg(&args[1])?;
                Value::Num(y.atan2(x))
            }
            Builtin::Exp => Value::Num(self.num_arg(&args[0])?.exp()),
            Builtin::Log => {
                let x = self.num_arg(&args[0])?;
                // glibc returns -NaN for log of a negative number; mawk prints "-nan".
                Value::Num(if x < 0.0 { -f64::NAN } else { x.ln() })
            }
            Builtin::Sqrt => {
                let x = self.num_arg(&args[0])?;
                Value::Num(if x < 0.0 { -f64::NAN } else { x.sqrt() })
            }
            Builtin::Int => Value::Num(self.num_arg(&args[0])?.trunc()),
            Builtin::Rand => Value::Num(self.rand()),
            Builtin::Srand => {
                let prev = self.seed;
                let new = match args.first() {
                    Some(e) => self.num_arg(e)?,
                    None => std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map(|d| d.as_secs() as f64)
                        .unwrap_or(0.0),
                };
                self.reseed(new);
                Value::Num(prev)
            }
            Builtin::Tolower | Builtin::Toupper => {
                let mut s = self.str_arg(&args[0])?.to_vec();
                if b == Builtin::Tolower {
                    s.make_ascii_lowercase();
                } else {
                    s.make_ascii_uppercase();
                }
                Value::Str(Rc::from(s))
            }
            Builtin::System => {
                let cmd = self.str_arg(&args[0])?;
                self.flush_all();
                Value::Num(f64::from(system(&cmd)))
            }
            Builtin::Close => {
                let name = self.str_arg(&args[0])?;
                Value::Num(f64::from(self.close(&name)))
            }
            Builtin::Systime => Value::Num(now_secs() as f64),
            Builtin::Strftime => {
                let fmt = match args.first() {
                    Some(e) => self.str_arg(e)?.to_vec(),
                    None => b"%c".to_vec(),
                };
                let t = match args.get(1) {
                    Some(e) => self.num_arg(e)?.trunc() as i64,
                    None => now_secs(),
                };
                if let Some(e) = args.get(2) {
                    self.eval(e)?;
                }
                // The sandbox runs on UTC (as upstream's containers did, with no TZ set).
                Value::Str(Rc::from(super::time::strftime(&fmt, t)))
            }
            Builtin::Mktime => {
                let spec = self.str_arg(&args[0])?;
                Value::Num(super::time::mktime(&spec).map_or(-1.0, |t| t as f64))
            }
            Builtin::Fflush => {
                match args.first() {
                    None => {
                        let _ = self.stdout.flush();
                    }
                    Some(e) => {
                        let name = self.str_arg(e)?;
                        if let Some((_, o)) = self.outputs.iter_mut().find(|(n, _)| **n == *name) {
                            let _ = match o {
                                Output::File(f) => f.flush(),
                                Output::Pipe(p) => p.flush(),
                                Output::Stdout => self.stdout.flush(),
                                Output::Stderr => self.stderr.flush(),
                            };
                        } else {
                            return Ok(Value::Num(-1.0));
                        }
                    }
                }
                Value::Num(0.0)
            }
        })
    }

    fn close(&mut self, name: &[u8]) -> i32 {
        if let Some(i) = self.outputs.iter().position(|(n, _)| n == name) {
            let (_, o) = self.outputs.remove(i);
            return match o {
                Output::File(mut f) => {
                    if f.flush().is_ok() {
                        0
                    } else {
                        -1
                    }
                }
                Output::Pipe(p) => p.close(),
                Output::Stdout => i32::from(self.stdout.flush().is_err()),
                Output::Stderr => 0,
            };
        }
        if let Some((r, c)) = self.cmds_in.remove(name) {
            drop(r);
            return c.close();
        }
        if self.files_in.remove(name).is_some() {
            return 0;
        }
        -1
    }

    fn reseed(&mut self, seed: f64) {
        self.seed = seed;
        // splitmix64 of the seed's bits: any seed gives a well-mixed state.
        let mut z = seed.to_bits().wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        self.rng_state = (z ^ (z >> 31)) | 1;
    }

    fn rand(&mut self) -> f64 {
        // xorshift64*: rand() values are not mawk's anyway (mawk seeds from the clock).
        let mut x = self.rng_state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng_state = x;
        let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (r >> 11) as f64 / (1u64 << 53) as f64
    }

    fn split(&mut self, args: &[Expr]) -> R<Value> {
        let s = self.str_arg(&args[0])?;
        let Expr::Var(av) = &args[1] else {
            return Err(Jump::Runtime(
                "split: second argument is not an array".into(),
            ));
        };
        let sep = match args.get(2) {
            None => self.fs.clone(),
            Some(Expr::Regex(re)) => FieldSep::Regex(re.clone()),
            Some(e) => {
                let fs = self.str_arg(e)?;
                field_sep(&fs, self.gawk, &mut self.regex_cache)
            }
        };
        let parts = split_text(&s, &sep);
        let arr = self.array(*av)?;
        let n = parts.len();
        arr.borrow_mut()
            .load_split(parts.into_iter().map(Value::from_input_rc).collect());
        Ok(Value::Num(n as f64))
    }

    fn substitute(&mut self, global: bool, args: &[Expr]) -> R<Value> {
        let re = self.regex_for(&args[0])?;
        let repl = self.str_arg(&args[1])?;
        let target_expr = args.get(2);
        let r = match target_expr {
            Some(e) if e.is_lvalue() || matches!(e, Expr::Group(_)) => Some(self.resolve(e)?),
            Some(_) => None,
            None => Some(LRef::Field(0)),
        };
        let target = match (&r, target_expr) {
            (Some(r), _) => self.get_ref(r)?,
            (None, Some(e)) => self.eval(e)?,
            (None, None) => Value::Uninit,
        };
        let s = target.to_str_with(&self.convfmt);
        let mut out = Vec::with_capacity(s.len());
        let mut count = 0usize;
        let mut pos = 0usize;
        let mut last_nonempty_end: Option<usize> = None;
        while pos <= s.len() {
            let Some((ms, me)) = re.find_at(&s, pos) else {
                break;
            };
            if ms == me {
                // An empty match right after a non-empty one is not a new match.
                if last_nonempty_end == Some(ms) {
                    if ms < s.len() {
                        out.push(s[ms]);
                    }
                    pos = ms + 1;
                    last_nonempty_end = None;
                    continue;
                }
                out.extend_from_slice(&s[pos..ms]);
                append_repl(&mut out, &repl, &s[ms..me]);
                count += 1;
                if ms < s.len() {
                    out.push(s[ms]);
                }
                pos = ms + 1;
            } else {
                out.extend_from_slice(&s[pos..ms]);
                append_repl(&mut out, &repl, &s[ms..me]);
                count += 1;
                pos = me;
                last_nonempty_end = Some(me);
            }
            if !global {
                break;
            }
        }
        if count > 0 {
            if pos < s.len() {
                out.extend_from_slice(&s[pos..]);
            }
            if let Some(r) = r {
                self.set_ref(&r, Value::Str(Rc::from(out)))?;
            }
        }
        Ok(Value::Num(count as f64))
    }

    // ----- getline -----

    fn getline(&mut self, src: &GetSrc, lv: Option<&Expr>) -> R<Value> {
        match src {
            GetSrc::Main => match self.next_main_record()? {
                None => Ok(Value::Num(0.0)),
                Some(rec) => {
                    self.store_getline(lv, rec)?;
                    Ok(Value::Num(1.0))
                }
            },
            GetSrc::File(fe) => {
                let name = self.str_arg(fe)?.to_vec();
                let rs = self.rs.clone();
                let r = if name == b"-" || name == b"/dev/stdin" {
                    self.stdin_reader().read_record(&rs)
                } else {
                    if !self.files_in.contains_key(&name) {
                        let path = String::from_utf8_lossy(&name).into_owned();
                        match std::fs::File::open(&path) {
                            Ok(f) => {
                                self.files_in
                                    .insert(name.clone(), RecordReader::new(Box::new(f)));
                            }
                            Err(_) => return Ok(Value::Num(-1.0)),
                        }
                    }
                    self.files_in
                        .get_mut(&name)
                        .expect("inserted above")
                        .read_record(&rs)
                };
                match r {
                    Ok(Some(rec)) => {
                        match lv {
                            Some(lv) => self.assign(lv, Value::from_input_rc(rec))?,
                            None => {
                                self.set_record(rec);
                                self.ensure_split();
                            }
                        }
                        Ok(Value::Num(1.0))
                    }
                    Ok(None) => Ok(Value::Num(0.0)),
                    Err(_) => Ok(Value::Num(-1.0)),
                }
            }
            GetSrc::Cmd(ce) => {
                let cmd = self.str_arg(ce)?.to_vec();
                if !self.cmds_in.contains_key(&cmd) {
                    self.flush_all();
                    match CmdReader::spawn(&cmd) {
                        Ok((c, pipe)) => {
                            self.cmds_in
                                .insert(cmd.clone(), (RecordReader::new(Box::new(pipe)), c));
                        }
                        Err(_) => return Ok(Value::Num(-1.0)),
                    }
                }
                let rs = self.rs.clone();
                let r = self
                    .cmds_in
                    .get_mut(&cmd)
                    .expect("inserted above")
                    .0
                    .read_record(&rs);
                match r {
                    // mawk does not count command input in NR (POSIX says it should).
                    Ok(Some(rec)) => {
                        match lv {
                            Some(lv) => self.assign(lv, Value::from_input_rc(rec))?,
                            None => {
                                self.set_record(rec);
                                self.ensure_split();
                            }
                        }
                        Ok(Value::Num(1.0))
                    }
                    Ok(None) => Ok(Value::Num(0.0)),
                    Err(_) => Ok(Value::Num(-1.0)),
                }
            }
        }
    }

    fn store_getline(&mut self, lv: Option<&Expr>, rec: Str) -> R<()> {
        match lv {
            Some(lv) => self.assign(lv, Value::from_input_rc(rec)),
            None => {
                self.set_record(rec);
                Ok(())
            }
        }
    }
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

fn too_deep() -> Jump {
    Jump::Fatal("program limit exceeded: nesting too deep for the stack".into())
}

/// Runs `f` on the element `k` of `a`, recreating it if the program deleted it meanwhile.
fn elem_slot<T>(a: &ArrRef, k: &Str, f: impl FnOnce(&mut Array, usize) -> T) -> T {
    let mut a = a.borrow_mut();
    let slot = match a.slot_of(k) {
        Some(s) => s,
        None => a
            .find(k, Sub::Str, true)
            .expect("creating an element always yields a slot"),
    };
    f(&mut a, slot)
}

fn empty_str() -> Value {
    Value::Str(Rc::from(&b""[..]))
}

fn bool_val(b: bool) -> Value {
    Value::Num(if b { 1.0 } else { 0.0 })
}

fn arith(op: BinOp, x: f64, y: f64) -> f64 {
    match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        // IEEE division: 1/0 is inf and 0/0 nan, as mawk prints them (no error).
        BinOp::Div => x / y,
        BinOp::Mod => x % y,
        BinOp::Pow => x.powf(y),
    }
}

/// mawk's substr: start and length are truncated toward zero; a start before 1 eats into the
/// length (`substr("hello", 0, 2)` is "he", `substr("hello", -1, 3)` is "hell").
fn substr(s: &[u8], m: f64, n: Option<f64>) -> &[u8] {
    let len = s.len() as i64;
    if len == 0 {
        return s;
    }
    let mut n = match n {
        Some(n) => to_int32(n),
        None => len,
    };
    let mut i = to_int32(m) - 1;
    if i > len {
        n = 0;
    }
    if i < 0 {
        n -= i + 1;
        i = 0;
    }
    if n > len - i {
        n = len - i;
    }
    if n <= 0 {
        return &s[..0];
    }
    &s[i as usize..(i + n) as usize]
}

/// The replacement text of sub/gsub: `&` is the match, `\&` a literal `&`, `\\` a backslash.
fn append_repl(out: &mut Vec<u8>, repl: &[u8], matched: &[u8]) {
    let mut i = 0;
    while i < repl.len() {
        match repl[i] {
            b'\\' if i + 1 < repl.len() && (repl[i + 1] == b'&' || repl[i + 1] == b'\\') => {
                out.push(repl[i + 1]);
                i += 2;
            }
            b'&' => {
                out.extend_from_slice(matched);
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
}

fn field_sep(fs: &[u8], gawk: bool, cache: &mut HashMap<Vec<u8>, Rc<AwkRegex>>) -> FieldSep {
    match fs {
        b" " => FieldSep::Blank,
        b"" => FieldSep::Chars,
        [c] if *c != b'\\' => FieldSep::Byte(*c),
        _ => {
            if let Some(r) = cache.get(fs) {
                return FieldSep::Regex(r.clone());
            }
            match AwkRegex::new(fs, gawk) {
                Ok(r) => {
                    let r = Rc::new(r);
                    cache.insert(fs.to_vec(), r.clone());
                    FieldSep::Regex(r)
                }
                // An invalid FS regex: mawk fails at assignment; we fall back to a literal.
                Err(_) => match fs.first() {
                    Some(&c) if fs.len() == 1 => FieldSep::Byte(c),
                    _ => FieldSep::Blank,
                },
            }
        }
    }
}

/// FS values that are regexes must compile; mawk reports a bad one when it is assigned.
pub fn check_fs(fs: &[u8], gawk: bool) -> Result<(), String> {
    if fs.len() > 1 && fs != b" " {
        AwkRegex::new(fs, gawk).map_err(|why| {
            format!(
                "regular expression compile failed ({why})\n{}",
                String::from_utf8_lossy(fs)
            )
        })?;
    }
    Ok(())
}

fn record_sep(rs: &[u8], gawk: bool) -> RsMode {
    match rs {
        b"" => RsMode::Paragraph,
        [c] => RsMode::Byte(*c),
        _ => match AwkRegex::new(rs, gawk) {
            Ok(r) => RsMode::Regex(Rc::new(r)),
            Err(_) => RsMode::Byte(rs[0]),
        },
    }
}

fn split_text(s: &[u8], fs: &FieldSep) -> Vec<Str> {
    let mut out = Vec::new();
    match fs {
        FieldSep::Blank => {
            let blank = |c: u8| c == b' ' || c == b'\t' || c == b'\n';
            let mut i = 0;
            while i < s.len() {
                while i < s.len() && blank(s[i]) {
                    i += 1;
                }
                if i >= s.len() {
                    break;
                }
                let st = i;
                while i < s.len() && !blank(s[i]) {
                    i += 1;
                }
                out.push(str_rc(&s[st..i]));
            }
        }
        FieldSep::Chars => {
            for c in s.chunks(1) {
                out.push(str_rc(c));
            }
        }
        FieldSep::Byte(b) => {
            if !s.is_empty() {
                for part in s.split(|c| c == b) {
                    out.push(str_rc(part));
                }
            }
        }
        FieldSep::Regex(re) => {
            if s.is_empty() {
                return out;
            }
            let mut start = 0;
            let mut from = 0;
            while from <= s.len() {
                let Some((ms, me)) = re.find_at(s, from) else {
                    break;
                };
                if me == ms {
                    // Empty separators split nothing.
                    from = ms + 1;
                    continue;
                }
                out.push(str_rc(&s[start..ms]));
                start = me;
                from = me;
            }
            out.push(str_rc(&s[start..]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substr_rules() {
        let h = b"hello";
        let t = |m: f64, n: Option<f64>| String::from_utf8(substr(h, m, n).to_vec()).unwrap();
        assert_eq!(t(0.0, Some(2.0)), "he");
        assert_eq!(t(-1.0, Some(3.0)), "hell");
        assert_eq!(t(1.5, Some(2.0)), "he");
        assert_eq!(t(2.0, None), "ello");
        assert_eq!(t(0.0, None), "hello");
        assert_eq!(t(2.0, Some(-1.0)), "");
        assert_eq!(t(1.4, Some(1.6)), "h");
        assert_eq!(t(10.0, None), "");
        assert_eq!(t(2.5, Some(1.5)), "e");
        assert_eq!(t(-2.0, Some(4.0)), "hello");
    }

    #[test]
    fn replacement() {
        let mut o = Vec::new();
        append_repl(&mut o, b"[&|\\&]", b"l");
        assert_eq!(o, b"[l|&]");
    }
}
