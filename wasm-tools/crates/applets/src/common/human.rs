//! Human-readable sizes as coreutils prints them for `-h` (powers of 1024, rounded *up*,
//! one decimal below 10: `4.0K`, `100K`, `1.5M`).

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
