//! Tests of `report.html`: well-formed XML, escaping, colours, links and the print zoom.

use super::heatmap::{percent, share_colour};
use super::*;
use crate::game::GameKind;
use crate::results::games::{Culprit, GameRecord, GameResult};
use crate::standings::Cell;

fn game(id: u64, a: &str, b: &str, result: GameResult) -> GameRecord {
    GameRecord {
        game_id: id,
        score_a: 40,
        score_b: 24,
        plies: 60,
        ..GameRecord::for_test(GameKind::Othello, a, b, result)
    }
}

const ODD: &str = "<b>&\"x\"";

/// The games of [`sample`], as a table that lives as long as the test.
fn sample_table() -> &'static GameTable {
    Box::leak(Box::new(GameTable::from_records(&sample_games())))
}

fn sample_games() -> Vec<GameRecord> {
    let mut games = vec![
        game(1, "alpha", ODD, GameResult::A),
        game(2, ODD, "alpha", GameResult::Draw),
        game(3, "never", "alpha", GameResult::B),
    ];
    for id in 10..35 {
        games.push(GameRecord {
            reason: Reason::Timeout,
            culprit: Culprit::A,
            ..game(id, "alpha", "beta", GameResult::B)
        });
    }
    games.push(GameRecord {
        reason: Reason::Crash,
        culprit: Culprit::B,
        ..game(40, ODD, "alpha", GameResult::A)
    });
    games
}

/// Each sample game's replay beside the page, one of them embedded.
fn sample_replays() -> Replays {
    let hrefs = (sample_games().iter().enumerate())
        .map(|(i, g)| (i, format!("replays/{}.jsonl", g.game_id)))
        .collect();
    Replays {
        embedded: vec![("replays/1.jsonl".into(), "{\"game\":\"<]]>&\"}\n".into())],
        hrefs,
    }
}

/// Three bots, one with an awkward name; `never` meets nobody but `alpha`; `alpha` times
/// out 25 times against `beta` and crashes once.
fn sample() -> (Standings, Vec<Failure>) {
    let mut games = vec![
        game(1, "alpha", ODD, GameResult::A),
        game(2, ODD, "alpha", GameResult::Draw),
        game(3, "never", "alpha", GameResult::B),
    ];
    let mut failures = Vec::new();
    for id in 10..35 {
        games.push(GameRecord {
            reason: Reason::Timeout,
            culprit: Culprit::A,
            ..game(id, "alpha", "beta", GameResult::B)
        });
        failures.push(Failure {
            bot: "alpha".into(),
            game_id: id,
            game: games.len() - 1,
            reason: Reason::Timeout,
        });
    }
    games.push(GameRecord {
        reason: Reason::Crash,
        culprit: Culprit::B,
        ..game(40, ODD, "alpha", GameResult::A)
    });
    failures.push(Failure {
        bot: "alpha".into(),
        game_id: 40,
        game: games.len() - 1,
        reason: Reason::Crash,
    });
    (crate::standings::compute(&games), failures)
}

fn report(s: &Standings, failures: Vec<Failure>) -> HtmlReport<'_> {
    let ratings = s
        .rows
        .iter()
        .map(|r| (r.bot != "never").then_some((1500.0 + r.points as f64, 1400.0, 1620.0)))
        .collect();
    HtmlReport {
        title: format!("othello — results/{ODD}"),
        config: vec![("seed".into(), "42".into()), ("bots".into(), ODD.into())],
        standings: s,
        ratings: Some(ratings),
        first_move_elo: Some(35.4),
        failures,
        games: sample_table(),
        grades: None,
        left_out: &[],
        sprt: None,
        swiss: None,
        logs: Vec::new(),
        replays: sample_replays(),
    }
}

fn parse(html: &str) -> roxmltree::Document<'_> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(html, options)
        .unwrap_or_else(|e| panic!("not well-formed: {e}"))
}

fn has_class(n: &roxmltree::Node<'_, '_>, class: &str) -> bool {
    n.attribute("class")
        .is_some_and(|c| c.split(' ').any(|x| x == class))
}

fn text(n: roxmltree::Node<'_, '_>) -> String {
    n.descendants()
        .filter(|d| d.is_text())
        .filter_map(|d| d.text())
        .collect()
}

