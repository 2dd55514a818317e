//! Pass or fail for each candidate of a gauntlet, from its games against the reference bots.
//!
//! A gauntlet (`arena run <GAME> --gauntlet REF ... BOT...`) plays every candidate (a `BOT`)
//! against every reference and never against another candidate. Its grades are a pure
//! function of the games, like the standings: only games between a candidate and a reference
//! count; a win is 2 points, a draw 1, a loss 0.
//!
//! # Rules (`--pass`)
//!
//! - `beat-all` (the default): against **every** reference, the candidate took more than half
//!   the points available, that is more points than games played against it (a candidate that
//!   wins one game and loses one, or draws every game, against some reference fails). A
//!   reference the candidate never played counts as not beaten.
//! - `min-score:P`: at least `P` percent (a whole number from 0 to 100) of the points available
//!   over all its games against the references: `points × 100 ≥ P × available`, where
//!   `available` is 2 points for each game played.
//! - `min-points:N`: at least `N` points over all its games against the references.
//!
//! Under every rule, a candidate that played no game against the references fails, and so does
//! one that never ran (its build failed, its program could not be found).
//!
//! # `grades.csv`
//!
//! One row per candidate, ordered by name, never-ran candidates included:
//!
//! ```text
//! candidate,grade,games,points,available,percent,<REF>:points,<REF>:first,<REF>:second,...,reason,faults
//! ```
//!
//! | column | meaning |
//! |---|---|
//! | `candidate` | the candidate's name |
//! | `grade` | `pass` or `fail` |
//! | `games` | games played against the references |
//! | `points` | points taken in them |
//! | `available` | 2 × `games` |
//! | `percent` | `points` / `available` × 100, with one decimal (empty with no games) |
//! | `<REF>:points` | points taken from that reference (three columns per reference, in the order the references were given) |
//! | `<REF>:first` | record against it moving first (seat `a`), as `wins-draws-losses` |
//! | `<REF>:second` | the same moving second (seat `b`) |
//! | `reason` | empty for a pass; for a fail, why, such as ``not more than half the points against `greedy` (2 of 4)``, or `never ran: ` and the reason |
//! | `faults` | each game against a reference the candidate forfeited, by game id, such as ``game 14 against greedy: timeout at move 14 (no reply in 20 s)``, joined by `; ` (see [`crate::standings::faults`] for the words) |
//!
//! A candidate that never ran has every column between `grade` and `reason` empty.
//! `grades.md` shows the same as a table that reads well as plain text; in the directory of
//! the run, its `faults` link each game to `replays/<game_id>.jsonl` and to its stderr,
//! `logs/<bot>/<game_id>.log` (a crash's error read from it), and end with a link to the
//! candidate's `logs/<bot>.log`.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::game::GameKind;
use crate::results::games::{Culprit, GameResult, GameTable};
use crate::standings::faults::{describe, Fault};
use crate::standings::{Record, DRAW_POINTS, WIN_POINTS};

/// What a candidate must achieve against the references to pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Rule {
    /// More than half the points against every reference.
    #[default]
    BeatAll,
    /// At least this percentage of the available points overall.
    MinScore(u32),
    /// At least this many points overall.
    MinPoints(u32),
}

impl Rule {
    /// The rule in words, for `grades.md`.
    pub fn describe(self) -> String {
        match self {
            Rule::BeatAll => {
                "more than half the points against every reference (more points than games)"
                    .to_string()
            }
            Rule::MinScore(p) => format!("at least {p}% of the available points overall"),
            Rule::MinPoints(n) => format!("at least {n} points overall"),
        }
    }
}

/// Why a `--pass` rule does not parse; each names the rule as written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// Not one of the rules.
    #[error("unknown rule `{rule}` (expected `beat-all`, `min-score:P` or `min-points:N`)")]
    Unknown { rule: String },
    /// A rule that takes a value was given none.
    #[error("`{rule}` needs a value, such as `{rule}:{example}`")]
    MissingValue { rule: String, example: &'static str },
    /// `beat-all` was given a value.
    #[error("`{rule}`: `beat-all` takes no value")]
    UnexpectedValue { rule: String },
    /// The value is not a whole number.
    #[error("`{rule}`: `{value}` is not a whole number")]
    NotANumber { rule: String, value: String },
    /// A percentage above 100.
    #[error("`{rule}`: the percentage must be from 0 to 100, not {percent}")]
    PercentOutOfRange { rule: String, percent: u32 },
}

