//! `jq`: jq 1.6 as Ubuntu 22.04 ships it (upstream InterCode's image had it), over the jaq
//! filter engine. The filter language is jaq's; what a user sees around it is jq 1.6's: the
//! command line, the JSON reader and its messages, the printer (number format, escapes,
//! indentation, colours), runtime and compile error wording, and exit statuses.

mod cli;
mod compile_errors;
mod formats;
mod input;
mod inputs;
mod messages;
mod natives;
mod output;
mod run;
mod stream;
mod value;

use std::ffi::OsString;
use std::io::Write;

/// What `--help` prints.
const HELP: &str = "Usage:\tjq [OPTIONS] FILTER [FILES...]
\tjq [OPTIONS] --args FILTER [STRINGS...]
\tjq [OPTIONS] --jsonargs FILTER [JSON_TEXTS...]

jq applies FILTER to each JSON text of its input (the FILES, or standard input) and writes
each result as JSON to standard output. This is jq 1.6's command line over the jaq engine.

Some of the options:
  -c               compact instead of pretty-printed output;
  -n               use `null` as the single input value;
  -e               set the exit status code based on the output;
  -s               read (slurp) all inputs into an array; apply filter to it;
  -r               output raw strings, not JSON texts;
  -a               output ASCII with escapes for all other characters;
  -j               like -r, without a newline after each output;
  -R               read each line of input as a string;
  -S               sort keys of objects on output;
  -C / -M          colourize / do not colourize the JSON;
  --tab            indent with one tab per level;
  --indent n       indent with n spaces (0 to 7);
  --arg a v        set variable $a to the string v;
  --argjson a v    set variable $a to the JSON text v;
  --slurpfile a f  set variable $a to an array of the JSON texts read from file f;
  --rawfile a f    set variable $a to the contents of file f;
  --args           the remaining arguments are string arguments, not files;
  --jsonargs       the remaining arguments are JSON arguments, not files;
  --               terminates argument processing;
";

/// What jq adds after a usage error.
const USAGE_HINT: &str = "Use jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://stedolan.github.io/jq\n";

struct HostFiles;

impl cli::FileSource for HostFiles {
    fn read(&self, path: &str) -> Result<Vec<u8>, String> {
        std::fs::read(path).map_err(|e| messages::strerror(&e))
    }
}

/// The applet's entry point: argv (with argv[0]) in, exit status out.
pub fn main(args: Vec<OsString>) -> i32 {
    let args: Vec<String> = args
        .into_iter()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    match cli::parse(&args, &HostFiles) {
        cli::Command::Help => {
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(HELP.as_bytes());
            let _ = out.flush();
            0
        }
        cli::Command::Version => {
            println!("jq-1.6");
            0
        }
        cli::Command::Usage(msg) => {
            if !msg.is_empty() {
                eprintln!("jq: {msg}");
            }
            eprint!("{USAGE_HINT}");
            2
        }
        cli::Command::Fail(msg) => {
            eprintln!("jq: {msg}");
            2
        }
        cli::Command::Run(options) => run::run(*options),
    }
}