#[test]
fn the_page_parses_as_xml_and_is_self_contained() {
    let (s, failures) = sample();
    let html = render(&report(&s, failures));
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
    let doc = parse(&html);
    assert_eq!(doc.root_element().tag_name().name(), "html");
    let lower = html.to_lowercase();
    for bad in [
        "http://",
        "https://",
        "<script src",
        "<link",
        "url(",
        "@import",
    ] {
        assert!(!lower.contains(bad), "found `{bad}`");
    }
    // The scripts are inline, in CDATA sections; the embedded replay is escaped for both.
    let scripts: Vec<String> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "script")
        .map(text)
        .collect();
    assert_eq!(scripts.len(), 2);
    assert!(scripts[0].contains("\"replays/1.jsonl\":\"{\\\"game\\\":\\\"\\u003c]]\\u003e\\u0026"));
    assert!(scripts[1].contains("a.replay"));
    // Deterministic: the same report renders to the same bytes.
    let (s2, failures2) = sample();
    assert_eq!(render(&report(&s2, failures2)), html);
}

#[test]
fn every_bot_name_comes_through_escaped() {
    let (s, failures) = sample();
    let html = render(&report(&s, failures));
    assert!(!html.contains(ODD));
    assert!(html.contains("&lt;b&gt;&amp;&quot;x&quot;"));
    let doc = parse(&html);
    let bots: Vec<String> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "td" && has_class(n, "bot"))
        .filter(|n| !n.ancestors().any(|a| has_class(&a, "games")))
        .map(text)
        .collect();
    assert_eq!(bots, ["beta", "alpha", ODD, "never", "alpha"]);
    let title = doc
        .descendants()
        .find(|n| n.tag_name().name() == "title")
        .unwrap();
    assert_eq!(text(title), format!("othello — results/{ODD}"));
    // The heatmap's column headings carry the names in attributes.
    let cols: Vec<&str> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "th" && has_class(n, "col"))
        .filter_map(|n| n.attribute("title"))
        .collect();
    assert_eq!(cols, ["beta", "alpha", ODD, "never"]);
}

#[test]
fn the_heatmap_has_a_cell_per_pair() {
    let (s, failures) = sample();
    let html = render(&report(&s, failures));
    let doc = parse(&html);
    let cells: Vec<_> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "td" && has_class(n, "hm"))
        .collect();
    assert_eq!(cells.len(), 16);
    let count = |class| cells.iter().filter(|n| has_class(n, class)).count();
    assert_eq!(count("self"), 4);
    // Only alpha met everyone: 3 pairs met, so 6 of the 12 off-diagonal cells are empty.
    assert_eq!(count("none"), 6);
    // Rows and columns: beta, alpha, the odd bot, never. alpha against the odd bot: a
    // win, a draw and a loss by crash.
    let cell = cells[4 + 2];
    assert_eq!(text(cell), "50%3/6");
    assert_eq!(
        cell.attribute("title"),
        Some(
            "alpha against <b>&\"x\": 3 of 6 points in 3 games, 50% \
             (2 moving first, 1 moving second)"
        )
    );
    assert!(cell
        .attribute("style")
        .is_some_and(|s| s.starts_with("background-color:#")));
    // alpha against beta: lost all 25, the darkest red with light text.
    let lost = cells[4];
    assert_eq!(text(lost), "0%0/50");
    assert_eq!(lost.attribute("style"), Some("background-color:#ca0020"));
    assert!(has_class(&lost, "light"));
}

#[test]
fn failures_link_their_replays_up_to_a_cap() {
    let (s, failures) = sample();
    let html = render(&report(&s, failures.clone()));
    let doc = parse(&html);
    let failures_section = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("failures"))
        .unwrap();
    let links: Vec<&str> = failures_section
        .descendants()
        .filter(|n| n.tag_name().name() == "a")
        .filter_map(|n| n.attribute("href"))
        .filter(|h| h.starts_with("replays/"))
        .collect();
    let mut expected: Vec<String> = (10..10 + MAX_LISTED as u64)
        .map(|id| format!("replays/{id}.jsonl"))
        .collect();
    expected.push("replays/40.jsonl".into());
    assert_eq!(links, expected);
    assert!(html.contains("and 5 more"));
    // Standings failure counts link to the bot's row in the failures table.
    let row = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("fail-1"));
    assert_eq!(text(row.unwrap().first_child().unwrap()), "alpha");
    assert!(html.contains("<td class=\"fail\"><a href=\"#fail-1\">25</a></td>"));

    let plain = render(&HtmlReport {
        replays: Replays::default(),
        ..report(&s, failures)
    });
    assert!(!plain.contains("replays/"));
    assert!(!plain.contains("<script") && !plain.contains("<dialog"));
    assert!(plain.contains("<span class=\"gid\">40</span>"));
}

