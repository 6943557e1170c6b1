//! How bash's builtins read their options (its `internal_getopt`): flags bundle (`-ra NAME`,
//! `-tn1`), an option's value is the rest of its word or the next word, `--` or the first word
//! that is not an option ends them.

/// An option bash's builtin refuses: the caller prints `NAME: -x: invalid option` (or
/// `option requires an argument`) and its usage line, status 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionError {
    Invalid(char),
    MissingValue(char),
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// Each option as given, with its value for those in `with_value`.
    pub options: Vec<(char, Option<String>)>,
    pub operands: Vec<String>,
}

/// `flags`: options without a value; `with_value`: options that take one.
pub fn parse(args: &[String], flags: &str, with_value: &str) -> Result<Parsed, OptionError> {
    let mut parsed = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let word = &args[i];
        i += 1;
        if word == "--" {
            break;
        }
        let Some(cluster) = word.strip_prefix('-').filter(|c| !c.is_empty()) else {
            i -= 1;
            break;
        };
        for (at, c) in cluster.char_indices() {
            if flags.contains(c) {
                parsed.options.push((c, None));
            } else if with_value.contains(c) {
                let rest = &cluster[at + c.len_utf8()..];
                let value = if !rest.is_empty() {
                    rest.to_string()
                } else if let Some(next) = args.get(i) {
                    i += 1;
                    next.clone()
                } else {
                    return Err(OptionError::MissingValue(c));
                };
                parsed.options.push((c, Some(value)));
                break;
            } else {
                return Err(OptionError::Invalid(c));
            }
        }
    }
    parsed.operands = args[i..].to_vec();
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn bundles_values_and_ends() {
        let p = parse(&words("-ra parts x"), "rse", "adnNptu").unwrap();
        assert_eq!(p.options, [('r', None), ('a', Some("parts".into()))]);
        assert_eq!(p.operands, ["x"]);
        let p = parse(&words("-tn1 -d , arr"), "t", "dnOsuCc").unwrap();
        assert_eq!(
            p.options,
            [
                ('t', None),
                ('n', Some("1".into())),
                ('d', Some(",".into()))
            ]
        );
        assert_eq!(p.operands, ["arr"]);
        let p = parse(&words("-- -r x"), "r", "").unwrap();
        assert_eq!(p.operands, ["-r", "x"]);
        let p = parse(&words("a -r"), "r", "").unwrap();
        assert_eq!(p.operands, ["a", "-r"]);
        assert_eq!(parse(&words("-x"), "r", ""), Err(OptionError::Invalid('x')));
        assert_eq!(
            parse(&words("-a"), "r", "a"),
            Err(OptionError::MissingValue('a'))
        );
        // A lone `-` is an operand.
        assert_eq!(parse(&words("-"), "r", "").unwrap().operands, ["-"]);
    }
}
