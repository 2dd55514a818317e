//! The TCP front door: `HELLO <name> <token> [moves]`, then `OK <name> <game>` and a wait for
//! a game (or `ERROR <message>` and the connection closes). A game is `GAME <id> <game>
//! <opponent> <first|second> <move-ms> <index>` and the request lines of a local `lines` bot, one
//! reply line each (with `moves`, in board games each after a `MOVES ...` line: the game's
//! moves so far); the connection closes when the game ends. `END`: no more games for the
//! entrant.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader,
};
use tokio::net::{TcpListener, TcpStream};

use crate::player::remote::pump;

use super::gate::{Gate, Refused, Stage, FIRST_BYTES_TIME};
use super::http::{self, is_http, Front};
use super::hub::{Assignment, Hub};

/// How long to wait for the rest of a connection's first word once part of an HTTP method
/// has come.
const PEEK_TIME: Duration = Duration::from_secs(1);

/// How long a new connection may be silent before it counts among those waiting for their
/// first bytes.
const AT_ONCE: Duration = Duration::from_millis(100);

/// The longest `HELLO` line.
const MAX_HELLO: usize = 1024;

/// Accepts connections for ever, each in its own task: the line protocol, or HTTP for a
/// connection that starts with an HTTP method. Each stage of a connection's handshake takes
/// a place in the [`Gate`]'s pools, or the connection is turned away at once.
pub async fn accept(listener: TcpListener, hub: Arc<Hub>, http: Front) {
    let gate = Gate::default();
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(_) => {
                // Out of file descriptors, say: let some connections end first.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let (hub, http, gate) = (Arc::clone(&hub), http.clone(), gate.clone());
        tokio::spawn(async move {
            let _ = stream.set_nodelay(true);
            let peer = peer.ip();
            // Most clients speak at once: only a connection silent for a moment takes a place
            // among those waiting for their first bytes (so that a burst the server is slow
            // to take in is not counted as idle).
            let spoke = tokio::time::timeout(AT_ONCE, stream.peek(&mut [0u8; 1])).await;
            let pass = match spoke {
                Ok(_) => None,
                Err(_) => match gate.enter(Stage::FirstBytes, peer) {
                    Ok(pass) => Some(pass),
                    Err(refused) => return turn_away(stream, refused).await,
                },
            };
            let first = protocol(&stream).await;
            drop(pass);
            if first == Protocol::Http {
                return match gate.enter(Stage::Http, peer) {
                    Ok(pass) => http.serve(stream, pass).await,
                    Err(refused) => http::turn_away(stream, refused).await,
                };
            }
            if first == Protocol::Silent {
                return turn_away_with(stream, SILENT).await;
            }
            let pass = match gate.enter(Stage::Lines, peer) {
                Ok(pass) => pass,
                Err(refused) => return turn_away(stream, refused).await,
            };
            let (r, mut w) = stream.into_split();
            let mut r = BufReader::new(r);
            let Some((entrant, moves)) = handshake(&mut r, &mut w, &hub).await else {
                return;
            };
            drop(pass);
            connection(&mut r, &mut w, &hub, entrant, moves).await;
            let _ = tokio::time::timeout(Duration::from_secs(1), w.shutdown()).await;
        });
    }
}

/// Says why a connection is turned away (`ERROR ...`), and closes it.
async fn turn_away(stream: TcpStream, refused: Refused) {
    turn_away_with(stream, &format!("ERROR {refused}")).await
}

async fn turn_away_with(stream: TcpStream, line: &str) {
    let (_, mut w) = stream.into_split();
    say(&mut w, line).await;
}

#[derive(Debug, PartialEq, Eq)]
enum Protocol {
    Lines,
    Http,
    /// Nothing came within the first bytes' time.
    Silent,
}

const SILENT: &str = "ERROR no `HELLO <name> <token>` line in time";

