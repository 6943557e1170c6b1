//! Prompt templates: where they come from, their file format, rendering and hashing.
//!
//! Every strategy has one template per env, named `<strategy>/<env>.md` (for example
//! `try-again/sql.md`). The built-in ones live in `prompts/` at the repository root and are
//! compiled into the binary; a user can replace them with a directory laid out the same way or
//! with one file.
//!
//! # File format
//!
//! * Everything before the first section line is a comment for people and is never sent.
//! * A section starts with a line `--- name ---` (name: lowercase letters and `_`) and runs up
//!   to the next section line or the end of the file. Blank lines at either end of a section are
//!   dropped, so sections can be spaced out freely.
//! * `{{name}}` (spaces inside the braces allowed) is replaced by a value when the section is
//!   rendered. Which names a section may use depends on the section (see
//!   [`placeholders_for`]); any other name is an error when the template is loaded, so a typo
//!   fails the run before the first episode instead of reaching the model. There is no escape
//!   for a literal `{{`: prompts about shells and SQL never need one.
//!
//! The hash recorded in the run's manifest is FNV-1a (64 bit) over the file's bytes, comment
//! included: any edit to the file, even to its comment, shows up as a new hash.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::StrategyKind;
use crate::env::EnvKind;

/// Where the templates come from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum PromptSource {
    /// The templates compiled into the binary.
    #[default]
    Builtin,
    /// A directory laid out like the built-in `prompts/` (`<strategy>/<env>.md`). A template
    /// the directory lacks falls back to the built-in one, so a user can override just one env;
    /// the manifest names the source actually used.
    Dir(PathBuf),
    /// One file: the template of the run's strategy, whatever the env.
    File(PathBuf),
}

/// A template's failure to load or render. Each message names the template and the section.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("{origin}: cannot read: {reason}")]
    Read { origin: String, reason: String },
    #[error("{origin}: no section line (`--- name ---`) found")]
    NoSections { origin: String },
    #[error("{origin}: unknown section `{name}` (a {strategy} template has: {known})")]
    UnknownSection {
        origin: String,
        name: String,
        strategy: &'static str,
        known: String,
    },
    #[error("{origin}: section `{name}` appears twice")]
    DuplicateSection { origin: String, name: String },
    #[error("{origin}: section `{name}` is missing")]
    MissingSection { origin: String, name: String },
    #[error(
        "{origin}, section `{section}`: unknown placeholder {{{{{name}}}}} (this section knows: {known})"
    )]
    UnknownPlaceholder {
        origin: String,
        section: String,
        name: String,
        known: String,
    },
    #[error("{origin}, section `{section}`: `{{{{` without a closing `}}}}`")]
    Unclosed { origin: String, section: String },
    /// A render asked for a value its caller did not provide (a bug in a strategy: loading
    /// already checked that the template only uses names its sections know).
    #[error("{origin}, section `{section}`: no value for {{{{{name}}}}}")]
    MissingValue {
        origin: String,
        section: String,
        name: String,
    },
}

/// What the manifest records of a template.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TemplateInfo {
    /// `builtin:<strategy>/<env>.md` or the path of the user's file.
    pub source: String,
    /// FNV-1a 64 of the file's bytes, 16 lowercase hex digits.
    pub hash: String,
}

/// A loaded, checked template.
#[derive(Debug, Clone)]
pub struct Template {
    info: TemplateInfo,
    sections: BTreeMap<String, Vec<Piece>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Var(String),
}

/// The values a render fills in, by placeholder name.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    values: Vec<(&'static str, String)>,
}

