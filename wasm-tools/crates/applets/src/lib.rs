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
pub mod diff;
pub mod du;
pub mod file;
pub mod find;
pub mod grep;
pub mod gzip;
pub mod killall;
pub mod ln;
pub mod ls;
pub mod mktemp;
pub mod more;
pub mod procps;
pub mod pstree;
pub mod rev;
pub mod stat;
pub mod sysinfo;
pub mod tar;
pub mod timeout;
pub mod tree;
pub mod wrappers;
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
    "awk" => awk::main,
    "chmod" => chmod::main,
    "cmp" => cmp::main,
    "column" => column::main,
    "dd" => dd::main,
    "diff" => diff::main,
    "du" => du::main,
    "egrep" => grep::egrep_main,
    "fgrep" => grep::fgrep_main,
    "file" => file::main,
    "find" => find::main,
    "gawk" => awk::main,
    "grep" => grep::main,
    "gunzip" => gzip::main,
    "gzip" => gzip::main,
    "hostname" => sysinfo::hostname_main,
    "id" => sysinfo::id_main,
    "killall" => killall::main,
    "less" => more::main,
    "ln" => ln::main,
    "ls" => ls::main,
    "mawk" => awk::main,
    "mktemp" => mktemp::main,
    "more" => more::main,
    "nice" => wrappers::nice_main,
    "nohup" => wrappers::nohup_main,
    "nproc" => sysinfo::nproc_main,
    "pgrep" => procps::pgrep::pgrep_main,
    "pkill" => procps::pgrep::pkill_main,
    "ps" => procps::ps::main,
    "pstree" => pstree::main,
    "rev" => rev::main,
    "stat" => stat::main,
    "stdbuf" => wrappers::stdbuf_main,
    "tar" => tar::main,
    "timeout" => timeout::main,
    "tree" => tree::main,
    "uname" => sysinfo::uname_main,
    "whoami" => sysinfo::whoami_main,
    "xargs" => xargs::main,
    "xxd" => xxd::main,
    "zcat" => gzip::main,
}
