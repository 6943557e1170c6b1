//! In-process tests of the awk applet.

use super::{Io, run};
use std::io::Write;
use std::sync::{Arc, Mutex};

/// A `Write` whose bytes the test can read back after the run.
#[derive(Clone, Default)]
pub struct Shared(pub Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `awk ARGS` on `input`: (stdout, stderr, status).
pub fn awk(args: &[&str], input: &str) -> (String, String, i32) {
    let out = Shared::default();
    let err = Shared::default();
    let io = Io {
        stdin: Box::new(std::io::Cursor::new(input.as_bytes().to_vec())),
        stdout: Box::new(out.clone()),
        stderr: Box::new(err.clone()),
    };
    let mut argv = vec![std::ffi::OsString::from("awk")];
    argv.extend(args.iter().map(std::ffi::OsString::from));
    let code = run(argv, io);
    let o = String::from_utf8_lossy(&out.0.lock().unwrap()).into_owned();
    let e = String::from_utf8_lossy(&err.0.lock().unwrap()).into_owned();
    (o, e, code)
}

#[test]
fn hello() {
    assert_eq!(awk(&["BEGIN { print \"hi\" }"], "").0, "hi\n");
    assert_eq!(awk(&["{ print $2 }"], "a b\nc d\n").0, "b\nd\n");
}

#[test]
fn hostile_programs_fail_cleanly() {
    // Deep nesting of every recursive construct: an error with status 2, never a crash.
    let parens = format!("BEGIN {{ x = {}1{} }}", "(".repeat(5000), ")".repeat(5000));
    let unary = format!("BEGIN {{ x = {}1 }}", "-".repeat(20000));
    let blocks = format!("BEGIN {}{}", "{".repeat(5000), "}".repeat(5000));
    let ifs = format!("BEGIN {{ {} x = 1 }}", "if (1) ".repeat(5000));
    let regex = format!(
        "BEGIN {{ print match(\"a\", /{}a{}/) }}",
        "(".repeat(3000),
        ")".repeat(3000)
    );
    for prog in [&parens, &unary, &blocks, &ifs, &regex] {
        let (_, err, code) = awk(&[prog], "");
        assert_eq!(code, 2, "{}: {err}", &prog[..40]);
    }
}

/// Debug builds use several times more stack per frame than the release wasm guest, so the
/// "still works" sizes are smaller there (the wasm limits are checked in the sandbox).
const USABLE: usize = if cfg!(debug_assertions) { 30 } else { 300 };

#[test]
fn long_chains_are_bounded_but_usable() {
    // A few hundred links is normal awk; tens of thousands is refused, not overflowed.
    let sum = format!("BEGIN {{ print {} }}", vec!["1"; USABLE].join("+"));
    assert_eq!(awk(&[&sum], "").0, format!("{USABLE}\n"));
    let cat = format!("BEGIN {{ print {} }}", vec!["\"a\""; USABLE].join(" "));
    assert_eq!(awk(&[&cat], "").0.len(), USABLE + 1);
    let huge = format!("BEGIN {{ print {} }}", vec!["1"; 50000].join("+"));
    assert_eq!(awk(&[&huge], "").2, 2);
}

#[test]
fn deep_recursion_is_an_error() {
    let (_, err, code) = awk(
        &["function f(n) { return n == 0 ? 0 : 1 + f(n-1) } BEGIN { print f(100000) }"],
        "",
    );
    assert_eq!(code, 2);
    assert!(err.contains("program limit exceeded"), "{err}");
    let prog =
        format!("function f(n) {{ return n == 0 ? 0 : 1 + f(n-1) }} BEGIN {{ print f({USABLE}) }}");
    let (out, _, code) = awk(&[&prog], "");
    assert_eq!((out, code), (format!("{USABLE}\n"), 0));
}

#[test]
fn huge_sizes_are_clamped() {
    let (out, _, code) = awk(
        &["BEGIN { x = sprintf(\"%*d\", 2^40, 1); print length(x) }"],
        "",
    );
    assert_eq!(code, 0);
    assert!(out.trim().parse::<usize>().unwrap() <= 1 << 20);
    let (out, _, _) = awk(
        &["BEGIN { x = sprintf(\"%.*d\", 2^40, 1); print length(x) }"],
        "",
    );
    assert!(out.trim().parse::<usize>().unwrap() <= 1 << 20);
    let (_, _, code) = awk(&["BEGIN { $(2^40) = 1 }"], "");
    assert_eq!(code, 2);
    let (out, _, _) = awk(
        &["BEGIN { printf \"%c%s%d\", \"\", substr(\"x\", log(-1)), log(-1) }"],
        "",
    );
    assert!(!out.is_empty());
}

#[test]
fn binary_program_text() {
    let (_, err, code) = awk(&["BEGIN { \u{1} }"], "");
    assert_eq!(code, 2);
    assert!(err.contains("unexpected character"), "{err}");
}
