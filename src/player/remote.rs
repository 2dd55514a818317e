//! A remote player: a program on another machine that answers over a connection the server
//! hands it. The clock runs at the server, from sending a request to receiving its reply,
//! plus a grace for the network; a dropped connection may be replaced within that grace, at
//! most [`MAX_RECONNECTIONS`] times a game, and the move's clock runs on meanwhile: the new
//! connection gets the pending request with the time that is left.
//!
//! The player sees a connection as a [`Link`]: lines to the client, [`Event`]s from it. A
//! transport (TCP here, HTTP later) makes links; [`pump`] is the one for any byte stream.
//!
//! In board games a request may come with the game's every move so far ([`moves_line`]), the
//! history a local engine session is driven from, for clients that drive an engine.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::time::{timeout_at, Instant};

use super::clock::move_limit;
use super::io::encode_line;
pub use super::io::MAX_REPLY;
use super::{Failure, Player, Request};
use crate::game::Seat;

/// How long a write to a client may block (a client that never reads): the connection is
/// then dropped.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// How many times a game's connection may be replaced after a drop; one more drop loses the
/// game (`crash`), so a client that reads its request and drops again and again cannot hold
/// a game (each new connection would otherwise get the request anew).
pub const MAX_RECONNECTIONS: u32 = 10;

/// A line from the server to a client.
#[derive(Debug)]
pub enum Out {
    /// A line that asks for nothing (`GAME ...`).
    Tell(String),
    /// A request: the client answers with one line.
    Ask(String),
    /// The game's moves so far ([`moves_line`]), just before a request: written only to a
    /// client that asked for them.
    Moves(String),
}

/// What a client did.
#[derive(Debug, PartialEq, Eq)]
pub enum Event {
    /// A reply line, without its end of line.
    Line(String),
    /// A reply longer than [`MAX_REPLY`] bytes.
    TooLong,
    /// The client sent bytes when nothing was asked.
    Early,
    /// The connection closed, or a write to it failed or timed out.
    Closed,
}

/// One connection as a game sees it.
pub struct Link {
    pub out: mpsc::Sender<Out>,
    pub events: mpsc::Receiver<Event>,
}

/// The transport's end of a [`Link`].
pub struct LinkEnd {
    pub out: mpsc::Receiver<Out>,
    pub events: mpsc::Sender<Event>,
}

/// A connected pair of ends.
pub fn link() -> (Link, LinkEnd) {
    let (out_tx, out_rx) = mpsc::channel(4);
    let (ev_tx, ev_rx) = mpsc::channel(4);
    (
        Link {
            out: out_tx,
            events: ev_rx,
        },
        LinkEnd {
            out: out_rx,
            events: ev_tx,
        },
    )
}

