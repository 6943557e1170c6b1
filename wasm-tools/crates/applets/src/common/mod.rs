//! Helpers shared by the hand-written applets: GNU-style option parsing ([`getopt`]), stdio
//! wiring with glibc-like buffering ([`io`]), error texts and user/group names ([`sys`]), UTC
//! time formatting ([`time`]), permission strings and symbolic modes ([`mode`]), shell-style
//! wildcards ([`glob`]), human-readable sizes ([`human`]), running other applets ([`exec`]),
//! GNU regular expressions on pure-Rust engines ([`rx`]).
//!
//! Everything here assumes the C locale, which is what upstream InterCode's containers ran
//! with (no `LANG` set): bytes, not characters; ASCII case folding; `'quotes'` in messages.

pub mod exec;
pub mod getopt;
pub mod glob;
pub mod human;
pub mod io;
pub mod mode;
pub mod quote;
pub mod rx;
pub mod sys;
pub mod time;

pub use io::Io;