/// Tells the protocol from the first bytes, without reading them (so HTTP gets them all);
/// [`Protocol::Silent`] when none come within [`FIRST_BYTES_TIME`].
async fn protocol(stream: &TcpStream) -> Protocol {
    let deadline = tokio::time::Instant::now() + FIRST_BYTES_TIME;
    let mut partial = None;
    let mut first = [0u8; 8];
    loop {
        let peek = tokio::time::timeout_at(deadline, stream.peek(&mut first)).await;
        let n = match peek {
            Ok(Ok(n)) if n > 0 => n,
            Err(_) => return Protocol::Silent,
            // The end of the connection, or an error: the handshake will see it.
            Ok(_) => return Protocol::Lines,
        };
        match is_http(&first[..n]) {
            Some(true) => return Protocol::Http,
            Some(false) => return Protocol::Lines,
            // A method's first bytes: wait for more (peeking again at once would return the
            // same bytes).
            // (A client that sends part of a method and stops is not waited for long.)
            None => {
                let since = *partial.get_or_insert_with(tokio::time::Instant::now);
                if since.elapsed() > PEEK_TIME {
                    return Protocol::Lines;
                }
                tokio::time::sleep(Duration::from_millis(10)).await
            }
        }
    }
}

/// Reads `HELLO <name> <token> [moves]` and answers an error for anything else; the entrant,
/// and whether it asked for the game's moves with each request.
async fn handshake<R, W>(r: &mut R, w: &mut W, hub: &Hub) -> Option<(usize, bool)>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut line = Vec::new();
    let mut limited = (&mut *r).take(MAX_HELLO as u64 + 1);
    let read = limited.read_until(b'\n', &mut line);
    let error = match tokio::time::timeout(Stage::Lines.time(), read).await {
        Err(_) => SILENT,
        Ok(Err(_)) => return None,
        Ok(Ok(_)) if line.len() > MAX_HELLO => "ERROR line too long",
        Ok(Ok(_)) if !line.ends_with(b"\n") => return None,
        Ok(Ok(_)) => {
            let text = String::from_utf8_lossy(&line);
            let words: Vec<&str> = text.split_whitespace().collect();
            match words.as_slice() {
                ["HELLO", name, token, rest @ ..] if rest.is_empty() || rest == ["moves"] => {
                    match hub.check(name, token) {
                        Some(entrant) => return Some((entrant, !rest.is_empty())),
                        None => "ERROR unknown name or wrong token",
                    }
                }
                _ => "ERROR expected `HELLO <name> <token>`",
            }
        }
    };
    say(w, error).await;
    None
}

/// Waits for a game for an entrant's connection, and plays it (`moves`: with the game's moves
/// before each request).
async fn connection<R, W>(r: &mut R, w: &mut W, hub: &Hub, entrant: usize, moves: bool)
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let (id, mut assigned) = match hub.hello(entrant) {
        Ok(waiting) => waiting,
        Err(e) => {
            say(w, &format!("ERROR {e}")).await;
            return;
        }
    };
    let name = &hub.name(entrant);
    if !say(w, &format!("OK {name} {}", hub.game)).await {
        return hub.leave(entrant, id);
    }
    let assignment = tokio::select! {
        assignment = &mut assigned => assignment,
        early = r.fill_buf() => {
            let data = matches!(early, Ok(bytes) if !bytes.is_empty());
            hub.leave(entrant, id);
            if data {
                say(w, "ERROR data before the game").await;
            }
            return;
        }
    };
    match assignment {
        Ok(Assignment::Game(end)) => pump(r, w, end, moves).await,
        Ok(Assignment::End) | Err(_) => {
            say(w, "END").await;
        }
    }
}

/// Writes one line, giving up after a while; whether it was written.
pub(super) async fn say<W: AsyncWrite + Unpin>(w: &mut W, line: &str) -> bool {
    let write = async {
        w.write_all(format!("{line}\n").as_bytes()).await?;
        w.flush().await
    };
    matches!(
        tokio::time::timeout(Duration::from_secs(5), write).await,
        Ok(Ok(()))
    )
}

/// Binds the listening socket.
pub async fn listen(addr: &str) -> anyhow::Result<TcpListener> {
    use anyhow::Context;
    TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on `{addr}`"))
}

/// Connects to a server (for `arena connect`).
pub async fn dial(addr: &str) -> std::io::Result<TcpStream> {
    TcpStream::connect(addr).await
}
