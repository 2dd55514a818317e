//! `arena connect`: plays a local bot, with the same preparation and sandbox as `arena run`,
//! on a server's tournament: one connection per game, until the server says `END`.
//!
//! Each request line becomes the bot's [`Request`] (fields split at spaces, `-` an empty
//! field), so every protocol works: engine protocols (Gomocup, GTP, NBoard) get the game's
//! history from the `MOVES` line the server sends before each request of a board game (asked
//! for with `HELLO ... moves`), opening plies and passes included, so an engine is told
//! exactly what it is told in a local run.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::bot::workspace::Workspace;
use crate::bot::{BotSource, BotSpec};
use crate::game::{GameConfig, GameKind, Rules, Seat};
use crate::player::process::{MoveLimits, PlayerSettings, ProcessPlayer};
use crate::player::remote::parse_moves;
use crate::player::{Player, Request};
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

async fn hello(addr: &str, name: &str, token: &str) -> Result<Session> {
    let stream = crate::serve::tcp::dial(addr)
        .await
        .with_context(|| format!("cannot connect to `{addr}`"))?;
    let _ = stream.set_nodelay(true);
    let (r, mut writer) = stream.into_split();
    let mut reader = BufReader::new(r);
    // `moves`: each request of a board game comes after the game's moves, for engines.
    writer
        .write_all(format!("HELLO {name} {token} moves\n").as_bytes())
        .await?;
    let mut line = String::new();
    reader.read_line(&mut line).await?;
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["OK", _, game, ..] => Ok(Session {
            game: game.parse().map_err(|e: String| anyhow::anyhow!(e))?,
            reader,
            writer,
        }),
        ["ERROR", ..] => bail!("the server says: {}", line.trim()),
        _ => bail!("the server answered `{}`", line.trim()),
    }
}

/// Plays games on the server until it has none left for this entrant.
pub async fn connect(args: ConnectArgs) -> Result<()> {
    let token = match args.token.clone() {
        Some(t) => t,
        None => std::env::var("ARENA_TOKEN").context("no `--token` and no `$ARENA_TOKEN`")?,
    };
    let mut session = hello(&args.addr, &args.name, &token).await?;
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
    let mut games = 0;
    let result = loop {
        let mut line = String::new();
        match session.reader.read_line(&mut line).await {
            Ok(0) | Err(_) => break Err(anyhow::anyhow!("the server closed the connection")),
            Ok(_) => {}
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["END"] => break Ok(()),
            ["GAME", id, _, opponent, seat, ms] => {
                let (id, ms): (u64, u64) = (id.parse()?, ms.parse()?);
                let seat = if *seat == "first" { Seat::A } else { Seat::B };
                eprintln!("game {id} against `{opponent}`");
                let player = ProcessPlayer::new(
                    Arc::clone(&bot),
                    PlayerSettings {
                        game: game.name(),
                        seed: crate::rng::derive_seed(seed, id),
                        limits: MoveLimits {
                            move_time: Duration::from_millis(ms),
                            startup_time: Duration::from_secs(5),
                            engine_startup: crate::player::engine::ENGINE_STARTUP,
                        },
                        max_moves: game.max_moves(&GameConfig::default()),
                        pause: false,
                        tag: id.to_string(),
                    },
                );
                play(&mut session, player, game, seat).await;
                games += 1;
            }
            _ => break Err(anyhow::anyhow!("the server said `{}`", line.trim())),
        }
        // A server that is gone after a game has ended its tournament (or was stopped: the
        // games played are safe on its side either way).
        session = match hello(&args.addr, &args.name, &token).await {
            Ok(s) => s,
            Err(e) => {
                eprintln!("the server is gone ({e:#}): stopping");
                break Ok(());
            }
        };
    };
    drop(session);
    workspace.close(vec![bot])?;
    eprintln!("played {}", crate::tournament::plural(games, "game"));
    result
}

/// Plays one game: each request line to the bot, with the game's moves from the `MOVES` line
/// before it, and its reply back, until the server closes the connection.
async fn play(session: &mut Session, mut player: ProcessPlayer, game: GameKind, me: Seat) {
    let mut history: Vec<(Seat, String)> = Vec::new();
    let mut line = String::new();
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
                break;
            }
        }
    }
    player.finish().await;
}

/// The game after `history`.
fn replay(game: GameKind, history: &[(Seat, String)]) -> Box<dyn Rules> {
    let mut rules = game.new_game(&GameConfig::default());
    for (seat, mv) in history {
        let _ = rules.play(*seat, mv);
    }
    rules
}
