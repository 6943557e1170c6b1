//! The HTML report in a real browser: headless Chromium (Debian's `chromium`) opens the report
//! of two runs side by side and measures what it drew — every chart present with a non-zero
//! size, series drawn in each, and the trajectories collapsed.

use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .map(|name| Path::new("/usr/bin").join(name))
        .find(|p| p.exists())
}

fn intercode(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_intercode"))
        .args(args)
        .output()
        .expect("run intercode");
    assert!(
        out.status.success(),
        "intercode {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Measures the page after layout: a script appended to a copy of the report writes what it
/// finds into the DOM, which `--dump-dom` prints.
const PROBE: &str = r#"<script>
(function () {
  const charts = Array.from(document.querySelectorAll('svg.chart')).map(function (svg) {
    const box = svg.getBoundingClientRect();
    const marks = Array.from(svg.querySelectorAll('.series, .point, .bar'))
      .filter(function (el) { const b = el.getBBox(); return b.width > 0 || b.height > 0; });
    return { chart: svg.getAttribute('data-chart'), width: box.width, height: box.height,
             marks: marks.length };
  });
  const details = document.querySelectorAll('details');
  const open = Array.from(details).filter(function (d) { return d.open; }).length;
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify({ charts: charts, details: details.length, open: open });
  document.body.appendChild(out);
})();
</script>"#;

#[test]
fn the_html_report_renders_its_charts_in_chromium() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI must have chromium (.ci/run installs Debian's package)"
        );
        eprintln!("skipped: no chromium here (apt-get install chromium)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (a, b) = (
        dir.path().join("gold-sql"),
        dir.path().join("gold-sql-readonly"),
    );
    intercode(&["run", "sql", "--agent", "gold", "--out", &s(&a)]);
    intercode(&[
        "run",
        "sql",
        "--agent",
        "gold",
        "--read-only",
        "--out",
        &s(&b),
    ]);
    let html = dir.path().join("report.html");
    intercode(&["report", &s(&a), &s(&b), "--html", &s(&html)]);
    let report = std::fs::read_to_string(&html).unwrap();
    assert!(
        !report.contains("http://") && !report.contains("https://"),
        "needs no network"
    );
    let probed = dir.path().join("probed.html");
    let with_probe = match report.rfind("</body>") {
        Some(at) => format!("{}{PROBE}{}", &report[..at], &report[at..]),
        None => format!("{report}{PROBE}"),
    };
    std::fs::write(&probed, with_probe).unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(&browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--virtual-time-budget=5000",
            &format!("--user-data-dir={}", profile.path().display()),
            "--dump-dom",
            &format!("file://{}", probed.display()),
        ])
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&out.stdout);
    let start = dom
        .find("<pre id=\"probe\">")
        .unwrap_or_else(|| panic!("no probe output: {}", String::from_utf8_lossy(&out.stderr)));
    let json = &dom[start + "<pre id=\"probe\">".len()..];
    let json = &json[..json.find("</pre>").unwrap()];
    let probe: serde_json::Value =
        serde_json::from_str(&json.replace("&quot;", "\"").replace("&amp;", "&")).unwrap();
    let charts = probe["charts"].as_array().unwrap();
    let names: Vec<&str> = charts.iter().filter_map(|c| c["chart"].as_str()).collect();
    for wanted in [
        "sr-by-turn",
        "error-by-turn",
        "failure-modes",
        "sr-by-category",
    ] {
        let chart = charts
            .iter()
            .find(|c| c["chart"] == wanted)
            .unwrap_or_else(|| panic!("no {wanted} chart among {names:?}"));
        assert!(
            chart["width"].as_f64().unwrap() > 100.0 && chart["height"].as_f64().unwrap() > 50.0,
            "{wanted} not laid out: {chart}"
        );
        assert!(
            chart["marks"].as_u64().unwrap() > 0,
            "{wanted} drew nothing: {chart}"
        );
    }
    // Every episode of both runs is there, collapsed.
    assert!(probe["details"].as_u64().unwrap() >= 2 * 23, "{probe}");
    assert_eq!(probe["open"], 0, "{probe}");
}
