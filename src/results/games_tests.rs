//! Tests of `games.csv`: writing, reading, torn lines, bad rows and the interned table.

use super::*;
use std::fs::File;

fn sample() -> GameRecord {
    GameRecord {
        run: "r1".into(),
        round: 1,
        game_id: 3,
        game: GameKind::Morra,
        bot_a: "Quinn, and Valor".into(),
        bot_b: "Historian".into(),
        score_a: 170,
        score_b: 158,
        result: GameResult::A,
        reason: Reason::Timeout,
        culprit: Culprit::B,
        plies: 12,
        duration_ms: 40,
        detail: "timeout: no reply in time".into(),
    }
}

#[test]
fn rows_round_trip_through_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.csv");
    let mut writer = GamesWriter::create(&path).unwrap();
    let mut second = sample();
    second.game_id = 4;
    second.culprit = Culprit::Nobody;
    second.reason = Reason::Normal;
    second.detail.clear();
    writer.append(&sample()).unwrap();
    writer.append(&second).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text.lines().nth(1).unwrap(),
        "r1,1,3,morra,\"Quinn, and Valor\",Historian,170,158,a,timeout,b,12,40,timeout: no reply in time"
    );
    assert_eq!(text.lines().nth(2).unwrap().split(',').nth(11), Some(""));
    assert_eq!(read_games(&[path]).unwrap(), vec![sample(), second]);
}

#[test]
fn a_torn_last_line_is_ignored_and_cut_before_appending() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.csv");
    let mut writer = GamesWriter::create(&path).unwrap();
    writer.append(&sample()).unwrap();
    drop(writer);
    // A controller killed in the middle of a row.
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("r1,1,4,morra,x,y,1");
    std::fs::write(&path, &text).unwrap();
    assert_eq!(
        read_games(std::slice::from_ref(&path)).unwrap(),
        vec![sample()]
    );

    let mut writer = GamesWriter::reopen(&path).unwrap();
    let mut next = sample();
    next.game_id = 4;
    writer.append(&next).unwrap();
    assert_eq!(read_games(&[path]).unwrap(), vec![sample(), next]);
}

#[test]
fn a_bad_row_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.csv");
    std::fs::write(
        &path,
        format!(
            "{}\nr,1,1,morra,x,y,2,1,a,normal,,5,9\nr,1,2,morra,x,y,1,2,maybe,normal,,5,9\n",
            HEADER[..LEGACY_COLUMNS].join(",")
        ),
    )
    .unwrap();
    let err = read_games(std::slice::from_ref(&path))
        .unwrap_err()
        .to_string();
    assert!(err.contains("games.csv`: line 3"), "{err}");
    assert!(err.contains("maybe"), "{err}");

    // Rows whose fields disagree, and a game given twice (issue 11).
    for (rows, what) in [
        (
            "r,1,1,morra,x,y,1,2,a,normal,,5,9",
            "does not agree with the scores",
        ),
        (
            "r,1,1,morra,x,y,1,2,b,timeout,,5,9",
            "a `timeout` game has no culprit",
        ),
        ("r,1,1,othello,x,y,40,24,b,crash,b,5,9", "does not agree"),
        (
            "r,1,1,gomoku,x,y,9,8,b,normal,,17,9\nr,1,1,gomoku,x,y,9,8,b,normal,,17,9",
            "appears twice",
        ),
    ] {
        std::fs::write(
            &path,
            format!("{}\n{rows}\n", HEADER[..LEGACY_COLUMNS].join(",")),
        )
        .unwrap();
        let err = read_games(std::slice::from_ref(&path))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("games.csv`: line ") && err.contains(what),
            "{rows}: {err}"
        );
    }

    std::fs::write(&path, "a,b,c\n").unwrap();
    let err = read_games(&[path]).unwrap_err().to_string();
    assert!(err.contains("line 1: the header"), "{err}");
}

