//! `arena connect`: plays a local bot, with the same preparation and sandbox as `arena run`,
//! on a server's tournament: one connection per game, until the server says `END`.
//!
//! Each request line becomes the bot's [`Request`] (fields split at spaces, `-` an empty
//! field), so every protocol works: engine protocols (Gomocup, GTP, NBoard) get the game's
//! history, rebuilt by finding the opponent's move that leads to the position requested.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::bot::workspace::Workspace;
use crate::bot::{BotSource, BotSpec, Protocol};
use crate::game::{GameConfig, GameKind, Rules, Seat, Turn};
use crate::player::process::{MoveLimits, PlayerSettings, ProcessPlayer};
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
    writer
        .write_all(format!("HELLO {name} {token}\n").as_bytes())
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
    let mut card = super::scorecard::Scorecard::default();
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
                play(&mut session, player, game, seat, bot.spec.protocol).await;
                card.game(&args.addr, &args.name, id).await;
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
    eprintln!("{}", card.summary());
    result
}

/// Plays one game: each request line to the bot, its reply back, until the server closes
/// the connection.
async fn play(
    session: &mut Session,
    mut player: ProcessPlayer,
    game: GameKind,
    me: Seat,
    protocol: Protocol,
) {
    let engine = protocol.only_for().is_some();
    let mut history: Vec<(Seat, String)> = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        match session.reader.read_line(&mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
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
        if engine {
            follow(game, &mut history, me, &fields);
        }
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
                history.push((me, reply.clone()));
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

/// Adds to `history` the opponent's move that leads to the position `fields` asks about,
/// if one does (none: the opponent passed, or the game cannot be followed).
fn follow(game: GameKind, history: &mut Vec<(Seat, String)>, me: Seat, fields: &[String]) {
    let rules = replay(game, history);
    if rules.turn() == Turn::One(me) && rules.request(me) == fields {
        return;
    }
    let Turn::One(them) = rules.turn() else {
        return;
    };
    for mv in rules.legal_moves() {
        let mut next = replay(game, history);
        if next.play(them, &mv).is_ok() && next.request(me) == fields {
            history.push((them, mv));
            return;
        }
    }
}
