//! The game clocks of `--time-control`: one per side, kept by the referee, charged with each
//! move's thinking time and credited with the increment.

use std::time::Duration;

use crate::game::Seat;
use crate::player::clock::{seconds, TimeControl, TimeLeft};
use crate::results::games::Reason;

/// Both sides' clocks.
#[derive(Debug, Clone)]
pub struct Clocks {
    control: TimeControl,
    left: [Duration; 2],
}

impl Clocks {
    /// Both clocks at the base time.
    pub fn new(control: TimeControl) -> Clocks {
        Clocks {
            control,
            left: [control.base; 2],
        }
    }

    /// What `seat` is told of the clocks with its request.
    pub fn told(&self, seat: Seat) -> TimeLeft {
        TimeLeft {
            left: self.left[seat.index()],
            opponent: self.left[seat.other().index()],
            control: self.control,
        }
    }

    /// The time left on `seat`'s clock.
    pub fn left(&self, seat: Seat) -> Duration {
        self.left[seat.index()]
    }

    /// Charges `seat` with `spent` of a move and, if time was left, credits the increment.
    /// A side that spent more than it had has lost on time: the fault says so (it replaces a
    /// fault of the move itself, except a crash, and a timeout of the per-move limit).
    pub fn charge(
        &mut self,
        seat: Seat,
        spent: Duration,
        fault: Option<(Reason, String)>,
    ) -> Option<(Reason, String)> {
        let left = &mut self.left[seat.index()];
        if spent <= *left {
            *left = *left - spent + self.control.increment;
            return fault;
        }
        let had = *left;
        *left = Duration::ZERO;
        if matches!(&fault, Some((Reason::Crash, _))) {
            return fault;
        }
        Some((
            Reason::Timeout,
            format!(
                "timeout: clock ran out: 0 ms left of {} (the move took {} with {} left)",
                self.control.words(),
                seconds(spent),
                seconds(had)
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_loses_what_is_thought_and_gains_the_increment() {
        let ms = Duration::from_millis;
        let mut c = Clocks::new("1s+0.1s".parse().unwrap());
        assert_eq!(c.charge(Seat::A, ms(300), None), None);
        assert_eq!(c.left(Seat::A), ms(800));
        assert_eq!(c.left(Seat::B), ms(1000));
        assert_eq!(c.told(Seat::B).opponent, ms(800));
        assert_eq!(c.charge(Seat::A, ms(800), None), None, "exactly all of it");
        assert_eq!(c.left(Seat::A), ms(100));
        let (reason, detail) = c.charge(Seat::A, ms(150), None).unwrap();
        assert_eq!(reason, Reason::Timeout);
        assert_eq!(
            detail,
            "timeout: clock ran out: 0 ms left of 1 s + 0.1 s (the move took 150 ms with 0.1 s left)"
        );
        assert_eq!(c.left(Seat::A), Duration::ZERO);
        // A per-move timeout that used the whole clock is the clock's.
        let mut c = Clocks::new("1s".parse().unwrap());
        let timeout = Some((Reason::Timeout, "timeout: no reply in time".to_string()));
        let fault = c.charge(Seat::B, ms(1001), timeout).unwrap();
        assert!(fault.1.contains("clock ran out"), "{fault:?}");
        // A crash stays a crash.
        let crash = Some((Reason::Crash, "crash: exited".to_string()));
        let mut c = Clocks::new("1s".parse().unwrap());
        assert_eq!(c.charge(Seat::A, ms(2000), crash.clone()), crash);
    }
}