#[test]
fn ratings_draw_bars_or_say_unbounded() {
    let (s, failures) = sample();
    let html = render(&report(&s, failures.clone()));
    let doc = parse(&html);
    let bars = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "svg" && has_class(n, "bar"))
        .count();
    assert_eq!(bars, 3);
    assert_eq!(html.matches(">unbounded</td>").count(), 1);
    // The axis runs over 1400..1620 in steps of 100 widened to round ticks.
    let ticks: Vec<String> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "svg" && has_class(n, "axis"))
        .flat_map(|n| n.children().map(text))
        .collect();
    assert_eq!(ticks, ["1400", "1500", "1600", "1700"]);
    assert!(html.contains("First-move advantage: <strong>+35 Elo</strong>"));

    let bare = render(&HtmlReport {
        ratings: None,
        first_move_elo: None,
        ..report(&s, failures)
    });
    parse(&bare);
    assert!(!bare.contains("<svg class=\"bar\""));
    assert!(!bare.contains(">Elo<"));
    assert!(!bare.contains("First-move"));
}

#[test]
fn an_empty_tournament_still_renders() {
    let s = crate::standings::compute(&[]);
    let html = render(&HtmlReport {
        title: "morra".into(),
        config: Vec::new(),
        standings: &s,
        ratings: Some(Vec::new()),
        first_move_elo: None,
        failures: Vec::new(),
        games: sample_table(),
        grades: None,
        left_out: &[],
        sprt: None,
        swiss: None,
        logs: Vec::new(),
        replays: Replays::default(),
    });
    parse(&html);
    assert!(html.contains("No games were played."));
    assert!(html.contains("No bot timed out"));
}

