//! `sync` (GNU coreutils 8.32). The sandbox's files live on the host and nothing is cached in
//! the guest, so there is nothing to flush: only the operands are checked, as GNU opens them.

use crate::common::getopt::{self, Config, flag};
use crate::common::io::{prog, run_main};
use crate::common::{Io, quote, sys};
use std::ffi::OsString;

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Data,
    FileSystem,
}

fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "sync");
    let specs = [
        flag('d', "data", K::Data),
        flag('f', "file-system", K::FileSystem),
    ];
    let parsed = match getopt::parse(args, &specs, Config::default()) {
        Ok(p) => p,
        Err(msg) => {
            let _ = io.err.write_all(gnu::usage::report(&prog, &msg).as_bytes());
            return 1;
        }
    };
    let keys: Vec<K> = parsed.opts.iter().map(|o| o.key).collect();
    if keys.contains(&K::Data) && keys.contains(&K::FileSystem) {
        let _ = writeln!(
            io.err,
            "{prog}: cannot specify both --data and --file-system\nTry '{prog} --help' for more information."
        );
        return 1;
    }
    if keys.contains(&K::Data) && parsed.operands.is_empty() {
        let _ = writeln!(
            io.err,
            "{prog}: --data needs at least one argument\nTry '{prog} --help' for more information."
        );
        return 1;
    }
    let mut status = 0;
    for file in &parsed.operands {
        if let Err(e) = hostcalls::stat(file, true) {
            let _ = writeln!(
                io.err,
                "{prog}: error opening {}: {}",
                quote::shell_always(file),
                sys::strerror(&e)
            );
            status = 1;
        }
    }
    status
}