impl Vars {
    /// Sets (or replaces) one value.
    pub fn set(&mut self, name: &'static str, value: impl Into<String>) -> &mut Vars {
        let value = value.into();
        match self.values.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.values.push((name, value)),
        }
        self
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Names every section may use: what is known from the task and the settings alone.
const BASE: &[&str] = &["query", "setting", "language", "max_turns", "tables"];

/// The sections a strategy's template must have, and those it may have.
pub fn sections_of(strategy: StrategyKind) -> (&'static [&'static str], &'static [&'static str]) {
    // `schema` is optional everywhere: only SQL templates need it, and only with the hint on.
    const OPTIONAL: &[&str] = &["schema"];
    let required: &'static [&'static str] = match strategy {
        StrategyKind::SingleTurn => &["system", "query", "retry"],
        StrategyKind::TryAgain | StrategyKind::React => {
            &["system", "query", "observation", "retry"]
        }
        StrategyKind::PlanSolve => &[
            "system",
            "plan",
            "plan_retry",
            "step",
            "retry",
            "refine",
            "observation",
        ],
        StrategyKind::Tools => &["system", "query", "observation", "remind"],
    };
    (required, OPTIONAL)
}

/// The placeholders a section may use, beyond [`BASE`].
fn extra_placeholders(strategy: StrategyKind, section: &str) -> &'static [&'static str] {
    match section {
        // ReAct shows no reward (upstream's ReAct did not), so its observations cannot use one.
        "observation" if strategy == StrategyKind::React => &["observation", "turn", "turns_left"],
        "observation" => &["observation", "reward", "turn", "turns_left"],
        "retry" | "remind" | "plan_retry" => &["turn", "turns_left"],
        "step" => &[
            "plan",
            "step",
            "steps",
            "plan_step",
            "observation",
            "turn",
            "turns_left",
        ],
        "refine" => &["plan", "observation", "reward", "turn", "turns_left"],
        _ => &[],
    }
}

/// Every placeholder `section` of a `strategy` template may use.
pub fn placeholders_for(strategy: StrategyKind, section: &str) -> Vec<&'static str> {
    let mut names = BASE.to_vec();
    names.extend_from_slice(extra_placeholders(strategy, section));
    names
}

/// The built-in templates, by relative name.
const BUILTIN: &[(&str, &str)] = &[
    (
        "single-turn/bash.md",
        include_str!("../../../prompts/single-turn/bash.md"),
    ),
    (
        "single-turn/sql.md",
        include_str!("../../../prompts/single-turn/sql.md"),
    ),
    (
        "single-turn/python.md",
        include_str!("../../../prompts/single-turn/python.md"),
    ),
    (
        "try-again/bash.md",
        include_str!("../../../prompts/try-again/bash.md"),
    ),
    (
        "try-again/sql.md",
        include_str!("../../../prompts/try-again/sql.md"),
    ),
    (
        "try-again/python.md",
        include_str!("../../../prompts/try-again/python.md"),
    ),
    (
        "react/bash.md",
        include_str!("../../../prompts/react/bash.md"),
    ),
    (
        "react/sql.md",
        include_str!("../../../prompts/react/sql.md"),
    ),
    (
        "react/python.md",
        include_str!("../../../prompts/react/python.md"),
    ),
    (
        "plan-solve/bash.md",
        include_str!("../../../prompts/plan-solve/bash.md"),
    ),
    (
        "plan-solve/sql.md",
        include_str!("../../../prompts/plan-solve/sql.md"),
    ),
    (
        "plan-solve/python.md",
        include_str!("../../../prompts/plan-solve/python.md"),
    ),
    (
        "tools/bash.md",
        include_str!("../../../prompts/tools/bash.md"),
    ),
    (
        "tools/sql.md",
        include_str!("../../../prompts/tools/sql.md"),
    ),
    (
        "tools/python.md",
        include_str!("../../../prompts/tools/python.md"),
    ),
];

/// The env's name in template paths and in the `{{language}}` placeholder (the fence tag).
pub fn env_name(env: EnvKind) -> &'static str {
    match env {
        EnvKind::Bash => "bash",
        EnvKind::Sql => "sql",
        EnvKind::Python => "python",
    }
}

