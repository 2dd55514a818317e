//! The options of `arena serve` that `arena run` does not have: where to listen, who may
//! connect, the network's allowance on the clock, and when the tournament starts. Recorded in
//! `tournament.json` (never a token) so that `arena resume` serves again.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use serde::{Deserialize, Serialize};

/// The default `--listen`: loopback only; a public address must be asked for.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:7878";

/// How `arena serve` meets its remote entrants.
#[derive(Debug, Clone, Args, Serialize, Deserialize)]
pub struct ServeOptions {
    /// The address to listen on for entrants' connections (`0.0.0.0:7000` for every
    /// interface).
    #[arg(long, default_value = DEFAULT_LISTEN, value_name = "ADDR")]
    pub listen: String,

    /// A TOML file of `[[entrant]]` tables (`name`, `token_sha256`): who may connect
    /// (`arena entrant NAME` makes one).
    #[arg(long, value_name = "FILE")]
    pub entrants: PathBuf,

    /// Time added to every remote move for the network, and how long a dropped connection
    /// (or an entrant who is not connected when its game is due) is waited for.
    #[arg(long, default_value = "2s", value_parser = humantime::parse_duration)]
    #[serde(with = "super::duration")]
    pub network_grace: Duration,

    /// Start when this many entrants are connected [default: all of them]. The operator
    /// may also type `start` in the server's terminal to start at once.
    #[arg(long, value_name = "N")]
    pub start_when: Option<u32>,

    /// Start at this time (RFC 3339, `2026-11-24T09:00:00Z`) even if not everyone is
    /// connected.
    #[arg(long, value_name = "TIME", value_parser = parse_start_at)]
    pub start_at: Option<String>,

    /// Let anyone register a new entrant name on the page or with `POST /api/register`
    /// (rate-limited), before the start and after it (a late entrant) until the operator's
    /// `close` or `--close-at`; each gets a token, whose hash is added to the `--entrants`
    /// file (created if need be).
    #[arg(long)]
    #[serde(default)]
    pub open: bool,

    /// `arena serve numeron` only: also listen on this address for people at a terminal
    /// (`nc HOST PORT`), who give a name and play friendly games against each other (HOST
    /// or GUEST) or a local bot (AI) by typing numbers (`127.0.0.1:0` picks a free port).
    #[arg(long, value_name = "ADDR")]
    #[serde(default)]
    pub terminal: Option<String>,

    /// Close registration at this time (RFC 3339 in UTC, like `--start-at`): until then, and
    /// until the operator types `close`, entrants who register (`--open`) or are added to the
    /// `--entrants` file (`reload`) after the start join the running tournament, their games
    /// appended to its schedule.
    #[arg(long, value_name = "TIME", value_parser = parse_start_at)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub close_at: Option<String>,

    /// Keep serving the page and the API after the last game (until Ctrl-C or SIGTERM).
    #[arg(long)]
    #[serde(default)]
    pub stay: bool,
}

/// Checks a `--start-at` or `--close-at` time; it is kept as text.
fn parse_start_at(text: &str) -> Result<String, String> {
    humantime::parse_rfc3339_weak(text)
        .map(|_| text.to_string())
        .map_err(|e| format!("`{text}` is not a time like `2026-11-24T09:00:00Z`: {e}"))
}
