//! Programs that need a terminal, answering as they do without one: the sandbox's standard
//! input is never a tty (upstream ran `docker exec` without `-t` too).

use crate::common::Io;
use crate::common::io::{prog, run_main};
use std::ffi::OsString;

/// `stty` (coreutils 8.32) on a non-terminal standard input.
pub fn stty_main(args: Vec<OsString>) -> i32 {
    run_main(args, stty)
}

fn stty(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "stty");
    let _ = writeln!(
        io.err,
        "{prog}: 'standard input': Inappropriate ioctl for device"
    );
    1
}
