//! The runs as one self-contained HTML file: inline CSS, charts as inline SVG drawn here, no
//! script, nothing fetched, so the file can be mailed or archived and still open offline.
//!
//! Layout: a header per run (its manifest), the metrics table with runs side by side, four
//! charts (cumulative success by turn, error rate by turn, failure modes, success by category),
//! then every episode's trajectory in a collapsed `<details>`.
//!
//! Records hold arbitrary agent output, so every piece of text goes through [`escape`]. Charts
//! carry hooks for browser tests: each `<svg>` has class `chart` and a `data-chart` key
//! (`sr-by-turn`, `error-by-turn`, `failure-modes`, `sr-by-category`); each series element has
//! class `series-<i>` (i = the run's position) plus `series` (line), `point` (line marker) or
//! `bar`. A flat line has a zero-height box, but its `point` markers never do.

use std::collections::HashMap;

use super::{Row, RunData, all_categories, category_rows, display_value, headline_rows, percent};
use crate::data::trajectory::{EpisodeRecord, TurnRecord};
use crate::harness::metrics::{Metrics, Price};

/// Observations longer than this many characters are cut in the trajectory view, to keep the
/// file small enough to open.
const OBSERVATION_LIMIT: usize = 4000;

/// Series colours, told apart with common colour-vision deficiencies.
const PALETTE: [&str; 8] = [
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442",
];

const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; padding: 0 1em;
       color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; } h4 { margin: .8em 0 .2em; }
