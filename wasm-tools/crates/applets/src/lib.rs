//! Hand-written applets: the utilities no crate provides on WASI with GNU behaviour (find with
//! `-exec`, xargs, grep without C, du/stat/chmod with POSIX metadata from the host, …).
//!
//! Each applet is one module with a `main(args) -> status`; [`lookup`] is the dispatch table
//! the multicall module uses (argv[0] is the applet name as invoked).

mod common;

pub mod awk;
pub mod chmod;
pub mod cmp;
pub mod column;
pub mod dd;
pub mod df;
pub mod diff;
pub mod du;
pub mod file;
pub mod find;
pub mod free;
pub mod grep;
pub mod gzip;
pub mod ln;
pub mod ls;
pub mod mktemp;
pub mod more;
pub mod printenv;
pub mod rev;
pub mod session;
pub mod stat;
pub mod sysinfo;
pub mod tar;
pub mod tree;
pub mod xargs;
pub mod xxd;

pub type AppletMain = fn(Vec<std::ffi::OsString>) -> i32;

/// One dispatch table, from which both [`lookup`] and [`NAMES`] are generated.
macro_rules! applets {
    ($($name:literal => $main:path,)*) => {
        /// The applet for an argv[0], if this crate provides it.
        pub fn lookup(name: &str) -> Option<AppletMain> {
            match name {
                $($name => Some($main),)*
                _ => None,
            }
        }

        /// Every applet name [`lookup`] knows.
        pub const NAMES: &[&str] = &[$($name,)*];
    };
}

applets! {
    "arch" => sysinfo::arch_main,
    "awk" => awk::main,
    "chmod" => chmod::main,
    "cmp" => cmp::main,
    "column" => column::main,
    "dd" => dd::main,
    "df" => df::main,
    "diff" => diff::main,
    "du" => du::main,
    "egrep" => grep::egrep_main,
    "fgrep" => grep::fgrep_main,
    "file" => file::main,
    "find" => find::main,
    "free" => free::main,
    "gawk" => awk::main,
    "grep" => grep::main,
    "gunzip" => gzip::main,
    "gzip" => gzip::main,
    "hostname" => sysinfo::hostname_main,
    "id" => sysinfo::id_main,
    "less" => more::main,
    "ln" => ln::main,
    "logname" => session::logname_main,
    "ls" => ls::main,
    "mawk" => awk::main,
    "mktemp" => mktemp::main,
    "more" => more::main,
    "nproc" => sysinfo::nproc_main,
    "printenv" => printenv::main,
    "rev" => rev::main,
    "stat" => stat::main,
    "tar" => tar::main,
    "tree" => tree::main,
    "tty" => session::tty_main,
    "uname" => sysinfo::uname_main,
    "uptime" => session::uptime_main,
    "users" => session::users_main,
    "w" => session::w_main,
    "who" => session::who_main,
    "whoami" => sysinfo::whoami_main,
    "xargs" => xargs::main,
    "xxd" => xxd::main,
    "zcat" => gzip::main,
}
