//! Compiling the filter, feeding it the inputs and writing what it yields, with jq 1.6's
//! messages and exit statuses.

use crate::cli::Options;
use crate::messages;
use crate::output::{self, compact};
use crate::value::V;
use jaq_core::load::{Arena, File, Loader};
use jaq_core::native::run as native;
use jaq_core::{Compiler, Ctx, DataT, Lut, Vars, data};
use jaq_json::Val;
use jaq_std::input::{HasInputs, Inputs, RcIter};
use std::cell::{Cell, OnceCell, RefCell};
use std::io::Write;

/// The kind of data the filter runs over.
pub struct DataKind;

impl DataT for DataKind {
    type V<'a> = V;
    type Data<'a> = &'a Data<'a>;
}

/// What natives can reach while the filter runs.
pub struct Data<'a> {
    lut: &'a Lut<DataKind>,
    inputs: Inputs<'a, V>,
    pub(crate) position: &'a Position,
}

impl<'a> data::HasLut<'a, DataKind> for &'a Data<'a> {
    fn lut(&self) -> &'a Lut<DataKind> {
        self.lut
    }
}

impl<'a> HasInputs<'a, V> for &'a Data<'a> {
    fn inputs(&self) -> Inputs<'a, V> {
        self.inputs
    }
}

/// Where the reader is, for `jq: error (at <stdin>:3)` and `input_filename`.
#[derive(Default)]
pub struct Position {
    /// Whether any input has been asked for (before that, jq says `<unknown>`).
    pub(crate) started: Cell<bool>,
    pub(crate) file: RefCell<Option<String>>,
    /// Lines read so far: jq reads a line at a time, so the value's whole last line counts.
    pub(crate) line: Cell<usize>,
}

impl Position {
    fn describe(&self) -> String {
        if !self.started.get() {
            return "<unknown>".to_string();
        }
        let file = self.file.borrow();
        format!(
            "{}:{}",
            file.as_deref().unwrap_or("<stdin>"),
            self.line.get()
        )
    }
}

fn str_val(s: String) -> Val {
    Val::utf8_str(s)
}

const COMPAT: &str = include_str!("compat.jq");

