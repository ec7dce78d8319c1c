//! Figures and how they are printed: one `workload<TAB>metric<TAB>value<TAB>unit` line
//! per figure on standard output (everything else goes to standard error), and the
//! summary statistics of timed calls.

use std::io::Write;
use std::time::Duration;

/// Median, quartiles, minimum and maximum of a set of durations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    /// The median (the mean of the two middle values for an even count).
    pub median: Duration,
    /// The first quartile (linear interpolation between order statistics, as numpy's
    /// default `percentile`, which the JAX side uses).
    pub p25: Duration,
    /// The third quartile.
    pub p75: Duration,
    /// The fastest.
    pub min: Duration,
    /// The slowest.
    pub max: Duration,
}

impl Stats {
    /// The statistics of `times`; `None` when there are none.
    pub fn of(times: &[Duration]) -> Option<Stats> {
        let mut sorted = times.to_vec();
        sorted.sort();
        let n = sorted.len();
        let (&min, &max) = (sorted.first()?, sorted.last()?);
        let median = if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2 };
        Some(Stats { median, p25: quantile(&sorted, 0.25), p75: quantile(&sorted, 0.75), min, max })
    }
}

/// The `q` quantile of a sorted, non-empty slice, interpolated linearly between the
/// order statistics at `q * (n - 1)`.
fn quantile(sorted: &[Duration], q: f64) -> Duration {
    let at = q * (sorted.len() - 1) as f64;
    let (lo, frac) = (at.floor() as usize, at.fract());
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo].mul_f64(1.0 - frac) + sorted[hi].mul_f64(frac)
}

/// Prints one figure line on standard output (flushed, so that lines of a workload are
/// out before a later one can fail).
pub fn figure(workload: &str, metric: &str, value: f64, unit: &str) {
    let value = match unit {
        "bytes" => format!("{}", value.round() as u64),
        _ => format!("{value:.3}"),
    };
    let mut out = std::io::stdout().lock();
    // A closed stdout (a pipe whose reader quit) is not worth a panic here.
    let _ = writeln!(out, "{workload}\t{metric}\t{value}\t{unit}");
    let _ = out.flush();
}

/// Prints `call_median`, `call_p25`, `call_p75`, `call_min` and `call_max` (µs) of
/// `stats`, with `prefix` before each metric name (`call` or `exec`).
pub fn call_figures(workload: &str, prefix: &str, stats: &Stats) {
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    figure(workload, &format!("{prefix}_median"), us(stats.median), "us");
    figure(workload, &format!("{prefix}_p25"), us(stats.p25), "us");
    figure(workload, &format!("{prefix}_p75"), us(stats.p75), "us");
    figure(workload, &format!("{prefix}_min"), us(stats.min), "us");
    figure(workload, &format!("{prefix}_max"), us(stats.max), "us");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_quartiles_min_max() {
        let ms = |v: u64| Duration::from_millis(v);
        let s = Stats::of(&[ms(5), ms(1), ms(3)]).unwrap();
        assert_eq!((s.median, s.min, s.max), (ms(3), ms(1), ms(5)));
        assert_eq!(Stats::of(&[ms(4), ms(2)]).unwrap().median, ms(3));
        // numpy.percentile([1, 2, 3, 4, 5], [25, 75]) = [2, 4]; of [1, 2, 3, 4]: [1.75, 3.25].
        let five = Stats::of(&[ms(5), ms(4), ms(3), ms(2), ms(1)]).unwrap();
        assert_eq!((five.p25, five.p75), (ms(2), ms(4)));
        let four = Stats::of(&[ms(4), ms(3), ms(2), ms(1)]).unwrap();
        assert_eq!((four.p25, four.p75), (Duration::from_micros(1750), Duration::from_micros(3250)));
        assert_eq!(Stats::of(&[]), None);
    }
}