/// A future a [`Door`] returns.
pub type Pending<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Where a remote player gets its connections (the server's registry of entrants).
pub trait Door: Send + Sync {
    /// A connection for the player's game: the first one, or (`again`) one to replace a
    /// connection that dropped. An error is how the game is lost (not connected in time).
    fn connect(&self, again: bool) -> Pending<'_, Result<Link, Failure>>;
    /// The game is over for this player (also called when it is dropped unfinished).
    fn done(&self);
}

/// A remote entrant playing one game.
pub struct RemotePlayer {
    door: Box<dyn Door>,
    /// The line that opens the game on every connection it is played on.
    header: String,
    /// The time a move may take, network grace included.
    limit: Duration,
    /// The network grace in `limit`: with a game clock, a move may take the time left on
    /// it (if less than `limit`) plus this.
    grace: Duration,
    link: Option<Link>,
    /// Whether a connection of this game has dropped.
    dropped: bool,
    /// Connections that replaced a dropped one in this game.
    reconnections: u32,
    finished: bool,
    /// Whether each request comes with the game's moves ([`Out::Moves`]).
    moves: bool,
}

impl RemotePlayer {
    /// A player whose game opens with `header` (`GAME ...`, no end of line) and whose moves
    /// may take `limit` from request to reply.
    pub fn new(door: Box<dyn Door>, header: String, limit: Duration) -> Self {
        RemotePlayer {
            door,
            header,
            limit,
            grace: Duration::ZERO,
            link: None,
            dropped: false,
            reconnections: 0,
            finished: false,
            moves: false,
        }
    }

    /// The same player, knowing that `grace` of its limit is the network's: with a game
    /// clock a move may take what is left on it plus `grace`.
    pub fn with_grace(mut self, grace: Duration) -> Self {
        self.grace = grace.min(self.limit);
        self
    }

    /// The same player, with the game's moves sent before each request ([`Out::Moves`]):
    /// for games whose moves are all public.
    pub fn telling_moves(mut self) -> Self {
        self.moves = true;
        self
    }

    /// A connection with the game's header sent on it; `None`: it dropped at once.
    /// `deadline`: the pending move's, if its request went out already (a new connection
    /// waits no longer than that).
    async fn connected(&mut self, deadline: Option<Instant>) -> Result<Option<&mut Link>, Failure> {
        if self.link.is_none() {
            if self.dropped {
                if self.reconnections >= MAX_RECONNECTIONS {
                    return Err(Failure::Crash(format!(
                        "the connection dropped more than {MAX_RECONNECTIONS} times in one game"
                    )));
                }
                self.reconnections += 1;
            }
            let connect = self.door.connect(self.dropped);
            let mut link = match deadline {
                Some(deadline) => match timeout_at(deadline, connect).await {
                    Ok(link) => link?,
                    // The move's clock ran out while the client was away.
                    Err(_) => return Err(Failure::Timeout),
                },
                None => connect.await?,
            };
            let header = format!("{}\n", self.header);
            if link.out.send(Out::Tell(header)).await.is_err() {
                if let Ok(Event::Early) = link.events.try_recv() {
                    return Err(Failure::Illegal("reply before the request".into()));
                }
                self.dropped = true;
                return Ok(None);
            }
            self.link = Some(link);
        }
        Ok(self.link.as_mut())
    }

    /// One request (after the game's moves, if told) and its reply on the current
    /// connection; `None`: the connection dropped. `deadline`: the move's, set when the
    /// request first goes out and kept across connections.
    async fn exchange(
        &mut self,
        moves: Option<&str>,
        line: &str,
        deadline: &mut Option<Instant>,
        limit: Duration,
    ) -> Option<Result<String, Failure>> {
        let link = match self.connected(*deadline).await {
            Ok(Some(link)) => link,
            Ok(None) => return None,
            Err(f) => return Some(Err(f)),
        };
        // Whatever the client sent before this request is a reply to nothing.
        match link.events.try_recv() {
            Ok(Event::Closed) => return None,
            Ok(_) => return Some(Err(Failure::Illegal("reply before the request".into()))),
            Err(_) => {}
        }
        if let Some(moves) = moves {
            if link.out.send(Out::Moves(moves.to_string())).await.is_err() {
                return None;
            }
        }
        let deadline = *deadline.get_or_insert_with(|| Instant::now() + limit);
        if link.out.send(Out::Ask(line.to_string())).await.is_err() {
            return None;
        }
        match timeout_at(deadline, link.events.recv()).await {
            Err(_) => Some(Err(Failure::Timeout)),
            Ok(None | Some(Event::Closed)) => None,
            Ok(Some(Event::Line(reply))) => Some(Ok(reply)),
            Ok(Some(Event::TooLong)) => Some(Err(Failure::Illegal(format!(
                "a reply line longer than {MAX_REPLY} bytes"
            )))),
            Ok(Some(Event::Early)) => {
                Some(Err(Failure::Illegal("reply before the request".into())))
            }
        }
    }
}

impl Player for RemotePlayer {
    async fn ask(&mut self, request: Request<'_>) -> Result<String, Failure> {
        let line = encode_line(request.fields);
        let moves = self.moves.then(|| moves_line(request.history));
        let mut deadline = None;
        // The clock is the referee's; the line protocol has no place to tell it (the README).
        let limit = move_limit(self.limit - self.grace, request.time.as_ref()) + self.grace;
        loop {
            let exchange = self.exchange(moves.as_deref(), &line, &mut deadline, limit);
            if let Some(reply) = exchange.await {
                return reply;
            }
            // The connection dropped: a new one within the grace gets the game again, from
            // its header and this request, with what is left of the move's time.
            self.link = None;
            self.dropped = true;
        }
    }

    async fn finish(&mut self) {
        self.link = None;
        if !self.finished {
            self.finished = true;
            self.door.done();
        }
    }
}

impl Drop for RemotePlayer {
    fn drop(&mut self) {
        if !self.finished {
            self.door.done();
        }
    }
}

/// The `MOVES` line: every move of the game so far, opening plies included, in order, each
/// as `first:MOVE` or `second:MOVE` (a side that passed is simply not there: the other moves
/// twice in a row).
pub fn moves_line(history: &[(Seat, String)]) -> String {
    let mut line = "MOVES".to_string();
    for (seat, mv) in history {
        let seat = match seat {
            Seat::A => "first",
            Seat::B => "second",
        };
        line.push_str(&format!(" {seat}:{mv}"));
    }
    line.push('\n');
    line
}

/// Reads a [`moves_line`] back: the moves, or `None` if `line` is not one.
pub fn parse_moves(line: &str) -> Option<Vec<(Seat, String)>> {
    let mut words = line.split_whitespace();
    if words.next() != Some("MOVES") {
        return None;
    }
    words
        .map(|word| match word.split_once(':')? {
            ("first", mv) => Some((Seat::A, mv.to_string())),
            ("second", mv) => Some((Seat::B, mv.to_string())),
            _ => None,
        })
        .collect()
}

/// Carries a link's lines over a byte stream until the game drops its end: writes what the
/// game sends (each write bounded by [`WRITE_TIMEOUT`]; the game's moves only if `moves`, the
/// client asked for them), reads one reply line per request, and reports bytes that come when
/// nothing was asked. Returns when the game is over or the connection is gone.
pub async fn pump<R, W>(reader: &mut R, writer: &mut W, mut end: LinkEnd, moves: bool)
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    loop {
        tokio::select! {
            out = end.out.recv() => {
                let Some(out) = out else { return };
                let (line, asked) = match out {
                    Out::Tell(line) => (line, false),
                    Out::Ask(line) => (line, true),
                    Out::Moves(line) if moves => (line, false),
                    Out::Moves(_) => continue,
                };
                let write = async {
                    writer.write_all(line.as_bytes()).await?;
                    writer.flush().await
                };
                if !matches!(tokio::time::timeout(WRITE_TIMEOUT, write).await, Ok(Ok(()))) {
                    let _ = end.events.send(Event::Closed).await;
                    return;
                }
                if asked {
                    let event = read_reply(reader).await;
                    let closed = matches!(event, Event::Closed | Event::TooLong);
                    if end.events.send(event).await.is_err() || closed {
                        return;
                    }
                }
            }
            early = reader.fill_buf() => {
                let event = match early {
                    Ok([]) | Err(_) => Event::Closed,
                    Ok(_) => Event::Early,
                };
                let _ = end.events.send(event).await;
                return;
            }
        }
    }
}

