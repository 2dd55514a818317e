//! `arena connect`: plays a local bot, with the same preparation and sandbox as `arena run`,
//! on a server's tournament: one connection per game, until the server says `END` (or, once
//! games were played, until the server is gone: it ends after the last game). A failed
//! connection is tried again after a wait that doubles each time ([`Backoff`]); a bot that
//! cannot start stops it.
//!
//! Each request line becomes the bot's [`Request`] (fields split at spaces, `-` an empty
//! field), so every protocol works: engine protocols (Gomocup, GTP, NBoard) get the game's
//! history from the `MOVES` line the server sends before each request of a board game (asked
//! for with `HELLO ... moves`), opening plies and passes included, so an engine is told
//! exactly what it is told in a local run.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::bot::workspace::Workspace;
use crate::bot::{BotSource, BotSpec};
use crate::game::{GameConfig, GameKind, Rules, Seat};
use crate::player::process::{MoveLimits, PlayerSettings, ProcessPlayer};
use crate::player::remote::parse_moves;
use crate::player::{Failure, Player, Request};
use crate::sandbox::{Limits, Sandbox};

/// `arena connect`'s arguments.
#[derive(Debug, Args)]
pub struct ConnectArgs {
    /// The server, `host:port`.
    pub addr: String,

    /// The entrant's name.
    #[arg(long)]
    pub name: String,

    /// The entrant's token [default: `$ARENA_TOKEN`, which other users cannot see in `ps`].
    #[arg(long)]
    pub token: Option<String>,

    /// The bot: a directory with a `bot.toml`, an executable, or `PROTOCOL:COMMAND`.
    pub bot: BotSource,

    /// The tournament's seed, if known: the bot's `ARENA_SEED` is then the one it would get
    /// in the tournament run locally [default: random].
    #[arg(long)]
    pub seed: Option<u64>,

    /// Run the bot without the sandbox (it is your own machine and your own bot).
    #[arg(long)]
    pub no_sandbox: bool,
}

/// A connection that said `OK`.
struct Session {
    reader: BufReader<tokio::net::tcp::OwnedReadHalf>,
    writer: tokio::net::tcp::OwnedWriteHalf,
    game: GameKind,
}

/// Why a connection did not say `OK`.
enum Refused {
    /// No connection, or it closed before an answer: the server is not there (yet), or gone.
    Gone(anyhow::Error),
    /// The server is busy (too many connections): it may work later.
    Busy(anyhow::Error),
    /// For good: a wrong token, an unknown name, an answer that is not the protocol.
    Fatal(anyhow::Error),
}

/// The first wait before connecting again after a failed connection.
const FIRST_WAIT: Duration = Duration::from_millis(250);

/// The longest wait between two connections.
const MAX_WAIT: Duration = Duration::from_secs(8);

/// Failed connections in a row before giving up (about 24 s of waiting in all).
const MAX_FAILURES: u32 = 8;

/// The wait before the next connection: doubled after each failure, back to the first after
/// a success.
struct Backoff {
    next: Duration,
    failures: u32,
}

impl Backoff {
    fn new() -> Backoff {
        Backoff {
            next: FIRST_WAIT,
            failures: 0,
        }
    }

    fn reset(&mut self) {
        *self = Backoff::new();
    }

    /// Waits before the next try; `false` if too many have failed in a row.
    async fn wait(&mut self) -> bool {
        self.failures += 1;
        if self.failures >= MAX_FAILURES {
            return false;
        }
        tokio::time::sleep(self.next).await;
        self.next = (self.next * 2).min(MAX_WAIT);
        true
    }
}

