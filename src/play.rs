//! `arena play`: a person at the terminal against a bot, under the same limits and sandbox
//! as in a tournament.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use tokio::io::{AsyncBufReadExt, BufReader, Lines, Stdin};

use crate::bot::prepare::{prepare, PrepareOptions};
use crate::bot::BotSpec;
use crate::game::{GameConfig, GameKind, Rules, Seat, Turn, Winner};
use crate::player::process::{MoveLimits, PlayerSettings, ProcessPlayer};
use crate::referee::{Failure, Player, Request};
use crate::sandbox::{Limits, Sandbox};

/// What `arena play` needs.
#[derive(Debug, Clone)]
pub struct PlayOptions {
    pub game: GameKind,
    pub config: GameConfig,
    pub bot: PathBuf,
    /// The person's seat: A moves first.
    pub human: Seat,
    pub limits: MoveLimits,
    pub sandbox: Limits,
    pub seed: u64,
}

/// How the game ended, from the person's side.
enum End {
    Rules,
    BotFailed(String),
    Quit,
}

/// Plays one game between the person at the terminal and a bot.
pub async fn play(opts: PlayOptions) -> Result<()> {
    let spec = BotSpec::load(&opts.bot, opts.game)?;
    let name = spec.name.clone();
    let work = crate::tournament::work_root()?;
    let logs = work.join(".logs");
    std::fs::create_dir_all(&logs)
        .with_context(|| format!("cannot create `{}`", logs.display()))?;
    let prep = PrepareOptions {
        sandbox: Arc::new(Sandbox::probe(opts.sandbox, false)),
        work_root: work.clone(),
        logs_dir: logs.clone(),
        build_time: Duration::from_secs(300),
        log_cap: 1 << 20,
        append_logs: false,
    };
    let bot = match prepare(spec, 0, "bot", &prep).await? {
        Ok(bot) => Arc::new(bot),
        Err((spec, reason, _)) => {
            let _ = std::fs::remove_dir_all(&work);
            bail!("bot `{}` cannot play: {reason}", spec.name)
        }
    };
    let mut player = ProcessPlayer::new(
        Arc::clone(&bot),
        PlayerSettings {
            game: opts.game.name(),
            seed: opts.seed,
            limits: opts.limits,
            max_moves: opts.game.max_moves(&opts.config),
            pause: false,
            tag: "play".to_string(),
        },
    );
    let mut rules = opts.game.new_game(&opts.config);
    let mut input = BufReader::new(tokio::io::stdin()).lines();
    let human = opts.human;
    println!(
        "{} against `{name}`: you are {} ({}). {} Type `quit` to stop.\n",
        opts.game,
        side(opts.game, human),
        if human == Seat::A { "first" } else { "second" },
        hint(opts.game)
    );

    let mut history: Vec<(Seat, String)> = Vec::new();
    let end = loop {
        match rules.turn() {
            Turn::Over => break End::Rules,
            Turn::One(seat) if seat == human => {
                show(&*rules, opts.game, human);
                match read_move(&mut input, &mut *rules, seat, opts.game).await? {
                    Some(mv) => history.push((seat, mv)),
                    None => break End::Quit,
                }
            }
            Turn::One(seat) => {
                if let Err(why) = bot_move(&mut player, &mut *rules, seat, &mut history).await {
                    break End::BotFailed(why);
                }
            }
            Turn::Both => {
                show(&*rules, opts.game, human);
                // The bot's request is taken before the person's move is played: the moves
                // are simultaneous.
                let bot_seat = human.other();
                let request = rules.request(bot_seat);
                let Some(mv) = read_move(&mut input, &mut *rules, human, opts.game).await? else {
                    break End::Quit;
                };
                let asked = Request {
                    fields: &request,
                    seat: bot_seat,
                    history: &history,
                };
                let started = Instant::now();
                let reply = player.ask(asked).await;
                history.push((human, mv));
                if let Err(why) = judge_bot(&mut *rules, bot_seat, reply, started, &mut history) {
                    break End::BotFailed(why);
                }
            }
        }
    };
    player.finish().await;
    drop(player);
    if let Ok(bot) = Arc::try_unwrap(bot) {
        bot.log.close(Duration::from_millis(200));
    }
    prep.sandbox.cleanup();
    let _ = std::fs::remove_dir_all(&work);

    println!("{}", unicode(&rules.render(), opts.game));
    match end {
        End::Quit => println!("You stopped the game."),
        End::BotFailed(why) => println!("`{name}` loses: {why}. You win!"),
        End::Rules => match rules.winner() {
            Some(Winner::Seat(seat)) if seat == human => println!("You win!"),
            Some(Winner::Seat(_)) => println!("`{name}` wins."),
            _ => println!("A draw."),
        },
    }
    Ok(())
}

/// Asks the bot for its move and plays it.
async fn bot_move(
    player: &mut ProcessPlayer,
    rules: &mut dyn Rules,
    seat: Seat,
    history: &mut Vec<(Seat, String)>,
) -> Result<(), String> {
    let request = rules.request(seat);
    let asked = Request {
        fields: &request,
        seat,
        history,
    };
    let started = Instant::now();
    let reply = player.ask(asked).await;
    judge_bot(rules, seat, reply, started, history)
}

