//! Tests of the grades: each rule, candidates without games, rules as text, and faults.

use super::*;

use crate::results::games::GameRecord;

pub(crate) fn game(a: &str, b: &str, result: GameResult) -> GameRecord {
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
/// The grades of `games` for a gauntlet of `references` and `candidates`.
pub(crate) fn graded(
    games: &[GameRecord],
    references: &[String],
    candidates: &[String],
    never_ran: &[(String, String)],
    rule: Rule,
) -> Grades {
    let gauntlet = Gauntlet {
        references: references.to_vec(),
        candidates: candidates.to_vec(),
        never_ran: never_ran.to_vec(),
        rule,
        move_time: Some(std::time::Duration::from_secs(20)),
        versions: Default::default(),
    };
    compute(&GameTable::from_records(games), &gauntlet)
}

pub(crate) fn fixture(rule: Rule) -> Grades {
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
    graded(
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
        .map(|r| (r.candidate.as_str(), r.word()))
        .collect()
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
    let g = graded(
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
    let g = graded(&games, &refs, &["idle".into()], &[], Rule::MinPoints(0));
    assert_eq!(g.rows[0].reason(), "played no games against the references");
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
    let err = |s: &str| s.parse::<Rule>().unwrap_err().to_string();
    assert_eq!(
        "min-score:101".parse::<Rule>(),
        Err(RuleError::PercentOutOfRange {
            rule: "min-score:101".into(),
            percent: 101
        })
    );
    assert!(matches!(
        "beat-most".parse::<Rule>(),
        Err(RuleError::Unknown { rule }) if rule == "beat-most"
    ));
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
