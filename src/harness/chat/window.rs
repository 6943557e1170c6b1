//! What the model gets to see: which messages of a long dialogue are sent, and how much of each
//! observation.
//!
//! Upstream keeps the first 2 messages (system and task) plus the last K, and cuts each
//! observation to 1000 characters or 50 rows (ReAct: 350 or 25). The whole dialogue stays in the
//! policy's memory; only the request is cut.

use serde::{Deserialize, Serialize};

use crate::env::EnvKind;
use crate::harness::model::{ChatMessage, Role};

/// How much of one observation the model sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservationLimit {
    /// Characters (Unicode scalar values, not bytes).
    pub max_chars: usize,
    /// Rows: lines of output; for SQL results shown as a Python list of tuples
    /// (`[(1, 'a'), (2, 'b')]`, one line however many rows), the tuples.
    pub max_rows: usize,
}

impl ObservationLimit {
    /// Upstream's chat policies.
    pub const CHAT: ObservationLimit = ObservationLimit {
        max_chars: 1000,
        max_rows: 50,
    };
    /// Upstream's ReAct.
    pub const REACT: ObservationLimit = ObservationLimit {
        max_chars: 350,
        max_rows: 25,
    };
}

/// Which messages of the dialogue go into a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Messages kept from the start (the system message and the task).
    pub first: usize,
    /// Messages kept from the end; `None` keeps everything.
    pub last: Option<usize>,
}

impl Window {
    /// Every message.
    pub const ALL: Window = Window {
        first: 0,
        last: None,
    };

    /// Upstream's `dialogue_limit`: the first 2 messages plus the last `k`.
    pub fn first_two_and_last(k: usize) -> Window {
        Window {
            first: 2,
            last: Some(k),
        }
    }

    /// The messages to send.
    pub fn select(&self, messages: &[ChatMessage]) -> Vec<ChatMessage> {
        let Some(last) = self.last else {
            return messages.to_vec();
        };
        if messages.len() <= self.first + last {
            return messages.to_vec();
        }
        let mut start = messages.len() - last;
        // A tool result without the assistant message that made the call is rejected by
        // OpenAI-style endpoints, so the kept tail never starts with one.
        while start < messages.len() && messages[start].role == Role::Tool {
            start += 1;
        }
        let mut kept = messages[..self.first].to_vec();
        kept.extend_from_slice(&messages[start..]);
        kept
    }

    /// For the manifest: `"first 2 + last 7 messages"`, `"all messages"`.
    pub fn describe(&self) -> String {
        match self.last {
            None => "all messages".to_string(),
            Some(k) => format!("first {} + last {k} messages", self.first),
        }
    }
}

/// The observation as the model sees it: cut to `limit`, with a note saying what was cut, and
/// `(no output)` for an empty one (a blank message would read as a glitch).
pub fn shown_observation(text: &str, env: EnvKind, limit: ObservationLimit) -> String {
    if text.trim().is_empty() {
        return "(no output)".to_string();
    }
    let mut notes = Vec::new();
    let by_rows = match env {
        EnvKind::Sql => {
            cut_sql_rows(text, limit.max_rows).or_else(|| cut_lines(text, limit.max_rows))
        }
        EnvKind::Bash | EnvKind::Python => cut_lines(text, limit.max_rows),
    };
    let mut shown = match by_rows {
        Some(cut) => {
            notes.push(format!(
                "{} {} in all, the first {} shown",
                cut.total, cut.unit, limit.max_rows
            ));
            cut.text
        }
        None => text.to_string(),
    };
    let chars = shown.chars().count();
    if chars > limit.max_chars {
        let end = shown
            .char_indices()
            .nth(limit.max_chars)
            .map_or(shown.len(), |(i, _)| i);
        shown.truncate(end);
        notes.push(format!(
            "{chars} characters, the first {} shown",
            limit.max_chars
        ));
    }
    if !notes.is_empty() {
        shown.push_str(&format!("\n[output truncated: {}]", notes.join("; ")));
    }
    shown
}

struct Cut {
    text: String,
    total: usize,
    unit: &'static str,
}

/// The first `max` lines, when there are more.
fn cut_lines(text: &str, max: usize) -> Option<Cut> {
    let total = text.lines().count();
    if total <= max {
        return None;
    }
    Some(Cut {
        text: text.lines().take(max).collect::<Vec<_>>().join("\n"),
        total,
        unit: "lines",
    })
}

