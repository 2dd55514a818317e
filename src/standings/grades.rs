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
//! candidate,grade,games,points,available,percent,<REF>:points,<REF>:first,<REF>:second,...,reason
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
//!
//! A candidate that never ran has every column between `grade` and `reason` empty.
//! `grades.md` shows the same as a table that reads well as plain text.

use crate::export::markdown::{escape, table, Align};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use crate::game::GameKind;
use crate::results::games::{GameRecord, GameResult};
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

impl FromStr for Rule {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (name, value) = match s.split_once(':') {
            Some((name, value)) => (name, Some(value)),
            None => (s, None),
        };
        let number = |what: &str| -> Result<u32, String> {
            let Some(value) = value else {
                return Err(format!("`{s}` needs a value, such as `{s}:{what}`"));
            };
            value
                .parse::<u32>()
                .map_err(|_| format!("`{s}`: `{value}` is not a whole number"))
        };
        // `beat all` and `beat_all` mean `beat-all`.
        let name = name.trim().to_ascii_lowercase().replace([' ', '_'], "-");
        match name.as_str() {
            "beat-all" if value.is_none() => Ok(Rule::BeatAll),
            "beat-all" => Err(format!("`{s}`: `beat-all` takes no value")),
            "min-score" => match number("60")? {
                p @ 0..=100 => Ok(Rule::MinScore(p)),
                p => Err(format!(
                    "`{s}`: the percentage must be from 0 to 100, not {p}"
                )),
            },
            "min-points" => Ok(Rule::MinPoints(number("10")?)),
            _ => Err(format!(
                "unknown rule `{s}` (expected `beat-all`, `min-score:P` or `min-points:N`)"
            )),
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
}

/// Grades every candidate, those in `never_ran` (name, reason) included, against `rule`.
///
/// Only games between a candidate and a reference count. A candidate named in `never_ran`
/// fails as never run, whatever games it may have.
pub fn compute(
    games: &[GameRecord],
    references: &[String],
    candidates: &[String],
    never_ran: &[(String, String)],
    rule: Rule,
) -> Grades {
    let blank = || -> Vec<Versus> {
        references
            .iter()
            .map(|r| Versus {
                reference: r.clone(),
                ..Versus::default()
            })
            .collect()
    };
    let mut results: BTreeMap<&str, Vec<Versus>> =
        candidates.iter().map(|c| (c.as_str(), blank())).collect();
    for g in games {
        let seats = [g.bot_a.as_str(), g.bot_b.as_str()];
        for seat in 0..2 {
            let Some(versus) = results.get_mut(seats[seat]) else {
                continue;
            };
            let Some(v) = versus.iter_mut().find(|v| v.reference == seats[1 - seat]) else {
                continue;
            };
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
        }
    }
    let mut rows: BTreeMap<&str, Grade> = results
        .into_iter()
        .map(|(name, versus)| {
            let verdict = verdict(rule, &versus);
            let grade = Grade {
                candidate: name.to_string(),
                versus,
                verdict,
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
            },
        );
    }
    Grades {
        game: games.first().map(|g| g.game),
        rule,
        references: references.to_vec(),
        rows: rows.into_values().collect(),
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

fn wdl(r: &Record) -> String {
    format!("{}-{}-{}", r.wins, r.draws, r.losses)
}

/// `points` as a percentage of `available`, with one decimal.
fn percent(points: u32, available: u32) -> String {
    format!("{:.1}", f64::from(points) * 100.0 / f64::from(available))
}

/// `grades.csv`: one row per candidate (see the module documentation for the columns).
pub fn csv(g: &Grades) -> String {
    let mut header = vec![
        "candidate".to_string(),
        "grade".to_string(),
        "games".to_string(),
        "points".to_string(),
        "available".to_string(),
        "percent".to_string(),
    ];
    for r in &g.references {
        header.extend(["points", "first", "second"].map(|c| format!("{r}:{c}")));
    }
    header.push("reason".to_string());
    // Writing into memory cannot fail, so neither can these.
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(&header).expect("writing to memory");
    for row in &g.rows {
        let mut cells = vec![row.candidate.clone(), grade_word(row).to_string()];
        if matches!(row.verdict, Verdict::NeverRan(_)) {
            cells.extend(std::iter::repeat_n(String::new(), header.len() - 3));
        } else {
            let (games, points, available) = (row.games(), row.points(), row.available());
            cells.push(games.to_string());
            cells.push(points.to_string());
            cells.push(available.to_string());
            cells.push(if games == 0 {
                String::new()
            } else {
                percent(points, available)
            });
            for v in &row.versus {
                cells.push(v.points().to_string());
                cells.push(wdl(&v.as_first));
                cells.push(wdl(&v.as_second));
            }
        }
        cells.push(row.reason());
        w.write_record(&cells).expect("writing to memory");
    }
    let bytes = w.into_inner().expect("writing to memory");
    String::from_utf8(bytes).expect("the cells are strings")
}

/// `grades.md`: the rule, then a table of the candidates: grade, total points, and against
/// each reference the points taken of those available and the record moving first and
/// moving second (just the record for games without a first player, such as Morra).
pub fn markdown(g: &Grades) -> String {
    let split = g.game.is_none_or(|k| k.has_first_player());
    let mut out = format!("Rule `{}`: {}.\n\n", g.rule, g.rule.describe());
    out.push_str(if split {
        "Against each reference: points taken of those available (wins-draws-losses moving \
         first / moving second).\n\n"
    } else {
        "Against each reference: points taken of those available (wins-draws-losses).\n\n"
    });
    let mut header = vec![
        "candidate".to_string(),
        "grade".to_string(),
        "points".to_string(),
    ];
    header.extend(g.references.iter().map(|r| escape(r)));
    header.push("reason".to_string());
    let mut right = vec![false, false, true];
    right.extend(g.references.iter().map(|_| true));
    right.push(false);
    let rows = g
        .rows
        .iter()
        .map(|row| {
            let mut cells = vec![escape(&row.candidate), grade_word(row).to_string()];
            if matches!(row.verdict, Verdict::NeverRan(_)) {
                cells.extend(std::iter::repeat_n(String::new(), g.references.len() + 1));
            } else {
                let (points, available) = (row.points(), row.available());
                cells.push(if available == 0 {
                    "0 of 0".to_string()
                } else {
                    format!("{points} of {available} ({}%)", percent(points, available))
                });
                cells.extend(row.versus.iter().map(|v| {
                    let taken = format!("{} of {}", v.points(), WIN_POINTS * v.games());
                    if split {
                        format!("{taken} ({} / {})", wdl(&v.as_first), wdl(&v.as_second))
                    } else {
                        let total = Record {
                            wins: v.as_first.wins + v.as_second.wins,
                            draws: v.as_first.draws + v.as_second.draws,
                            losses: v.as_first.losses + v.as_second.losses,
                        };
                        format!("{taken} ({})", wdl(&total))
                    }
                }));
            }
            cells.push(escape(&row.reason()));
            cells
        })
        .collect();
    let align: Vec<Align> = right
        .iter()
        .map(|&r| if r { Align::Right } else { Align::Left })
        .collect();
    out.push_str(&table(header, &align, rows));
    out
}

fn grade_word(row: &Grade) -> &'static str {
    if row.verdict == Verdict::Pass {
        "pass"
    } else {
        "fail"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(a: &str, b: &str, result: GameResult) -> GameRecord {
        GameRecord {
            score_a: 40,
            score_b: 24,
            plies: 60,
            ..GameRecord::for_test(GameKind::Othello, a, b, result)
        }
    }

    /// alpha beats both references; bravo only splits with `greedy`; charlie loses;
    /// delta never ran. Games between candidates, between references, or with a bot that is
    /// neither, do not count.
    fn fixture(rule: Rule) -> Grades {
        use GameResult::{Draw, A, B};
        let games = [
            game("alpha", "greedy", A),
            game("greedy", "alpha", Draw),
            game("alpha", "random", A),
            game("random", "alpha", B),
            game("bravo", "greedy", A),
            game("greedy", "bravo", A),
            game("bravo", "random", A),
            game("random", "bravo", B),
            game("charlie", "greedy", B),
            game("greedy", "charlie", A),
            game("charlie", "random", Draw),
            game("random", "charlie", Draw),
            game("alpha", "bravo", B),
            game("greedy", "random", A),
            game("stranger", "alpha", A),
        ];
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        compute(
            &games,
            &names(&["greedy", "random"]),
            &names(&["charlie", "bravo", "alpha"]),
            &[("delta".into(), "`build` failed (exit status: 1)".into())],
            rule,
        )
    }

    fn verdicts(g: &Grades) -> Vec<(&str, &str)> {
        g.rows
            .iter()
            .map(|r| (r.candidate.as_str(), grade_word(r)))
            .collect()
    }

    #[test]
    fn grades_csv_lists_every_candidate_by_name() {
        let expected = "\
candidate,grade,games,points,available,percent,greedy:points,greedy:first,greedy:second,random:points,random:first,random:second,reason
alpha,pass,4,7,8,87.5,3,1-0-0,0-1-0,4,1-0-0,1-0-0,
bravo,fail,4,6,8,75.0,2,1-0-0,0-0-1,4,1-0-0,1-0-0,not more than half the points against `greedy` (2 of 4)
charlie,fail,4,2,8,25.0,0,0-0-1,0-0-1,2,0-1-0,0-1-0,\"not more than half the points against `greedy` (0 of 4), `random` (2 of 4)\"
delta,fail,,,,,,,,,,,never ran: `build` failed (exit status: 1)
";
        assert_eq!(csv(&fixture(Rule::BeatAll)), expected);
    }

    #[test]
    fn grades_md_is_a_readable_table() {
        let expected = "\
Rule `beat-all`: more than half the points against every reference (more points than games).

Against each reference: points taken of those available (wins-draws-losses moving first / moving second).

| candidate | grade |         points |                 greedy |                 random | reason                                                                     |
| :-------- | :---- | -------------: | ---------------------: | ---------------------: | :------------------------------------------------------------------------- |
| alpha     | pass  | 7 of 8 (87.5%) | 3 of 4 (1-0-0 / 0-1-0) | 4 of 4 (1-0-0 / 1-0-0) |                                                                            |
| bravo     | fail  | 6 of 8 (75.0%) | 2 of 4 (1-0-0 / 0-0-1) | 4 of 4 (1-0-0 / 1-0-0) | not more than half the points against `greedy` (2 of 4)                    |
| charlie   | fail  | 2 of 8 (25.0%) | 0 of 4 (0-0-1 / 0-0-1) | 2 of 4 (0-1-0 / 0-1-0) | not more than half the points against `greedy` (0 of 4), `random` (2 of 4) |
| delta     | fail  |                |                        |                        | never ran: `build` failed (exit status: 1)                                 |
";
        assert_eq!(markdown(&fixture(Rule::BeatAll)), expected);
    }

    #[test]
    fn each_rule_decides_on_its_own_measure() {
        let g = fixture(Rule::BeatAll);
        assert_eq!(
            verdicts(&g),
            [
                ("alpha", "pass"),
                ("bravo", "fail"),
                ("charlie", "fail"),
                ("delta", "fail")
            ]
        );
        // bravo took exactly 75% (6 of 8 points); charlie 25% (2 of 8).
        let g = fixture(Rule::MinScore(75));
        assert_eq!(
            verdicts(&g)[..3],
            [("alpha", "pass"), ("bravo", "pass"), ("charlie", "fail")]
        );
        assert_eq!(
            g.rows[2].reason(),
            "25.0% of the available points (2 of 8), below 75%"
        );
        let g = fixture(Rule::MinScore(76));
        assert_eq!(verdicts(&g)[1], ("bravo", "fail"));
        let g = fixture(Rule::MinScore(0));
        assert_eq!(verdicts(&g)[2], ("charlie", "pass"));
        let g = fixture(Rule::MinPoints(6));
        assert_eq!(
            verdicts(&g)[..3],
            [("alpha", "pass"), ("bravo", "pass"), ("charlie", "fail")]
        );
        assert_eq!(g.rows[2].reason(), "2 points, below 6");
        let g = fixture(Rule::MinPoints(7));
        assert_eq!(verdicts(&g)[1], ("bravo", "fail"));
        // A candidate that never ran fails whatever the rule.
        for rule in [Rule::BeatAll, Rule::MinScore(0), Rule::MinPoints(0)] {
            let g = fixture(rule);
            assert_eq!(
                g.rows[3].verdict,
                Verdict::NeverRan("`build` failed (exit status: 1)".into())
            );
        }
    }

    #[test]
    fn no_games_against_a_reference_is_not_beating_it() {
        let refs = ["greedy".to_string(), "random".to_string()];
        let games = [game("solo", "greedy", GameResult::A)];
        let g = compute(
            &games,
            &refs,
            &["solo".into(), "idle".into()],
            &[],
            Rule::BeatAll,
        );
        assert_eq!(
            g.rows[1].reason(),
            "not more than half the points against `random` (0 of 0)"
        );
        // With no games at all, even `min-points:0` fails.
        let g = compute(&games, &refs, &["idle".into()], &[], Rule::MinPoints(0));
        assert_eq!(g.rows[0].reason(), "played no games against the references");
        assert_eq!(csv(&g).lines().nth(1), Some("idle,fail,0,0,0,,0,0-0-0,0-0-0,0,0-0-0,0-0-0,played no games against the references"));
    }

    #[test]
    fn rules_parse_and_print_back() {
        for text in [
            "beat-all",
            "min-score:60",
            "min-score:0",
            "min-score:100",
            "min-points:12",
        ] {
            let rule: Rule = text.parse().unwrap();
            assert_eq!(rule.to_string(), text);
        }
        assert_eq!(Rule::default(), Rule::BeatAll);
        assert_eq!("min-score:60".parse(), Ok(Rule::MinScore(60)));
        assert_eq!("beat all".parse(), Ok(Rule::BeatAll));
        assert_eq!("Min_Score:75".parse(), Ok(Rule::MinScore(75)));
        let err = |s: &str| s.parse::<Rule>().unwrap_err();
        assert_eq!(
            err("beat-most"),
            "unknown rule `beat-most` (expected `beat-all`, `min-score:P` or `min-points:N`)"
        );
        assert_eq!(
            err("min-score"),
            "`min-score` needs a value, such as `min-score:60`"
        );
        assert_eq!(
            err("min-score:101"),
            "`min-score:101`: the percentage must be from 0 to 100, not 101"
        );
        assert_eq!(
            err("min-score:62.5"),
            "`min-score:62.5`: `62.5` is not a whole number"
        );
        assert_eq!(
            err("min-points:-1"),
            "`min-points:-1`: `-1` is not a whole number"
        );
        assert_eq!(err("beat-all:2"), "`beat-all:2`: `beat-all` takes no value");
    }

    #[test]
    fn games_without_a_first_player_show_one_record() {
        let g = GameRecord {
            game: GameKind::Morra,
            ..game("x|y", "ref", GameResult::A)
        };
        let text = markdown(&compute(
            &[g],
            &["ref".into()],
            &["x|y".into()],
            &[],
            Rule::BeatAll,
        ));
        let expected = [
            "| candidate | grade |          points |            ref | reason |",
            "| :-------- | :---- | --------------: | -------------: | :----- |",
            "| x\\|y      | pass  | 2 of 2 (100.0%) | 2 of 2 (1-0-0) |        |",
        ];
        assert_eq!(text.lines().skip(4).collect::<Vec<_>>(), expected);
    }
}
