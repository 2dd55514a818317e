//! What the server's terminal says, one line each on stderr: where the page is, each game's
//! start and result, and who left (an entrant has left once told `END`, or after it has had
//! no connection and no game for a moment, so that a page's join between two games is no
//! leave); [`Hub`] says who connected as they connect.

use std::net::SocketAddr;
use std::sync::{Arc, Weak};
use std::time::Duration;

use crate::results::games::{GameRecord, GameResult, Reason};

use super::hub::Hub;
use super::rooms::{is_friendly, FRIENDLY_BASE};

/// How long an entrant with no connection and games left to play is still counted as
/// connected: a page joins again within this after each game.
pub const AWAY: Duration = Duration::from_secs(3);

/// The page's address from this machine: an unspecified listening address (`0.0.0.0`, `::`)
/// is reached on loopback here.
pub fn page_url(addr: SocketAddr) -> String {
    let mut local = addr;
    if addr.ip().is_unspecified() {
        local.set_ip(if addr.is_ipv4() {
            std::net::Ipv4Addr::LOCALHOST.into()
        } else {
            std::net::Ipv6Addr::LOCALHOST.into()
        });
    }
    format!("http://{local}/")
}

/// Says where the server listens and where its page is.
pub fn listening(addr: SocketAddr) {
    eprintln!("listening on {addr}");
    let elsewhere = if addr.ip().is_unspecified() {
        " (from other machines, this machine's address)"
    } else {
        ""
    };
    eprintln!("the page: {}{elsewhere}", page_url(addr));
}

/// `all 3 entrants connected: starting`, or how many are and why it starts (`when`: the
/// `--start-when` number that is reached; `None`: all who have games to play are here).
pub fn starting(connected: usize, all: usize, when: Option<usize>) -> String {
    match when {
        _ if connected >= all => format!("all {all} entrants connected: starting"),
        Some(n) => {
            format!("{connected} of {all} entrants connected (`--start-when {n}`): starting")
        }
        None => format!("{connected} of {all} entrants connected (all who have games): starting"),
    }
}

/// A game's name: `game 3`, or `friendly game 2`.
fn label(game_id: u64) -> String {
    if is_friendly(game_id) {
        format!("friendly game {}", game_id - FRIENDLY_BASE)
    } else {
        format!("game {game_id}")
    }
}

/// `game 3 started: ann (first) vs greedy`.
pub fn started(game_id: u64, names: [&str; 2]) -> String {
    format!(
        "{} started: {} (first) vs {}",
        label(game_id),
        names[0],
        names[1]
    )
}

/// `game 3 over: ann 24, greedy 40: greedy won (timeout: no reply in time)`.
pub fn over(record: &GameRecord) -> String {
    let verdict = match record.result {
        GameResult::A => format!("{} won", record.bot_a),
        GameResult::B => format!("{} won", record.bot_b),
        GameResult::Draw => "a draw".to_string(),
    };
    let why = if record.reason == Reason::Normal {
        String::new()
    } else if record.detail.is_empty() {
        format!(" ({})", record.reason.as_str())
    } else {
        format!(" ({})", record.detail)
    };
    format!(
        "{} over: {} {}, {} {}: {verdict}{why}",
        label(record.game_id),
        record.bot_a,
        record.score_a,
        record.bot_b,
        record.score_b
    )
}

/// Says who left, as it happens, until the server closes (who connected, the hub says as
/// they connect); the returned handle says the last of it.
pub fn watch_presence(hub: &Arc<Hub>) -> PresenceWatch {
    let weak = Arc::downgrade(hub);
    let mut changes = hub.changes();
    tokio::spawn(async move {
        loop {
            let _ = tokio::time::timeout(Duration::from_millis(500), changes.changed()).await;
            let Some(hub) = weak.upgrade() else { return };
            hub.say_left(AWAY, false);
        }
    });
    PresenceWatch(Arc::downgrade(hub))
}

/// The presence watch of a server, to say the last of it when the server closes.
pub struct PresenceWatch(Weak<Hub>);

impl PresenceWatch {
    /// Says that whoever is away by now has left (the server closes).
    pub fn flush(&self) {
        if let Some(hub) = self.0.upgrade() {
            hub.say_left(AWAY, true);
        }
    }
}
