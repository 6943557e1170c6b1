//! `free` as procps-ng 3.3.17 (Ubuntu 22.04) prints it, from `/proc/meminfo` like the real
//! one (the base system writes upstream's figures there). Supported: `-b -k -m -g --tera
//! --peta --kilo --mega --giga --si -h -w -t -l --help -V`.
//!
//! 3.3.17's arithmetic: used = total − free − buffers − cache, where cache is `Cached` plus
//! `SReclaimable`; shared is `Shmem`; available is `MemAvailable`.

use crate::common::Io;
use crate::common::getopt::{self, Config, OptSpec};
use crate::common::io::{prog, run_main};
use std::ffi::OsString;

/// The `/proc/meminfo` fields `free` reads, in KiB.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemInfo {
    pub total: u64,
    pub free: u64,
    pub available: u64,
    pub buffers: u64,
    pub cached: u64,
    pub shared: u64,
    pub swap_total: u64,
    pub swap_free: u64,
}

impl MemInfo {
    pub fn parse(text: &str) -> MemInfo {
        let mut m = MemInfo::default();
        let mut reclaimable = 0;
        for line in text.lines() {
            let Some((key, rest)) = line.split_once(':') else {
                continue;
            };
            let kb: u64 = rest
                .split_whitespace()
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            match key {
                "MemTotal" => m.total = kb,
                "MemFree" => m.free = kb,
                "MemAvailable" => m.available = kb,
                "Buffers" => m.buffers = kb,
                "Cached" => m.cached = kb,
                "SReclaimable" => reclaimable = kb,
                "Shmem" => m.shared = kb,
                "SwapTotal" => m.swap_total = kb,
                "SwapFree" => m.swap_free = kb,
                _ => {}
            }
        }
        m.cached += reclaimable;
        m
    }

    pub fn used(&self) -> u64 {
        let used = self.total as i64 - self.free as i64 - self.cached as i64 - self.buffers as i64;
        if used < 0 {
            self.total.saturating_sub(self.free)
        } else {
            used as u64
        }
    }
}

/// How `free` scales a KiB figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scale {
    /// Bytes per printed unit, for the fixed units.
    pub unit: u64,
    pub human: bool,
    pub si: bool,
}

/// One number as procps' `scale_size` writes it: fixed units truncate; `-h` picks the first
/// unit whose one-decimal form fits in 5 columns (4 with `--si`, which has no `i`), else its
/// whole form, starting from bytes (`0B`).
pub fn scale(kb: u64, s: Scale) -> String {
    let bytes = kb * 1024;
    if !s.human {
        return (bytes / s.unit).to_string();
    }
    let b = format!("{bytes}B");
    if b.len() <= 4 {
        return b;
    }
    let (base, limit, mark) = if s.si {
        (1000f64, 4, "")
    } else {
        (1024f64, 5, "i")
    };
    let mut div = 1f64;
    for unit in ['K', 'M', 'G', 'T', 'P', 'E'] {
        div *= base;
        // procps divides as `float`.
        let v = (bytes as f64 / div) as f32;
        let tenths = format!("{v:.1}{unit}{mark}");
        if tenths.len() <= limit {
            return tenths;
        }
        let whole = format!("{}{unit}{mark}", v as i64);
        if whole.len() <= limit {
            return whole;
        }
    }
    bytes.to_string()
}

/// What to print beyond the two standard lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Extras {
    pub wide: bool,
    pub totals: bool,
    pub lohi: bool,
}