.runs { display: flex; flex-wrap: wrap; gap: 1em; }
.run-header { border: 1px solid #ccc; border-radius: 6px; padding: .5em 1em; flex: 1 1 300px; }
.run-header h3 { margin: .3em 0; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .1em 1em; margin: .3em 0; }
dt { color: #555; } dd { margin: 0; }
table.metrics { border-collapse: collapse; }
table.metrics th, table.metrics td { border-bottom: 1px solid #ddd; padding: .2em .8em; }
table.metrics td { text-align: right; font-variant-numeric: tabular-nums; }
table.metrics td.label { text-align: left; }
figure { margin: 1.5em 0; } figcaption { font-weight: bold; margin-bottom: .3em; }
svg.chart { font-size: 11px; background: #fff; }
svg.chart .grid { stroke: #e3e3e3; } svg.chart .axis { stroke: #888; }
details.episode { border-bottom: 1px solid #eee; padding: .2em 0; }
details.episode > summary { cursor: pointer; font-family: ui-monospace, monospace; }
details.solved > summary { color: #006d4e; }
pre { white-space: pre-wrap; word-break: break-word; background: #f6f6f6; padding: .4em;
      margin: .2em 0; max-height: 30em; overflow: auto; }
ol.turns > li { margin-bottom: .8em; } li.failed .turn-meta { color: #b00; }
.turn-meta, .note { color: #666; font-size: .9em; }
";

/// The report of `runs` as one HTML page. No prices, so no cost.
pub fn html(runs: &[RunData]) -> String {
    html_priced(runs, &HashMap::new())
}

/// [`html`] with costs, each run priced by its manifest's `model`.
pub fn html_priced(runs: &[RunData], prices: &HashMap<String, Price>) -> String {
    let metrics: Vec<Metrics> = runs.iter().map(|r| r.metrics(prices)).collect();
    let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
    let title = format!("InterCode report: {}", names.join(" vs "));
    let mut page = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        escape(&title),
        escape(&title)
    );
    page.push_str(&run_headers(runs, &metrics));
    page.push_str(&metrics_table(&names, &metrics));
    page.push_str(&charts(&names, &metrics));
    for run in runs {
        page.push_str(&trajectories(run));
    }
    page.push_str("</body>\n</html>\n");
    page
}

/// Escapes text for HTML element content and attribute values alike. Control characters other
/// than tab and newlines (terminal colour codes, NUL) are shown as their Unicode "control
/// pictures" so they stay visible and cannot upset the parser.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            '\u{0}'..='\u{1f}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}')),
            '\u{7f}' => out.push('\u{2421}'),
            c if c.is_control() => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

fn run_headers(runs: &[RunData], metrics: &[Metrics]) -> String {
    let mut out = String::from("<section class=\"runs\">\n");
    for (run, m) in runs.iter().zip(metrics) {
        out.push_str(&format!(
            "<div class=\"run-header\" data-run=\"{}\">\n<h3>{}</h3>\n<dl>\n",
            escape(&run.name),
            escape(&run.name)
        ));
        for (label, key) in [
            ("env", "env"),
            ("agent", "agent"),
            ("model", "model"),
            ("strategy", "strategy"),
            ("max turns", "max_turns"),
            ("task set", "task_set"),
        ] {
            out.push_str(&definition(label, &escape(&run.manifest_field(key))));
        }
        out.push_str(&definition("context policy", &context_policy(run)));
        out.push_str(&definition("harness errors", &harness_error_summary(m)));
        out.push_str("</dl>\n</div>\n");
    }
    out.push_str("</section>\n");
    out
}

fn definition(term: &str, html_value: &str) -> String {
    format!("<dt>{}</dt><dd>{html_value}</dd>\n", escape(term))
}

/// The manifest's `context` object as its own key/value list.
fn context_policy(run: &RunData) -> String {
    match run.manifest.get("context") {
        Some(serde_json::Value::Object(map)) if !map.is_empty() => {
            let items: String = map
                .iter()
                .map(|(k, v)| definition(k, &escape(&display_value(v))))
                .collect();
            format!("<dl class=\"context\">{items}</dl>")
        }
        _ => escape(&run.manifest_field("context")),
    }
}

fn harness_error_summary(m: &Metrics) -> String {
    if m.harness_error_tasks.is_empty() {
        return "0".into();
    }
    let tasks: Vec<String> = m.harness_error_tasks.iter().map(usize::to_string).collect();
    format!("{} (tasks {})", m.harness_errors, tasks.join(", "))
}

fn metrics_table(names: &[&str], metrics: &[Metrics]) -> String {
    let mut out =
        String::from("<h2>Metrics</h2>\n<table class=\"metrics\">\n<thead><tr><th>metric</th>");
    for name in names {
        out.push_str(&format!("<th>{}</th>", escape(name)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let rows: Vec<Row> = headline_rows(metrics)
        .into_iter()
        .chain(category_rows(metrics))
        .collect();
    for row in rows {
        out.push_str(&format!(
            "<tr><td class=\"label\">{}</td>",
            escape(&row.label)
        ));
        for value in &row.values {
            out.push_str(&format!("<td>{}</td>", escape(value)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

fn charts(names: &[&str], metrics: &[Metrics]) -> String {
    let mut out = String::from("<h2>Charts</h2>\n");
    let longest = metrics
        .iter()
        .map(|m| m.success_rate_by_turn.len())
        .max()
        .unwrap_or(0);
    // Cumulative success stays at its last value after a run's longest episode, so every run's
    // line can be drawn to the same last turn.
    let success_by_turn: Vec<Vec<f64>> = metrics
        .iter()
        .map(|m| extend_with_last(&m.success_rate_by_turn, longest))
        .collect();
    out.push_str(&line_chart(
        "sr-by-turn",
        "Success rate by turn (cumulative)",
        names,
        &success_by_turn,
    ));
    let error_by_turn: Vec<Vec<f64>> = metrics
        .iter()
        .map(|m| m.error_rate_by_turn.clone())
        .collect();
    out.push_str(&line_chart(
        "error-by-turn",
        "Error rate by turn",
        names,
        &error_by_turn,
    ));
    out.push_str(&failure_mode_chart(names, metrics));
    out.push_str(&category_chart(names, metrics));
    out
}

fn extend_with_last(values: &[f64], len: usize) -> Vec<f64> {
    let mut extended = values.to_vec();
    if let Some(&last) = values.last() {
        extended.resize(len.max(values.len()), last);
    }
    extended
}

fn failure_mode_chart(names: &[&str], metrics: &[Metrics]) -> String {
    type Share = fn(&Metrics) -> Option<f64>;
    let modes: [(&str, Share); 5] = [
        ("churn episodes", |m| m.churn_episode_share),
        ("destructive episodes", |m| m.destructive_episode_share),
        ("premature submissions", |m| m.premature_submission_share),
        ("dump turns", |m| m.dump_turn_share),
        ("harness errors", |m| m.harness_error_share),
    ];
    let groups: Vec<String> = modes.iter().map(|(label, _)| label.to_string()).collect();
    let values: Vec<Vec<Option<f64>>> = metrics
        .iter()
        .map(|m| modes.iter().map(|(_, share)| share(m)).collect())
        .collect();
    let largest = values
        .iter()
        .flatten()
        .flatten()
        .fold(0.0_f64, |a, &b| a.max(b));
    bar_chart(&BarChart {
        key: "failure-modes",
        title: "Failure modes (share of episodes; dump turns: share of turns)",
        groups: &groups,
        names,
        values: &values,
        y_max: nice_ceiling(largest),
    })
}

fn category_chart(names: &[&str], metrics: &[Metrics]) -> String {
    let groups = all_categories(metrics);
    if groups.is_empty() {
        return "<p class=\"note\">No episode has a category: no per-category chart.</p>\n".into();
    }
    let values: Vec<Vec<Option<f64>>> = metrics
        .iter()
        .map(|m| {
            groups
                .iter()
                .map(|g| {
                    m.by_category
                        .iter()
                        .find(|c| &c.category == g)
                        .map(|c| c.success_rate)
                })
                .collect()
        })
        .collect();
    bar_chart(&BarChart {
        key: "sr-by-category",
        title: "Success rate by category",
        groups: &groups,
        names,
        values: &values,
        y_max: 1.0,
    })
}

/// The smallest of a few round shares at or above `value`, so small failure rates still get
/// readable bars and quarter ticks land on round percentages.
fn nice_ceiling(value: f64) -> f64 {
    [0.04, 0.1, 0.2, 0.4, 1.0]
        .into_iter()
        .find(|&ceiling| value <= ceiling)
        .unwrap_or(1.0)
}

/// Chart geometry in SVG user units: a plot area inside margins, the legend below it.
mod frame {
    pub const WIDTH: f64 = 720.0;
    pub const LEFT: f64 = 56.0;
    pub const RIGHT: f64 = 16.0;
    pub const TOP: f64 = 12.0;
    pub const PLOT_HEIGHT: f64 = 220.0;
    /// Room under the plot for tick labels and the axis title.
    pub const AXIS_ROOM: f64 = 44.0;
    pub const LEGEND_ROW: f64 = 18.0;

    pub fn plot_width() -> f64 {
        WIDTH - LEFT - RIGHT
    }

    pub fn bottom() -> f64 {
        TOP + PLOT_HEIGHT
    }

    /// The y coordinate of `value` on a 0..=`max` scale.
    pub fn y(value: f64, max: f64) -> f64 {
        bottom() - (value / max).clamp(0.0, 1.0) * PLOT_HEIGHT
    }

    pub fn height(legend_rows: usize) -> f64 {
        bottom() + AXIS_ROOM + legend_rows as f64 * LEGEND_ROW + 6.0
    }
}

fn color(series: usize) -> &'static str {
    PALETTE[series % PALETTE.len()]
}

fn svg_open(key: &str, title: &str, legend_rows: usize) -> String {
    let height = frame::height(legend_rows);
    format!(
        "<figure>\n<figcaption>{t}</figcaption>\n<svg class=\"chart\" data-chart=\"{key}\" \
         role=\"img\" aria-label=\"{t}\" width=\"{w}\" height=\"{height}\" \
         viewBox=\"0 0 {w} {height}\">\n",
        t = escape(title),
        w = frame::WIDTH,
    )
}

const SVG_CLOSE: &str = "</svg>\n</figure>\n";

/// Horizontal grid lines and labels at quarters of 0..=`max`, plus the y axis.
fn y_grid(max: f64) -> String {
    let mut out = String::from("<g class=\"y-axis\">\n");
    for quarter in 0..=4 {
        let value = max * f64::from(quarter) / 4.0;
        let y = frame::y(value, max);
        out.push_str(&format!(
            "<line class=\"grid\" x1=\"{l}\" x2=\"{r}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/>\
             <text x=\"{tx}\" y=\"{ty:.1}\" text-anchor=\"end\">{label}</text>\n",
            l = frame::LEFT,
            r = frame::LEFT + frame::plot_width(),
            tx = frame::LEFT - 6.0,
            ty = y + 4.0,
            label = tick_percent(value),
        ));
    }
    out.push_str(&format!(
        "<line class=\"axis\" x1=\"{l}\" x2=\"{l}\" y1=\"{t}\" y2=\"{b}\"/>\n</g>\n",
        l = frame::LEFT,
        t = frame::TOP,
        b = frame::bottom(),
    ));
    out
}

/// A tick label: whole percentages without decimals, others with one.
fn tick_percent(share: f64) -> String {
    let pct = share * 100.0;
    if (pct - pct.round()).abs() < 1e-9 {
        format!("{pct:.0}%")
    } else {
        format!("{pct:.1}%")
    }
}

fn axis_title(text: &str) -> String {
    format!(
        "<text class=\"axis-title\" x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"middle\">{}</text>\n",
        escape(text),
        x = frame::LEFT + frame::plot_width() / 2.0,
        y = frame::bottom() + 34.0,
    )
}

/// One legend row per run under the axis title: a colour swatch and the run's name.
fn legend(names: &[&str]) -> String {
    let mut out = String::from("<g class=\"legend\">\n");
    for (i, name) in names.iter().enumerate() {
        let y = frame::bottom() + frame::AXIS_ROOM + i as f64 * frame::LEGEND_ROW;
        out.push_str(&format!(
            "<rect class=\"swatch series-{i}\" x=\"{x}\" y=\"{y:.1}\" width=\"14\" height=\"10\" \
             fill=\"{c}\"/><text x=\"{tx}\" y=\"{ty:.1}\">{}</text>\n",
            escape(name),
            x = frame::LEFT,
            c = color(i),
            tx = frame::LEFT + 20.0,
            ty = y + 9.0,
        ));
    }
    out.push_str("</g>\n");
    out
}

/// A line chart of shares (0..=1) by turn: `series[i][k]` is run i's value at turn k + 1.
fn line_chart(key: &str, title: &str, names: &[&str], series: &[Vec<f64>]) -> String {
    // At least two turns on the axis, so a one-turn run still spans a visible width.
    let last_turn = series.iter().map(Vec::len).max().unwrap_or(0).max(2);
    let x = |turn: usize| {
        frame::LEFT + (turn - 1) as f64 / (last_turn - 1) as f64 * frame::plot_width()
    };
    let mut out = svg_open(key, title, names.len());
    out.push_str(&y_grid(1.0));
    let step = last_turn.div_ceil(12);
    for turn in (1..=last_turn).filter(|t| (t - 1) % step == 0) {
        out.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{turn}</text>\n",
            x(turn),
            frame::bottom() + 16.0
        ));
    }
    out.push_str(&axis_title("turn"));
    for (i, (name, values)) in names.iter().zip(series).enumerate() {
        let points: Vec<(f64, f64)> = values
            .iter()
            .enumerate()
            .map(|(k, &v)| (x(k + 1), frame::y(v, 1.0)))
            .collect();
        out.push_str(&series_line(i, name, &points, values));
    }
    out.push_str(&legend(names));
    out.push_str(SVG_CLOSE);
    out
}

/// One run's line and its point markers (each with a tooltip).
fn series_line(index: usize, name: &str, points: &[(f64, f64)], values: &[f64]) -> String {
    if points.is_empty() {
        return String::new();
    }
    let path: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(k, (x, y))| format!("{}{x:.1} {y:.1}", if k == 0 { "M" } else { "L" }))
        .collect();
    let run = escape(name);
    let mut out = format!(
        "<path class=\"series series-{index}\" data-run=\"{run}\" d=\"{}\" fill=\"none\" \
         stroke=\"{c}\" stroke-width=\"2\"/>\n",
        path.join(" "),
        c = color(index),
    );
    for (k, ((x, y), value)) in points.iter().zip(values).enumerate() {
        out.push_str(&format!(
            "<circle class=\"point series-{index}\" data-run=\"{run}\" cx=\"{x:.1}\" cy=\"{y:.1}\" \
             r=\"3\" fill=\"{c}\"><title>{run}, turn {turn}: {v}</title></circle>\n",
            c = color(index),
            turn = k + 1,
            v = percent(Some(*value)),
        ));
    }
    out
}

/// Grouped bars: one group per label, one bar per run with a value.
struct BarChart<'a> {
    key: &'a str,
    title: &'a str,
    groups: &'a [String],
    names: &'a [&'a str],
    /// `values[run][group]`; `None` draws no bar.
    values: &'a [Vec<Option<f64>>],
    y_max: f64,
}

fn bar_chart(chart: &BarChart) -> String {
    let group_width = frame::plot_width() / chart.groups.len().max(1) as f64;
    let bar_width = group_width * 0.8 / chart.names.len().max(1) as f64;
    let mut out = svg_open(chart.key, chart.title, chart.names.len());
    out.push_str(&y_grid(chart.y_max));
    for (g, group) in chart.groups.iter().enumerate() {
        let group_left = frame::LEFT + g as f64 * group_width;
        out.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\n",
            group_left + group_width / 2.0,
            frame::bottom() + 16.0,
            escape(group)
        ));
        for (i, name) in chart.names.iter().enumerate() {
            let Some(value) = chart
                .values
                .get(i)
                .and_then(|v| v.get(g))
                .copied()
                .flatten()
            else {
                continue;
            };
            let x = group_left + group_width * 0.1 + i as f64 * bar_width;
            out.push_str(&bar(i, name, group, value, x, bar_width, chart.y_max));
        }
    }
    out.push_str(&legend(chart.names));
    out.push_str(SVG_CLOSE);
    out
}

fn bar(
    index: usize,
    name: &str,
    group: &str,
    value: f64,
    x: f64,
    width: f64,
    y_max: f64,
) -> String {
    // A zero still gets a 1-unit sliver: "measured, none" must look different from "no data".
    let height = (frame::bottom() - frame::y(value, y_max)).max(1.0);
    format!(
        "<rect class=\"bar series-{index}\" data-run=\"{run}\" data-value=\"{value}\" \
         x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{height:.1}\" fill=\"{c}\">\
         <title>{run}, {group}: {v}</title></rect>\n",
        run = escape(name),
        group = escape(group),
        y = frame::bottom() - height,
        w = (width - 2.0).max(1.0),
        c = color(index),
        v = percent(Some(value)),
    )
}

fn trajectories(run: &RunData) -> String {
    let mut out = format!(
        "<section class=\"trajectories\" data-run=\"{}\">\n<h2>Trajectories: {}</h2>\n",
        escape(&run.name),
        escape(&run.name)
    );
    for record in &run.records {
        out.push_str(&episode(&run.name, record));
    }
    out.push_str("</section>\n");
    out
}

/// The record's end as written in the trajectory file (`turn_limit`, ...).
fn end_name(record: &EpisodeRecord) -> String {
    serde_json::to_value(record.end)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn episode(run: &str, record: &EpisodeRecord) -> String {
    let state = if record.solved() {
        "solved"
    } else {
        "unsolved"
    };
    let category = record
        .category
        .as_deref()
        .map(|c| format!(" · {}", escape(c)))
        .unwrap_or_default();
    let mut out = format!(
        "<details class=\"episode {state}\" data-run=\"{}\" data-task=\"{task}\">\n\
         <summary>task {task} · reward {reward:.2} · {end} · {turns}{category}</summary>\n\
         <h4>Query</h4><pre class=\"query\">{query}</pre>\n\
         <h4>Gold</h4><pre class=\"gold\">{gold}</pre>\n",
        escape(run),
        task = record.task_index,
        reward = record.reward,
        end = end_name(record),
        turns = match record.actions.len() {
            1 => "1 turn".to_string(),
            n => format!("{n} turns"),
        },
        query = escape(&record.query),
        gold = escape(&record.gold),
    );
    if let Some(error) = &record.error {
        out.push_str(&format!(
            "<p class=\"harness-error\">harness error: {}</p>\n",
            escape(error)
        ));
    }
    if !record.destructive.is_empty() {
        let listed: Vec<String> = record.destructive.iter().map(|d| escape(d)).collect();
        out.push_str(&format!(
            "<p class=\"destructive\">destructive: {}</p>\n",
            listed.join(", ")
        ));
    }
    out.push_str("<ol class=\"turns\">\n");
    for turn in &record.actions {
        out.push_str(&turn_view(turn));
    }
    out.push_str(&format!(
        "</ol>\n<p class=\"final\">final reward {:.2} ({})</p>\n</details>\n",
        record.reward,
        end_name(record)
    ));
    out
}

fn turn_view(turn: &TurnRecord) -> String {
    let state = if turn.action_executed { "ok" } else { "failed" };
    let mut meta = vec![
        if turn.action_executed {
            "executed"
        } else {
            "not executed"
        }
        .to_string(),
    ];
    if let Some(status) = turn.exit_status {
        meta.push(format!("exit {status}"));
    }
    if let Some(reward) = turn.reward {
        meta.push(format!("reward {reward:.2}"));
    }
    let mut out = format!(
        "<li class=\"turn {state}\">\n<div class=\"turn-meta\">{}</div>\n",
        meta.join(" · ")
    );
    if let Some(thought) = &turn.thought {
        out.push_str(&format!(
            "<h4>Thought</h4><pre class=\"thought\">{}</pre>\n",
            escape(thought)
        ));
    }
    out.push_str(&format!(
        "<h4>Action</h4><pre class=\"action\">{}</pre>\n",
        escape(&turn.action)
    ));
    let (shown, cut) = truncate_chars(&turn.observation, OBSERVATION_LIMIT);
    out.push_str(&format!(
        "<h4>Observation</h4><pre class=\"observation\">{}</pre>\n",
        escape(shown)
    ));
    if cut > 0 {
        out.push_str(&format!(
            "<p class=\"note truncated\">… {cut} more characters not shown (observation cut at \
             {OBSERVATION_LIMIT}).</p>\n"
        ));
    }
    out.push_str("</li>\n");
    out
}

/// The first `limit` characters of `text` and how many characters were cut.
fn truncate_chars(text: &str, limit: usize) -> (&str, usize) {
    match text.char_indices().nth(limit) {
        Some((byte, _)) => (&text[..byte], text[byte..].chars().count()),
        None => (text, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{record, two_runs};
    use super::*;

    /// The `<svg>` element of chart `key`, from its opening tag to `</svg>`.
    fn chart<'a>(page: &'a str, key: &str) -> &'a str {
        let start = page
            .find(&format!("<svg class=\"chart\" data-chart=\"{key}\""))
            .unwrap_or_else(|| panic!("no {key} chart"));
        let end = start + page[start..].find("</svg>").expect("closed svg");
        &page[start..end]
    }

    /// Every value of attribute `name` in `svg` on elements whose class starts with `class`.
    fn attribute_values(svg: &str, class: &str, name: &str) -> Vec<f64> {
        svg.split('<')
            .filter(|element| element.contains(&format!("class=\"{class}")))
            .map(|element| {
                let key = format!(" {name}=\"");
                let from = element.find(&key).expect("attribute present") + key.len();
                let to = from + element[from..].find('"').unwrap();
                element[from..to].parse().unwrap()
            })
            .collect()
    }

    fn hostile_run() -> RunData {
        let mut r = record(3, "easy", 0.0);
        r.query = "say \"hi\" & <b>bye</b>".into();
        r.actions = vec![TurnRecord {
            thought: Some("it's </pre> time".into()),
            ..TurnRecord::new(
                "echo '<script>alert(1)</script>'",
                "<script>alert(1)</script>\u{1b}[31m\u{0}",
                Some(0),
            )
        }];
        RunData {
            name: "run <img src=x onerror=alert(1)> \"q\"".into(),
            manifest: serde_json::json!({"model": "<m>", "context": {"history": "<all>"}}),
            records: vec![r],
        }
    }

    #[test]
    fn agent_output_and_names_are_escaped() {
        let page = html(&[hostile_run()]);
        assert!(!page.contains("<script"), "raw script tag in the page");
        assert!(!page.contains("<img"));
        assert!(!page.contains("<b>bye"));
        assert!(!page.contains("</pre> time"));
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(page.contains("say &quot;hi&quot; &amp; &lt;b&gt;bye&lt;/b&gt;"));
        assert!(page.contains("it&#39;s &lt;/pre&gt; time"));
        assert!(page.contains("data-run=\"run &lt;img src=x onerror=alert(1)&gt; &quot;q&quot;\""));
        assert!(page.contains("&lt;all&gt;"));
    }

    #[test]
    fn control_characters_become_visible_pictures() {
        assert_eq!(
            escape("a\u{1b}[31m\u{0}\u{7f}\u{85}\tb\n"),
            "a\u{241b}[31m\u{2400}\u{2421}\u{fffd}\tb\n"
        );
    }

    #[test]
    fn the_page_needs_nothing_from_the_network() {
        let page = html(&two_runs());
        for outside in ["http", "<script", "<link", "src=", "url(", "@import"] {
            assert!(!page.contains(outside), "page contains {outside:?}");
        }
        assert!(page.starts_with("<!DOCTYPE html>") && page.ends_with("</html>\n"));
    }

    #[test]
    fn every_chart_has_a_series_per_run() {
        let page = html(&two_runs());
        for key in ["sr-by-turn", "error-by-turn"] {
            let svg = chart(&page, key);
            assert_eq!(
                svg.matches("<path class=\"series series-").count(),
                2,
                "{key}"
            );
            assert!(svg.contains("class=\"point series-1\""), "{key}");
            assert_eq!(
                svg.matches("class=\"swatch series-").count(),
                2,
                "{key} legend"
            );
        }
        let failures = chart(&page, "failure-modes");
        let heights = attribute_values(failures, "bar ", "height");
        // Five failure modes for each of the two runs, none invisible.
        assert_eq!(heights.len(), 10);
        assert!(heights.iter().all(|&h| h >= 1.0), "{heights:?}");
        let categories = chart(&page, "sr-by-category");
        // easy: both runs; medium: the second; hard: the first.
        assert_eq!(attribute_values(categories, "bar ", "height").len(), 4);
    }

    #[test]
    fn bars_are_scaled_to_their_value() {
        let page = html(&two_runs());
        let categories = chart(&page, "sr-by-category");
        let values = attribute_values(categories, "bar series-0", "data-value");
        let heights = attribute_values(categories, "bar series-0", "height");
        // baseline: easy 50%, hard 0% (drawn as the 1-unit sliver).
        assert_eq!(values, [0.5, 0.0]);
        assert_eq!(heights, [frame::PLOT_HEIGHT / 2.0, 1.0]);
    }

    #[test]
    fn a_line_runs_from_its_first_to_its_last_turn_bottom_up() {
        let names = ["r"];
        let svg = line_chart("k", "t", &names, &[vec![0.0, 1.0]]);
        let expected = format!(
            "d=\"M{:.1} {:.1} L{:.1} {:.1}\"",
            frame::LEFT,
            frame::bottom(),
            frame::WIDTH - frame::RIGHT,
            frame::TOP
        );
        assert!(svg.contains(&expected), "{svg}");
    }

    #[test]
    fn cumulative_success_is_drawn_to_the_longest_run() {
        assert_eq!(extend_with_last(&[0.2, 0.5], 4), [0.2, 0.5, 0.5, 0.5]);
        assert_eq!(extend_with_last(&[0.2, 0.5], 1), [0.2, 0.5]);
        assert!(extend_with_last(&[], 3).is_empty());
    }

    #[test]
    fn failure_scale_rounds_up_to_a_readable_ceiling() {
        assert_eq!(nice_ceiling(0.0), 0.04);
        assert_eq!(nice_ceiling(0.05), 0.1);
        assert_eq!(nice_ceiling(0.4), 0.4);
        assert_eq!(nice_ceiling(0.9), 1.0);
        assert_eq!(tick_percent(0.025), "2.5%");
        assert_eq!(tick_percent(0.25), "25%");
    }

    #[test]
    fn episodes_are_collapsed_and_long_observations_cut() {
        let mut run = two_runs().remove(0);
        run.records[1].actions[0].observation = "x".repeat(OBSERVATION_LIMIT + 1000);
        let page = html(&[run]);
        assert_eq!(page.matches("<details class=\"episode").count(), 3);
        assert!(!page.contains("<details open") && !page.contains(" open>"));
        assert!(page.contains(&"x".repeat(OBSERVATION_LIMIT)));
        assert!(!page.contains(&"x".repeat(OBSERVATION_LIMIT + 1)));
        assert!(page.contains("1000 more characters not shown"));
        assert!(page.contains("task 0 · reward 1.00 · submitted · 1 turn · easy"));
    }

    #[test]
    fn truncation_counts_characters_not_bytes() {
        assert_eq!(truncate_chars("ééé", 2), ("éé", 1));
        assert_eq!(truncate_chars("ab", 2), ("ab", 0));
    }

    #[test]
    fn run_headers_show_the_manifest() {
        let page = html(&two_runs());
        assert!(page.contains("<dt>strategy</dt><dd>try-again</dd>"));
        assert!(page.contains("<dt>max turns</dt><dd>10</dd>"));
        assert!(page.contains("<dl class=\"context\"><dt>dialogue_limit</dt><dd>5</dd>"));
        assert!(page.contains("<th>react-large-model</th>"));
        assert!(
            page.contains(
                "<td class=\"label\">success: medium</td><td>-</td><td>100.0% (1/1)</td>"
            )
        );
    }

    #[test]
    fn harness_errors_are_named_in_the_header() {
        let mut run = two_runs().remove(0);
        run.records[2].end = crate::data::trajectory::EpisodeEnd::HarnessError;
        run.records[2].error = Some("endpoint <down>".into());
        let page = html(&[run]);
        assert!(page.contains("<dt>harness errors</dt><dd>1 (tasks 2)</dd>"));
        assert!(page.contains("harness error: endpoint &lt;down&gt;"));
        assert!(page.contains("· harness_error ·"));
    }
}