/// The `{{setting}}` placeholder: what the agent is talking to.
pub fn setting(env: EnvKind) -> &'static str {
    match env {
        EnvKind::Bash => "Bourne Shell",
        EnvKind::Sql => "SQLite database (MySQL-style SHOW/DESCRIBE also work)",
        EnvKind::Python => "Python 3 interpreter",
    }
}

/// `<strategy>/<env>.md`.
pub fn relative_name(strategy: StrategyKind, env: EnvKind) -> String {
    format!("{}/{}.md", strategy.name(), env_name(env))
}

/// The built-in text of `<strategy>/<env>.md`.
pub fn builtin_text(strategy: StrategyKind, env: EnvKind) -> &'static str {
    let name = relative_name(strategy, env);
    BUILTIN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
        // The table covers every strategy × env; the test `every_builtin_loads` keeps it so.
        .unwrap_or_else(|| panic!("no built-in template {name}"))
}

/// Loads and checks the template of `strategy` for `env` from `source`.
pub fn load(
    source: &PromptSource,
    strategy: StrategyKind,
    env: EnvKind,
) -> Result<Template, TemplateError> {
    let name = relative_name(strategy, env);
    let builtin = || {
        parse(
            builtin_text(strategy, env),
            &format!("builtin:{name}"),
            strategy,
        )
    };
    match source {
        PromptSource::Builtin => builtin(),
        PromptSource::Dir(dir) => {
            let path = dir.join(&name);
            if crate::fs::host::is_file(&path) {
                load_file(&path, strategy)
            } else {
                builtin()
            }
        }
        PromptSource::File(path) => load_file(path, strategy),
    }
}

fn load_file(path: &Path, strategy: StrategyKind) -> Result<Template, TemplateError> {
    let origin = path.display().to_string();
    let text = crate::fs::host::read_to_string(path).map_err(|e| TemplateError::Read {
        origin: origin.clone(),
        reason: e.to_string(),
    })?;
    parse(&text, &origin, strategy)
}

/// Parses and checks a template's text; `origin` names it in errors and in the manifest.
pub fn parse(text: &str, origin: &str, strategy: StrategyKind) -> Result<Template, TemplateError> {
    let (required, optional) = sections_of(strategy);
    let mut raw: Vec<(String, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        if let Some(name) = section_header(line) {
            if !required.contains(&name) && !optional.contains(&name) {
                return Err(TemplateError::UnknownSection {
                    origin: origin.to_string(),
                    name: name.to_string(),
                    strategy: strategy.name(),
                    known: [required, optional].concat().join(", "),
                });
            }
            if raw.iter().any(|(n, _)| n == name) {
                return Err(TemplateError::DuplicateSection {
                    origin: origin.to_string(),
                    name: name.to_string(),
                });
            }
            raw.push((name.to_string(), Vec::new()));
        } else if let Some((_, body)) = raw.last_mut() {
            body.push(line);
        }
        // Lines before the first section are the file's comment.
    }
    if raw.is_empty() {
        return Err(TemplateError::NoSections {
            origin: origin.to_string(),
        });
    }
    if let Some(missing) = required.iter().find(|r| !raw.iter().any(|(n, _)| n == *r)) {
        return Err(TemplateError::MissingSection {
            origin: origin.to_string(),
            name: missing.to_string(),
        });
    }
    let mut sections = BTreeMap::new();
    for (name, lines) in raw {
        let body = trim_blank_lines(&lines);
        let known = placeholders_for(strategy, &name);
        let pieces = split_placeholders(&body, &known).map_err(|e| match e {
            SplitError::Unclosed => TemplateError::Unclosed {
                origin: origin.to_string(),
                section: name.clone(),
            },
            SplitError::Unknown(bad) => TemplateError::UnknownPlaceholder {
                origin: origin.to_string(),
                section: name.clone(),
                name: bad,
                known: known.join(", "),
            },
        })?;
        sections.insert(name, pieces);
    }
    Ok(Template {
        info: TemplateInfo {
            source: origin.to_string(),
            hash: format!("{:016x}", fnv1a64(text.as_bytes())),
        },
        sections,
    })
}

