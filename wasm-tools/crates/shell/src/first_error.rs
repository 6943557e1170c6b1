//! The first token bash's grammar rejects, found by reading a script token by token the way
//! bash's parser does, for the scripts our parser refuses.
//!
//! bash stops at the first token its grammar cannot take and names it; whatever follows (an
//! apostrophe that never closes, more prose) never matters. Agents' prose typed as commands
//! meets a few rules over and over, which this pass follows:
//!
//! * a `(` after the words of a simple command is the unexpected token (`find … (Note: …)`),
//!   except right after a lone first word, where it opens a function definition and the token
//!   after it is the unexpected one unless it is `)` (`foo (x)` names `x`);
//! * reserved words are reserved only where a command starts, and a command that began with
//!   assignments has started (`x=$(…) if ! echo; then` names `then`);
//! * after the keyword or `)` that closes a compound command only operators and redirections
//!   may follow (`done <(find …)` names the whole `<(find …)` word).
//!
//! Whatever the pass does not model (`case`, `((…))`, here-documents, function bodies…) makes
//! it give up with `None`, and the caller falls back on what the parser said.

/// The offending token's text and its byte offset in the script.
pub type Unexpected = (String, usize);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    /// `if` before its `then`.
    IfCondition,
    /// `if … then` (or `elif … then`, `else`) before `fi`.
    IfBody,
    /// `while`/`until`/`for …;` before `do`.
    LoopCondition,
    /// `do` before `done`.
    LoopBody,
    Brace,
    Subshell,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Position {
    /// Where a command may start (reserved words count).
    CommandStart,
    /// Inside a simple command, after `words` words (assignments and redirections aside).
    InCommand { words: usize, assignments: bool },
    /// Right after a compound command closed: only operators and redirections may follow.
    AfterCompound,
    /// `for NAME [in WORDS]`, up to the `;` or newline before `do`.
    ForHeader,
}

const OPENING: &[&str] = &["if", "while", "until", "{", "!", "time", "for", "select"];
const CLOSING: &[&str] = &[
    "then", "else", "elif", "fi", "do", "done", "}", "esac", "in",
];
/// Reserved words the pass does not follow.
const UNMODELLED: &[&str] = &["case", "function", "coproc", "[["];
/// Builtins whose `name=(…)` arguments are array assignments.
const ASSIGNMENT_BUILTINS: &[&str] = &["declare", "local", "typeset", "readonly", "export"];

/// The first token bash rejects in `text`, or `None` when the pass finds none or gives up.
pub fn first_unexpected(text: &str) -> Option<Unexpected> {
    scan(text, &mut Vec::new()).flatten()
}

/// `text` with a backslash before every reserved word that stands where bash takes it for an
/// ordinary word: right after a command's assignments or redirections (`sum=0 for i in …`,
/// `>/dev/null done`), where bash runs a command named `for`. The parser reserves them there
/// and refuses the script; quoted, they read as bash reads them. `None` when there is none,
/// when bash finds a syntax error anyway, or when the pass gives up.
pub fn reserved_words_as_plain(text: &str) -> Option<String> {
    let mut plain = Vec::new();
    if scan(text, &mut plain)?.is_some() || plain.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len() + plain.len());
    let mut from = 0;
    for at in plain {
        out.push_str(&text[from..at]);
        out.push('\\');
        from = at;
    }
    out.push_str(&text[from..]);
    Some(out)
}

