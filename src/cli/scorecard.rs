//! What `arena connect` says of its games on stderr: each game's result as it ends (asked of
//! the server's `GET /api/games/ID`, on the same port) and a summary at the end.

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::standings::{DRAW_POINTS, WIN_POINTS};

/// The entrant's games so far.
#[derive(Debug, Default)]
pub struct Scorecard {
    won: usize,
    drawn: usize,
    lost: usize,
    /// Games whose result the server did not give.
    unknown: usize,
}

/// How long the result of a game just ended may take to be recorded at the server.
const RECORDED: Duration = Duration::from_secs(5);

impl Scorecard {
    /// Says game `id`'s result for `name`, as the server at `addr` recorded it.
    pub async fn game(&mut self, addr: &str, name: &str, id: u64) {
        let game = match tokio::time::timeout(RECORDED * 2, result(addr, id)).await {
            Ok(Some(game)) => game,
            _ => {
                self.unknown += 1;
                eprintln!("game {id}: over (the server did not say its result)");
                return;
            }
        };
        let (line, outcome) = describe(&game, name, id);
        match outcome {
            Outcome::Won => self.won += 1,
            Outcome::Drawn => self.drawn += 1,
            Outcome::Lost => self.lost += 1,
        }
        eprintln!("{line}");
    }

    /// `played 3 games: 2 won, 0 drawn, 1 lost (4 points)`.
    pub fn summary(&self) -> String {
        let games = self.won + self.drawn + self.lost + self.unknown;
        let points = self.won * WIN_POINTS as usize + self.drawn * DRAW_POINTS as usize;
        let unknown = if self.unknown > 0 {
            format!(", {} not known", self.unknown)
        } else {
            String::new()
        };
        format!(
            "played {}: {} won, {} drawn, {} lost{unknown} ({})",
            crate::tournament::plural(games, "game"),
            self.won,
            self.drawn,
            self.lost,
            crate::tournament::plural(points, "point")
        )
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Won,
    Drawn,
    Lost,
}

/// `game 3 against `greedy`: won 40–24` (the forfeit's detail when not by the rules).
fn describe(game: &Value, name: &str, id: u64) -> (String, Outcome) {
    let players = &game["players"];
    let first = players[0].as_str() == Some(name);
    let opponent = players[if first { 1 } else { 0 }].as_str().unwrap_or("?");
    let result = &game["result"];
    let scores = [result["scores"][0].as_i64(), result["scores"][1].as_i64()];
    let (mine, theirs) = if first {
        (scores[0], scores[1])
    } else {
        (scores[1], scores[0])
    };
    let outcome = match (result["winner"].as_str(), first) {
        (Some("draw"), _) => Outcome::Drawn,
        (Some("first"), true) | (Some("second"), false) => Outcome::Won,
        _ => Outcome::Lost,
    };
    let word = match outcome {
        Outcome::Won => "won",
        Outcome::Drawn => "drawn",
        Outcome::Lost => "lost",
    };
    let reason = result["reason"].as_str().unwrap_or("normal");
    let detail = result["detail"].as_str().unwrap_or("");
    let why = match (reason, detail) {
        ("normal", _) => String::new(),
        (_, "") => format!(" ({reason})"),
        _ => format!(" ({detail})"),
    };
    let score = |s: Option<i64>| s.map_or("?".to_string(), |s| s.to_string());
    let line = format!(
        "game {id} against `{opponent}`: {word} {}–{}{why}",
        score(mine),
        score(theirs)
    );
    (line, outcome)
}

/// The game as a watcher sees it once it has a result; `None` if the server does not say.
async fn result(addr: &str, id: u64) -> Option<Value> {
    let deadline = tokio::time::Instant::now() + RECORDED;
    loop {
        if let Some(game) = get(addr, &format!("/api/games/{id}")).await {
            if !game["result"].is_null() {
                return Some(game);
            }
        }
        if tokio::time::Instant::now() > deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// One `GET` on its own connection: the JSON body of a `200`.
async fn get(addr: &str, path: &str) -> Option<Value> {
    let mut stream = crate::serve::tcp::dial(addr).await.ok()?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: arena\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.ok()?;
    let mut answer = Vec::new();
    stream.take(1 << 20).read_to_end(&mut answer).await.ok()?;
    let text = String::from_utf8_lossy(&answer);
    let (head, body) = text.split_once("\r\n\r\n")?;
    if !head.starts_with("HTTP/1.1 200") {
        return None;
    }
    serde_json::from_str(body).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_game_is_said_from_the_entrant_s_side_and_the_summary_counts_points_as_the_files() {
        let game = json!({"players": ["greedy", "ann"], "result": {"scores": [40, 24],
            "winner": "first", "reason": "timeout", "detail": "timeout: no reply in time"}});
        let (line, outcome) = describe(&game, "ann", 3);
        assert_eq!(
            line,
            "game 3 against `greedy`: lost 24–40 (timeout: no reply in time)"
        );
        assert_eq!(outcome, Outcome::Lost);
        let card = Scorecard {
            won: 2,
            drawn: 1,
            lost: 1,
            unknown: 0,
        };
        assert_eq!(
            card.summary(),
            "played 4 games: 2 won, 1 drawn, 1 lost (5 points)"
        );
    }
}
