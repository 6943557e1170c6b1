//! Bash tasks: a natural-language query, the gold command, and the file tree both run against.

use serde::{Deserialize, Deserializer, Serialize};

use crate::fs::TreeImage;

/// One bash task, shaped like upstream's task files (`{"query": ..., "gold": ...}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BashTask {
    pub query: String,
    /// The gold command. Upstream also accepts a list of commands, run joined with `;`; such
    /// lists are joined the same way when read.
    #[serde(deserialize_with = "string_or_list")]
    pub gold: String,
}

/// A named set of tasks sharing one file tree (e.g. upstream's `nl2bash_fs_1` with `fs_1`).
#[derive(Debug, Clone)]
pub struct BashTaskSet {
    pub name: String,
    pub tasks: Vec<BashTask>,
    /// The task tree only; the env overlays it on the base system.
    pub tree: TreeImage,
}

fn string_or_list<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Gold {
        One(String),
        Many(Vec<String>),
    }
    match Gold::deserialize(d) {
        Ok(Gold::One(s)) => Ok(s),
        Ok(Gold::Many(list)) => Ok(list.join(";")),
        Err(_) => Err(serde::de::Error::custom(
            "`gold` must be a string or a list of strings",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gold_may_be_a_list() {
        let t: BashTask = serde_json::from_str(r#"{"query": "q", "gold": ["ls", "pwd"]}"#).unwrap();
        assert_eq!(t.gold, "ls;pwd");
        let t: BashTask = serde_json::from_str(r#"{"query": "q", "gold": "ls"}"#).unwrap();
        assert_eq!(t.gold, "ls");
        assert!(serde_json::from_str::<BashTask>(r#"{"query": "q", "gold": 3}"#).is_err());
    }
}