/// Follows `text` as bash's grammar does: `None` when the pass gives up, `Some(None)` when bash
/// would take it all, `Some(Some(token))` for the first token it rejects. Collects in `plain`
/// the offsets of reserved words bash reads as ordinary words.
fn scan(text: &str, plain: &mut Vec<usize>) -> Option<Option<Unexpected>> {
    let b = text.as_bytes();
    let mut open: Vec<Open> = Vec::new();
    let mut at = Position::CommandStart;
    let mut command_name: Option<String> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        // Blanks, comments, line continuations.
        if c == b' ' || c == b'\t' {
            i += 1;
            continue;
        }
        if c == b'\\' && b.get(i + 1) == Some(&b'\n') {
            i += 2;
            continue;
        }
        if c == b'#' && word_may_start_comment(b, i) {
            i = find(b, i, b'\n').unwrap_or(b.len());
            continue;
        }
        // Operators.
        if let Some(op) = operator_at(b, i) {
            let start = i;
            i += op.len();
            match op {
                "\n" => match at {
                    Position::InCommand { .. }
                    | Position::AfterCompound
                    | Position::ForHeader
                    | Position::CommandStart => {
                        if at == Position::ForHeader {
                            open.push(Open::LoopCondition);
                        }
                        at = Position::CommandStart;
                        command_name = None;
                    }
                },
                ";" | "&" | "|" | "&&" | "||" | "|&" => {
                    if at == Position::CommandStart {
                        return Some(Some((op.to_string(), start)));
                    }
                    if at == Position::ForHeader {
                        if op != ";" {
                            return None;
                        }
                        open.push(Open::LoopCondition);
                    }
                    at = Position::CommandStart;
                    command_name = None;
                }
                ";;" | ";&" | ";;&" => return Some(Some((op.to_string(), start))),
                "((" if at == Position::CommandStart => return None,
                "(" | "((" => match at {
                    Position::CommandStart => {
                        // `((` that is not arithmetic opens two subshells.
                        for _ in 0..op.len() {
                            open.push(Open::Subshell);
                        }
                    }
                    Position::InCommand {
                        words: 1,
                        assignments: false,
                    } => {
                        // `name (` starts a function definition: only `)` may follow.
                        let next = skip_blanks(b, i);
                        return match b.get(next) {
                            Some(b')') => None,
                            _ => Some(Some((token_text(text, next), next))),
                        };
                    }
                    _ => return Some(Some(("(".to_string(), start))),
                },
                ")" => {
                    if at == Position::CommandStart || open.last() != Some(&Open::Subshell) {
                        return Some(Some((")".to_string(), start)));
                    }
                    open.pop();
                    at = Position::AfterCompound;
                }
                redirection => {
                    // A redirection takes the next word as its target.
                    if redirection == "<<" || redirection == "<<-" {
                        return None;
                    }
                    let target = skip_blanks(b, i);
                    if target >= b.len() {
                        return None;
                    }
                    if operator_at(b, target).is_some() && !starts_substitution(b, target) {
                        return Some(Some((token_text(text, target), target)));
                    }
                    i = word_end(b, target)?;
                    if let Position::CommandStart = at {
                        at = Position::InCommand {
                            words: 0,
                            assignments: true,
                        };
                    }
                }
            }
            continue;
        }
        // A word.
        let start = i;
        let end = word_end(b, i)?;
        let word = &text[start..end];
        i = end;
        match at {
            Position::AfterCompound => return Some(Some((word.to_string(), start))),
            Position::ForHeader => {
                if word == "do" {
                    open.push(Open::LoopBody);
                    at = Position::CommandStart;
                }
            }
            Position::CommandStart => {
                if UNMODELLED.contains(&word) {
                    return None;
                }
                if let Some(next) = reserved_word(word, &mut open) {
                    match next {
                        Err(()) => return Some(Some((word.to_string(), start))),
                        Ok(p) => at = p,
                    }
                    continue;
                }
                if is_assignment(word) {
                    if word.ends_with("=(") || word.ends_with("+=(") {
                        i = array_end(b, i)?;
                    }
                    at = Position::InCommand {
                        words: 0,
                        assignments: true,
                    };
                } else {
                    command_name = Some(word.to_string());
                    at = Position::InCommand {
                        words: 1,
                        assignments: false,
                    };
                }
            }
            Position::InCommand { words, assignments } => {
                if words == 0 && is_assignment(word) {
                    if word.ends_with("=(") || word.ends_with("+=(") {
                        i = array_end(b, i)?;
                    }
                    continue;
                }
                if words > 0
                    && is_assignment(word)
                    && (word.ends_with("=(") || word.ends_with("+=("))
                {
                    if command_name
                        .as_deref()
                        .is_some_and(|n| ASSIGNMENT_BUILTINS.contains(&n))
                    {
                        i = array_end(b, i)?;
                        continue;
                    }
                    // `echo x=(…)`: the `(` is unexpected.
                    return Some(Some(("(".to_string(), end - 1)));
                }
                if words == 0 {
                    if OPENING.contains(&word) || CLOSING.contains(&word) {
                        plain.push(start);
                    }
                    command_name = Some(word.to_string());
                }
                at = Position::InCommand {
                    words: words + 1,
                    assignments,
                };
            }
        }
    }
    Some(None)
}