impl Template {
    /// Source and hash, for the manifest.
    pub fn info(&self) -> &TemplateInfo {
        &self.info
    }

    /// Whether the template has `section` (optional ones may be absent).
    pub fn has(&self, section: &str) -> bool {
        self.sections.contains_key(section)
    }

    /// Fills in `section` with `vars`.
    pub fn render(&self, section: &str, vars: &Vars) -> Result<String, TemplateError> {
        let pieces = self
            .sections
            .get(section)
            .ok_or_else(|| TemplateError::MissingSection {
                origin: self.info.source.clone(),
                name: section.to_string(),
            })?;
        let mut out = String::new();
        for piece in pieces {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Var(name) => {
                    let value = vars.get(name).ok_or_else(|| TemplateError::MissingValue {
                        origin: self.info.source.clone(),
                        section: section.to_string(),
                        name: name.clone(),
                    })?;
                    out.push_str(value);
                }
            }
        }
        Ok(out)
    }
}

/// The name in a `--- name ---` line.
fn section_header(line: &str) -> Option<&str> {
    let name = line
        .trim()
        .strip_prefix("--- ")?
        .strip_suffix(" ---")?
        .trim();
    let well_formed = !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    well_formed.then_some(name)
}

fn trim_blank_lines(lines: &[&str]) -> String {
    let start = lines
        .iter()
        .position(|l| !l.trim().is_empty())
        .unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(start, |i| i + 1);
    lines[start..end].join("\n")
}

enum SplitError {
    Unclosed,
    Unknown(String),
}

/// Cuts `body` into text and placeholders, checking each name against `known`.
fn split_placeholders(body: &str, known: &[&str]) -> Result<Vec<Piece>, SplitError> {
    let mut pieces = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find("{{") {
        if open > 0 {
            pieces.push(Piece::Text(rest[..open].to_string()));
        }
        let after = &rest[open + 2..];
        let close = after.find("}}").ok_or(SplitError::Unclosed)?;
        let name = after[..close].trim();
        if !known.contains(&name) {
            return Err(SplitError::Unknown(name.to_string()));
        }
        pieces.push(Piece::Var(name.to_string()));
        rest = &after[close + 2..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest.to_string()));
    }
    Ok(pieces)
}