#[test]
fn the_table_interns_each_name_once_and_keeps_game_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.csv");
    let mut writer = GamesWriter::create(&path).unwrap();
    let mut second = sample();
    (second.bot_a, second.bot_b) = (second.bot_b.clone(), "zed".into());
    second.game_id = 4;
    let mut third = sample();
    third.game_id = 5;
    writer.append(&sample()).unwrap();
    writer.append(&second).unwrap();
    writer.append(&third).unwrap();
    let table = read_table(std::slice::from_ref(&path)).unwrap();
    assert_eq!(table.names.len(), 3);
    let ids: Vec<(u32, u32)> = table.iter().map(|g| (g.bot_a, g.bot_b)).collect();
    assert_eq!(ids, [(0, 1), (1, 2), (0, 1)]);
    assert_eq!(table.name(0), "Quinn, and Valor");
    assert_eq!(table.names.id("zed"), Some(2));
    assert_eq!(table.names.id("nobody"), None);
    // Ids by name: "Historian" < "Quinn, and Valor" < "zed".
    assert_eq!(table.names.by_name(), [1, 0, 2]);
    let g = table[1];
    assert_eq!(
        (g.game_id, g.score_a, g.result, g.reason, g.culprit),
        (4, 170, GameResult::A, Reason::Timeout, Culprit::B)
    );
    // The same as building the table from the records.
    let records = read_games(&[path]).unwrap();
    assert_eq!(GameTable::from_records(&records), table);
}

#[test]
fn each_bad_field_is_named_with_its_value_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.csv");
    let good = "r,1,1,morra,x,y,2,1,a,normal,,5,9";
    for (row, expected) in [
        (
            "r,1,2,chess,x,y,1,2,a,normal,,5,9",
            "line 3: column `game`: unknown value `chess`",
        ),
        (
            "r,1,2,morra,x,y,1.5,2,a,normal,,5,9",
            "line 3: column `score_a`: `1.5` is not a valid number",
        ),
        (
            "r,-1,2,morra,x,y,1,2,a,normal,,5,9",
            "line 3: column `round`: `-1` is not a valid number",
        ),
        (
            "r,1,2,morra,x,y,1,2,a,asleep,,5,9",
            "line 3: column `reason`: unknown value `asleep`",
        ),
        (
            "r,1,2,morra,x,y,1,2,a,normal,c,5,9",
            "line 3: column `culprit`: unknown value `c`",
        ),
        (
            "r,1,2,morra,x,y,1,2",
            "line 3: 8 fields where the header has 13",
        ),
    ] {
        let header = HEADER[..LEGACY_COLUMNS].join(",");
        std::fs::write(&path, format!("{header}\n{good}\n{row}\n")).unwrap();
        for err in [
            read_table(std::slice::from_ref(&path)).unwrap_err(),
            read_games(std::slice::from_ref(&path)).unwrap_err(),
        ] {
            let err = err.to_string();
            assert!(
                err.starts_with('`') && err.contains("games.csv`: "),
                "{err}"
            );
            assert!(err.contains(expected), "{err} lacks {expected}");
        }
    }
    let mut bytes = format!("{}\n", HEADER.join(",")).into_bytes();
    bytes.extend_from_slice(b"r,1,1,morra,\xff,y,2,1,a,normal,,5,9,\n");
    std::fs::write(&path, bytes).unwrap();
    let err = read_table(std::slice::from_ref(&path))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("line 2: column `bot_a` is not valid UTF-8"),
        "{err}"
    );
    let err = read_table(&[dir.path().join("missing.csv")])
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("cannot open `") && err.contains("missing.csv`"),
        "{err}"
    );
}

#[test]
fn the_complete_length_ends_at_the_last_newline_however_far_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    let mut text = "x".repeat(100_000);
    text.push('\n');
    text.push_str(&"y".repeat(150_000));
    std::fs::write(&path, &text).unwrap();
    let mut file = File::open(&path).unwrap();
    assert_eq!(complete_length(&mut file).unwrap(), 100_001);
    std::fs::write(&path, "no newline").unwrap();
    assert_eq!(complete_length(&mut File::open(&path).unwrap()).unwrap(), 0);
    std::fs::write(&path, "").unwrap();
    assert_eq!(complete_length(&mut File::open(&path).unwrap()).unwrap(), 0);
}