/// Plays the bot's reply, or says why it loses.
fn judge_bot(
    rules: &mut dyn Rules,
    seat: Seat,
    reply: Result<String, Failure>,
    started: Instant,
    history: &mut Vec<(Seat, String)>,
) -> Result<(), String> {
    let think = started.elapsed().as_secs_f64();
    match reply {
        Ok(mv) => match rules.play(seat, mv.trim()) {
            Ok(()) => {
                println!("The bot plays {} ({think:.2} s).\n", mv.trim());
                history.push((seat, mv.trim().to_string()));
                Ok(())
            }
            Err(why) => Err(format!("its move `{}` is illegal: {why}", mv.trim())),
        },
        Err(Failure::Timeout) => Err(format!("no move in time ({think:.2} s)")),
        Err(Failure::Illegal(why)) => Err(format!("illegal: {why}")),
        Err(Failure::Crash(why)) => Err(format!("it crashed: {why}")),
    }
}

/// Reads the person's move until it is legal; `None` if they quit (or input ends).
async fn read_move(
    input: &mut Lines<BufReader<Stdin>>,
    rules: &mut dyn Rules,
    seat: Seat,
    game: GameKind,
) -> Result<Option<String>> {
    loop {
        print!("{}: ", prompt(game, &rules.request(seat)));
        std::io::stdout().flush()?;
        let Some(line) = input
            .next_line()
            .await
            .context("cannot read the terminal")?
        else {
            println!();
            return Ok(None);
        };
        let line = line.trim().to_string();
        if line.eq_ignore_ascii_case("quit") {
            return Ok(None);
        }
        match rules.play(seat, &line) {
            Ok(()) => return Ok(Some(line)),
            // A person gets another try, not a loss.
            Err(why) => println!("That is not a legal move: {why}. Try again."),
        }
    }
}

fn show(rules: &dyn Rules, game: GameKind, viewer: Seat) {
    println!("{}", unicode(&rules.render_for(viewer), game));
}

fn side(game: GameKind, seat: Seat) -> &'static str {
    match (game, seat) {
        (GameKind::Othello | GameKind::Gomoku, Seat::A) => "● black",
        (GameKind::Othello | GameKind::Gomoku, Seat::B) => "○ white",
        (_, Seat::A) => "player A",
        (_, Seat::B) => "player B",
    }
}

fn hint(game: GameKind) -> &'static str {
    match game {
        GameKind::Othello => "Moves are squares like `d3` (∘ marks your legal moves).",
        GameKind::Gomoku => "Moves are points like `h8`; five in a row wins.",
        GameKind::Numeron => "Pick a secret of distinct digits, then call the bot's.",
        GameKind::Morra => "Each round, show a number 0-5 and guess the bot's: `3 5`.",
    }
}

fn prompt(game: GameKind, request: &[String]) -> String {
    match (game, request.first().map(String::as_str)) {
        (GameKind::Numeron, Some("secret")) => format!(
            "Your secret ({} distinct digits)",
            request.get(1).map_or("3", String::as_str)
        ),
        (GameKind::Numeron, _) => "Your call".to_string(),
        (GameKind::Morra, _) => "Your choice and guess".to_string(),
        _ => "Your move".to_string(),
    }
}

/// A board drawn with discs and stones instead of letters, for Othello and Gomoku: the
/// board's rows and the status line (`X 2  O 2  X to move`) change, the coordinates do not.
pub fn unicode(text: &str, game: GameKind) -> String {
    if !matches!(game, GameKind::Othello | GameKind::Gomoku) {
        return text.to_string();
    }
    text.lines()
        .map(|line| {
            let row = line
                .trim_start()
                .split(' ')
                .next()
                .is_some_and(|t| t.parse::<u32>().is_ok());
            let drawn = if row {
                // Every cell of a row (Gomoku marks the last stone as `(X)`, unspaced).
                line.chars()
                    .map(|c| match c {
                        'X' => '●',
                        'O' => '○',
                        '.' => '·',
                        '*' => '∘',
                        other => other,
                    })
                    .collect()
            } else {
                let tokens: Vec<&str> = line
                    .split(' ')
                    .map(|t| match t {
                        "X" => "●",
                        "O" => "○",
                        other => other,
                    })
                    .collect();
                tokens.join(" ")
            };
            drawn + "\n"
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_get_discs_and_coordinates_stay() {
        let board = crate::game::othello::Othello::new().render();
        let drawn = unicode(&board, GameKind::Othello);
        assert!(drawn.starts_with("  a b c d e f g h\n"), "{drawn}");
        assert!(drawn.contains("5 · · · ● ○ ∘ · · 5"), "{drawn}");
        assert!(drawn.contains("● 2  ○ 2  ● to move"), "{drawn}");
        assert_eq!(unicode("round 1 of 5\n", GameKind::Morra), "round 1 of 5\n");
        assert_eq!(unicode(" 1 O(X). 1\n", GameKind::Gomoku), " 1 ○(●)· 1\n");
    }
}
