//! Python's `shlex.split` in POSIX mode, which upstream's docker-py applied to
//! `/bin/bash -c "<action>"` — the source of upstream's quoting quirks.

/// Splits like `shlex.split(s)`; `None` where shlex raises (unbalanced quotes, trailing `\`).
pub fn split(s: &str) -> Option<Vec<String>> {
    #[derive(PartialEq)]
    enum State {
        Between,
        Plain,
        Single,
        Double,
    }
    let mut state = State::Between;
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match state {
            State::Between | State::Plain => match c {
                c if c.is_whitespace() => {
                    if state == State::Plain {
                        words.push(std::mem::take(&mut cur));
                        state = State::Between;
                    }
                }
                '\\' => {
                    cur.push(chars.next()?);
                    state = State::Plain;
                }
                '\'' => state = State::Single,
                '"' => state = State::Double,
                c => {
                    cur.push(c);
                    state = State::Plain;
                }
            },
            State::Single => match c {
                '\'' => state = State::Plain,
                c => cur.push(c),
            },
            State::Double => match c {
                '"' => state = State::Plain,
                '\\' => match chars.next()? {
                    e @ ('"' | '\\') => cur.push(e),
                    e => {
                        cur.push('\\');
                        cur.push(e);
                    }
                },
                c => cur.push(c),
            },
        }
    }
    match state {
        State::Single | State::Double => None,
        State::Plain => {
            words.push(cur);
            Some(words)
        }
        State::Between => Some(words),
    }
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn matches_python_shlex() {
        // Values from CPython 3.11 shlex.split.
        assert_eq!(
            split(r#"/bin/bash -c "echo "a b"""#).unwrap(),
            ["/bin/bash", "-c", "echo a", "b"]
        );
        assert_eq!(
            split(r#"/bin/bash -c "awk '{print $1}' f""#).unwrap(),
            ["/bin/bash", "-c", "awk '{print $1}' f"]
        );
        assert_eq!(
            split(r#"a\.b "x\.y" 'q\'"#).unwrap(),
            ["a.b", r"x\.y", r"q\"]
        );
        assert_eq!(split(r#"a "b"#), None);
        assert_eq!(split("  "), Some(vec![]));
        assert_eq!(split(r#""""#).unwrap(), [""]);
    }
}
