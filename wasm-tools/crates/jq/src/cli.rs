//! jq 1.6's command line: short options that combine (`-rc`), long ones, the parameters of
//! `--arg`-style options, the filter as the first operand and files after it.

use crate::output::Style;
use jaq_json::Val;

/// Everything the command line asks for.
#[derive(Default)]
pub struct Options {
    pub filter: Option<String>,
    /// `-f`: the filter is read from the first operand.
    pub filter_from_file: bool,
    pub files: Vec<String>,
    pub null_input: bool,
    pub raw_input: bool,
    pub slurp: bool,
    pub raw_output: bool,
    /// `-j`: raw output without newlines.
    pub join_output: bool,
    pub exit_status: bool,
    pub seq: bool,
    pub stream: bool,
    pub style: Style,
    /// `$name` bindings from `--arg`, `--argjson`, `--slurpfile`, `--rawfile`, in order.
    pub named: Vec<(String, Val)>,
    /// `$ARGS.positional` from `--args` / `--jsonargs`.
    pub positional: Vec<Val>,
}

/// What the command line resolves to.
pub enum Command {
    Run(Box<Options>),
    Help,
    Version,
    /// A usage error: jq's message, then its hint about `--help`; exit 2.
    Usage(String),
    /// An error about a file named by an option (no hint); exit 2.
    Fail(String),
}

/// Reads files named by `--slurpfile`/`--rawfile`; the caller decides how paths resolve.
pub trait FileSource {
    fn read(&self, path: &str) -> Result<Vec<u8>, String>;
}

enum Operands {
    Files,
    Strings,
    Json,
}

pub fn parse(args: &[String], files: &dyn FileSource) -> Command {
    let mut o = Options::default();
    let mut operands = Operands::Files;
    let mut options_done = false;
    let mut i = 0;
    while i < args.len() {
        let text = &args[i];
        i += 1;
        let is_option = !options_done && text.starts_with('-') && text != "-";
        if !is_option {
            if o.filter.is_none() {
                o.filter = Some(text.clone());
                continue;
            }
            match operands {
                Operands::Files => o.files.push(text.clone()),
                Operands::Strings => o.positional.push(Val::utf8_str(text.clone())),
                Operands::Json => match parse_json_text(text) {
                    Some(v) => o.positional.push(v),
                    None => return Command::Usage("invalid JSON text passed to --jsonargs".into()),
                },
            }
            continue;
        }
        if text == "--" {
            if o.filter.is_none() {
                return Command::Usage(String::new());
            }
            options_done = true;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            if switch(&mut o, long) {
                continue;
            }
            match long {
                "unbuffered" | "stream-errors" => {}
                "tab" => {
                    o.style.tab = true;
                    o.style.indent = Some(1);
                }
                "indent" => {
                    let Some(n) = args.get(i) else {
                        return Command::Usage("--indent takes one parameter".into());
                    };
                    i += 1;
                    let n = atoi(n);
                    if n < -1 {
                        return Command::Usage("--indent takes a number between -1 and 7".into());
                    }
                    if n > 7 {
                        return Command::Usage("Cannot indent more than 7 characters".into());
                    }
                    o.style.tab = false;
                    o.style.indent = if n <= 0 { None } else { Some(n as usize) };
                }
                "args" => operands = Operands::Strings,
                "jsonargs" => operands = Operands::Json,
                "arg" | "argjson" | "slurpfile" | "rawfile" | "argfile" => {
                    let (Some(name), Some(value)) = (args.get(i), args.get(i + 1)) else {
                        let example = match long {
                            "arg" => "--arg varname value",
                            "argjson" => "--argjson varname text",
                            other => {
                                return Command::Usage(format!(
                                    "--{other} takes two parameters (e.g. --{other} varname filename)"
                                ));
                            }
                        };
                        return Command::Usage(format!(
                            "--{long} takes two parameters (e.g. {example})"
                        ));
                    };
                    i += 2;
                    let v = match long {
                        "arg" => Val::utf8_str(value.clone()),
                        "argjson" => match parse_json_text(value) {
                            Some(v) => v,
                            None => {
                                return Command::Usage(
                                    "invalid JSON text passed to --argjson".into(),
                                );
                            }
                        },
                        _ => match files.read(value) {
                            Err(e) => {
                                return Command::Fail(format!(
                                    "Bad JSON in --{long} {name} {value}: Could not open {value}: {e}"
                                ));
                            }
                            Ok(bytes) if long == "rawfile" => {
                                Val::utf8_str(String::from_utf8_lossy(&bytes).into_owned())
                            }
                            Ok(bytes) => match all_values(&bytes) {
                                Ok(values) => {
                                    if long == "argfile" && values.len() == 1 {
                                        values.into_iter().next().unwrap_or(Val::Null)
                                    } else {
                                        values.into_iter().collect()
                                    }
                                }
                                Err(e) => {
                                    return Command::Fail(format!(
                                        "Bad JSON in --{long} {name} {value}: {e}"
                                    ));
                                }
                            },
                        },
                    };
                    if !o.named.iter().any(|(n, _)| n == name) {
                        o.named.push((name.clone(), v));
                    }
                }
                "help" => return Command::Help,
                "version" => return Command::Version,
                _ => return Command::Usage(format!("Unknown option {text}")),
            }
            continue;
        }
        // Short options, combinable.
        let letters = &text[1..];
        for c in letters.chars() {
            match c {
                'h' => return Command::Help,
                'V' => return Command::Version,
                c => {
                    let long = SHORT.iter().find(|(letter, _)| *letter == c);
                    if !long.is_some_and(|(_, long)| switch(&mut o, long)) {
                        return Command::Usage(format!("Unknown option {text}"));
                    }
                }
            }
        }
    }
    Command::Run(Box::new(o))
}