/// FNV-1a, 64 bit: a stable fingerprint (not a defence against tampering) that needs no
/// dependency.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(OFFSET_BASIS, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(PRIME)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL_ENVS: [EnvKind; 3] = [EnvKind::Bash, EnvKind::Sql, EnvKind::Python];

    #[test]
    fn fnv1a64_matches_the_reference_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn every_builtin_loads() {
        for strategy in StrategyKind::ALL {
            for env in ALL_ENVS {
                let t =
                    load(&PromptSource::Builtin, strategy, env).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(
                    t.info().source,
                    format!("builtin:{}", relative_name(strategy, env))
                );
                assert_eq!(t.info().hash.len(), 16);
            }
            // The schema hint needs the section in every SQL template.
            let sql = load(&PromptSource::Builtin, strategy, EnvKind::Sql).unwrap();
            assert!(sql.has("schema"), "{} sql lacks schema", strategy.name());
        }
    }

    #[test]
    fn sections_and_placeholders_render() {
        let text = "comment {{ignored}}\n--- system ---\n\nYou use {{ setting }}.\n\n--- query ---\nTask: {{query}}\n--- retry ---\nagain ({{turns_left}} left)\n";
        let t = parse(text, "t.md", StrategyKind::SingleTurn).unwrap();
        let mut vars = Vars::default();
        vars.set("setting", "a shell")
            .set("query", "list files")
            .set("turns_left", "3");
        assert_eq!(t.render("system", &vars).unwrap(), "You use a shell.");
        assert_eq!(t.render("query", &vars).unwrap(), "Task: list files");
        assert_eq!(t.render("retry", &vars).unwrap(), "again (3 left)");
    }

    #[test]
    fn unknown_placeholder_is_named() {
        let text = "--- system ---\nhi {{colour}}\n--- query ---\n{{query}}\n--- retry ---\nno\n";
        let err = parse(text, "mine.md", StrategyKind::SingleTurn).unwrap_err();
        assert!(matches!(&err, TemplateError::UnknownPlaceholder { name, .. } if name == "colour"));
        let msg = err.to_string();
        assert!(msg.contains("{{colour}}") && msg.contains("mine.md") && msg.contains("system"));
    }

    #[test]
    fn a_placeholder_out_of_its_section_is_unknown() {
        // The reward exists only once an action ran: the system message cannot use it.
        let text = "--- system ---\n{{reward}}\n--- query ---\nq\n--- observation ---\no\n--- retry ---\nr\n";
        let err = parse(text, "t.md", StrategyKind::TryAgain).unwrap_err();
        assert!(err.to_string().contains("{{reward}}"), "{err}");
    }

    #[test]
    fn structural_errors() {
        let missing = "--- system ---\ns\n--- query ---\nq\n";
        assert!(matches!(
            parse(missing, "t", StrategyKind::SingleTurn),
            Err(TemplateError::MissingSection { name, .. }) if name == "retry"
        ));
        let unknown = "--- system ---\ns\n--- sytem ---\n";
        assert!(matches!(
            parse(unknown, "t", StrategyKind::SingleTurn),
            Err(TemplateError::UnknownSection { name, .. }) if name == "sytem"
        ));
        let twice = "--- system ---\na\n--- system ---\nb\n";
        assert!(matches!(
            parse(twice, "t", StrategyKind::SingleTurn),
            Err(TemplateError::DuplicateSection { .. })
        ));
        let unclosed = "--- system ---\n{{query\n--- query ---\nq\n--- retry ---\nr\n";
        assert!(matches!(
            parse(unclosed, "t", StrategyKind::SingleTurn),
            Err(TemplateError::Unclosed { .. })
        ));
        assert!(matches!(
            parse("just prose", "t", StrategyKind::SingleTurn),
            Err(TemplateError::NoSections { .. })
        ));
    }

    #[test]
    fn a_directory_overrides_one_template_and_changes_its_hash() {
        let dir = tempfile::tempdir().unwrap();
        let builtin = load(
            &PromptSource::Builtin,
            StrategyKind::TryAgain,
            EnvKind::Bash,
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("try-again")).unwrap();
        let mine = "--- system ---\nBe brief.\n--- query ---\n{{query}}\n--- observation ---\n{{observation}} / {{reward}}\n--- retry ---\nCode, please.\n";
        let path = dir.path().join("try-again/bash.md");
        std::fs::write(&path, mine).unwrap();
        let source = PromptSource::Dir(dir.path().to_path_buf());
        let over = load(&source, StrategyKind::TryAgain, EnvKind::Bash).unwrap();
        assert_ne!(over.info().hash, builtin.info().hash);
        assert_eq!(
            over.info().hash,
            format!("{:016x}", fnv1a64(mine.as_bytes()))
        );
        assert_eq!(over.info().source, path.display().to_string());
        assert_eq!(
            over.render("system", &Vars::default()).unwrap(),
            "Be brief."
        );
        // What the directory lacks comes from the built-ins.
        let sql = load(&source, StrategyKind::TryAgain, EnvKind::Sql).unwrap();
        assert_eq!(sql.info().source, "builtin:try-again/sql.md");
        // A single file works too; a missing one is an error naming it.
        let file = load(
            &PromptSource::File(path.clone()),
            StrategyKind::TryAgain,
            EnvKind::Sql,
        );
        assert_eq!(file.unwrap().info().hash, over.info().hash);
        let gone = dir.path().join("nope.md");
        let err = load(
            &PromptSource::File(gone),
            StrategyKind::TryAgain,
            EnvKind::Bash,
        )
        .unwrap_err();
        assert!(err.to_string().contains("nope.md"), "{err}");
    }
}