/// A reserved word at a command's start: where it leaves the parser, or `Err` when nothing
/// open accepts it. `None` for an ordinary word.
fn reserved_word(word: &str, open: &mut Vec<Open>) -> Option<Result<Position, ()>> {
    if !OPENING.contains(&word) && !CLOSING.contains(&word) {
        return None;
    }
    let top = open.last().copied();
    let mut replace_top = |with: Option<Open>| {
        open.pop();
        if let Some(o) = with {
            open.push(o);
        }
    };
    Some(match word {
        "if" => {
            open.push(Open::IfCondition);
            Ok(Position::CommandStart)
        }
        "while" | "until" => {
            open.push(Open::LoopCondition);
            Ok(Position::CommandStart)
        }
        "for" | "select" => Ok(Position::ForHeader),
        "{" => {
            open.push(Open::Brace);
            Ok(Position::CommandStart)
        }
        "!" | "time" => Ok(Position::CommandStart),
        "then" if top == Some(Open::IfCondition) => {
            replace_top(Some(Open::IfBody));
            Ok(Position::CommandStart)
        }
        "elif" if top == Some(Open::IfBody) => {
            replace_top(Some(Open::IfCondition));
            Ok(Position::CommandStart)
        }
        "else" if top == Some(Open::IfBody) => Ok(Position::CommandStart),
        "fi" if top == Some(Open::IfBody) => {
            replace_top(None);
            Ok(Position::AfterCompound)
        }
        "do" if top == Some(Open::LoopCondition) => {
            replace_top(Some(Open::LoopBody));
            Ok(Position::CommandStart)
        }
        "done" if top == Some(Open::LoopBody) => {
            replace_top(None);
            Ok(Position::AfterCompound)
        }
        "}" if top == Some(Open::Brace) => {
            replace_top(None);
            Ok(Position::AfterCompound)
        }
        _ => Err(()),
    })
}

/// `NAME=`, `NAME+=` or `NAME[…]=` at the start of a word.
fn is_assignment(word: &str) -> bool {
    let name_end = word
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(word.len());
    if name_end == 0 || word.as_bytes()[0].is_ascii_digit() {
        return false;
    }
    let rest = &word[name_end..];
    let rest = match rest.strip_prefix('[') {
        Some(sub) => match sub.find(']') {
            Some(close) => &sub[close + 1..],
            None => return false,
        },
        None => rest,
    };
    rest.starts_with('=') || rest.starts_with("+=")
}

/// The operator at `i`, longest first; `None` where a word starts. `<(` and `>(` start words.
fn operator_at(b: &[u8], i: usize) -> Option<&'static str> {
    const OPERATORS: &[&str] = &[
        ";;&", "<<-", "<<<", "&>>", ";;", ";&", "&&", "||", "|&", "((", "<<", ">>", "<&", ">&",
        "<>", ">|", "&>", "\n", ";", "&", "|", "(", ")", "<", ">",
    ];
    if starts_substitution(b, i) {
        return None;
    }
    let rest = &b[i..];
    OPERATORS
        .iter()
        .find(|op| rest.starts_with(op.as_bytes()))
        .copied()
}