/// Reads one reply line of at most [`MAX_REPLY`] bytes, as the client's event.
pub async fn read_reply<R: AsyncBufRead + Unpin>(reader: &mut R) -> Event {
    match super::io::read_line(reader).await {
        Ok(line) => Event::Line(line),
        Err(None) => Event::Closed,
        Err(Some(_)) => Event::TooLong,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    use crate::game::{GameKind, Seat};

    /// A door that hands out the links it is given, then fails.
    struct Links(Mutex<Vec<Link>>, Arc<Mutex<bool>>);

    impl Door for Links {
        fn connect(&self, _again: bool) -> Pending<'_, Result<Link, Failure>> {
            let next = self.0.lock().unwrap().pop();
            Box::pin(async move { next.ok_or(Failure::Crash("the connection dropped".into())) })
        }
        fn done(&self) {
            *self.1.lock().unwrap() = true;
        }
    }

    fn player(links: Vec<Link>) -> (RemotePlayer, Arc<Mutex<bool>>) {
        let done = Arc::new(Mutex::new(false));
        let door = Links(Mutex::new(links), Arc::clone(&done));
        let p = RemotePlayer::new(Box::new(door), "GAME 1".into(), Duration::from_millis(300));
        (p, done)
    }

    async fn ask(p: &mut RemotePlayer) -> Result<String, Failure> {
        let rules = GameKind::Othello.new_game(&Default::default());
        let fields = vec!["a".to_string(), String::new()];
        p.ask(Request {
            fields: &fields,
            seat: Seat::A,
            history: &[],
            rules: rules.as_ref(),
            time: None,
        })
        .await
    }

    fn stream(client: &'static [u8]) -> (Link, tokio::task::JoinHandle<Vec<u8>>) {
        let (link, end) = link();
        let task = tokio::spawn(async move {
            let (mut ours, mut theirs) = tokio::io::duplex(1 << 20);
            theirs.write_all(client).await.unwrap();
            let (r, mut w) = tokio::io::split(&mut ours);
            let mut r = tokio::io::BufReader::new(r);
            pump(&mut r, &mut w, end, false).await;
            drop((r, w));
            let mut seen = Vec::new();
            drop(ours);
            let _ = tokio::io::AsyncReadExt::read_to_end(&mut theirs, &mut seen).await;
            seen
        });
        (link, task)
    }

    #[tokio::test]
    async fn a_reply_line_answers_the_request_and_the_header_comes_first() {
        let (link, end) = link();
        let (mut ours, theirs) = tokio::io::duplex(1 << 16);
        let server = tokio::spawn(async move {
            let (r, mut w) = tokio::io::split(theirs);
            let mut r = tokio::io::BufReader::new(r);
            pump(&mut r, &mut w, end, false).await;
        });
        let (mut q, done) = player(vec![link]);
        let client = tokio::spawn(async move {
            let mut r = tokio::io::BufReader::new(&mut ours);
            let mut line = String::new();
            r.read_line(&mut line).await.unwrap();
            assert_eq!(line, "GAME 1\n");
            line.clear();
            r.read_line(&mut line).await.unwrap();
            assert_eq!(line, "a -\n");
            r.get_mut().write_all(b"d3\n").await.unwrap();
        });
        assert_eq!(ask(&mut q).await, Ok("d3".to_string()));
        client.await.unwrap();
        q.finish().await;
        server.await.unwrap();
        assert!(*done.lock().unwrap());
    }

    #[tokio::test]
    async fn sending_before_the_request_is_illegal() {
        let (l, _task) = stream(b"c4\n");
        let (mut p, _) = player(vec![l]);
        tokio::time::sleep(Duration::from_millis(50)).await;
        let reply = ask(&mut p).await;
        assert_eq!(
            reply,
            Err(Failure::Illegal("reply before the request".into()))
        );
    }

    /// A door whose every connection reads the request, waits `delay` and drops; counts them.
    struct Dropper(Duration, Arc<Mutex<u32>>);

    impl Door for Dropper {
        fn connect(&self, _again: bool) -> Pending<'_, Result<Link, Failure>> {
            *self.1.lock().unwrap() += 1;
            let (link, mut end) = link();
            let delay = self.0;
            tokio::spawn(async move {
                while let Some(out) = end.out.recv().await {
                    if let Out::Ask(_) = out {
                        tokio::time::sleep(delay).await;
                        break;
                    }
                }
                drop(end);
            });
            Box::pin(async move { Ok(link) })
        }
        fn done(&self) {}
    }

    #[tokio::test]
    async fn a_client_that_drops_after_each_request_cannot_hold_the_move_issue_17() {
        for (delay, lost) in [
            (Duration::ZERO, Failure::Crash(String::new())),
            (Duration::from_millis(100), Failure::Timeout),
        ] {
            let count = Arc::new(Mutex::new(0));
            let door = Dropper(delay, Arc::clone(&count));
            let limit = Duration::from_millis(500);
            let mut p = RemotePlayer::new(Box::new(door), "GAME 1".into(), limit);
            let started = std::time::Instant::now();
            let reply = ask(&mut p).await;
            let took = started.elapsed();
            match (&reply, &lost) {
                (Err(Failure::Crash(why)), Failure::Crash(_)) => {
                    assert!(why.contains("more than 10 times"), "{why}");
                    assert_eq!(*count.lock().unwrap(), MAX_RECONNECTIONS + 1);
                }
                (Err(Failure::Timeout), Failure::Timeout) => {
                    assert!(took >= limit, "{took:?}");
                    assert!(*count.lock().unwrap() <= MAX_RECONNECTIONS + 1);
                }
                _ => panic!("{reply:?} after {took:?}, expected {lost:?}"),
            }
            // Generous: the clock is the move's, not one per connection.
            assert!(took < limit * 4, "{took:?}");
        }
    }

    #[tokio::test]
    async fn with_a_clock_a_move_may_take_the_time_left_plus_the_grace_issue_20() {
        let (silent, _end) = link();
        let door = Links(Mutex::new(vec![silent]), Arc::new(Mutex::new(false)));
        let (cap, grace) = (Duration::from_secs(10), Duration::from_millis(100));
        let p = RemotePlayer::new(Box::new(door), "GAME 1".into(), cap + grace);
        let (mut p, fields) = (p.with_grace(grace), ["a".to_string()]);
        let rules = GameKind::Othello.new_game(&Default::default());
        let time = crate::player::clock::TimeLeft {
            left: Duration::from_millis(200),
            opponent: cap,
            control: "10s".parse().unwrap(),
        };
        let started = std::time::Instant::now();
        let reply = p.ask(Request {
            fields: &fields,
            seat: Seat::A,
            history: &[],
            rules: rules.as_ref(),
            time: Some(time),
        });
        assert_eq!(reply.await, Err(Failure::Timeout));
        let took = started.elapsed();
        // 0.3 s, not the 10 s cap; generous for a loaded machine.
        assert!(
            took >= Duration::from_millis(300) && took < cap / 2,
            "{took:?}"
        );
    }

    #[tokio::test]
    async fn silence_is_a_timeout_and_a_drop_without_reconnection_a_crash() {
        let (silent, _end) = link();
        let (mut p, _) = player(vec![silent]);
        assert_eq!(ask(&mut p).await, Err(Failure::Timeout));
        let (gone, end) = link();
        drop(end);
        let (mut p, _) = player(vec![gone]);
        assert!(matches!(ask(&mut p).await, Err(Failure::Crash(_))));
    }
}

