//! The options that choose a tournament's format beyond the round robin and the gauntlet: a
//! match stopped by a sequential test (`--sprt`, `--max-games`) and Swiss rounds
//! (`--format swiss`, `--swiss-rounds`), with the checks of how they combine.

use anyhow::{bail, Result};
use clap::Args;
use serde::{Deserialize, Serialize};

use crate::standings::sprt::Bounds;

/// The games of an SPRT match when `--max-games` is not given.
pub const DEFAULT_SPRT_GAMES: u32 = 1000;

/// How the schedule is made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Every bot plays every other (or, with `--gauntlet`, every reference).
    #[default]
    RoundRobin,
    /// Rounds in which bots of equal or nearest scores meet, never twice.
    Swiss,
}

/// The tournament's format and its stopping rule.
#[derive(Debug, Clone, Default, Args, Serialize, Deserialize)]
pub struct FormatOptions {
    /// `round-robin` (a gauntlet with `--gauntlet`), or `swiss`: `--swiss-rounds` rounds of
    /// one colour-swapped pair of games between bots of equal or nearest scores.
    #[arg(long, value_enum, default_value_t = Format::RoundRobin)]
    #[serde(default)]
    pub format: Format,

    /// The rounds of a Swiss tournament [default: ⌈log2 N⌉ + 2 for N bots].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    #[serde(default)]
    pub swiss_rounds: Option<u32>,

    /// Play a match of two bots (or one candidate against one `--gauntlet` reference) in
    /// colour-swapped pairs until a sequential probability ratio test decides between
    /// `elo0` and `elo1` (logistic Elo of the first bot), with error rates `alpha` and `beta`
    /// [default alpha and beta: 0.05].
    #[arg(long, value_name = "elo0=E0,elo1=E1[,alpha=A,beta=B]")]
    #[serde(default, with = "super::text_option")]
    pub sprt: Option<Bounds>,

    /// With `--sprt`, the most games the match plays if the test decides nothing (an even
    /// number) [default: 1000].
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..))]
    #[serde(default)]
    pub max_games: Option<u32>,
}

impl FormatOptions {
    /// The games of an SPRT match, `None` without `--sprt`.
    pub fn sprt_games(&self) -> Option<u32> {
        self.sprt
            .map(|_| self.max_games.unwrap_or(DEFAULT_SPRT_GAMES))
    }

    /// The rounds of a Swiss tournament of `bots` bots, `None` for another format.
    pub fn swiss_rounds(&self, bots: usize) -> Option<u32> {
        (self.format == Format::Swiss).then(|| {
            self.swiss_rounds
                .unwrap_or_else(|| default_swiss_rounds(bots))
        })
    }

    /// Refuses combinations that mean nothing: `bots` and `references` are the counts of
    /// bots and `--gauntlet` references given; `served` is true for `arena serve`.
    pub fn check(&self, bots: usize, references: usize, sharded: bool, served: bool) -> Result<()> {
        if served && (self.sprt.is_some() || self.format == Format::Swiss) {
            // Remote entrants join a schedule known at the start; these are planned as played.
            bail!("`arena serve` plays round robins and gauntlets: `--sprt` and `--format swiss` are for `arena run`");
        }
        if self.max_games.is_some() && self.sprt.is_none() {
            bail!("`--max-games` applies to `--sprt` matches only");
        }
        if self.swiss_rounds.is_some() && self.format != Format::Swiss {
            bail!("`--swiss-rounds` applies to `--format swiss` only");
        }
        if self.sprt.is_some() {
            if self.format == Format::Swiss {
                bail!("`--sprt` is a match of two bots, not a `--format swiss` tournament");
            }
            let two = if references == 0 {
                bots == 2
            } else {
                references == 1 && bots == 1
            };
            if !two {
                bail!(
                    "`--sprt` tests one bot against another: give two bots, or one bot and one `--gauntlet` reference (given: {bots} bots, {references} references)"
                );
            }
            if sharded {
                bail!("`--sprt` decides as the pairs end: it cannot be split with `--shard`");
            }
            if let Some(n) = self.max_games {
                if n % 2 == 1 {
                    bail!("`--max-games {n}`: the games are played in colour-swapped pairs, give an even number");
                }
                if u128::from(n) > crate::config::MAX_GAMES {
                    bail!(
                        "`--max-games {n}` is more than the {} games a run may play",
                        crate::config::MAX_GAMES
                    );
                }
            }
        }
        if self.format == Format::Swiss {
            if references > 0 {
                bail!("`--format swiss` pairs every bot with every other: it cannot be a `--gauntlet`");
            }
            if sharded {
                bail!("`--format swiss` pairs each round from the results before it: it cannot be split with `--shard`");
            }
            if bots < 2 {
                bail!("`--format swiss` needs at least two bots");
            }
        }
        Ok(())
    }
}

/// ⌈log2 N⌉ + 2 rounds: enough for a clear winner and a fair order at the top, far fewer
/// games than a round robin's N − 1 rounds; never more rounds than opponents.
pub fn default_swiss_rounds(bots: usize) -> u32 {
    let log2 = usize::BITS - bots.saturating_sub(1).leading_zeros();
    (log2 + 2).min(bots.saturating_sub(1).max(1) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swiss_rounds_grow_with_the_log_of_the_field() {
        let rounds: Vec<u32> = [2, 3, 4, 8, 16, 17, 200]
            .iter()
            .map(|&n| default_swiss_rounds(n))
            .collect();
        assert_eq!(rounds, [1, 2, 3, 5, 6, 7, 10]);
    }

    #[test]
    fn meaningless_combinations_are_refused() {
        let sprt = FormatOptions {
            sprt: Some("elo0=0,elo1=5".parse().unwrap()),
            ..Default::default()
        };
        assert!(sprt.check(2, 0, false, false).is_ok());
        assert!(sprt.check(1, 1, false, false).is_ok());
        let e = sprt.check(3, 0, false, false).unwrap_err().to_string();
        assert!(e.contains("give two bots"), "{e}");
        assert!(sprt.check(2, 1, false, false).is_err());
        assert!(sprt.check(2, 0, true, false).is_err());
        let odd = FormatOptions {
            max_games: Some(11),
            ..sprt.clone()
        };
        assert!(odd
            .check(2, 0, false, false)
            .unwrap_err()
            .to_string()
            .contains("even"));
        let lone = FormatOptions {
            max_games: Some(10),
            ..Default::default()
        };
        assert!(lone.check(2, 0, false, false).is_err());
        let swiss = FormatOptions {
            format: Format::Swiss,
            swiss_rounds: Some(3),
            ..Default::default()
        };
        assert!(swiss.check(16, 0, false, false).is_ok());
        assert!(swiss.check(16, 1, false, false).is_err());
        assert!(swiss.check(16, 0, false, true).is_err());
        assert_eq!(swiss.swiss_rounds(16), Some(3));
        assert_eq!(sprt.sprt_games(), Some(DEFAULT_SPRT_GAMES));
    }
}