fn starts_substitution(b: &[u8], i: usize) -> bool {
    matches!(b.get(i), Some(b'<' | b'>')) && b.get(i + 1) == Some(&b'(')
}

/// Where the word starting at `i` ends: at a blank or an operator outside quotes and
/// expansions. `None` when a quote or expansion never closes (an end-of-file error).
fn word_end(b: &[u8], mut i: usize) -> Option<usize> {
    // `NAME[…]` keeps blanks and operators inside its brackets (see `subscript`).
    if let Some(close) = subscript_end(b, i) {
        i = close;
    }
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' => break,
            b'\\' => i += 2,
            b'\'' => i = find(b, i + 1, b'\'')? + 1,
            b'"' => i = double_quoted_end(b, i + 1)?,
            b'`' => i = escaped_run_end(b, i + 1, b'`')?,
            b'$' if b.get(i + 1) == Some(&b'\'') => i = escaped_run_end(b, i + 2, b'\'')?,
            b'$' if b.get(i + 1) == Some(&b'(') => i = paren_end(b, i + 2)?,
            b'$' if b.get(i + 1) == Some(&b'{') => i = brace_end(b, i + 2)?,
            b'<' | b'>' if b.get(i + 1) == Some(&b'(') => i = paren_end(b, i + 2)?,
            b'=' if b.get(i + 1) == Some(&b'(') => {
                // `name=(`: the caller reads the array; the word ends after the `(`.
                return Some(i + 2);
            }
            _ if operator_at(b, i).is_some() => break,
            _ => i += 1,
        }
    }
    Some(i.min(b.len()))
}

/// The end of `NAME[…]` when the word at `i` starts with one.
pub(crate) fn subscript_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
        j += 1;
    }
    if j == i || b[i].is_ascii_digit() || b.get(j) != Some(&b'[') {
        return None;
    }
    let mut depth = 0;
    while j < b.len() {
        match b[j] {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(j + 1);
                }
            }
            _ => {}
        }
        j += 1;
    }
    None
}

/// After `name=(`: the offset past the `)` that closes the array.
fn array_end(b: &[u8], mut i: usize) -> Option<usize> {
    loop {
        i = skip_blanks(b, i);
        match b.get(i)? {
            b')' => return Some(i + 1),
            b'\n' => i += 1,
            b'#' => i = find(b, i, b'\n')?,
            _ => {
                let end = word_end(b, i)?;
                if end == i {
                    // An operator inside an array: bash rejects it; leave that to the parser.
                    return None;
                }
                i = end;
            }
        }
    }
}

fn double_quoted_end(b: &[u8], mut i: usize) -> Option<usize> {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            b'`' => i = escaped_run_end(b, i + 1, b'`')?,
            b'$' if b.get(i + 1) == Some(&b'(') => i = paren_end(b, i + 2)?,
            b'$' if b.get(i + 1) == Some(&b'{') => i = brace_end(b, i + 2)?,
            _ => i += 1,
        }
    }
    None
}

/// Past the `close` byte that ends a quoted run starting at `i` (a backslash escapes the byte
/// after it): backquotes and `$'…'`.
fn escaped_run_end(b: &[u8], mut i: usize, close: u8) -> Option<usize> {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == close => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// Past the `)` matching an opened `(` (quotes and nested expansions skipped).
fn paren_end(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\'' => i = find(b, i + 1, b'\'')? + 1,
            b'"' => i = double_quoted_end(b, i + 1)?,
            b'`' => i = escaped_run_end(b, i + 1, b'`')?,
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                depth -= 1;
                i += 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => i += 1,
        }
    }
    None
}

