//! Human-readable sizes as coreutils prints them for `-h` (powers of 1024, rounded *up*,
//! one decimal below 10: `4.0K`, `100K`, `1.5M`), their `--si` twin, and `--block-size` values.

/// Formats `bytes` the way `du -h`/`ls -h` do (gnulib `human_readable` with
/// `human_ceiling | human_autoscale | human_base_1024 | human_SI`).
pub fn human_ceil(bytes: u64) -> String {
    const UNITS: [char; 8] = ['K', 'M', 'G', 'T', 'P', 'E', 'Z', 'Y'];
    if bytes < 1024 {
        return bytes.to_string();
    }
    let amount = u128::from(bytes);
    let mut exp = 0u32;
    let mut div = 1u128;
    while amount / (div * 1024) >= 1 && exp < 8 {
        div *= 1024;
        exp += 1;
    }
    loop {
        // Below ten units: one decimal, rounded up.
        let tenths = (amount * 10).div_ceil(div);
        if tenths < 100 {
            return format!("{}.{}{}", tenths / 10, tenths % 10, UNITS[exp as usize - 1]);
        }
        let whole = amount.div_ceil(div);
        if whole >= 1024 && (exp as usize) < UNITS.len() {
            div *= 1024;
            exp += 1;
            continue;
        }
        return format!("{whole}{}", UNITS[exp as usize - 1]);
    }
}

/// Parses a `--block-size` value: `1K`, `M`, `1024`, `KB` (powers of 1000), `MiB`.
pub fn parse_block_size(s: &str) -> Option<(u64, String)> {
    let digits_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, suffix) = s.split_at(digits_end);
    let n: u64 = if num.is_empty() { 1 } else { num.parse().ok()? };
    let mult: u64 = match suffix {
        "" => 1,
        "K" | "k" | "KiB" => 1 << 10,
        "M" | "MiB" => 1 << 20,
        "G" | "GiB" => 1 << 30,
        "T" | "TiB" => 1 << 40,
        "KB" | "kB" => 1000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        _ => return None,
    };
    if n == 0 {
        return None;
    }
    // A size written without digits prints its unit after each number.
    let shown = if num.is_empty() {
        suffix.to_string()
    } else {
        String::new()
    };
    Some((n * mult, shown))
}

/// `--si`: powers of 1000, rounded up, one decimal below 10, lowercase `k`.
pub fn si_ceil(bytes: u64) -> String {
    const UNITS: [char; 6] = ['k', 'M', 'G', 'T', 'P', 'E'];
    if bytes < 1000 {
        return bytes.to_string();
    }
    let amount = u128::from(bytes);
    let mut div = 1u128;
    let mut exp = 0usize;
    while amount >= div * 1000 && exp < UNITS.len() {
        div *= 1000;
        exp += 1;
    }
    loop {
        let tenths = (amount * 10).div_ceil(div);
        if tenths < 100 {
            return format!("{}.{}{}", tenths / 10, tenths % 10, UNITS[exp - 1]);
        }
        let whole = amount.div_ceil(div);
        if whole >= 1000 && exp < UNITS.len() {
            div *= 1000;
            exp += 1;
            continue;
        }
        return format!("{whole}{}", UNITS[exp - 1]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coreutils_rounding() {
        assert_eq!(human_ceil(0), "0");
        assert_eq!(human_ceil(185), "185");
        assert_eq!(human_ceil(1023), "1023");
        assert_eq!(human_ceil(1024), "1.0K");
        assert_eq!(human_ceil(1025), "1.1K");
        assert_eq!(human_ceil(4096), "4.0K");
        assert_eq!(human_ceil(10 * 1024 - 1), "10K");
        assert_eq!(human_ceil(102_400), "100K");
        assert_eq!(human_ceil(1024 * 1024 - 1), "1.0M");
        assert_eq!(human_ceil(1_572_864), "1.5M");
        assert_eq!(human_ceil(1024u64.pow(3) * 3), "3.0G");
    }
}
