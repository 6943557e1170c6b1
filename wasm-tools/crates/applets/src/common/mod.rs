//! Helpers shared by the hand-written applets: GNU-style option parsing ([`getopt`]), stdio
//! wiring with glibc-like buffering ([`io`]), error texts and user/group names ([`sys`]), UTC
//! time formatting ([`time`], from the `gnu` crate), permission strings and symbolic modes ([`mode`]), shell-style
//! wildcards ([`glob`], from `gnu`), human-readable sizes ([`human`]), running other applets ([`exec`]),
//! GNU regular expressions on pure-Rust engines ([`rx`]), and the `--version` text of a GNU
//! program ([`gnu_version`]).
//!
//! Everything here assumes the C locale, which is what upstream InterCode's containers ran
//! with (no `LANG` set): bytes, not characters; ASCII case folding; `'quotes'` in messages.

pub mod deflate;
pub mod exec;
pub mod human;
pub mod io;
pub mod mode;
pub mod rx;
pub mod sys;

pub use io::Io;
// Written once for the shell and the applets; re-exported so applets keep one import path.
pub use gnu::{getopt, glob, quote, time, xstrtol};

/// `--version` as a GNU program of upstream's image prints it: the name line (`tar (GNU tar)
/// 1.34`), the copyright year, GPLv3's three lines and the authors (`Written by …`).
pub fn gnu_version(name_line: &str, year: u16, authors: &str) -> String {
    format!(
        "{name_line}\n\
         Copyright (C) {year} Free Software Foundation, Inc.\n\
         License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.\n\
         This is free software: you are free to change and redistribute it.\n\
         There is NO WARRANTY, to the extent permitted by law.\n\
         \n\
         Written by {authors}.\n"
    )
}