#[test]
fn a_csv_without_the_detail_column_reads_and_grows_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.csv");
    let legacy = HEADER[..LEGACY_COLUMNS].join(",");
    std::fs::write(
        &path,
        format!("{legacy}\nr,1,1,morra,x,y,1,2,b,crash,a,5,9\n"),
    )
    .unwrap();
    let old = GameRecord {
        game_id: 1,
        score_a: 1,
        score_b: 2,
        reason: Reason::Crash,
        culprit: Culprit::A,
        plies: 5,
        duration_ms: 9,
        ..GameRecord::for_test(GameKind::Morra, "x", "y", GameResult::B)
    };
    assert_eq!(
        read_games(std::slice::from_ref(&path)).unwrap(),
        vec![old.clone()]
    );
    // A resumed old run keeps its 13 columns; the detail is dropped.
    let mut writer = GamesWriter::reopen(&path).unwrap();
    writer.append(&sample()).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text.lines().nth(2).unwrap(),
        "r1,1,3,morra,\"Quinn, and Valor\",Historian,170,158,a,timeout,b,12,40"
    );
    let table = read_table(&[path]).unwrap();
    let details: Vec<_> = table.forfeits.iter().map(|f| (f.index, f.plies)).collect();
    assert_eq!(details, [(0, 5), (1, 12)]);
    assert_eq!(table.forfeit(1).unwrap().detail.as_ref(), "");
    assert_eq!(table.runs, ["r".into(), "r1".into()] as [Box<str>; 2]);
}

#[test]
fn only_forfeits_keep_their_detail_and_both_faults_are_named_by_seat() {
    let both = [
        Some("timeout: no reply in time".to_string()),
        Some("crash: exited with status 1".to_string()),
    ];
    assert_eq!(
        GameRecord::fault_detail(&both),
        "a: timeout: no reply in time / b: crash: exited with status 1"
    );
    assert_eq!(
        GameRecord::fault_detail(&[None, both[1].clone()]),
        "crash: exited with status 1"
    );
    assert_eq!(GameRecord::fault_detail(&[None, None]), "");
    let mut normal = sample();
    normal.reason = Reason::Normal;
    normal.culprit = Culprit::Nobody;
    normal.detail.clear();
    let table = GameTable::from_records(&[normal, sample()]);
    assert_eq!(table.forfeits.len(), 1);
    assert!(table.forfeit(0).is_none());
    assert_eq!(
        table.forfeit(1).unwrap().detail.as_ref(),
        "timeout: no reply in time"
    );
}

#[test]
fn extending_a_table_gives_the_table_of_both_files() {
    let first = [sample()];
    let mut second = sample();
    second.game_id = 9;
    second.bot_a = "New".into();
    second.run = "r2".into();
    let second = [
        GameRecord {
            reason: Reason::Normal,
            culprit: Culprit::Nobody,
            detail: String::new(),
            ..second.clone()
        },
        second,
    ];
    let mut table = GameTable::from_records(&first);
    table.extend(GameTable::from_records(&second));
    let all: Vec<GameRecord> = first.iter().chain(&second).cloned().collect();
    assert_eq!(table, GameTable::from_records(&all));
}

#[test]
fn each_text_form_is_the_one_serde_writes() {
    let text = |v: serde_json::Value| v.as_str().unwrap().to_string();
    for r in GameResult::ALL {
        assert_eq!(text(serde_json::to_value(r).unwrap()), r.as_str());
    }
    for r in Reason::ALL {
        assert_eq!(text(serde_json::to_value(r).unwrap()), r.as_str());
    }
    for c in Culprit::ALL {
        assert_eq!(text(serde_json::to_value(c).unwrap()), c.as_str());
    }
}
