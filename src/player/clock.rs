//! Game clocks as players see them: the time control (`--time-control BASE+INC`), what a
//! player is told of its clock with each request, and the one computation of how long a move
//! may take. The referee keeps the clocks themselves ([`crate::referee`]).

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A game clock: each side starts with `base`, loses the time it thinks and gains
/// `increment` after each of its moves (Fischer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeControl {
    pub base: Duration,
    pub increment: Duration,
}

/// What a player is told of the clocks with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeLeft {
    /// The time left on the asked side's clock.
    pub left: Duration,
    /// The time left on the opponent's clock.
    pub opponent: Duration,
    pub control: TimeControl,
}

/// How long a move may take: the per-move cap (`--move-time`), or the time left on the
/// clock if that is less. Every player's deadline comes from here.
pub fn move_limit(cap: Duration, time: Option<&TimeLeft>) -> Duration {
    match time {
        Some(t) => cap.min(t.left),
        None => cap,
    }
}

/// The longest base time or increment: a day, like every other time option.
const MAX: Duration = Duration::from_secs(24 * 60 * 60);

/// A duration as a time control writes it: `60s`, `0.5s`, `1m`, `1500ms`, `1m30s`.
fn parse_part(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let time = humantime::parse_duration(text).or_else(|_| {
        // humantime takes whole numbers only: `0.5s` is read here.
        let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.'));
        let (number, unit) = text.split_at(split.unwrap_or(text.len()));
        let scale = match unit.trim() {
            "ms" => 0.001,
            "s" | "sec" => 1.0,
            "m" | "min" => 60.0,
            "h" => 3600.0,
            _ => {
                return Err(format!(
                    "`{text}` is not a time such as `60s`, `0.5s` or `5m`"
                ))
            }
        };
        match number.parse::<f64>() {
            Ok(n) if n.is_finite() && n >= 0.0 && n * scale <= MAX.as_secs_f64() => {
                Ok(Duration::from_secs_f64(n * scale))
            }
            _ => Err(format!(
                "`{text}` is not a time such as `60s`, `0.5s` or `5m`"
            )),
        }
    })?;
    if time > MAX {
        return Err(format!("`{text}` is longer than a day"));
    }
    Ok(time)
}

impl FromStr for TimeControl {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (base, increment) = match s.split_once('+') {
            Some((b, i)) => (parse_part(b)?, parse_part(i)?),
            None => (parse_part(s)?, Duration::ZERO),
        };
        if base.is_zero() {
            return Err(format!("`{s}`: the base time must be more than 0"));
        }
        Ok(TimeControl { base, increment })
    }
}

impl fmt::Display for TimeControl {
    /// The form `FromStr` reads back: `60s+500ms`, `5m`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let compact = |d: Duration| humantime::format_duration(d).to_string().replace(' ', "");
        write!(f, "{}", compact(self.base))?;
        if !self.increment.is_zero() {
            write!(f, "+{}", compact(self.increment))?;
        }
        Ok(())
    }
}

impl TimeControl {
    /// The control in words for a fault's detail: `60 s + 0.5 s`, `5 min`.
    pub fn words(&self) -> String {
        let base = seconds(self.base);
        if self.increment.is_zero() {
            base
        } else {
            format!("{base} + {}", seconds(self.increment))
        }
    }
}

/// A duration in seconds with up to three decimals (`0.5 s`, `60 s`), or milliseconds when
/// under a second and not a round fraction (`0 ms`, `40 ms`).
pub fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 && !ms.is_multiple_of(100) || ms == 0 {
        return format!("{ms} ms");
    }
    let text = format!("{:.3}", d.as_secs_f64());
    format!("{} s", text.trim_end_matches('0').trim_end_matches('.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(s: &str) -> TimeControl {
        s.parse().unwrap()
    }

    #[test]
    fn time_controls_are_read_and_written_back() {
        let ms = Duration::from_millis;
        assert_eq!(tc("60s+0.5s").base, ms(60_000));
        assert_eq!(tc("60s+0.5s").increment, ms(500));
        assert_eq!(tc("5m").base, ms(300_000));
        assert_eq!(tc("5m").increment, Duration::ZERO);
        assert_eq!(tc("1m+1s").increment, ms(1000));
        assert_eq!(tc("1.5s + 20ms").base, ms(1500));
        for s in ["60s+0.5s", "5m", "1m+1s", "2s+100ms"] {
            assert_eq!(tc(&tc(s).to_string()), tc(s), "{s}");
        }
        assert_eq!(tc("60s+0.5s").words(), "60 s + 0.5 s");
        assert_eq!(seconds(Duration::ZERO), "0 ms");
        for bad in ["", "0s", "5x", "1s+", "2d", "-1s"] {
            assert!(bad.parse::<TimeControl>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_move_may_take_the_cap_or_the_clock_whichever_is_less() {
        let control = tc("10s");
        let time = |left| TimeLeft {
            left: Duration::from_secs(left),
            opponent: Duration::from_secs(10),
            control,
        };
        let cap = Duration::from_secs(3);
        assert_eq!(move_limit(cap, None), cap);
        assert_eq!(move_limit(cap, Some(&time(8))), cap);
        assert_eq!(move_limit(cap, Some(&time(2))), Duration::from_secs(2));
    }
}