impl FromStr for Rule {
    type Err = RuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let rule = || s.to_string();
        let (name, value) = match s.split_once(':') {
            Some((name, value)) => (name, Some(value)),
            None => (s, None),
        };
        let number = |example: &'static str| -> Result<u32, RuleError> {
            let Some(value) = value else {
                return Err(RuleError::MissingValue {
                    rule: rule(),
                    example,
                });
            };
            value.parse::<u32>().map_err(|_| RuleError::NotANumber {
                rule: rule(),
                value: value.to_string(),
            })
        };
        // `beat all` and `beat_all` mean `beat-all`.
        let name = name.trim().to_ascii_lowercase().replace([' ', '_'], "-");
        match name.as_str() {
            "beat-all" if value.is_none() => Ok(Rule::BeatAll),
            "beat-all" => Err(RuleError::UnexpectedValue { rule: rule() }),
            "min-score" => match number("60")? {
                p @ 0..=100 => Ok(Rule::MinScore(p)),
                p => Err(RuleError::PercentOutOfRange {
                    rule: rule(),
                    percent: p,
                }),
            },
            "min-points" => Ok(Rule::MinPoints(number("10")?)),
            _ => Err(RuleError::Unknown { rule: rule() }),
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::BeatAll => f.write_str("beat-all"),
            Rule::MinScore(p) => write!(f, "min-score:{p}"),
            Rule::MinPoints(n) => write!(f, "min-points:{n}"),
        }
    }
}

/// A candidate's results against one reference.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Versus {
    pub reference: String,
    /// Moving first (seat A) and moving second.
    pub as_first: Record,
    pub as_second: Record,
}

impl Versus {
    /// Games played against the reference.
    pub fn games(&self) -> u32 {
        games(&self.as_first) + games(&self.as_second)
    }

    /// Points taken from the reference.
    pub fn points(&self) -> u32 {
        points(&self.as_first) + points(&self.as_second)
    }
}

/// Whether a candidate passed, and why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    /// Failed the rule, for this reason.
    Fail(String),
    /// Never played: why it was left out of the tournament.
    NeverRan(String),
}

/// One candidate's line of the grades.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grade {
    pub candidate: String,
    /// Results against each reference, in the references' order.
    pub versus: Vec<Versus>,
    pub verdict: Verdict,
    /// The games against the references it forfeited, by game id, explained.
    pub faults: Vec<Fault>,
}

impl Grade {
    /// Games played against the references.
    pub fn games(&self) -> u32 {
        self.versus.iter().map(Versus::games).sum()
    }

    /// Points taken from the references.
    pub fn points(&self) -> u32 {
        self.versus.iter().map(Versus::points).sum()
    }

    /// The points there were to take: a win's worth per game.
    pub fn available(&self) -> u32 {
        WIN_POINTS * self.games()
    }

    /// `pass` or `fail`.
    pub fn word(&self) -> &'static str {
        if self.verdict == Verdict::Pass {
            "pass"
        } else {
            "fail"
        }
    }

    /// The `reason` column: empty for a pass.
    pub fn reason(&self) -> String {
        match &self.verdict {
            Verdict::Pass => String::new(),
            Verdict::Fail(why) => why.clone(),
            Verdict::NeverRan(why) => format!("never ran: {why}"),
        }
    }
}

/// The grades of a gauntlet, candidates ordered by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grades {
    /// The game played (`None` for no games).
    pub game: Option<GameKind>,
    pub rule: Rule,
    pub references: Vec<String>,
    pub rows: Vec<Grade>,
    /// The version graded of each candidate, as [`Gauntlet::versions`].
    pub versions: std::collections::BTreeMap<String, [String; 2]>,
}

/// What a gauntlet is graded on: its references (in the order given), its candidates, the
/// candidates that never ran with the reason, and the rule to pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gauntlet {
    pub references: Vec<String>,
    pub candidates: Vec<String>,
    /// `(name, reason)` of each candidate left out of the tournament.
    pub never_ran: Vec<(String, String)>,
    pub rule: Rule,
    /// The time allowed per move, to explain timeouts (`None` when not known).
    pub move_time: Option<Duration>,
    /// Which version of each candidate was graded: its checksum digest and since when it
    /// played (from `tournament.json`; empty when not known).
    pub versions: std::collections::BTreeMap<String, [String; 2]>,
}

