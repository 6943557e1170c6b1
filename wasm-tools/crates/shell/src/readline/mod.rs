//! The `bind` builtin over readline's default key bindings.
//!
//! There is no line editor here, but agents ask bash for its bindings (`bind -p | grep …`,
//! `set -o emacs; bind -P`), and upstream's bash answered from readline's tables. The
//! `*.keymap` files are those tables as `bind -m KEYMAP -p` prints them in upstream's image
//! (bash 5.1.16 with Ubuntu 22.04's `/etc/inputrc`), one file per keymap; `variables` is
//! `bind -v` there. Everything else `bind` prints (`-P`, `-q`, `-l`, `-V`) is derived from them,
//! and the bindings an action makes (`bind '"\C-x": abort'`, `-r`, `-u`, `-x`) change this
//! shell's copy.

mod keyseq;

use keyseq::{decode, display};

/// A readline keymap, by the names `bind -m` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Keymap {
    Emacs,
    EmacsMeta,
    EmacsCtlx,
    ViCommand,
    ViInsert,
}

impl Keymap {
    pub fn named(name: &str) -> Option<Keymap> {
        Some(match name {
            "emacs" | "emacs-standard" => Keymap::Emacs,
            "emacs-meta" => Keymap::EmacsMeta,
            "emacs-ctlx" => Keymap::EmacsCtlx,
            "vi" | "vi-move" | "vi-command" => Keymap::ViCommand,
            "vi-insert" => Keymap::ViInsert,
            _ => return None,
        })
    }

    /// The name `bind -v` gives (readline names a keymap by the first of its aliases).
    fn name(self) -> &'static str {
        match self {
            Keymap::Emacs => "emacs",
            Keymap::EmacsMeta => "emacs-meta",
            Keymap::EmacsCtlx => "emacs-ctlx",
            Keymap::ViCommand => "vi",
            Keymap::ViInsert => "vi-insert",
        }
    }

    /// The keymap as readline set it up: `/etc/inputrc` binds its keys in the keymap of the
    /// mode readline started in (at the shell's first `bind`), so the emacs keymaps differ when
    /// that was vi mode.
    fn listing(self, started_in_vi: bool) -> &'static [u8] {
        match self {
            Keymap::Emacs if started_in_vi => include_bytes!("vi-mode/emacs.keymap"),
            Keymap::EmacsMeta if started_in_vi => include_bytes!("vi-mode/emacs-meta.keymap"),
            Keymap::Emacs => include_bytes!("emacs.keymap"),
            Keymap::EmacsMeta => include_bytes!("emacs-meta.keymap"),
            Keymap::EmacsCtlx => include_bytes!("emacs-ctlx.keymap"),
            Keymap::ViCommand => include_bytes!("vi-command.keymap"),
            Keymap::ViInsert => include_bytes!("vi-insert.keymap"),
        }
    }
}

/// `set -o emacs` / `set -o vi`: which editing mode readline is in, and whether line editing
/// is on at all (it is off in `bash -c`, and `bind` warns about that).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EditingMode {
    pub vi: bool,
    pub enabled: bool,
}

impl EditingMode {
    /// `set -o emacs` (`vi == false`) or `set -o vi`, and their `set +o` forms: turning a
    /// mode off only disables line editing when that mode was the current one.
    pub fn set(&mut self, vi: bool, on: bool) {
        if on {
            *self = EditingMode { vi, enabled: true };
        } else if self.vi == vi {
            self.enabled = false;
        }
    }

    pub fn emacs_on(&self) -> bool {
        self.enabled && !self.vi
    }

    pub fn vi_on(&self) -> bool {
        self.enabled && self.vi
    }

    /// The keymap `bind` reads and changes without `-m`.
    fn keymap(&self) -> Keymap {
        if self.vi {
            Keymap::ViInsert
        } else {
            Keymap::Emacs
        }
    }
}

/// One key sequence bound to a function, as `bind -p` shows it.
#[derive(Debug, Clone)]
struct Binding {
    /// The bytes the keys send, for ordering and for `bind -r`.
    keys: Vec<u8>,
    /// readline's spelling of the keys (`\C-x\C-g`), kept as the tables print it.
    shown: Vec<u8>,
}

/// The key bindings of the keymaps this shell has touched; the others are read from the tables.
#[derive(Debug, Clone, Default)]
pub struct Bindings {
    /// Whether readline started in vi mode; `None` until the first `bind`.
    started_in_vi: Option<bool>,
    changed: Vec<(Keymap, Table)>,
    /// `bind -x` bindings, as `bind -X` lists them.
    commands: Vec<(Vec<u8>, String)>,
}