fn brace_end(b: &[u8], mut i: usize) -> Option<usize> {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\'' => i = find(b, i + 1, b'\'')? + 1,
            b'"' => i = double_quoted_end(b, i + 1)?,
            b'$' if b.get(i + 1) == Some(&b'(') => i = paren_end(b, i + 2)?,
            b'$' if b.get(i + 1) == Some(&b'{') => i = brace_end(b, i + 2)?,
            b'}' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn find(b: &[u8], from: usize, byte: u8) -> Option<usize> {
    b.get(from..)?
        .iter()
        .position(|x| *x == byte)
        .map(|p| from + p)
}

fn skip_blanks(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    i
}

/// A `#` starts a comment at the start of a word.
fn word_may_start_comment(b: &[u8], i: usize) -> bool {
    i == 0
        || matches!(
            b[i - 1],
            b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')'
        )
}

/// The token bash names at `at`: an operator, `newline`, or the word there.
fn token_text(text: &str, at: usize) -> String {
    let b = text.as_bytes();
    if at >= b.len() {
        return "newline".to_string();
    }
    if let Some(op) = operator_at(b, at) {
        return if op == "\n" {
            "newline".to_string()
        } else {
            op.to_string()
        };
    }
    let end = word_end(b, at).unwrap_or(b.len());
    text[at..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::{first_unexpected, reserved_words_as_plain};

    fn token(text: &str) -> Option<String> {
        first_unexpected(text).map(|(t, _)| t)
    }

    /// What bash 5.1 names (upstream's image), for scripts agents typed.
    #[test]
    fn names_the_token_bash_names() {
        for (script, bash) in [
            ("find . -name x  (Note: it's)", "("),
            ("echo hi (x)", "("),
            ("foo (x)", "x"),
            ("Step: `ln -s / /w` (This creates the link)", "("),
            ("x=1 if ! echo; then echo; fi", "then"),
            ("x=1 if echo; then echo; fi", "then"),
            ("x=() for f in a; do echo; done", "do"),
            ("x=1 while true; do echo; done", "do"),
            (
                "while read -r l; do echo \"$l\"; done <(find /t -type f | sort) | wc -l",
                "<(find /t -type f | sort)",
            ),
            ("cp -r /s/ !(*.text) /d", "("),
            ("echo a; then echo b", "then"),
            ("if true; then echo a; done", "done"),
            ("echo a; echo )", ")"),
            ("if true; then echo; fi if true; then echo; fi", "if"),
        ] {
            assert_eq!(token(script).as_deref(), Some(bash), "{script}");
        }
    }

    #[test]
    fn valid_or_unmodelled_scripts_give_nothing() {
        for script in [
            "a=(1 2) b=3; echo ${a[1]}",
            "declare -a x=(1 2); echo $(echo x)",
            "f() { echo; }",
            "(echo a) > f; echo \"(x)\" '(y)'",
            "case x in (a) echo;; esac",
            "[[ ( -n x ) ]]",
            "execute[ls (x) /]",
            "echo $((1 + (2)))",
            "cat <<EOF\n(x)\nEOF",
            "for i in 1 2; do echo $i; done > out",
            "echo 'never closed",
            "diff <(echo a) >(cat)",
        ] {
            assert_eq!(token(script), None, "{script}");
        }
    }

    /// After assignments or redirections bash takes a reserved word for a command's name
    /// (bash 5.1: `sum=0 for i in …` says `for: command not found`).
    #[test]
    fn quotes_reserved_words_bash_reads_as_names() {
        for (script, plain) in [
            (
                "sum=0 for i in {1..3} do sum=$((sum+i)) done echo $sum",
                Some("sum=0 \\for i in {1..3} do sum=$((sum+i)) done echo $sum"),
            ),
            ("a=1 b=2 while", Some("a=1 b=2 \\while")),
            (">/dev/null done; echo x", Some(">/dev/null \\done; echo x")),
            ("x=1 then", Some("x=1 \\then")),
            // bash rejects the `}` that follows, so nothing changes.
            ("a=1 { echo hi; }", None),
            // Reserved where they stand.
            ("for i in 1; do a=1 echo done; done", None),
            ("echo for done", None),
        ] {
            assert_eq!(
                reserved_words_as_plain(script).as_deref(),
                plain,
                "{script}"
            );
        }
    }
}
