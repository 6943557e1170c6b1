//! The behaviour that GNU's C library and gnulib give every program of upstream's image, written
//! once for the shell and the applets (uutils keeps the same kind of thing in `uucore`):
//!
//! - [`time`]: calendar arithmetic and `strftime` in UTC (the sandbox's only zone);
//! - [`glob`]: `fnmatch(3)` wildcards, as `find -name`, `case`-free matchers and `tar` use them;
//! - [`quote`]: gnulib's quoting styles for file names in messages and listings;
//! - [`printf`]: the numeric and string conversions of `printf(3)`, for the shell's `printf`,
//!   awk's `printf`/`sprintf`/`CONVFMT`, `find -printf`, `hexdump -e`;
//! - [`escape`]: backslash escapes, one decoder with each program's dialect as data (bash's
//!   `$'…'`, `printf`, `echo -e`, dash's `echo`, awk strings, `find -printf`, `stat --printf`);
//! - [`getopt`]: glibc's `getopt_long` (bundles, abbreviations, permutation) and its messages;
//! - [`xstrtol`]: gnulib's `xstrtoumax` and `xdectoimax`, with which coreutils read numbers;
//! - [`usage`]: coreutils' usage errors and the `Try` line.
//!
//! Everything assumes the C locale, which is what upstream InterCode's containers ran with:
//! bytes, not characters; ASCII case folding; `'quotes'` in messages.

pub mod escape;
pub mod getopt;
pub mod glob;
pub mod printf;
pub mod quote;
pub mod time;
pub mod usage;
pub mod xstrtol;