/// A keymap's functions in readline's order, each with its key sequences in key order.
#[derive(Debug, Clone)]
struct Table {
    functions: Vec<(String, Vec<Binding>)>,
}

impl Table {
    fn parse(listing: &[u8]) -> Table {
        let mut functions: Vec<(String, Vec<Binding>)> = Vec::new();
        for line in listing.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let (function, binding) = if let Some(rest) = line.strip_prefix(b"# ") {
                let name = rest.strip_suffix(b" (not bound)").unwrap_or(rest);
                (String::from_utf8_lossy(name).into_owned(), None)
            } else {
                // `"KEYS": function`; the function name has no `": ` in it.
                let split = line
                    .windows(3)
                    .rposition(|w| w == b"\": ")
                    .unwrap_or(line.len().saturating_sub(3));
                let shown = line.get(1..split).unwrap_or_default().to_vec();
                let function = String::from_utf8_lossy(line.get(split + 3..).unwrap_or_default());
                let keys = decode(&shown);
                (function.into_owned(), Some(Binding { keys, shown }))
            };
            match functions.last_mut() {
                Some((name, keys)) if *name == function => keys.extend(binding),
                _ => functions.push((function, binding.into_iter().collect())),
            }
        }
        Table { functions }
    }

    fn keys_of(&self, function: &str) -> Option<&[Binding]> {
        self.functions
            .iter()
            .find(|(name, _)| name == function)
            .map(|(_, keys)| keys.as_slice())
    }

    /// Removes whatever `keys` was bound to.
    fn unbind_keys(&mut self, keys: &[u8]) {
        for (_, bound) in &mut self.functions {
            bound.retain(|b| b.keys != keys);
        }
    }

    fn bind(&mut self, keys: Vec<u8>, function: &str) -> bool {
        self.unbind_keys(&keys);
        let Some((_, bound)) = self.functions.iter_mut().find(|(name, _)| name == function) else {
            return false;
        };
        let at = bound
            .iter()
            .position(|b| keyseq::order(&keys, &b.keys).is_lt())
            .unwrap_or(bound.len());
        let shown = display(&keys);
        bound.insert(at, Binding { keys, shown });
        true
    }
}

/// What one `bind` invocation asks for, parsed from its arguments as bash's `bind` does.
#[derive(Debug, Default)]
struct Request {
    list_functions: bool,
    dump_functions: Option<bool>,
    dump_variables: Option<bool>,
    dump_macros: Option<bool>,
    dump_commands: bool,
    keymap: Option<String>,
    file: Option<String>,
    query: Option<String>,
    unbind_function: Option<String>,
    remove: Option<String>,
    command: Option<String>,
    bindings: Vec<String>,
}

/// How a `bind` invocation went: what it printed on each stream, and its status.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: Vec<u8>,
    /// Error messages, without bash's `bash: line N: ` prefix.
    pub errors: Vec<String>,
    /// A usage line to print after the errors, unprefixed.
    pub usage: bool,
    /// readline's own messages about binding lines, printed last, as they are.
    pub readline_errors: Vec<String>,
    pub status: i32,
}

impl Outcome {
    /// The outcome with `message` reported and bash's status 1.
    fn failed(mut self, message: String) -> Outcome {
        self.errors.push(message);
        self.status = 1;
        self
    }
}

pub const USAGE: &str = "bind: usage: bind [-lpsvPSVX] [-m keymap] [-f filename] [-q name] [-u name] [-r keyseq] [-x keyseq:shell-command] [keyseq:readline-function or readline-command]";