/// The report for one reading of `/proc/meminfo`.
pub fn render(m: &MemInfo, s: Scale, x: Extras) -> String {
    let mut out = String::new();
    out.push_str(if x.wide {
        "              total        used        free      shared     buffers       cache   available\n"
    } else {
        "              total        used        free      shared  buff/cache   available\n"
    });
    let row = |label: &str, values: &[u64]| {
        let mut line = format!("{label:<7}");
        for v in values {
            line.push_str(&format!(" {:>11}", scale(*v, s)));
        }
        line.push('\n');
        line
    };
    let mut mem = vec![m.total, m.used(), m.free, m.shared];
    if x.wide {
        mem.extend([m.buffers, m.cached]);
    } else {
        mem.push(m.buffers + m.cached);
    }
    mem.push(m.available);
    out.push_str(&row("Mem:", &mem));
    if x.lohi {
        // No high memory on 64-bit: low memory is all of it.
        out.push_str(&row("Low:", &[m.total, m.total - m.free, m.free]));
        out.push_str(&row("High:", &[0, 0, 0]));
    }
    let swap_used = m.swap_total.saturating_sub(m.swap_free);
    out.push_str(&row("Swap:", &[m.swap_total, swap_used, m.swap_free]));
    if x.totals {
        out.push_str(&row(
            "Total:",
            &[
                m.total + m.swap_total,
                m.used() + swap_used,
                m.free + m.swap_free,
            ],
        ));
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Bytes,
    Kibi,
    Mebi,
    Gibi,
    Tebi,
    Pebi,
    Kilo,
    Mega,
    Giga,
    Human,
    Si,
    Wide,
    Total,
    LoHi,
    Help,
    Version,
}

const SPECS: &[OptSpec<K>] = &[
    getopt::flag('b', "bytes", K::Bytes),
    getopt::flag('k', "kibi", K::Kibi),
    getopt::flag('m', "mebi", K::Mebi),
    getopt::flag('g', "gibi", K::Gibi),
    getopt::long_flag("tebi", K::Tebi),
    getopt::long_flag("pebi", K::Pebi),
    getopt::long_flag("kilo", K::Kilo),
    getopt::long_flag("mega", K::Mega),
    getopt::long_flag("giga", K::Giga),
    getopt::flag('h', "human", K::Human),
    getopt::long_flag("si", K::Si),
    getopt::flag('w', "wide", K::Wide),
    getopt::flag('t', "total", K::Total),
    getopt::flag('l', "lohi", K::LoHi),
    getopt::long_flag("help", K::Help),
    getopt::flag('V', "version", K::Version),
];

pub fn main(args: Vec<OsString>) -> i32 {
    run_main(args, run)
}

pub fn run(args: &[String], io: &mut Io) -> i32 {
    let prog = prog(args, "free");
    let parsed = match getopt::parse(args, SPECS, Config::default()) {
        Ok(p) => p,
        Err(msg) => {
            let _ = writeln!(
                io.err,
                "{prog}: {msg}\n\nUsage:\n {prog} [options]\n\nFor more details see free(1)."
            );
            return 1;
        }
    };
    if let Some(extra) = parsed.operands.first() {
        let _ = writeln!(
            io.err,
            "{prog}: invalid argument '{extra}'\n\nUsage:\n {prog} [options]\n\nFor more details see free(1)."
        );
        return 1;
    }
    let mut s = Scale {
        unit: 1024,
        human: false,
        si: false,
    };
    // The unit letters are powers of 1024 unless `--si` is also given.
    let mut power: Option<u32> = None;
    let mut x = Extras::default();
    for o in parsed.opts {
        match o.key {
            K::Bytes => power = Some(0),
            K::Kibi => power = Some(1),
            K::Mebi => power = Some(2),
            K::Gibi => power = Some(3),
            K::Tebi => power = Some(4),
            K::Pebi => power = Some(5),
            K::Kilo | K::Mega | K::Giga => {
                s.si = true;
                power = Some(match o.key {
                    K::Kilo => 1,
                    K::Mega => 2,
                    _ => 3,
                });
            }
            K::Human => s.human = true,
            K::Si => s.si = true,
            K::Wide => x.wide = true,
            K::Total => x.totals = true,
            K::LoHi => x.lohi = true,
            K::Help => {
                let _ = writeln!(io.out, "\nUsage:\n {prog} [options]");
                return 0;
            }
            K::Version => {
                let _ = writeln!(io.out, "{prog} from procps-ng 3.3.17");
                return 0;
            }
        }
    }
    let base: u64 = if s.si { 1000 } else { 1024 };
    s.unit = base.pow(power.unwrap_or(1));
    let text = match std::fs::read_to_string("/proc/meminfo") {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(
                io.err,
                "{prog}: Unable to create meminfo structure: {}",
                crate::common::sys::strerror(&e)
            );
            return 1;
        }
    };
    let _ = io
        .out
        .write_all(render(&MemInfo::parse(&text), s, x).as_bytes());
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIB: Scale = Scale {
        unit: 1024,
        human: false,
        si: false,
    };
    const HUMAN: Scale = Scale {
        unit: 1024,
        human: true,
        si: false,
    };

    #[test]
    fn reads_the_fields_free_needs() {
        let m = MemInfo::parse(
            "MemTotal: 100 kB\nMemFree: 10 kB\nMemAvailable: 50 kB\nBuffers: 5 kB\n\
             Cached: 20 kB\nSReclaimable: 3 kB\nShmem: 2 kB\nSwapTotal: 8 kB\nSwapFree: 6 kB\n",
        );
        assert_eq!((m.cached, m.used()), (23, 62));
        let out = render(&m, KIB, Extras::default());
        assert_eq!(
            out.lines().nth(1),
            Some("Mem:            100          62          10           2          28          50")
        );
    }

    #[test]
    fn human_units() {
        assert_eq!(scale(0, HUMAN), "0B");
        assert_eq!(scale(46808, HUMAN), "45Mi");
        assert_eq!(scale(2261556, HUMAN), "2.2Gi");
        assert_eq!(scale(24683584, HUMAN), "23Gi");
    }
}