#[test]
fn text_is_escaped_for_xml() {
    assert_eq!(esc("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
    assert_eq!(esc("x\u{1}y\u{7f}"), "x\u{fffd}y\u{fffd}");
    assert_eq!(num(-0.4), "0");
    assert_eq!(num(-12.6), "−13");
    assert_eq!(signed(35.4), "+35");
}

/// A round robin of `n` bots, every game a draw.
fn drawn_round_robin(n: usize) -> Standings {
    let names: Vec<String> = (0..n).map(|i| format!("bot{i:02}")).collect();
    let mut games = Vec::new();
    for a in &names {
        for b in &names {
            if a != b {
                games.push(game(1, a, b, GameResult::Draw));
            }
        }
    }
    crate::standings::compute(&games)
}

#[test]
fn a_field_too_large_to_draw_gets_a_pointer_to_crosstable_csv_instead_of_its_square() {
    let cells = |html: &str| html.matches("<td class=\"hm").count();
    let most = drawn_round_robin(heatmap::MOST_DRAWN);
    let drawn = render(&HtmlReport {
        ratings: None,
        ..report(&most, Vec::new())
    });
    assert_eq!(cells(&drawn), heatmap::MOST_DRAWN * heatmap::MOST_DRAWN);
    let over = drawn_round_robin(heatmap::MOST_DRAWN + 1);
    let html = render(&HtmlReport {
        ratings: None,
        ..report(&over, Vec::new())
    });
    parse(&html);
    assert_eq!(cells(&html), 0);
    assert!(!html.contains("zoom:"), "no heatmap to shrink for print");
    assert!(
        html.contains("101 bots make 10201 cells")
            && html.contains("<a href=\"crosstable.csv\">crosstable.csv</a>"),
        "the section says where the cross-table is"
    );
    assert!(
        html.len() * 4 < drawn.len(),
        "{} bytes against {}",
        html.len(),
        drawn.len()
    );
}

#[test]
fn wide_heatmaps_shrink_to_fit_a_printed_page() {
    let round_robin = drawn_round_robin;
    assert_eq!(heatmap_print_zoom(&round_robin(8)), None);
    let wide = round_robin(20);
    assert_eq!(heatmap_print_zoom(&wide), Some(0.86));
    let html = render(&HtmlReport {
        ratings: None,
        ..report(&wide, Vec::new())
    });
    assert!(html.contains("@media print { .heat { zoom: 0.86; } }\n</style>"));
    assert!(html.contains("<table class=\"heat dense\">"));
}

#[test]
fn the_colour_scale_runs_red_to_blue_through_grey() {
    assert_eq!(share_colour(0.0), ("#ca0020".to_string(), true));
    assert_eq!(share_colour(0.5), ("#f7f7f7".to_string(), false));
    assert_eq!(share_colour(1.0), ("#0571b0".to_string(), true));
    assert_eq!(
        percent(&Cell {
            games: 8,
            points: 1,
            ..Cell::default()
        }),
        6
    );
}

#[test]
fn results_come_first_and_the_configuration_last_collapsed() {
    use crate::standings::grades::{compute, Gauntlet, Rule};
    let (s, failures) = sample();
    let grades = compute(
        sample_table(),
        &Gauntlet {
            references: vec!["alpha".into()],
            candidates: vec!["beta".into(), "gone".into(), ODD.into()],
            never_ran: vec![("gone".into(), "`build` failed".into())],
            rule: Rule::BeatAll,
            move_time: None,
            versions: Default::default(),
        },
    );
    let html = render(&HtmlReport {
        grades: Some(&grades),
        ..report(&s, failures)
    });
    let doc = parse(&html);
    let sections: Vec<&str> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "section")
        .filter_map(|n| n.attribute("id"))
        .collect();
    assert_eq!(
        sections,
        [
            "grades",
            "standings",
            "crosstable",
            "failures",
            "games",
            "configuration"
        ]
    );
    let config = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("configuration"))
        .unwrap();
    let details = config.first_element_child().unwrap();
    assert_eq!(details.tag_name().name(), "details");
    assert_eq!(details.attribute("open"), None);
    let grade_rows: Vec<String> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "tr" && n.ancestors().any(|a| has_class(&a, "grades")))
        .skip(1)
        .map(text)
        .collect();
    assert_eq!(
        grade_rows,
        [
            format!(
                "{ODD}fail3 / 650.0%3 / 61-1-0 / 0-0-1not more than half the points against \
                 alpha (3 of 6)"
            ),
            "betapass50 / 50100.0%50 / 500-0-0 / 25-0-0".to_string(),
            "gonefailnever rannever ran: build failed".to_string(),
        ]
    );
    // Every game is listed, its id opening the replay; the viewer comes with them.
    let games = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "a" && has_class(n, "replay"))
        .filter(|n| n.ancestors().any(|a| a.attribute("id") == Some("games")))
        .count();
    assert_eq!(games, sample_games().len());
    assert!(html.contains("<dialog id=\"viewer\""));
    assert!(html.contains("<td>40–24</td><td class=\"result\">alpha won</td>"));
    assert!(html.contains("<span class=\"fail\">crash by alpha</span>"));
}

#[test]
fn bots_left_out_are_listed_with_their_reason_issue_13() {
    let (s, failures) = sample();
    let left_out = vec![(
        "x-norun.py".to_string(),
        "`x-norun.py` is not executable: mark it executable <& so on>".to_string(),
    )];
    let html = render(&HtmlReport {
        left_out: &left_out,
        ..report(&s, failures.clone())
    });
    let doc = parse(&html);
    let section = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("left-out"))
        .expect("a left-out section");
    let cells: Vec<String> = section
        .descendants()
        .filter(|n| n.tag_name().name() == "td")
        .map(text)
        .collect();
    let why = "x-norun.py is not executable: mark it executable <& so on>";
    assert_eq!(cells, [left_out[0].0.as_str(), why]);
    // No Markdown in the page: the name in backticks is code (issue 18).
    assert!(
        html.contains("<td><code>x-norun.py</code> is not executable: mark it executable &lt;&amp; so on&gt;</td>"),
        "{html}"
    );
    let none = render(&report(&s, failures));
    assert!(!none.contains("id=\"left-out\""));
}