impl Bindings {
    fn table(&self, keymap: Keymap) -> std::borrow::Cow<'_, Table> {
        match self.changed.iter().find(|(k, _)| *k == keymap) {
            Some((_, t)) => std::borrow::Cow::Borrowed(t),
            None => std::borrow::Cow::Owned(Table::parse(
                keymap.listing(self.started_in_vi.unwrap_or(false)),
            )),
        }
    }

    fn table_mut(&mut self, keymap: Keymap) -> &mut Table {
        let at = match self.changed.iter().position(|(k, _)| *k == keymap) {
            Some(at) => at,
            None => {
                let listing = keymap.listing(self.started_in_vi.unwrap_or(false));
                self.changed.push((keymap, Table::parse(listing)));
                self.changed.len() - 1
            }
        };
        &mut self.changed[at].1
    }

    /// Runs `bind ARGS` in `mode`. `read_file` reads `bind -f`'s file (an error's text when it
    /// cannot).
    pub fn run(
        &mut self,
        mode: EditingMode,
        args: &[String],
        read_file: impl Fn(&str) -> Result<Vec<u8>, String>,
    ) -> Outcome {
        let mut outcome = Outcome::default();
        self.started_in_vi.get_or_insert(mode.vi);
        if !mode.enabled {
            outcome
                .errors
                .push("warning: line editing not enabled".into());
        }
        let request = match parse(args) {
            Ok(r) => r,
            Err(e) => {
                outcome.errors.push(e);
                outcome.usage = true;
                outcome.status = 2;
                return outcome;
            }
        };
        let keymap = match &request.keymap {
            None => mode.keymap(),
            Some(name) => match Keymap::named(name) {
                Some(k) => k,
                None => {
                    return outcome.failed(format!("`{name}': invalid keymap name"));
                }
            },
        };
        let out = &mut outcome.stdout;
        if request.list_functions {
            for (name, _) in &self.table(keymap).functions {
                out.extend_from_slice(name.as_bytes());
                out.push(b'\n');
            }
        }
        if let Some(readably) = request.dump_functions {
            self.dump_functions(keymap, readably, out);
        }
        if let Some(readably) = request.dump_variables {
            dump_variables(mode, keymap, readably, out);
        }
        // No macros are bound by default, and none can be made here (`bind '"x": "text"'`
        // is accepted but not kept), so `-s`/`-S` print nothing.
        let _ = request.dump_macros;
        if request.dump_commands {
            for (keys, command) in &self.commands {
                out.push(b'"');
                out.extend_from_slice(&display(keys));
                out.extend_from_slice(format!("\": \"{command}\"\n").as_bytes());
            }
        }
        if let Some(file) = &request.file
            && let Err(why) = read_file(file)
        {
            return outcome.failed(format!("{file}: cannot read: {why}"));
        }
        if let Some(function) = &request.query {
            let table = self.table(keymap);
            match table.keys_of(function) {
                None => {
                    return outcome.failed(format!("`{function}': unknown function name"));
                }
                Some([]) => {
                    out.extend_from_slice(
                        format!("{function} is not bound to any keys.\n").as_bytes(),
                    );
                    outcome.status = 1;
                    return outcome;
                }
                Some(keys) => {
                    out.extend_from_slice(format!("{function} can be invoked via ").as_bytes());
                    list_keys(keys, out);
                }
            }
        }
        if let Some(function) = &request.unbind_function {
            let table = self.table_mut(keymap);
            match table
                .functions
                .iter_mut()
                .find(|(name, _)| name == function)
            {
                Some((_, keys)) => keys.clear(),
                None => {
                    return outcome.failed(format!("`{function}': unknown function name"));
                }
            }
        }
        if let Some(keys) = &request.remove {
            let keys = decode(keys.as_bytes());
            self.table_mut(keymap).unbind_keys(&keys);
            self.commands.retain(|(k, _)| *k != keys);
        }
        if let Some(spec) = &request.command {
            match keyseq::split_binding(spec) {
                Some((keys, command)) => {
                    let keys = decode(keys.as_bytes());
                    self.commands.retain(|(k, _)| *k != keys);
                    self.commands.push((keys, command.to_string()));
                }
                None => {
                    return outcome.failed(format!(
                        "{spec}: first non-whitespace character is not `\"'"
                    ));
                }
            }
        }
        for spec in &request.bindings {
            // readline reads these as inputrc lines: `"keys": function` binds; it complains
            // about what it cannot parse on its own stream (`readline: …`), and bash's status
            // stays 0 whatever readline thought of the line.
            if let Some(complaint) = readline_complaint(spec) {
                outcome.readline_errors.push(complaint);
            } else if let Some((keys, function)) = keyseq::split_binding(spec)
                && !function.starts_with('"')
            {
                let keys = decode(keys.as_bytes());
                self.table_mut(keymap).bind(keys, function.trim());
            }
        }
        outcome
    }

    fn dump_functions(&self, keymap: Keymap, readably: bool, out: &mut Vec<u8>) {
        // readline starts both listings with an empty line.
        out.push(b'\n');
        for (name, keys) in &self.table(keymap).functions {
            if readably {
                if keys.is_empty() {
                    out.extend_from_slice(format!("# {name} (not bound)\n").as_bytes());
                }
                for b in keys {
                    out.push(b'"');
                    out.extend_from_slice(&b.shown);
                    out.extend_from_slice(format!("\": {name}\n").as_bytes());
                }
            } else if keys.is_empty() {
                out.extend_from_slice(format!("{name} is not bound to any keys\n").as_bytes());
            } else {
                out.extend_from_slice(format!("{name} can be found on ").as_bytes());
                list_keys(keys, out);
            }
        }
    }
}