/// For a Python-list-of-tuples result: the first `max` tuples, when there are more. `None` when
/// the text is not such a list (an error message, `None`) or is short enough.
fn cut_sql_rows(text: &str, max: usize) -> Option<Cut> {
    let body = text.trim_start();
    if !body.starts_with("[(") {
        return None;
    }
    let offset = text.len() - body.len();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    let mut rows = 0usize;
    let mut cut_at = None;
    for (i, c) in body.char_indices() {
        if let Some(q) = quote {
            // Inside a string repr: brackets are text; `\` escapes the next character.
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => {
                depth = depth.saturating_sub(1);
                if depth == 1 && c == ')' {
                    rows += 1;
                    if rows == max {
                        cut_at = Some(i + 1);
                    }
                }
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    if rows <= max {
        return None;
    }
    let end = offset + cut_at?;
    Some(Cut {
        text: format!("{}]", &text[..end]),
        total: rows,
        unit: "rows",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dialogue(n: usize) -> Vec<ChatMessage> {
        (0..n)
            .map(|i| match i {
                0 => ChatMessage::system("s"),
                i if i % 2 == 1 => ChatMessage::user(format!("u{i}")),
                i => ChatMessage::assistant(format!("a{i}")),
            })
            .collect()
    }

    #[test]
    fn window_keeps_first_two_and_last_k() {
        let msgs = dialogue(12);
        let kept = Window::first_two_and_last(5).select(&msgs);
        let texts: Vec<&str> = kept.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(texts, ["s", "u1", "u7", "a8", "u9", "a10", "u11"]);
        // Short dialogues go whole.
        assert_eq!(Window::first_two_and_last(5).select(&msgs[..7]).len(), 7);
        assert_eq!(Window::ALL.select(&msgs).len(), 12);
        assert_eq!(
            Window::first_two_and_last(7).describe(),
            "first 2 + last 7 messages"
        );
    }

    #[test]
    fn window_never_starts_on_a_tool_result() {
        let mut msgs = dialogue(2);
        for i in 0..4 {
            msgs.push(ChatMessage::assistant(format!("call{i}")));
            msgs.push(ChatMessage::tool(format!("id{i}"), format!("out{i}")));
        }
        // The last 3 would start on `out2`; it goes too, leaving the call3/out3 pair.
        let kept = Window::first_two_and_last(3).select(&msgs);
        let texts: Vec<&str> = kept.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(texts, ["s", "u1", "call3", "out3"]);
    }

    #[test]
    fn long_output_is_cut_to_the_character_limit() {
        let text = "x".repeat(5000);
        let shown = shown_observation(&text, EnvKind::Bash, ObservationLimit::CHAT);
        let (kept, note) = shown.split_once('\n').unwrap();
        assert_eq!(kept, "x".repeat(1000));
        assert!(note.contains("5000 characters"), "{note}");
        // Multi-byte text is cut on a character boundary.
        let wide = "é".repeat(400);
        let shown = shown_observation(&wide, EnvKind::Bash, ObservationLimit::REACT);
        assert!(shown.starts_with(&"é".repeat(350)));
        assert!(!shown.starts_with(&"é".repeat(351)));
    }

    #[test]
    fn many_lines_are_cut_to_the_row_limit() {
        let text: String = (0..120).map(|i| format!("line {i}\n")).collect();
        let shown = shown_observation(&text, EnvKind::Bash, ObservationLimit::CHAT);
        assert!(
            shown.contains("line 49\n[output truncated: 120 lines in all, the first 50 shown]")
        );
        assert!(!shown.contains("line 50"));
        let small = shown_observation("a\nb\n", EnvKind::Python, ObservationLimit::CHAT);
        assert_eq!(small, "a\nb\n");
    }

    #[test]
    fn sql_rows_are_tuples_not_lines() {
        let rows: Vec<String> = (0..30)
            .map(|i| format!("({i}, 'a)(b', \"it's\")"))
            .collect();
        let text = format!("[{}]", rows.join(", "));
        let limit = ObservationLimit {
            max_chars: 10_000,
            max_rows: 25,
        };
        let shown = shown_observation(&text, EnvKind::Sql, limit);
        assert!(shown.starts_with("[(0, 'a)(b', \"it's\"), "), "{shown}");
        assert!(shown.contains("(24, 'a)(b', \"it's\")]"), "{shown}");
        assert!(!shown.contains("(25,"));
        assert!(shown.contains("30 rows in all, the first 25 shown"));
        // Few rows and non-list results pass through.
        assert_eq!(
            shown_observation("[(1,)]", EnvKind::Sql, ObservationLimit::REACT),
            "[(1,)]"
        );
        let err = "Error executing query: no such table: t";
        assert_eq!(
            shown_observation(err, EnvKind::Sql, ObservationLimit::CHAT),
            err
        );
        assert_eq!(
            shown_observation("", EnvKind::Sql, ObservationLimit::CHAT),
            "(no output)"
        );
    }
}