/// Grades every candidate of `gauntlet`, those that never ran included.
///
/// Only games between a candidate and a reference count. A candidate that never ran fails
/// as such, whatever games it may have.
pub fn compute(games: &GameTable, gauntlet: &Gauntlet) -> Grades {
    let Gauntlet {
        references,
        candidates,
        never_ran,
        rule,
        move_time,
        versions,
    } = gauntlet;
    let rule = *rule;
    let blank = || -> Vec<Versus> {
        references
            .iter()
            .map(|r| Versus {
                reference: r.clone(),
                ..Versus::default()
            })
            .collect()
    };
    // By bot id: the candidate's results, and the reference's place in `references`.
    let n = games.names.len();
    let mut results: Vec<Option<Vec<Versus>>> = vec![None; n];
    let mut faults: Vec<Vec<Fault>> = vec![Vec::new(); n];
    let mut reference_at: Vec<Option<usize>> = vec![None; n];
    for (i, r) in references.iter().enumerate() {
        if let Some(id) = games.names.id(r) {
            reference_at[id as usize].get_or_insert(i);
        }
    }
    for c in candidates {
        if let Some(id) = games.names.id(c) {
            results[id as usize] = Some(blank());
        }
    }
    for (index, g) in games.iter().enumerate() {
        let seats = [g.bot_a as usize, g.bot_b as usize];
        let culprits = match g.culprit {
            Culprit::Nobody => [false, false],
            Culprit::A => [true, false],
            Culprit::B => [false, true],
            Culprit::Both => [true, true],
        };
        for seat in 0..2 {
            let Some(versus) = &mut results[seats[seat]] else {
                continue;
            };
            let Some(at) = reference_at[seats[1 - seat]] else {
                continue;
            };
            let v = &mut versus[at];
            let record = if seat == 0 {
                &mut v.as_first
            } else {
                &mut v.as_second
            };
            match (g.result, seat) {
                (GameResult::Draw, _) => record.draws += 1,
                (GameResult::A, 0) | (GameResult::B, 1) => record.wins += 1,
                _ => record.losses += 1,
            }
            if culprits[seat] {
                let (plies, detail) = games
                    .forfeit(index)
                    .map_or((0, ""), |f| (f.plies, &*f.detail));
                faults[seats[seat]].push(Fault {
                    game_id: g.game_id,
                    opponent: games.name(seats[1 - seat] as u32).to_string(),
                    words: describe(g.reason, detail, seat, plies, *move_time),
                    log: None,
                    traceback: None,
                });
            }
        }
    }
    let results: BTreeMap<&str, (Vec<Versus>, Vec<Fault>)> = candidates
        .iter()
        .map(|c| {
            let id = games.names.id(c);
            let versus = id.and_then(|id| results[id as usize].clone());
            let mut faults = id.map(|id| faults[id as usize].clone()).unwrap_or_default();
            faults.sort_by_key(|f| f.game_id);
            (c.as_str(), (versus.unwrap_or_else(blank), faults))
        })
        .collect();
    let mut rows: BTreeMap<&str, Grade> = results
        .into_iter()
        .map(|(name, (versus, faults))| {
            let verdict = verdict(rule, &versus);
            let grade = Grade {
                candidate: name.to_string(),
                versus,
                verdict,
                faults,
            };
            (name, grade)
        })
        .collect();
    for (name, reason) in never_ran {
        rows.insert(
            name,
            Grade {
                candidate: name.clone(),
                versus: blank(),
                verdict: Verdict::NeverRan(reason.clone()),
                faults: Vec::new(),
            },
        );
    }
    Grades {
        game: games.first().map(|g| g.game),
        rule,
        references: references.to_vec(),
        rows: rows.into_values().collect(),
        versions: versions.clone(),
    }
}

fn verdict(rule: Rule, versus: &[Versus]) -> Verdict {
    let games: u32 = versus.iter().map(Versus::games).sum();
    let points: u32 = versus.iter().map(Versus::points).sum();
    let available = WIN_POINTS * games;
    if games == 0 {
        return Verdict::Fail("played no games against the references".to_string());
    }
    let failed = match rule {
        Rule::BeatAll => {
            let short: Vec<String> = versus
                .iter()
                .filter(|v| 2 * v.points() <= WIN_POINTS * v.games())
                .map(|v| {
                    format!(
                        "`{}` ({} of {})",
                        v.reference,
                        v.points(),
                        WIN_POINTS * v.games()
                    )
                })
                .collect();
            (!short.is_empty())
                .then(|| format!("not more than half the points against {}", short.join(", ")))
        }
        Rule::MinScore(p) => {
            (u64::from(points) * 100 < u64::from(p) * u64::from(available)).then(|| {
                format!(
                    "{}% of the available points ({points} of {available}), below {p}%",
                    percent(points, available)
                )
            })
        }
        Rule::MinPoints(n) => (points < n).then(|| format!("{points} points, below {n}")),
    };
    match failed {
        Some(why) => Verdict::Fail(why),
        None => Verdict::Pass,
    }
}

fn games(r: &Record) -> u32 {
    r.wins + r.draws + r.losses
}

fn points(r: &Record) -> u32 {
    WIN_POINTS * r.wins + DRAW_POINTS * r.draws
}

/// `points` as a percentage of `available`, with one decimal.
pub fn percent(points: u32, available: u32) -> String {
    format!("{:.1}", f64::from(points) * 100.0 / f64::from(available))
}

#[cfg(test)]
#[path = "grades_tests.rs"]
pub(crate) mod tests;
