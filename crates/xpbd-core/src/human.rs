//! Numbers for people: counts with thousands separators (scientific past 10¹⁵) and durations in the
//! largest unit that keeps them readable.

/// `1358733` → `1,358,733`; `1.4e147` → `1.4e147`; rounds to a whole number.
pub fn count(x: f64) -> String {
    if !x.is_finite() || x.abs() >= 1e15 {
        return format!("{x:.1e}");
    }
    let digits = format!("{:.0}", x.abs());
    let mut grouped = String::with_capacity(digits.len() * 4 / 3 + 1);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(d);
    }
    if x < 0.0 && digits != "0" {
        grouped.insert(0, '-');
    }
    grouped
}

/// Seconds as `45 s`, `12 minutes`, `5.5 hours`, `2.3 days` or `3,171 years` (`2.0e140 years`).
pub fn duration(seconds: f64) -> String {
    const MINUTE: f64 = 60.0;
    const HOUR: f64 = 3600.0;
    const DAY: f64 = 86_400.0;
    const YEAR: f64 = 365.25 * DAY;
    match seconds {
        s if s < 2.0 * MINUTE => format!("{s:.0} s"),
        s if s < 2.0 * HOUR => format!("{:.0} minutes", s / MINUTE),
        s if s < 2.0 * DAY => format!("{:.1} hours", s / HOUR),
        s if s < 2.0 * YEAR => format!("{:.1} days", s / DAY),
        s => format!("{} years", count(s / YEAR)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_durations_read_as_words() {
        assert_eq!(count(0.0), "0");
        assert_eq!(count(999.0), "999");
        assert_eq!(count(1000.0), "1,000");
        assert_eq!(count(1_000_000_000.0), "1,000,000,000");
        assert_eq!(count(-12345.0), "-12,345");
        assert_eq!(count(1.3587e147), "1.4e147");
        assert_eq!(duration(45.0), "45 s");
        assert_eq!(duration(600.0), "10 minutes");
        assert_eq!(duration(20_000.0), "5.6 hours");
        assert_eq!(duration(200_000.0), "2.3 days");
        assert_eq!(duration(1e11), "3,169 years");
        assert_eq!(duration(1e150), "3.2e142 years");
    }
}