#[cfg(test)]
mod moves_tests {
    use super::*;

    #[test]
    fn a_moves_line_lists_every_move_with_its_seat_and_reads_back() {
        let history = vec![
            (Seat::A, "f5".to_string()),
            (Seat::B, "d6".to_string()),
            (Seat::B, "c3".to_string()),
        ];
        let line = moves_line(&history);
        assert_eq!(line, "MOVES first:f5 second:d6 second:c3\n");
        assert_eq!(parse_moves(&line), Some(history));
        assert_eq!(moves_line(&[]), "MOVES\n");
        assert_eq!(parse_moves("MOVES\n"), Some(Vec::new()));
        assert_eq!(parse_moves("MOVES third:a1"), None);
        assert_eq!(parse_moves("---O* b"), None);
    }

    /// What a client reads of one request on a link pumped with `moves`.
    async fn seen(moves: bool) -> String {
        let (link, end) = link();
        let (ours, theirs) = tokio::io::duplex(1 << 16);
        let server = tokio::spawn(async move {
            let (r, mut w) = tokio::io::split(theirs);
            let mut r = tokio::io::BufReader::new(r);
            pump(&mut r, &mut w, end, moves).await;
        });
        let history = [(Seat::A, "f5".to_string())];
        link.out.send(Out::Tell("GAME 1\n".into())).await.unwrap();
        link.out
            .send(Out::Moves(moves_line(&history)))
            .await
            .unwrap();
        link.out.send(Out::Ask("a -\n".into())).await.unwrap();
        let (r, mut w) = tokio::io::split(ours);
        let mut r = tokio::io::BufReader::new(r);
        let mut text = String::new();
        while !text.ends_with("a -\n") {
            r.read_line(&mut text).await.unwrap();
        }
        w.write_all(b"d6\n").await.unwrap();
        drop(link);
        server.await.unwrap();
        text
    }

    #[tokio::test]
    async fn only_a_client_that_asked_is_told_the_moves() {
        assert_eq!(seen(true).await, "GAME 1\nMOVES first:f5\na -\n");
        assert_eq!(seen(false).await, "GAME 1\na -\n");
    }
}
