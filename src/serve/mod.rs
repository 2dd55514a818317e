//! `arena serve`: a tournament whose players are local bots and remote entrants who connect
//! over the network. The [`hub::Hub`] is the one registry of entrants and connections that
//! every front door shares (TCP in [`tcp`]); the tournament sees the entrants as players.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use anyhow::{bail, Context, Result};

use crate::config::{RunConfig, ServeOptions};
use crate::game::{GameKind, Seat};
use crate::player::remote::RemotePlayer;
use crate::results::games::{read_games, GameRecord};
use crate::schedule::Pairing;
use crate::tournament::file::TournamentFile;
use crate::tournament::remote::{RemoteSeat, Remotes};
use crate::tournament::runner::Watch;
use crate::tournament::{self, Summary};

pub mod dialog;
pub mod door;
pub mod entrants;
pub mod games;
pub mod gate;
pub mod guests;
pub mod http;
pub mod hub;
pub mod late;
pub mod registry;
pub mod rooms;
pub mod tcp;
pub mod terminal;

use entrants::Entrants;
use guests::Guests;
use hub::{Hub, Start};
use late::LateDoor;
use registry::Registry;
use rooms::{FriendlyLog, Rooms};
use tokio::sync::mpsc::UnboundedReceiver;

/// The remote entrants as the tournament's players, where their friendly games' results go,
/// and the terminal's guests (`--terminal`), and the door of those who join late.
struct Entrance(Arc<Hub>, FriendlyLog, Option<Arc<Guests>>, Arc<LateDoor>);

impl Remotes for Entrance {
    type Player = RemotePlayer;

    fn names(&self) -> Vec<String> {
        self.0.names()
    }

    fn player(&self, s: RemoteSeat<'_>) -> RemotePlayer {
        let hub = &self.0;
        let pair = s.opponent_entrant.map(|o| match s.seat {
            Seat::A => [s.entrant, o],
            Seat::B => [o, s.entrant],
        });
        let door = hub.door(s.game.game_id, s.entrant, pair);
        // A person at the terminal types: the tournament's move time is for programs.
        let person = (self.2.as_ref()).is_some_and(|g| g.name(s.entrant).is_some());
        let move_time = if person {
            hub.move_time.max(dialog::PERSON_MOVE_TIME)
        } else {
            hub.move_time
        };
        let opponent: String = (s.opponent.chars())
            .map(|c| if c.is_whitespace() { '_' } else { c })
            .collect();
        let header = format!(
            "GAME {} {} {opponent} {} {} {}",
            s.game.game_id,
            hub.game,
            if s.seat == Seat::A { "first" } else { "second" },
            move_time.as_millis(),
            s.game.index
        );
        let player =
            RemotePlayer::new(Box::new(door), header, move_time + hub.grace).with_grace(hub.grace);
        if hub.game.has_public_moves() {
            player.telling_moves()
        } else {
            player
        }
    }

    fn capacity(&self, _entrant: usize) -> usize {
        // One game per waiting connection; the hub holds a game until it has one.
        usize::MAX
    }

    fn start(
        &self,
        first: usize,
        pending: &[Pairing],
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
        let mut left = vec![0; self.0.names().len()];
        for p in pending {
            for s in p.seats {
                if let Some(e) = s.checked_sub(first) {
                    left[e] += 1;
                }
            }
        }
        Box::pin(self.0.begin(left))
    }

    fn friendly(&self, locals: &[String]) -> Option<UnboundedReceiver<Pairing>> {
        Some(self.0.open_rooms(locals))
    }

    fn guests(&self) -> usize {
        self.2.as_ref().map_or(0, |_| guests::MAX_GUESTS)
    }

    fn late(&self, door: Arc<crate::tournament::late::Late>) -> bool {
        self.3.open(door);
        true
    }

    fn close(&self) {
        self.0.close();
    }

    fn watch(&self, game_id: u64, event: Watch<'_>) {
        match event {
            Watch::Started { names, .. } => eprintln!("{}", terminal::started(game_id, names)),
            Watch::Over { record } => eprintln!("{}", terminal::over(record)),
            Watch::Move { .. } => {}
        }
        if let (Watch::Over { record }, true) = (event, rooms::is_friendly(game_id)) {
            if let Err(e) = self.1.append(record) {
                eprintln!("friendly game {game_id}: {e:#}");
            }
        }
        self.0.watch(game_id, event);
    }
}

/// How long the server waits at its end for its HTTP connections to finish their answers.
const SHUT_TIME: std::time::Duration = std::time::Duration::from_secs(2);

/// A served tournament's door, open.
struct Served {
    hub: Arc<Hub>,
    api: Arc<http::Api>,
    addr: std::net::SocketAddr,
    /// With `--stay`, what ends the server after the last game (listening from the start,
    /// so that no signal is missed).
    stops: Option<tournament::Stops>,
    /// Says who connected and who left.
    presence: terminal::PresenceWatch,
    /// The people at the terminal port (`--terminal`).
    guests: Option<Arc<Guests>>,
}