/// What readline says about a binding line it cannot use (`None` for lines it takes or
/// silently ignores): a quote that never closes, a key with nothing after it, an unknown
/// variable in `set NAME VALUE`.
fn readline_complaint(line: &str) -> Option<String> {
    let line = line.trim_start();
    if let Some(rest) = line.strip_prefix("set")
        && rest.starts_with([' ', '\t'])
    {
        let name = rest.split_whitespace().next().unwrap_or("");
        let recorded = String::from_utf8_lossy(include_bytes!("variables"));
        let known = recorded
            .lines()
            .any(|l| l.strip_prefix("set ").and_then(|l| l.split(' ').next()) == Some(name));
        return (!known).then(|| format!("readline: {name}: unknown variable name"));
    }
    if line.starts_with('$') || line.starts_with('#') || line.is_empty() {
        return None;
    }
    let after_keys = if let Some(quoted) = line.strip_prefix('"') {
        match keyseq::closing_quote(quoted) {
            // The text after the closing quote.
            Some(close) => &quoted[close + 1..],
            None => return Some(format!("readline: {line}: no closing `\"' in key binding")),
        }
    } else {
        let end = line.find([':', ' ', '\t']).unwrap_or(line.len());
        &line[end..]
    };
    after_keys
        .is_empty()
        .then(|| format!("readline: {line}: no key sequence terminator"))
}

/// `"k1", "k2", …`: at most five, then `...` in place of a full stop.
fn list_keys(keys: &[Binding], out: &mut Vec<u8>) {
    for (i, b) in keys.iter().take(5).enumerate() {
        if i > 0 {
            out.extend_from_slice(b", ");
        }
        out.push(b'"');
        out.extend_from_slice(&b.shown);
        out.push(b'"');
    }
    out.extend_from_slice(if keys.len() > 5 { b", ...\n" } else { b".\n" });
}

fn dump_variables(mode: EditingMode, keymap: Keymap, readably: bool, out: &mut Vec<u8>) {
    let recorded = String::from_utf8_lossy(include_bytes!("variables"));
    for line in recorded.lines() {
        let Some((name, value)) = line.strip_prefix("set ").and_then(|l| l.split_once(' ')) else {
            continue;
        };
        let value = match name {
            "editing-mode" if mode.vi => "vi",
            "keymap" => keymap.name(),
            _ => value,
        };
        let line = if readably {
            format!("set {name} {value}\n")
        } else {
            format!("{name} is set to `{value}'\n")
        };
        out.extend_from_slice(line.as_bytes());
    }
}

/// bash's option letters for `bind`: `lvpVPsSX` alone, `fqumrx` with an argument; options may
/// be grouped (`-lp`) and an argument may follow its letter (`-mvi`).
fn parse(args: &[String]) -> Result<Request, String> {
    let mut r = Request::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        if arg == "--" {
            i += 1;
            break;
        }
        let Some(letters) = arg.strip_prefix('-').filter(|l| !l.is_empty()) else {
            break;
        };
        for (at, c) in letters.char_indices() {
            match c {
                'l' => r.list_functions = true,
                'p' => r.dump_functions = Some(true),
                'P' => r.dump_functions = Some(false),
                'v' => r.dump_variables = Some(true),
                'V' => r.dump_variables = Some(false),
                's' => r.dump_macros = Some(true),
                'S' => r.dump_macros = Some(false),
                'X' => r.dump_commands = true,
                'f' | 'q' | 'u' | 'm' | 'r' | 'x' => {
                    let rest = &letters[at + c.len_utf8()..];
                    let value = if !rest.is_empty() {
                        rest.to_string()
                    } else {
                        i += 1;
                        args.get(i)
                            .cloned()
                            .ok_or_else(|| format!("-{c}: option requires an argument"))?
                    };
                    let slot = match c {
                        'f' => &mut r.file,
                        'q' => &mut r.query,
                        'u' => &mut r.unbind_function,
                        'm' => &mut r.keymap,
                        'r' => &mut r.remove,
                        _ => &mut r.command,
                    };
                    *slot = Some(value);
                    break;
                }
                _ => return Err(format!("-{c}: invalid option")),
            }
        }
        i += 1;
    }
    r.bindings = args[i.min(args.len())..].to_vec();
    Ok(r)
}

#[cfg(test)]
mod tests;