/// Runs the filter over the inputs; returns the exit status.
pub fn run(o: Options) -> i32 {
    let filter_text = match (&o.filter, o.filter_from_file) {
        (None, _) => ".".to_string(),
        (Some(path), true) => match std::fs::read(path) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => {
                eprintln!(
                    "jq: error: Could not open {path}: {}",
                    messages::strerror(&e)
                );
                return 2;
            }
        },
        (Some(text), false) => text.clone(),
    };

    // Global variables: $ENV, $__prog_args-like $ARGS, then the named ones.
    let mut var_names: Vec<String> = vec!["$ENV".into(), "$ARGS".into()];
    var_names.extend(o.named.iter().map(|(n, _)| format!("${n}")));
    let env: Val = Val::obj(
        std::env::vars()
            .map(|(k, v)| (str_val(k), str_val(v)))
            .collect(),
    );
    let named: Val = Val::obj(
        o.named
            .iter()
            .map(|(n, v)| (str_val(n.clone()), v.clone()))
            .collect(),
    );
    let args: Val = Val::obj(
        [
            (
                str_val("positional".into()),
                o.positional.iter().cloned().collect(),
            ),
            (str_val("named".into()), named),
        ]
        .into_iter()
        .collect(),
    );
    let mut var_values = vec![env, args];
    var_values.extend(o.named.iter().map(|(_, v)| v.clone()));

    let arena = Arena::default();
    let compat_defs = match jaq_core::load::parse(COMPAT, |p| p.defs()) {
        Some(defs) => defs,
        None => {
            eprintln!("jq: error: the built-in definitions do not parse");
            return 3;
        }
    };
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs())
        .chain(compat_defs);
    let loader = Loader::new(defs);
    let modules = match loader.load(
        &arena,
        File {
            code: filter_text.as_str(),
            path: (),
        },
    ) {
        Ok(m) => m,
        Err(errors) => {
            return crate::compile_errors::report_load(&filter_text, errors);
        }
    };
    let funs = crate::natives::natives()
        .into_iter()
        .chain(jaq_core::funs::<DataKind>())
        .chain(jaq_std::funs::<DataKind>())
        .chain(
            jaq_std::input::funs::<DataKind>()
                .into_vec()
                .into_iter()
                .map(native::<DataKind>),
        );
    let filter = match Compiler::default()
        .with_funs(funs)
        .with_global_vars(var_names.iter().map(String::as_str))
        .compile(modules)
    {
        Ok(f) => f,
        Err(errors) => return crate::compile_errors::report_compile(&filter_text, errors),
    };

    // The input, read when first asked for (`jq -n` never reads it): every file's bytes in
    // turn, as jq reads them, one stream.
    let input_failed = Cell::new(false);
    let source: OnceCell<crate::inputs::Source> = OnceCell::new();
    let position = Position::default();
    let inputs: Box<dyn Iterator<Item = Result<V, String>> + '_> =
        Box::new(crate::inputs::Lazy::new(&source, &o, &position, &input_failed).map(|r| r.map(V)));
    let inputs = RcIter::new(inputs);
    let data = Data {
        lut: &filter.lut,
        inputs: &inputs,
        position: &position,
    };
    let ctx = Ctx::<DataKind>::new(&data, Vars::new(var_values.into_iter().map(V)));

    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(4096, stdout.lock());
    let mut status: i32 = 0;
    let halted: Cell<Option<i32>> = Cell::new(None);
    let process = |value: V, out: &mut std::io::BufWriter<std::io::StdoutLock>| -> i32 {
        let mut ret = 14;
        for result in filter.id.run((ctx.clone(), value)) {
            match result {
                Ok(V(v)) => {
                    if o.seq {
                        let _ = out.write_all(b"\x1e");
                    }
                    if o.raw_output
                        && let Val::TStr(b) = &v
                    {
                        let _ = out.write_all(b);
                        ret = 0;
                    } else {
                        ret = if matches!(v, Val::Null | Val::Bool(false)) {
                            11
                        } else {
                            0
                        };
                        let _ = out.write_all(output::to_text(&v, &o.style).as_bytes());
                    }
                    if !o.join_output {
                        let _ = out.write_all(b"\n");
                    }
                }
                Err(exn) => {
                    let exn = match exn.get_halt() {
                        Ok(code) => {
                            halted.set(Some(code));
                            return code;
                        }
                        Err(exn) => exn,
                    };
                    let Ok(err) = exn.get_err() else {
                        return ret;
                    };
                    let V(value) = err.into_val();
                    if value == Val::Null {
                        // jq 1.6 treats `error(null)` as no error at all.
                        return ret;
                    }
                    // Not flushed first: jq's standard output is buffered, its errors are not.
                    let at = position.describe();
                    match messages::runtime(value) {
                        Ok(text) => eprintln!("jq: error (at {at}): {text}"),
                        Err(v) => eprintln!("jq: error (at {at}) (not a string): {}", compact(&v)),
                    }
                    return 5;
                }
            }
        }
        ret
    };

    if o.null_input {
        status = process(V::null(), &mut out);
    } else {
        loop {
            let next = (&inputs).next();
            match next {
                None => break,
                Some(Ok(v)) if o.stream => {
                    for event in crate::stream::events(v.0) {
                        status = process(V(event), &mut out);
                    }
                    if halted.get().is_some() {
                        break;
                    }
                }
                Some(Ok(v)) => {
                    status = process(v, &mut out);
                    if halted.get().is_some() {
                        break;
                    }
                }
                Some(Err(msg)) => {
                    eprintln!("parse error: {msg}");
                    status = 4;
                    break;
                }
            }
        }
    }
    let _ = out.flush();
    if let Some(code) = halted.get() {
        return code;
    }
    if input_failed.get() {
        return 2;
    }
    if status >= 10 {
        if o.exit_status { status - 10 } else { 0 }
    } else {
        status
    }
}

impl Position {
    /// Input has been asked for.
    pub fn start(&self) {
        self.started.set(true);
    }

    /// The reader is in file `name` (standard input for `None`), `line` lines read.
    pub fn set(&self, name: Option<String>, line: usize) {
        *self.file.borrow_mut() = name;
        self.line.set(line);
    }
}
