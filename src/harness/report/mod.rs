//! Reports comparing runs side by side: a plain-text table for the terminal and one
//! self-contained HTML file ([`html`]).
//!
//! Both views draw their metric rows from the same list (`headline_rows`, `category_rows`), so
//! the terminal and the HTML file never disagree on what a row means or how it is rounded.

pub mod html;

use std::collections::HashMap;

use serde_json::Value;

use crate::data::trajectory::EpisodeRecord;
use crate::harness::metrics::{self, Metrics, Price};

/// One run to report on: its manifest (read loosely: any key may be missing) and its episodes.
#[derive(Debug, Clone)]
pub struct RunData {
    pub name: String,
    pub manifest: Value,
    pub records: Vec<EpisodeRecord>,
}

impl RunData {
    /// The manifest's `key` as display text; `-` when it is missing or null.
    pub fn manifest_field(&self, key: &str) -> String {
        self.manifest
            .get(key)
            .map_or_else(|| "-".into(), display_value)
    }

    /// Metrics of this run, priced by the manifest's `model` when `prices` has it.
    pub fn metrics(&self, prices: &HashMap<String, Price>) -> Metrics {
        let price = self
            .manifest
            .get("model")
            .and_then(Value::as_str)
            .and_then(|model| prices.get(model));
        metrics::compute(&self.records, price)
    }
}

