//! Progress on stderr: a bar with ETA and the running success rate when stderr is a terminal
//! (indicatif), nothing otherwise — the per-episode lines on stdout are the plain progress.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};

pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    pub fn new(total: usize, quiet_lines: bool) -> Progress {
        let _ = quiet_lines;
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total as u64);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} episodes, {msg}, eta {eta} ({elapsed})",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        Progress { bar }
    }

    /// Prints a line on stdout without tearing the bar.
    pub fn println(&self, line: &str, stdout: &std::io::Stdout) {
        let write = || {
            let mut out = stdout.lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        };
        match &self.bar {
            Some(bar) if std::io::stdout().is_terminal() => bar.suspend(write),
            _ => write(),
        }
    }

    pub fn tick(&mut self, solved: usize, scored: usize) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
            let rate = if scored > 0 {
                100.0 * solved as f64 / scored as f64
            } else {
                0.0
            };
            bar.set_message(format!("{solved} solved ({rate:.1}%)"));
        }
    }

    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