impl Served {
    /// After the last game: waits until HTTP players have seen their results (at most the
    /// network grace), or with `--stay` until Ctrl-C or SIGTERM.
    async fn close(self, options: &ServeOptions) -> Result<()> {
        if let Some(mut stops) = self.stops {
            eprintln!(
                "the tournament is over; still serving on {} (Ctrl-C to stop)",
                self.addr
            );
            stops.next().await;
        } else {
            self.api.settle(options.network_grace).await;
        }
        // Answers under way go out whole, then every connection closes.
        self.api.shut(SHUT_TIME).await;
        self.presence.flush();
        drop(self.hub);
        Ok(())
    }
}

/// Makes the hub of a served tournament and opens its door; `registry`: with `--open`;
/// `played`: the games an earlier run played (`resume`). Also where its friendly games'
/// results go.
async fn open(
    config: &RunConfig,
    entrants: Entrants,
    registry: Option<Registry>,
    played: &[GameRecord],
    late: &Arc<LateDoor>,
) -> Result<(Served, FriendlyLog)> {
    let options = serve_options(config)?;
    let start_at = match &options.start_at {
        Some(text) => Some(
            humantime::parse_rfc3339_weak(text).with_context(|| format!("`--start-at {text}`"))?,
        ),
        None => None,
    };
    let start = Start {
        when: options.start_when.map_or(usize::MAX, |n| n as usize),
        at: start_at.filter(|at| *at > SystemTime::now()),
    };
    let (friendly, friendlies) = FriendlyLog::open(config.out())?;
    let last_friendly = friendlies.iter().map(|r| r.game_id).max().unwrap_or(0);
    let hub = Hub::new(
        config.game,
        entrants,
        config.move_limits().move_time,
        options.network_grace,
        start,
        Rooms::after(last_friendly),
    );
    hub.games.restore(played);
    hub.games.restore(&friendlies);
    if options.terminal.is_some() && config.game != GameKind::Numeron {
        bail!("`--terminal` is for `arena serve numeron` (its dialog plays Numer0n)");
    }
    let listener = tcp::listen(&options.listen).await?;
    let addr = listener.local_addr()?;
    terminal::listening(addr);
    let guests = match &options.terminal {
        Some(at) => {
            let listener = dialog::listen(at).await?;
            dialog::listening(listener.local_addr()?);
            let guests = Arc::new(Guests::default());
            tokio::spawn(dialog::accept(
                listener,
                Arc::clone(&hub),
                Arc::clone(&guests),
            ));
            Some(guests)
        }
        None => None,
    };
    let replays = config.replays().then(|| config.out().join("replays"));
    let api = http::Api::with(Arc::clone(&hub), http::JOIN_WAIT, replays, registry);
    tokio::spawn(tcp::accept(
        listener,
        Arc::clone(&hub),
        http::Front::new(Arc::clone(&api)),
    ));
    let stops = options.stay.then(tournament::Stops::listen).transpose()?;
    if let Some(text) = &options.close_at {
        let at =
            humantime::parse_rfc3339_weak(text).with_context(|| format!("`--close-at {text}`"))?;
        late.close_at(at, text);
    }
    operator(Arc::clone(&hub), Arc::clone(late));
    let presence = terminal::watch_presence(&hub);
    let served = Served {
        hub,
        api,
        addr,
        stops,
        presence,
        guests,
    };
    Ok((served, friendly))
}

/// Reads the operator's commands on stdin: `start` starts the tournament now, whoever is
/// connected; `close` closes registration (late entrants included); `reload` takes in the
/// entrants added to the `--entrants` file. (A thread, not a task: a read of stdin cannot be
/// cancelled.)
fn operator(hub: Arc<Hub>, late: Arc<LateDoor>) {
    if std::io::stdin().is_terminal() {
        // SAFETY: plain queries of this process's terminal and group.
        let foreground = unsafe { libc::tcgetpgrp(0) == libc::getpgrp() };
        if !foreground {
            // Reading the terminal from the background would stop the whole server.
            return;
        }
    }
    if typed() {
        eprintln!(
            "type `start` and Enter to start now, whoever is connected (`close`: close \
             registration; `reload`: take in new entrants of the entrants file)"
        );
    }
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { break };
            match line.trim() {
                "start" if hub.started() => eprintln!("the tournament has started already"),
                "start" => {
                    eprintln!("starting at the operator's command");
                    hub.release();
                }
                "close" if late.close("the operator closed it") => {
                    eprintln!("registration is closed: nobody joins any more");
                }
                "close" => eprintln!("registration is closed already"),
                "reload" => late.reload(&hub),
                "" => {}
                other => eprintln!(
                    "unknown command `{other}`: type `start` to start now, `close` to close \
                     registration, `reload` to take in new entrants of the entrants file"
                ),
            }
        }
    });
}