/// A JSON value as a person would write it: strings without quotes, null as `-`.
pub(crate) fn display_value(value: &Value) -> String {
    match value {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The runs as a plain-text table: one column per run, one row per headline metric, then one
/// success-rate row per category. No prices, so no cost.
pub fn terminal_table(runs: &[RunData]) -> String {
    terminal_table_priced(runs, &HashMap::new())
}

/// [`terminal_table`] with costs, each run priced by its manifest's `model`.
pub fn terminal_table_priced(runs: &[RunData], prices: &HashMap<String, Price>) -> String {
    let metrics: Vec<Metrics> = runs.iter().map(|r| r.metrics(prices)).collect();
    let header = ["run", "agent", "model", "strategy"].map(|key| Row {
        label: key.to_string(),
        values: runs
            .iter()
            .map(|r| match key {
                "run" => r.name.clone(),
                _ => r.manifest_field(key),
            })
            .collect(),
    });
    let sections = [
        header.to_vec(),
        headline_rows(&metrics),
        category_rows(&metrics),
    ];
    render_aligned(&sections, runs.len())
}

/// One labelled line of a report: a value per run, already formatted.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    pub label: String,
    pub values: Vec<String>,
}

/// Lays out sections of rows as aligned columns: labels left-aligned, values right-aligned,
/// a dashed rule between non-empty sections.
fn render_aligned(sections: &[Vec<Row>], columns: usize) -> String {
    let rows = sections.iter().flatten();
    let label_width = rows.clone().map(|r| width(&r.label)).max().unwrap_or(0);
    let value_widths: Vec<usize> = (0..columns)
        .map(|c| rows.clone().map(|r| width(&r.values[c])).max().unwrap_or(0))
        .collect();
    let total_width = label_width + value_widths.iter().map(|w| w + 2).sum::<usize>();
    let mut out = String::new();
    for (i, section) in sections.iter().filter(|s| !s.is_empty()).enumerate() {
        if i > 0 {
            out.push_str(&"-".repeat(total_width));
            out.push('\n');
        }
        for row in section {
            out.push_str(&pad_right(&row.label, label_width));
            for (value, &w) in row.values.iter().zip(&value_widths) {
                out.push_str("  ");
                out.push_str(&pad_left(value, w));
            }
            out.push('\n');
        }
    }
    out
}

fn width(text: &str) -> usize {
    text.chars().count()
}

fn pad_right(text: &str, to: usize) -> String {
    format!("{text}{}", " ".repeat(to.saturating_sub(width(text))))
}

fn pad_left(text: &str, to: usize) -> String {
    format!("{}{text}", " ".repeat(to.saturating_sub(width(text))))
}

/// The headline metrics, one row each, formatted for people.
pub(crate) fn headline_rows(metrics: &[Metrics]) -> Vec<Row> {
    type Cell = fn(&Metrics) -> String;
    let cells: [(&str, Cell); 27] = [
        ("episodes", |m| m.episodes.to_string()),
        ("harness errors", |m| m.harness_errors.to_string()),
        ("solved", |m| format!("{}/{}", m.solved, m.scored_episodes)),
        ("success rate", |m| percent(m.success_rate)),
        ("first-pass success", |m| percent(m.first_pass_success_rate)),
        ("recovered success", |m| percent(m.recovered_success_rate)),
        ("mean reward", |m| fixed(m.mean_reward, 3)),
        ("error recovery", |m| percent(m.error_recovery_rate)),
        ("turns to recover (mean)", |m| {
            fixed(m.mean_turns_to_recover, 2)
        }),
        ("turns (mean)", |m| fixed(m.mean_turns, 2)),
        ("error %", |m| percent(m.mean_error_share)),
        ("churn episodes", |m| percent(m.churn_episode_share)),
        ("churn actions", |m| m.churn_actions.to_string()),
        ("A-B-A-B loop episodes", |m| m.loop_episodes.to_string()),
        ("destructive episodes", |m| {
            percent(m.destructive_episode_share)
        }),
        ("destructive mutations", |m| {
            m.destructive_mutations.to_string()
        }),
        ("premature submissions", |m| {
            percent(m.premature_submission_share)
        }),
        ("observation chars/episode (mean)", |m| {
            m.observation_chars
                .map_or("-".into(), |d| format!("{:.0}", d.mean))
        }),
        ("observation chars/episode (p50/p90/max)", |m| {
            m.observation_chars
                .map_or("-".into(), |d| format!("{}/{}/{}", d.p50, d.p90, d.max))
        }),
        ("dump turns (>1000 chars)", |m| percent(m.dump_turn_share)),
        ("prompt tokens", |m| m.prompt_tokens.to_string()),
        ("completion tokens", |m| m.completion_tokens.to_string()),
        ("model requests", |m| m.requests.to_string()),
        ("cost", |m| fixed(m.cost, 4)),
        ("cost per solved", |m| fixed(m.cost_per_solved, 4)),
        ("wall time", |m| seconds(Some(m.wall_ms_total as f64))),
        ("wall time/episode", |m| seconds(m.mean_wall_ms)),
    ];
    cells
        .iter()
        .map(|(label, cell)| Row {
            label: label.to_string(),
            values: metrics.iter().map(cell).collect(),
        })
        .collect()
}

/// One success-rate row per category any run has, `-` for runs without that category.
pub(crate) fn category_rows(metrics: &[Metrics]) -> Vec<Row> {
    all_categories(metrics)
        .into_iter()
        .map(|name| Row {
            values: metrics
                .iter()
                .map(|m| {
                    m.by_category
                        .iter()
                        .find(|c| c.category == name)
                        .map_or("-".into(), |c| {
                            format!(
                                "{} ({}/{})",
                                percent(Some(c.success_rate)),
                                c.solved,
                                c.episodes
                            )
                        })
                })
                .collect(),
            label: format!("success: {name}"),
        })
        .collect()
}

/// Every category of any run, in the metrics' category order.
pub(crate) fn all_categories(metrics: &[Metrics]) -> Vec<String> {
    let mut names: Vec<String> = metrics
        .iter()
        .flat_map(|m| m.by_category.iter().map(|c| c.category.clone()))
        .collect();
    names.sort_by(|a, b| metrics::category_order(a, b));
    names.dedup();
    names
}

pub(crate) fn percent(share: Option<f64>) -> String {
    share.map_or("-".into(), |s| format!("{:.1}%", s * 100.0))
}

fn fixed(value: Option<f64>, decimals: usize) -> String {
    value.map_or("-".into(), |v| format!("{v:.decimals$}"))
}

fn seconds(ms: Option<f64>) -> String {
    ms.map_or("-".into(), |ms| format!("{:.1} s", ms / 1000.0))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::data::trajectory::{EpisodeEnd, TurnRecord, Usage};
    use serde_json::{Map, json};

    pub(crate) fn record(task_index: usize, category: &str, reward: f64) -> EpisodeRecord {
        EpisodeRecord {
            env: "sql".into(),
            task_index,
            query: "how many singers?".into(),
            gold: "SELECT count(*) FROM singer".into(),
            category: Some(category.into()),
            actions: vec![TurnRecord::new("SELECT 1", "[(1,)]", Some(0))],
            reward,
            info: Map::new(),
            end: EpisodeEnd::Submitted,
            error: None,
            destructive: Vec::new(),
            usage: Usage {
                prompt_tokens: 2_000_000,
                completion_tokens: 0,
                requests: 1,
            },
            wall_ms: 2000,
        }
    }

    pub(crate) fn two_runs() -> Vec<RunData> {
        vec![
            RunData {
                name: "baseline".into(),
                manifest: json!({"agent": "chat", "model": "m-small", "strategy": "try-again",
                                 "max_turns": 10, "context": {"dialogue_limit": 5}}),
                records: vec![
                    record(0, "easy", 1.0),
                    record(1, "easy", 0.0),
                    record(2, "hard", 0.0),
                ],
            },
            RunData {
                name: "react-large-model".into(),
                manifest: json!({"agent": "chat", "model": "m-large"}),
                records: vec![record(0, "easy", 1.0), record(1, "medium", 1.0)],
            },
        ]
    }

    /// The cells of the row labelled `label`: columns are separated by at least two spaces.
    fn row(table: &str, label: &str) -> Vec<String> {
        table
            .lines()
            .map(|line| {
                line.split("  ")
                    .map(str::trim)
                    .filter(|cell| !cell.is_empty())
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .find(|cells| cells.first().is_some_and(|c| c == label))
            .unwrap_or_else(|| panic!("no {label:?} row in\n{table}"))
    }

    #[test]
    fn table_has_a_column_per_run_and_aligned_rows() {
        let table = terminal_table(&two_runs());
        assert_eq!(row(&table, "run"), ["run", "baseline", "react-large-model"]);
        assert_eq!(row(&table, "strategy"), ["strategy", "try-again", "-"]);
        assert_eq!(
            row(&table, "success rate"),
            ["success rate", "33.3%", "100.0%"]
        );
        assert_eq!(row(&table, "solved"), ["solved", "1/3", "2/2"]);
        let widths: Vec<usize> = table.lines().map(width).collect();
        assert!(widths.iter().all(|&w| w == widths[0]), "{table}");
        // Values are right-aligned: the run name ends where its column's values end.
        let header = table.lines().next().unwrap();
        let success = table
            .lines()
            .find(|l| l.starts_with("success rate"))
            .unwrap();
        assert_eq!(
            header.find("baseline").unwrap() + "baseline".len(),
            success.find("33.3%").unwrap() + "33.3%".len()
        );
        // Two rules: after the header, before the categories.
        assert_eq!(table.lines().filter(|l| l.starts_with("---")).count(), 2);
    }

    #[test]
    fn category_rows_cover_every_run_in_difficulty_order() {
        let table = terminal_table(&two_runs());
        let labels: Vec<&str> = table
            .lines()
            .filter(|l| l.starts_with("success: "))
            .map(|l| l.split("  ").next().unwrap())
            .collect();
        assert_eq!(
            labels,
            ["success: easy", "success: medium", "success: hard"]
        );
        assert_eq!(
            row(&table, "success: easy"),
            ["success: easy", "50.0% (1/2)", "100.0% (1/1)"]
        );
        assert_eq!(
            row(&table, "success: medium"),
            ["success: medium", "-", "100.0% (1/1)"]
        );
        assert_eq!(
            row(&table, "success: hard"),
            ["success: hard", "0.0% (0/1)", "-"]
        );
    }

    #[test]
    fn prices_are_looked_up_by_the_manifest_model() {
        let prices = HashMap::from([(
            "m-small".to_string(),
            Price {
                input_per_mtok: 1.5,
                output_per_mtok: 0.0,
            },
        )]);
        let table = terminal_table_priced(&two_runs(), &prices);
        // Three episodes of 2 Mtok at 1.5 per Mtok; one solved.
        assert_eq!(row(&table, "cost"), ["cost", "9.0000", "-"]);
        assert_eq!(
            row(&table, "cost per solved"),
            ["cost per solved", "9.0000", "-"]
        );
        assert_eq!(
            row(&terminal_table(&two_runs()), "cost"),
            ["cost", "-", "-"]
        );
    }

    #[test]
    fn manifest_values_display_without_json_quoting() {
        let run = &two_runs()[0];
        assert_eq!(run.manifest_field("model"), "m-small");
        assert_eq!(run.manifest_field("max_turns"), "10");
        assert_eq!(run.manifest_field("task_set"), "-");
        assert_eq!(run.manifest_field("context"), r#"{"dialogue_limit":5}"#);
    }

    #[test]
    fn no_runs_is_an_empty_table_not_a_panic() {
        let table = terminal_table(&[]);
        assert!(table.starts_with("run"));
    }
}
