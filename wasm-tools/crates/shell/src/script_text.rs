//! Commands printed back as script text, for the subshells that run them (pipeline stages,
//! background jobs). brush-parser's printer glues a compound command's redirections to its
//! closing word (`{ …; }2>& 1`, which reads back as the word `}2`) and each redirection to the
//! next (`2>& 1>out`); here they are spaced.

use brush_parser::ast::{self, Command};

pub fn command(cmd: &Command) -> String {
    let redirections = |list: &Option<ast::RedirectList>| -> String {
        list.as_ref()
            .map(|list| list.0.iter().map(|r| format!(" {r}")).collect())
            .unwrap_or_default()
    };
    match cmd {
        Command::Compound(compound, list) => format!("{compound}{}", redirections(list)),
        Command::ExtendedTest(test, list) => format!("[[ {test} ]]{}", redirections(list)),
        other => other.to_string(),
    }
}

pub fn pipeline(p: &ast::Pipeline) -> String {
    let mut text = String::new();
    if let Some(timed) = &p.timed {
        text.push_str(&format!("{timed} "));
    }
    if p.bang {
        text.push_str("! ");
    }
    let stages: Vec<String> = p.seq.iter().map(command).collect();
    text.push_str(&stages.join(" | "));
    text
}

pub fn and_or(list: &ast::AndOrList) -> String {
    let mut text = pipeline(&list.first);
    for next in &list.additional {
        match next {
            ast::AndOr::And(p) => text.push_str(&format!(" && {}", pipeline(p))),
            ast::AndOr::Or(p) => text.push_str(&format!(" || {}", pipeline(p))),
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use crate::dialect::Dialect;

    /// Each text must read back as the same command.
    #[test]
    fn redirections_of_compound_commands_read_back() {
        for script in [
            "{ echo out; echo err >&2; } 2>&1 >/dev/null",
            "[[ -n x ]] 2>/dev/null",
            "! { true; } | cat >out 2>&1",
            "while false; do :; done <in && echo ok || ( echo no ) 2>&1",
        ] {
            let program = crate::syntax::parse(script, Dialect::Bash).unwrap();
            let list = &program.complete_commands[0].0[0].0;
            let text = super::and_or(list);
            let again = crate::syntax::parse(&text, Dialect::Bash)
                .unwrap_or_else(|e| panic!("{text:?} does not parse: {e:?}"));
            assert_eq!(
                super::and_or(&again.complete_commands[0].0[0].0),
                text,
                "{script}"
            );
        }
    }
}
