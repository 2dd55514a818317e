//! The bytes between arena and a bot's processes: request lines out, replies in, with the
//! size limit on replies and pipes that are always drained; the C strings it starts with.

use std::ffi::CString;
use std::process::ExitStatus;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

use crate::player::Failure;
use crate::sandbox::spawn::{kill_group, Proc};

/// The most bytes of a reply: a longer one is illegal.
pub const MAX_REPLY: usize = 64 * 1024;

/// Encodes request fields as a protocol line: space-separated, an empty field written as `-`.
pub fn encode_line(fields: &[String]) -> String {
    let mut line = String::new();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            line.push(' ');
        }
        line.push_str(if f.is_empty() { "-" } else { f });
    }
    line.push('\n');
    line
}

/// Feeds a per-move process its input, reads its output and waits for it to exit. When it
/// exits, `kill` ends whatever else it started, so its output pipe closes.
pub(super) async fn collect(
    child: &mut Proc,
    input: Option<String>,
    kill: impl Fn(),
) -> std::io::Result<(ExitStatus, Vec<u8>)> {
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let stdin = child.stdin.take();
    let write = async move {
        if let (Some(mut stdin), Some(line)) = (stdin, input) {
            // A bot that does not read its input is its own business.
            let _ = stdin.write_all(line.as_bytes()).await;
        }
    };
    tokio::pin!(write);
    let mut written = false;
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let mut open = true;
    let status = loop {
        tokio::select! {
            read = stdout.read(&mut buf), if open => match read {
                Ok(0) | Err(_) => open = false,
                Ok(n) => keep(&mut out, &buf[..n]),
            },
            () = &mut write, if !written => written = true,
            status = child.wait() => break status?,
        }
    };
    kill();
    while open {
        match stdout.read(&mut buf).await {
            Ok(0) | Err(_) => open = false,
            Ok(n) => keep(&mut out, &buf[..n]),
        }
    }
    Ok((status, out))
}

/// The reply in a per-move process's output.
pub(super) fn reply(out: Vec<u8>) -> Result<String, Failure> {
    if out.len() > MAX_REPLY {
        return Err(Failure::Illegal(format!(
            "more than {MAX_REPLY} bytes of output"
        )));
    }
    Ok(String::from_utf8_lossy(&out).trim().to_string())
}

/// Kills a process group when dropped: for moves abandoned half-way.
pub(super) struct GroupGuard(pub Option<u32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        kill_group(self.0);
    }
}

/// Keeps at most one byte more than `MAX_REPLY` (enough to tell the reply is too long), and
/// goes on draining the pipe past that.
fn keep(out: &mut Vec<u8>, bytes: &[u8]) {
    let room = (MAX_REPLY + 1).saturating_sub(out.len());
    out.extend_from_slice(&bytes[..bytes.len().min(room)]);
}

/// Reads one reply line of at most [`MAX_REPLY`] bytes, from a bot's pipe or a remote
/// entrant's connection. `Err(None)`: it closed; `Err(Some(_))`: the line is too long.
pub(crate) async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
) -> Result<String, Option<String>> {
    let mut line = Vec::new();
    loop {
        let available = reader.fill_buf().await.map_err(|_| None)?;
        if available.is_empty() {
            return Err(None);
        }
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1),
            None => (available, available.len()),
        };
        line.extend_from_slice(chunk);
        let found = done > chunk.len();
        reader.consume(done);
        if line.len() > MAX_REPLY {
            return Err(Some(format!("a reply line longer than {MAX_REPLY} bytes")));
        }
        if found {
            return Ok(String::from_utf8_lossy(&line).trim().to_string());
        }
    }
}

/// A C string from bytes; an interior NUL (which no real path, argument or variable can hold
/// on Unix) is dropped.
pub(super) fn c_string(bytes: &[u8]) -> CString {
    CString::new(
        bytes
            .iter()
            .copied()
            .filter(|&b| b != 0)
            .collect::<Vec<u8>>(),
    )
    .expect("NUL bytes were removed")
}

/// `KEY=value` for an environment block.
pub(super) fn c_pair(key: &[u8], value: &[u8]) -> Option<CString> {
    let mut pair = key.to_vec();
    pair.push(b'=');
    pair.extend_from_slice(value);
    CString::new(pair).ok()
}

/// Describes how a process ended, for crash reports.
pub fn describe_exit(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        _ => status.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_fields_become_dashes_in_lines() {
        let fields: Vec<String> = ["", "", "0", "", "", "0"].map(String::from).to_vec();
        assert_eq!(encode_line(&fields), "- - 0 - - 0\n");
        let fields: Vec<String> = ["04", "15", "3"].map(String::from).to_vec();
        assert_eq!(encode_line(&fields), "04 15 3\n");
    }
}
