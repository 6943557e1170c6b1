//! Turning what an agent typed into one SQL statement.
//!
//! [`clean_action`] is what the env does with every action: strip a Markdown code fence and
//! trailing semicolons. The statement count is checked later, by SQLite's own tokenizer (a second
//! statement is refused, never run).
//!
//! [`upstream_sql_parser`] and [`upstream_react_parser`] reproduce upstream's harness parsers
//! (`experiments/utils/utils.py`), quirks included, for agents that want upstream's exact
//! behaviour and for replaying upstream's logs: they cut at the first `;`, turn `\_` into `_`,
//! accept a fenced block only when its first word is `SHOW`, `SELECT`, `DESCRIBE` or `DESC`, and
//! (a bug kept on purpose) answer `SQL: …` with its single sixth character.

use std::sync::LazyLock;

use regex::Regex;

/// The action as one SQL statement: surrounding whitespace, a Markdown code fence (with an
/// optional `sql` / `mysql` / `sqlite` tag) and trailing semicolons removed.
pub fn clean_action(action: &str) -> String {
    let mut s = action.trim();
    if let Some(rest) = s.strip_prefix("```") {
        let rest = rest.strip_suffix("```").unwrap_or(rest);
        let tag_len = rest
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(rest.len());
        let tag = &rest[..tag_len];
        let is_tag = ["sql", "mysql", "sqlite", "sqlite3"]
            .iter()
            .any(|t| t.eq_ignore_ascii_case(tag));
        s = if is_tag { &rest[tag_len..] } else { rest };
        s = s.trim();
    }
    s.trim_end_matches(|c: char| c == ';' || c.is_whitespace())
        .to_string()
}

/// Upstream's keywords that make a fenced block "code".
const SQL_KEYWORDS: [&str; 4] = ["SHOW", "SELECT", "DESCRIBE", "DESC"];

fn up_to_semicolon(s: &str) -> &str {
    s.find(';').map_or(s, |i| &s[..i])
}

static FENCE_SQL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?s)```(?:sql|SQL)?([\S\s]+?)```").ok());
static REACT_EXECUTE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?s)execute\[(.*)\]").ok());

/// Upstream's `sql_parser`: `(action, is_code)`. Not-code answers were never executed upstream;
/// the agent got a "No SQL code was found" retry message instead.
pub fn upstream_sql_parser(response: &str) -> (String, bool) {
    let action = response.replace("\\_", "_");
    if !action.contains("```") {
        if action.starts_with("SQL: ") {
            // Upstream indexes instead of slicing: only the sixth character survives.
            let c: String = action.chars().nth(5).map(String::from).unwrap_or_default();
            return (up_to_semicolon(&c).to_string(), true);
        }
        for kw in SQL_KEYWORDS {
            if let Some(i) = action.find(kw) {
                return (up_to_semicolon(&action[i..]).to_string(), true);
            }
        }
    }
    let Some(first) = FENCE_SQL
        .as_ref()
        .and_then(|re| re.captures(&action))
        .and_then(|c| c.get(1))
    else {
        return (action, false);
    };
    let joined = first
        .as_str()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let cut = up_to_semicolon(&joined).to_string();
    let is_code = cut
        .split_whitespace()
        .next()
        .is_some_and(|w| SQL_KEYWORDS.contains(&w.to_uppercase().as_str()));
    (cut, is_code)
}

/// Upstream's `sql_parser_react`: `execute[…]` (greedy, to the last `]`), cut at the first `;`;
/// `submit` passes through.
pub fn upstream_react_parser(response: &str) -> (String, bool) {
    if response == "submit" {
        return (response.to_string(), true);
    }
    match REACT_EXECUTE
        .as_ref()
        .and_then(|re| re.captures(response))
        .and_then(|c| c.get(1))
    {
        Some(m) => (up_to_semicolon(m.as_str()).to_string(), true),
        None => (response.to_string(), false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning_strips_fences_and_semicolons() {
        assert_eq!(clean_action("SELECT 1;"), "SELECT 1");
        assert_eq!(clean_action("  SELECT 1 ; ;\n"), "SELECT 1");
        assert_eq!(clean_action("```sql\nSELECT 1;\n```"), "SELECT 1");
        assert_eq!(clean_action("```SQL SELECT 1```"), "SELECT 1");
        assert_eq!(clean_action("```\nSHOW TABLES\n```"), "SHOW TABLES");
        assert_eq!(clean_action("```SELECT 1```"), "SELECT 1");
        // Only trailing semicolons go: a second statement stays, to be refused.
        assert_eq!(
            clean_action("SELECT 1; DROP TABLE t;"),
            "SELECT 1; DROP TABLE t"
        );
    }

    #[test]
    fn upstream_parser_quirks() {
        assert_eq!(
            upstream_sql_parser("```sql\nSELECT *\nFROM t;\n```"),
            ("SELECT * FROM t".to_string(), true)
        );
        assert_eq!(
            upstream_sql_parser("Let me look: SHOW TABLES; then"),
            ("SHOW TABLES".to_string(), true)
        );
        assert_eq!(
            upstream_sql_parser("SQL: SELECT 1"),
            ("S".to_string(), true)
        );
        assert_eq!(
            upstream_sql_parser("USE flight_2;"),
            ("USE flight_2;".to_string(), false)
        );
        assert!(!upstream_sql_parser("```sql\nUSE flight_2\n```").1);
        assert_eq!(
            upstream_sql_parser("SELECT first\\_name FROM t").0,
            "SELECT first_name FROM t"
        );
        assert_eq!(
            upstream_react_parser("execute[SELECT a FROM t WHERE x = [1]; DROP]"),
            ("SELECT a FROM t WHERE x = [1]".to_string(), true)
        );
        assert_eq!(
            upstream_react_parser("submit"),
            ("submit".to_string(), true)
        );
        assert!(!upstream_react_parser("SELECT 1").1);
    }
}
