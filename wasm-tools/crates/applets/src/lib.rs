//! Hand-written applets: the utilities no crate provides on WASI with GNU behaviour (find with
//! `-exec`, xargs, grep without C, du/stat/chmod with POSIX metadata from the host, …).
//!
//! Each applet is one module with a `main(args) -> status`; [`lookup`] is the dispatch table
//! the multicall module uses (argv[0] is the applet name as invoked).

mod common;
/// The current directory as an absolute sandbox path.
pub use common::exec::current_dir;
/// glibc's `getopt_long`, for the box's checks of command lines before a crate runs.
pub use common::getopt;
/// The sandbox's file-creation mask (processes do not change it).
pub use common::mode::UMASK;
/// coreutils' ways of quoting names in messages, for the box's own small utilities too.
pub use common::quote::{
    locale as locale_quote, shell_always as shell_quote, shell_if_needed as quote_name,
};
/// glibc's error texts, for the box's own small utilities too.
pub use common::sys::strerror;

pub mod awk;
pub mod cal;
pub mod chmod;
pub mod cmp;
pub mod col;
pub mod colrm;
pub mod column;
pub mod comm;
pub mod dd;
pub mod df;
pub mod diff;
pub mod du;
pub mod env;
pub mod find;
pub mod fmt;
pub mod free;
pub mod getopt_cmd;
pub mod grep;
pub mod groups;
pub mod gzip;
pub mod hexdump;
pub mod hostid;
pub mod install;
pub mod killall;
pub mod ln;
pub mod look;
pub mod ls;
pub mod man;
pub mod mkdir;
pub mod mktemp;
pub mod more;
pub mod mount;
pub mod mountpoint;
pub mod net;
pub mod od;
pub mod owner;
pub mod pathchk;
pub mod printenv;
pub mod procps;
pub mod pstree;
pub mod rev;
pub mod session;
pub mod stat;
pub mod sync;
pub mod sysinfo;
pub mod tar;
pub mod terminal;
pub mod timeout;
pub mod tree;
pub mod wrappers;
pub mod xargs;
pub mod zgrep;

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
    "cal" => cal::main,
    "chgrp" => owner::chgrp_main,
    "chmod" => chmod::main,
    "chown" => owner::chown_main,
    "cmp" => cmp::main,
    "col" => col::main,
    "colrm" => colrm::main,
    "column" => column::main,
    "comm" => comm::main,
    "curl" => net::curl::main,
    "dd" => dd::main,
    "df" => df::main,
    "diff" => diff::main,
    "dig" => net::dns::dig_main,
    "dir" => ls::dir_main,
    "du" => du::main,
    "egrep" => grep::egrep_main,
    "env" => env::main,
    "fgrep" => grep::fgrep_main,
    "find" => find::main,
    "fmt" => fmt::main,
    "free" => free::main,
    "gawk" => awk::main,
    "getent" => net::getent::main,
    "getopt" => getopt_cmd::main,
    "grep" => grep::main,
    "groups" => groups::main,
    "gunzip" => gzip::main,
    "gzip" => gzip::main,
    "hd" => hexdump::main,
    "hexdump" => hexdump::main,
    "host" => net::dns::host_main,
    "hostid" => hostid::main,
    "hostname" => sysinfo::hostname_main,
    "id" => sysinfo::id_main,
    "install" => install::main,
    "killall" => killall::main,
    "less" => more::main,
    "ln" => ln::main,
    "logname" => session::logname_main,
    "look" => look::main,
    "ls" => ls::main,
    "man" => man::main,
    "mawk" => awk::main,
    "mkdir" => mkdir::main,
    "mktemp" => mktemp::main,
    "more" => more::main,
    "mount" => mount::main,
    "mountpoint" => mountpoint::main,
    "ncal" => cal::main,
    "nice" => wrappers::nice_main,
    "nohup" => wrappers::nohup_main,
    "nproc" => sysinfo::nproc_main,
    "nslookup" => net::dns::nslookup_main,
    "od" => od::main,
    "pathchk" => pathchk::main,
    "pgrep" => procps::pgrep::pgrep_main,
    "ping" => net::ping::main,
    "pkill" => procps::pgrep::pkill_main,
    "printenv" => printenv::main,
    "ps" => procps::ps::main,
    "pstree" => pstree::main,
    "rev" => rev::main,
    "stat" => stat::main,
    "stdbuf" => wrappers::stdbuf_main,
    "stty" => terminal::stty_main,
    "sync" => sync::main,
    "tar" => tar::main,
    "timeout" => timeout::main,
    "tree" => tree::main,
    "tty" => session::tty_main,
    "uname" => sysinfo::uname_main,
    "uptime" => session::uptime_main,
    "users" => session::users_main,
    "vdir" => ls::vdir_main,
    "w" => session::w_main,
    "who" => session::who_main,
    "whoami" => sysinfo::whoami_main,
    "xargs" => xargs::main,
    "zcat" => gzip::main,
    "zegrep" => zgrep::zegrep_main,
    "zfgrep" => zgrep::zfgrep_main,
    "zgrep" => zgrep::zgrep_main,
}
