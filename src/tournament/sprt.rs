//! An SPRT match as it is played: counts each finished colour-swapped pair into the
//! pentanomial, runs the test after every pair, writes `sprt.json`, and tells the runner when
//! the match is decided.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::results::games::{GameRecord, GameResult};
use crate::schedule::Pairing;
use crate::standings::sprt::{cell, Bounds, Pentanomial, Sprt, Verdict};

/// The test of one match, fed game by game.
pub struct Match {
    bounds: Bounds,
    /// The bot the test is about (the candidate), and its opponent.
    bots: [String; 2],
    /// Each scheduled game's colour-swapped pair ([`Pairing::pair`]).
    pair_of: HashMap<u64, u32>,
    /// Half-points of the first bot in each pair with one game over.
    open: HashMap<u32, u32>,
    counts: Pentanomial,
    /// Where `sprt.json` goes.
    out: PathBuf,
}

impl Match {
    /// The test of `bounds` on the games of `schedule` between `bots` (the first is the one
    /// the test is about), written into `out`.
    pub fn new(bounds: Bounds, bots: [String; 2], schedule: &[Pairing], out: &Path) -> Match {
        Match {
            bounds,
            bots,
            pair_of: schedule.iter().map(|p| (p.game_id, p.pair())).collect(),
            open: HashMap::new(),
            counts: [0; 5],
            out: out.join("sprt.json"),
        }
    }

    /// Counts a finished game; `true` when it completed a pair (the test has moved).
    pub fn add(&mut self, record: &GameRecord) -> bool {
        let Some(&pair) = self.pair_of.get(&record.game_id) else {
            return false;
        };
        let first_is_a = record.bot_a == self.bots[0];
        let halves = match (record.result, first_is_a) {
            (GameResult::Draw, _) => 1,
            (GameResult::A, true) | (GameResult::B, false) => 2,
            _ => 0,
        };
        match self.open.remove(&pair) {
            Some(other) => {
                self.counts[cell(other + halves)] += 1;
                true
            }
            None => {
                self.open.insert(pair, halves);
                false
            }
        }
    }

    /// The test on the pairs finished so far.
    pub fn state(&self) -> Sprt {
        Sprt::new(&self.bounds, self.bots.clone(), self.counts)
    }

    /// Whether a bound has been crossed.
    pub fn decided(&self) -> bool {
        self.state().result != Verdict::None
    }

    /// Writes `sprt.json`.
    pub fn write(&self) -> Result<()> {
        let text = serde_json::to_string_pretty(&self.state()).expect("the state serialises");
        std::fs::write(&self.out, text + "\n")
            .with_context(|| format!("cannot write `{}`", self.out.display()))
    }

    /// The games of `pending` still to play once the match is decided: the other halves of
    /// pairs with one game over.
    pub fn unfinished(&self, pending: Vec<Pairing>) -> Vec<Pairing> {
        pending
            .into_iter()
            .filter(|p| self.open.contains_key(&p.pair()))
            .collect()
    }
}

/// The first bot of a match: a gauntlet's candidate, or else the first bot given.
pub fn bots(names: &[&str], references: &[String]) -> [String; 2] {
    let mut order: Vec<&str> = names.to_vec();
    // The references come first in `names`: the candidate goes first.
    order.sort_by_key(|n| references.iter().any(|r| r == n));
    [order[0].to_string(), order[1].to_string()]
}

/// The match of a resumed run: its finished games counted, `sprt.json` written, and the
/// pending games cut to the unfinished pairs if the test was decided before it stopped.
pub fn resumed(
    test: Option<&mut Match>,
    records: &[GameRecord],
    pending: Vec<Pairing>,
) -> Result<Vec<Pairing>> {
    let Some(test) = test else {
        return Ok(pending);
    };
    for r in records {
        test.add(r);
    }
    test.write()?;
    Ok(if test.decided() {
        test.unfinished(pending)
    } else {
        pending
    })
}

impl Match {
    /// The runner's stopping rule for this match: after each pair, the test is run, written
    /// and shown in front of the progress bar's message; `true` once it is decided.
    pub fn rule(&mut self, progress: indicatif::ProgressBar) -> super::runner::Enough<'_> {
        Box::new(move |record| {
            if self.add(record) {
                // A failed write is reported by the write after the run, which stops it.
                let _ = self.write();
                progress.set_prefix(format!("{} · ", self.state().line()));
            }
            self.decided()
        })
    }
}

/// Writes the final `sprt.json` of a match and shows its line on stderr unless `quiet`.
pub fn finished(test: Option<&Match>, quiet: bool) -> Result<()> {
    let Some(test) = test else { return Ok(()) };
    test.write()?;
    if !quiet {
        eprintln!("{}", test.state().line());
    }
    Ok(())
}