/// The local bots and a gauntlet's grading, for the page.
fn field(config: &RunConfig, locals: Vec<String>, references: Vec<String>) -> http::Field {
    let gauntlet = (!references.is_empty()).then(|| crate::standings::grades::Gauntlet {
        references,
        candidates: Vec::new(),
        never_ran: Vec::new(),
        rule: config.tournament.pass,
        move_time: Some(config.move_limits().move_time),
        versions: Default::default(),
    });
    http::Field { locals, gauntlet }
}

/// Whether someone can type on stdin: a terminal, or a pipe (a program, or a terminal
/// through one); not `/dev/null` or a file.
fn typed() -> bool {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return true;
    }
    let meta = rustix::fs::fstat(&stdin).map(|m| rustix::fs::FileType::from_raw_mode(m.st_mode));
    matches!(
        meta,
        Ok(rustix::fs::FileType::Fifo | rustix::fs::FileType::Socket)
    )
}

fn serve_options(config: &RunConfig) -> Result<&ServeOptions> {
    config
        .serve
        .as_ref()
        .context("the tournament is not served over the network")
}

/// Serves a new tournament: the configuration's local bots and the entrants of its
/// `--entrants` file.
pub async fn serve(mut config: RunConfig) -> Result<Summary> {
    // The server's terminal says each game on a line (see `terminal`): no progress bar.
    config.output.quiet = true;
    let options = serve_options(&config)?.clone();
    let entrants = if options.open && !options.entrants.exists() {
        Entrants::default()
    } else {
        Entrants::read(&options.entrants)?
    };
    if entrants.list.is_empty() && !options.open {
        bail!("no entrant in `{}`", options.entrants.display());
    }
    let loaded = crate::bot::load_all(&config.all_bots(), config.game);
    if let Some(e) = (entrants.list.iter()).find(|e| loaded.specs.iter().any(|s| s.name == e.name))
    {
        bail!("entrant `{}` has the name of a local bot", e.name);
    }
    let locals: Vec<String> = loaded.specs.iter().map(|s| s.name.clone()).collect();
    let late = LateDoor::new(options.entrants.clone(), locals.clone());
    let registry = (options.open)
        .then(|| Registry::new(options.entrants.clone(), locals.clone(), Arc::clone(&late)));
    let (served, friendly) = open(&config, entrants, registry, &[], &late).await?;
    let references = locals[..config.tournament.gauntlet.len().min(locals.len())].to_vec();
    served.api.set_field(field(&config, locals, references));
    if options.open {
        eprintln!("registration is open: new entrants register on the page (or `POST /api/register`), after the start too until `close` or `--close-at`");
        served.hub.close_registration().await;
        eprintln!("starting with {} entrants", served.hub.names().len());
    }
    let entrance = Entrance(
        Arc::clone(&served.hub),
        friendly,
        served.guests.clone(),
        late,
    );
    let summary = tournament::run_with(config, Arc::new(entrance)).await;
    if summary.is_ok() {
        served.close(&options).await?;
    }
    summary
}

/// Continues a tournament in `out`: served again if it was served, else as `arena resume`.
pub async fn resume(out: &Path, jobs: Option<u32>, quiet: bool) -> Result<Summary> {
    let info = TournamentFile::read(out)?;
    let Some(options) = &info.config.serve else {
        return tournament::resume(out, jobs, quiet).await;
    };
    let all = Entrants::read(&options.entrants)?;
    let mut entrants = Entrants::default();
    for b in info.bots.iter().filter(|b| b.remote) {
        match all.list.iter().find(|e| e.name == b.name) {
            Some(e) => entrants.list.push(e.clone()),
            None => bail!(
                "entrant `{}` played in the tournament but is not in `{}` any more",
                b.name,
                options.entrants.display()
            ),
        }
    }
    // The page's tables start from the games played so far.
    let games = out.join("games.csv");
    let played = if games.exists() {
        read_games(&[games])?
    } else {
        Vec::new()
    };
    let locals: Vec<String> = (info.bots.iter().filter(|b| !b.remote))
        .map(|b| b.name.clone())
        .collect();
    let late = LateDoor::new(options.entrants.clone(), locals.clone());
    let (served, friendly) = open(&info.config, entrants, None, &played, &late).await?;
    served
        .api
        .set_field(field(&info.config, locals, info.gauntlet.clone()));
    let entrance = Arc::new(Entrance(
        Arc::clone(&served.hub),
        friendly,
        served.guests.clone(),
        late,
    ));
    // The server's terminal says each game on a line (see `terminal`): no progress bar.
    let summary = tournament::resume_with(out, jobs, true, entrance).await;
    if summary.is_ok() {
        served.close(options).await?;
    }
    summary
}