/// The letters that stand for switches, and the switches' long names.
const SHORT: &[(char, &str)] = &[
    ('s', "slurp"),
    ('r', "raw-output"),
    ('j', "join-output"),
    ('c', "compact-output"),
    ('C', "color-output"),
    ('M', "monochrome-output"),
    ('a', "ascii-output"),
    ('S', "sort-keys"),
    ('R', "raw-input"),
    ('n', "null-input"),
    ('f', "from-file"),
    ('e', "exit-status"),
];

/// Turns on the switch of that long name; false when there is none.
fn switch(o: &mut Options, long: &str) -> bool {
    match long {
        "slurp" => o.slurp = true,
        "raw-output" => o.raw_output = true,
        "join-output" => {
            o.raw_output = true;
            o.join_output = true
        }
        "compact-output" => o.style.indent = None,
        "color-output" => o.style.color = true,
        "monochrome-output" => o.style.color = false,
        "ascii-output" => o.style.ascii = true,
        "sort-keys" => o.style.sort_keys = true,
        "raw-input" => o.raw_input = true,
        "null-input" => o.null_input = true,
        "from-file" => o.filter_from_file = true,
        "exit-status" => o.exit_status = true,
        "seq" => o.seq = true,
        "stream" => o.stream = true,
        _ => return false,
    }
    true
}

/// C's `atoi`: leading blanks, a sign, digits; anything else ends it.
fn atoi(s: &str) -> i64 {
    let t = s.trim_start();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let n: i64 = digits
        .chars()
        .take_while(char::is_ascii_digit)
        .fold(0i64, |n, c| {
            n.saturating_mul(10)
                .saturating_add(i64::from(c as u8 - b'0'))
        });
    if neg { -n } else { n }
}

/// One JSON text (as `--argjson` wants it): exactly one value.
fn parse_json_text(text: &str) -> Option<Val> {
    let mut values = all_values(text.as_bytes()).ok()?;
    (values.len() == 1).then(|| values.remove(0))
}

/// Every value of a JSON stream, or the reader's message.
pub fn all_values(bytes: &[u8]) -> Result<Vec<Val>, String> {
    let mut reader = crate::input::Reader::new(bytes);
    let mut values = Vec::new();
    while let Some(v) = reader.next_value() {
        values.push(v.map_err(|e| e.0)?);
    }
    Ok(values)
}

/// The one value of a JSON text, or the reader's message (`fromjson`).
pub fn one_value(text: &str) -> Result<Val, String> {
    let mut reader = crate::input::Reader::new(text.as_bytes());
    match reader.next_value() {
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(e.0),
        None => Ok(Val::Null),
    }
}
