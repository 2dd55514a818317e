//! `arena play`: a person at the terminal against a bot, through the same referee, limits and
//! sandbox as a tournament's games.

use anyhow::{bail, Result};

use crate::bot::workspace::Workspace;
use crate::bot::BotSpec;
use crate::game::{GameConfig, GameKind, Seat, Winner};
use crate::player::human::{hint, side, unicode, Human};
use crate::player::process::{MoveLimits, PlayerSettings, ProcessPlayer};
use crate::referee;
use crate::sandbox::{Limits, Sandbox};
use crate::stdout::say;

/// What `arena play` needs.
#[derive(Debug, Clone)]
pub struct PlayOptions {
    pub game: GameKind,
    pub config: GameConfig,
    pub bot: crate::bot::BotSource,
    /// The person's seat: A moves first.
    pub human: Seat,
    pub limits: MoveLimits,
    pub sandbox: Limits,
    pub seed: u64,
}

/// Plays one game between the person at the terminal and a bot.
pub async fn play(opts: PlayOptions) -> Result<()> {
    let spec = BotSpec::load(&opts.bot, opts.game)?;
    let name = spec.name.clone();
    let workspace = Workspace::for_one_bot(Sandbox::probe(opts.sandbox, false), "play")?;
    let bot = workspace.prepare_one(spec).await?;
    let settings = PlayerSettings {
        game: opts.game.name(),
        seed: opts.seed,
        limits: opts.limits,
        max_moves: opts.game.max_moves(&opts.config),
        pause: false,
        tag: "play".to_string(),
        gomoku_rule: opts.config.gomoku_rule,
        clock: None,
    };
    // An engine that refuses its settings is found before the person's first move.
    let mut refused = Vec::new();
    let check = crate::player::check::check_engines(vec![bot], &mut refused, &settings, 1);
    let Some(bot) = check.await.pop() else {
        bail!("bot `{name}` cannot play: {}", refused[0].1);
    };
    let mut machine = ProcessPlayer::new(std::sync::Arc::clone(&bot), settings);
    let human = opts.human;
    let mut person = Human::new(tokio::io::stdin(), opts.game, human);
    let mut rules = opts.game.new_game(&opts.config);
    say(format_args!(
        "{} against `{name}`: you are {} ({}). {} Type `quit` to stop.\n\n",
        opts.game,
        side(opts.game, human),
        if human == Seat::A { "first" } else { "second" },
        hint(opts.game)
    ));
    let bot_seat = human.other();
    let mut show = |e: referee::Exchange<'_>| {
        // The bot's Numer0n secret stays hidden until the end.
        let secret = e.request.first().is_some_and(|f| f == "secret");
        if let (true, Ok(reply), None, false) = (e.seat == bot_seat, e.reply, e.fault, secret) {
            say(format_args!(
                "The bot plays {reply} ({:.2} s).\n\n",
                e.think.as_secs_f64()
            ));
        }
    };
    let outcome = match human {
        Seat::A => {
            referee::play(
                rules.as_mut(),
                &mut person,
                &mut machine,
                Vec::new(),
                None,
                &mut show,
            )
            .await
        }
        Seat::B => {
            referee::play(
                rules.as_mut(),
                &mut machine,
                &mut person,
                Vec::new(),
                None,
                &mut show,
            )
            .await
        }
    };
    drop(machine);
    workspace.close(vec![bot])?;

    say(format_args!("{}\n", unicode(&rules.render(), opts.game)));
    let bot_fault = outcome.faults[bot_seat.index()].as_deref();
    match (person.quit, bot_fault) {
        (true, _) => say(format_args!("You stopped the game.\n")),
        (false, Some(why)) => say(format_args!("`{name}` loses: {why}. You win!\n")),
        (false, None) => match rules.winner() {
            Some(Winner::Seat(seat)) if seat == human => say(format_args!("You win!\n")),
            Some(Winner::Seat(_)) => say(format_args!("`{name}` wins.\n")),
            _ => say(format_args!("A draw.\n")),
        },
    }
    Ok(())
}