async fn hello(addr: &str, name: &str, token: &str) -> Result<Session, Refused> {
    let failed = |e: anyhow::Error| Refused::Gone(e);
    let stream = crate::serve::tcp::dial(addr)
        .await
        .with_context(|| format!("cannot connect to `{addr}`"))
        .map_err(failed)?;
    let _ = stream.set_nodelay(true);
    let (r, mut writer) = stream.into_split();
    let mut reader = BufReader::new(r);
    // `moves`: each request of a board game comes after the game's moves, for engines.
    let said = format!("HELLO {name} {token} moves\n");
    (writer.write_all(said.as_bytes()).await)
        .context("the connection closed before the server answered")
        .map_err(failed)?;
    let mut line = String::new();
    match reader.read_line(&mut line).await {
        Ok(0) => return Err(failed(anyhow::anyhow!("the server closed the connection"))),
        Err(e) => {
            return Err(failed(
                anyhow::Error::new(e).context("the connection broke"),
            ))
        }
        Ok(_) => {}
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let busy = line.contains("busy") || line.contains("too many connections");
    match words.as_slice() {
        ["OK", _, game, ..] => Ok(Session {
            game: (game.parse()).map_err(|e: String| Refused::Fatal(anyhow::anyhow!(e)))?,
            reader,
            writer,
        }),
        ["ERROR", ..] if busy => Err(Refused::Busy(anyhow::anyhow!(
            "the server says: {}",
            line.trim()
        ))),
        ["ERROR", ..] => Err(Refused::Fatal(anyhow::anyhow!(
            "the server says: {}",
            line.trim()
        ))),
        _ => Err(Refused::Fatal(anyhow::anyhow!(
            "the server answered `{}`",
            line.trim()
        ))),
    }
}

/// Connects until the server says `OK`, waiting longer after each failure; `None` once games
/// were `played` and the server is gone (it ends after the last game).
async fn open_session(
    args: &ConnectArgs,
    token: &str,
    backoff: &mut Backoff,
    played: bool,
) -> Result<Option<Session>> {
    loop {
        match hello(&args.addr, &args.name, token).await {
            Ok(session) => return Ok(Some(session)),
            Err(Refused::Fatal(e)) => return Err(e),
            Err(Refused::Gone(e)) if played => {
                eprintln!("the server is gone ({e:#}): stopping");
                return Ok(None);
            }
            Err(Refused::Gone(e) | Refused::Busy(e)) => {
                eprintln!("{e:#}: trying again");
                if !backoff.wait().await {
                    return Err(e.context(format!("gave up after {MAX_FAILURES} tries")));
                }
            }
        }
    }
}

/// Plays games on the server until it has none left for this entrant.
pub async fn connect(args: ConnectArgs) -> Result<()> {
    let token = match args.token.clone() {
        Some(t) => t,
        None => std::env::var("ARENA_TOKEN").context("no `--token` and no `$ARENA_TOKEN`")?,
    };
    let mut backoff = Backoff::new();
    let Some(mut session) = open_session(&args, &token, &mut backoff, false).await? else {
        return Ok(());
    };
    backoff.reset();
    let game = session.game;
    let spec = BotSpec::load(&args.bot, game)?;
    let limits = Limits::default();
    let sandbox = if args.no_sandbox {
        Sandbox::disabled(limits)
    } else {
        Sandbox::probe(limits, false)
    };
    let workspace = Workspace::for_one_bot(sandbox, "connect")?;
    let bot = workspace.prepare_one(spec).await?;
    let seed = args.seed.unwrap_or_else(crate::config::random_seed);
    let mut card = super::scorecard::Scorecard::default();
    // Games begun, whatever became of them: after one, a server that is gone has ended.
    let mut games = 0;
    let result = loop {
        let mut line = String::new();
        match session.reader.read_line(&mut line).await {
            // Closed before `GAME` or `END`: the server ended (after its last game) or broke.
            Ok(0) | Err(_) if games > 0 => break Ok(()),
            Ok(0) | Err(_) => break Err(anyhow::anyhow!("the server closed the connection")),
            Ok(_) => {}
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["END"] => break Ok(()),
            ["GAME", id, _, opponent, seat, ms, rest @ ..] => {
                let (id, ms): (u64, u64) = (id.parse()?, ms.parse()?);
                let seat = if *seat == "first" { Seat::A } else { Seat::B };
                // The game's index in its pairing (servers before it sent none): with the
                // names, what a local run's `ARENA_SEED` is made of.
                let index = rest.first().and_then(|i| i.parse().ok()).unwrap_or(0);
                let names = match seat {
                    Seat::A => [args.name.as_str(), opponent],
                    Seat::B => [opponent, args.name.as_str()],
                };
                eprintln!("game {id} against `{opponent}`");
                let player = ProcessPlayer::new(
                    Arc::clone(&bot),
                    PlayerSettings {
                        game: game.name(),
                        seed: crate::schedule::game_seed(seed, game.name(), names, index),
                        limits: MoveLimits {
                            move_time: Duration::from_millis(ms),
                            startup_time: Duration::from_secs(5),
                            engine_startup: crate::player::engine::ENGINE_STARTUP,
                            margin: Duration::ZERO,
                        },
                        max_moves: game.max_moves(&GameConfig::default()),
                        pause: false,
                        tag: id.to_string(),
                        // The server judges the moves by its rule; `GAME` does not say it.
                        gomoku_rule: Default::default(),
                        clock: None,
                    },
                );
                let ended = play(&mut session, player, game, seat).await;
                games += 1;
                match ended {
                    Ended::Over => {
                        card.game(&args.addr, &args.name, id).await;
                        backoff.reset();
                    }
                    // Connecting again would get the same game, and the same failure.
                    Ended::Failed(Failure::Crash(why), true) => {
                        break Err(anyhow::anyhow!(
                            "bot `{}` cannot start: {why}",
                            bot.spec.name
                        ))
                    }
                    // The server gives the game back on the next connection: not at once.
                    Ended::Failed(..) => {
                        if !backoff.wait().await {
                            break Err(anyhow::anyhow!(
                                "bot `{}` failed {MAX_FAILURES} games in a row",
                                bot.spec.name
                            ));
                        }
                    }
                }
            }
            _ => break Err(anyhow::anyhow!("the server said `{}`", line.trim())),
        }
        // A server that is gone after a game has ended its tournament (or was stopped: the
        // games played are safe on its side either way).
        session = match open_session(&args, &token, &mut backoff, true).await {
            Ok(Some(s)) => s,
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        };
    };
    drop(session);
    workspace.close(vec![bot])?;
    eprintln!("{}", card.summary());
    result
}

/// How a game ended for the bot.
enum Ended {
    /// The server closed the game's connection.
    Over,
    /// The bot failed; `true`: on its first request of the game.
    Failed(Failure, bool),
}

/// Plays one game: each request line to the bot, with the game's moves from the `MOVES` line
/// before it, and its reply back, until the server closes the connection.
async fn play(session: &mut Session, mut player: ProcessPlayer, game: GameKind, me: Seat) -> Ended {
    let mut history: Vec<(Seat, String)> = Vec::new();
    let mut line = String::new();
    let mut ended = Ended::Over;
    let mut first = true;
    loop {
        line.clear();
        match session.reader.read_line(&mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if let Some(moves) = parse_moves(&line) {
            history = moves;
            continue;
        }
        let fields: Vec<String> = (line.trim_end_matches(['\n', '\r']).split(' '))
            .map(|f| {
                if f == "-" {
                    String::new()
                } else {
                    f.to_string()
                }
            })
            .collect();
        let rules = replay(game, &history);
        let reply = player
            .ask(Request {
                fields: &fields,
                seat: me,
                history: &history,
                rules: rules.as_ref(),
                // The line protocol has no place for the clocks (see the README).
                time: None,
            })
            .await;
        match reply {
            Ok(reply) => {
                let sent = format!("{reply}\n");
                if session.writer.write_all(sent.as_bytes()).await.is_err() {
                    break;
                }
            }
            Err(failure) => {
                eprintln!("the bot failed: {}", failure.detail());
                ended = Ended::Failed(failure, first);
                break;
            }
        }
        first = false;
    }
    player.finish().await;
    ended
}

/// The game after `history`.
fn replay(game: GameKind, history: &[(Seat, String)]) -> Box<dyn Rules> {
    let mut rules = game.new_game(&GameConfig::default());
    for (seat, mv) in history {
        let _ = rules.play(*seat, mv);
    }
    rules
}
