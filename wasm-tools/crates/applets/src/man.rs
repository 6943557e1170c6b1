//! `man` as the `ubuntu:22.04` image has it: a minimized image replaces the pager of manual
//! pages with a script that says so, whatever it is asked (upstream's logs show agents reading
//! it for `man -k bind`), and exits 0.

use crate::common::Io;
use crate::common::io::run_main;
use std::ffi::OsString;

/// What the image's `/usr/bin/man` prints.
const MINIMIZED: &str = "\
This system has been minimized by removing packages and content that are
not required on a system that users do not log into.

To restore this content, including manpages, you can run the 'unminimize'
command. You will still need to ensure the 'man-db' package is installed.
";

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, man)
}

fn man(_args: &[String], io: &mut Io) -> i32 {
    let _ = write!(io.out, "{MINIMIZED}");
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_request_gets_the_minimized_image_notice() {
        for args in [&["man", "ls"][..], &["man", "-k", "bind"], &["man"]] {
            let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            let (status, out, err) = crate::common::io::capture_text(man, &args, b"");
            assert_eq!((status, err.as_str()), (0, ""));
            assert!(out.starts_with("This system has been minimized"), "{out}");
            assert!(out.ends_with("'man-db' package is installed.\n"), "{out}");
        }
    }
}
