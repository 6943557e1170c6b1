//! The function call stack as bash shows it: `FUNCNAME`, `BASH_LINENO` and `BASH_SOURCE`
//! (innermost call first), and `caller`. They are ordinary arrays, so subshells get them
//! with the other variables. A script file's stack ends in `main`; a `-c` script's has none.

use crate::state::{Shell, Value, Var};
use std::collections::BTreeMap;

const STACK_VARIABLES: [&str; 3] = ["FUNCNAME", "BASH_LINENO", "BASH_SOURCE"];

/// The three arrays as they were before a call, restored when it returns.
pub struct OuterFrames([Option<Var>; 3]);

fn elements(var: Option<&Var>) -> Vec<String> {
    match var.map(|v| &v.value) {
        Some(Value::Indexed(m)) => m.values().cloned().collect(),
        _ => Vec::new(),
    }
}

fn array(items: Vec<String>) -> Var {
    let indexed: BTreeMap<i64, String> = items
        .into_iter()
        .enumerate()
        .map(|(i, v)| (i as i64, v))
        .collect();
    Var {
        value: Value::Indexed(indexed),
        exported: false,
        readonly: false,
        integer: false,
        declared_only: false,
    }
}

impl Shell {
    /// Pushes a call of `function` made on the current line.
    pub fn enter_frame(&mut self, function: &str) -> OuterFrames {
        let outer = STACK_VARIABLES.map(|name| self.globals.get(name).cloned());
        let [mut names, mut lines, mut sources] =
            STACK_VARIABLES.map(|name| elements(self.globals.get(name)));
        let top_source = self
            .definition_source
            .as_deref()
            .unwrap_or(&self.name)
            .to_string();
        if names.is_empty() && top_source != "environment" {
            // A script run from a file is itself the bottom frame.
            names = vec!["main".into()];
            lines = vec!["0".into()];
            sources = vec![top_source];
        }
        let source = self
            .function_sources
            .get(function)
            .map(|s| s.to_string())
            .unwrap_or_else(|| self.name.clone());
        names.insert(0, function.to_string());
        lines.insert(0, self.shifted(self.line).to_string());
        sources.insert(0, source);
        for (name, items) in STACK_VARIABLES.iter().zip([names, lines, sources]) {
            self.globals.insert(name.to_string(), array(items));
        }
        OuterFrames(outer)
    }

    pub fn leave_frame(&mut self, outer: OuterFrames) {
        for (name, var) in STACK_VARIABLES.iter().zip(outer.0) {
            match var {
                Some(var) => self.globals.insert(name.to_string(), var),
                None => self.globals.remove(*name),
            };
        }
    }

    /// `caller [N]`: where the current function (or frame N) was called from.
    pub fn builtin_caller(&mut self, args: &[String]) -> i32 {
        let [names, lines, sources] = STACK_VARIABLES.map(|name| elements(self.globals.get(name)));
        if names.is_empty() {
            return 1;
        }
        let Some(frame) = args.first() else {
            let source = sources.get(1).map_or("NULL", String::as_str);
            self.out(&format!("{} {source}\n", lines[0]));
            return 0;
        };
        let Ok(n) = frame.parse::<usize>() else {
            self.error(&format!("caller: {frame}: invalid number"));
            self.err("caller: usage: caller [expr]\n");
            return 2;
        };
        match (lines.get(n), names.get(n + 1), sources.get(n + 1)) {
            (Some(line), Some(name), Some(source)) => {
                self.out(&format!("{line} {name} {source}\n"));
                0
            }
            _ => 1,
        }
    }
}
