//! A small WebDriver client for tests: starts Debian's `chromedriver` with a headless
//! `chromium` and speaks the W3C WebDriver JSON protocol to it over plain HTTP/1.1.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The element key of the W3C protocol.
const ELEMENT: &str = "element-6066-11e4-a52f-4a2b4b3a2b4b";

/// A browser session, ended (and its driver stopped) when dropped.
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
    _profile: tempfile::TempDir,
}

/// One element of the page, as the driver names it.
#[derive(Debug, Clone)]
pub struct Element(String);

impl Browser {
    /// Starts `chromedriver` and a headless Chromium with a fresh profile, `width` by
    /// `height` CSS pixels. Panics naming the Debian package if either is missing.
    pub fn start(width: u32, height: u32) -> Browser {
        super::require("chromedriver", "chromium-driver");
        super::require("chromium", "chromium");
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let driver = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start chromedriver");
        let profile = tempfile::tempdir().unwrap();
        let mut browser = Browser {
            driver,
            port,
            session: String::new(),
            _profile: profile,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let ready = browser
                .request("GET", "/status", None)
                .is_ok_and(|v| v["value"]["ready"] == true);
            if ready {
                break;
            }
            assert!(Instant::now() < deadline, "chromedriver did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            &format!("--window-size={width},{height}"),
            &format!("--user-data-dir={}", browser._profile.path().display()),
        ];
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium(), "args": args},
        }}});
        let reply = browser
            .request("POST", "/session", Some(&caps))
            .unwrap_or_else(|e| panic!("cannot start a browser session: {e}"));
        browser.session = reply["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session in {reply}"))
            .to_string();
        browser
    }

    /// Makes the window `width` by `height` pixels.
    pub fn resize(&self, width: u32, height: u32) {
        self.command(
            "POST",
            "window/rect",
            json!({ "width": width, "height": height }),
        );
    }

    /// Opens `url` and waits for it to load.
    pub fn goto(&self, url: &str) {
        self.command("POST", "url", json!({ "url": url }));
    }

    /// Runs `script` (a function body; `arguments` holds `args`) and returns its value.
    pub fn eval(&self, script: &str, args: Value) -> Value {
        self.command(
            "POST",
            "execute/sync",
            json!({ "script": script, "args": args }),
        )
    }

    /// The first element matching the CSS `selector`.
    pub fn find(&self, selector: &str) -> Element {
        let v = self.command(
            "POST",
            "element",
            json!({ "using": "css selector", "value": selector }),
        );
        // The W3C element key, or the old protocol's `ELEMENT`: the object's only value.
        let id = v[ELEMENT]
            .as_str()
            .or_else(|| v.as_object()?.values().next()?.as_str())
            .unwrap_or_else(|| panic!("no element for `{selector}`: {v}"));
        Element(id.to_string())
    }

    /// Clicks `element` as a user would.
    pub fn click(&self, element: &Element) {
        self.command("POST", &format!("element/{}/click", element.0), json!({}));
    }

    /// Types `text` into the form field `element`.
    pub fn type_into(&self, element: &Element, text: &str) {
        let path = format!("element/{}/value", element.0);
        self.command("POST", &path, json!({ "text": text }));
    }

    /// Types `keys` (WebDriver key codes such as `\u{E014}` for the right arrow) into
    /// whatever has the focus.
    pub fn keys(&self, keys: &str) {
        let actions: Vec<Value> = keys
            .chars()
            .flat_map(|c| {
                let k = c.to_string();
                [
                    json!({"type": "keyDown", "value": k}),
                    json!({"type": "keyUp", "value": k}),
                ]
            })
            .collect();
        let body = json!({"actions": [{"type": "key", "id": "keyboard", "actions": actions}]});
        self.command("POST", "actions", body);
    }

    /// Saves a PNG of the viewport to `path`.
    pub fn screenshot(&self, path: &Path) {
        let v = self.command("GET", "screenshot", Value::Null);
        let png = base64(v.as_str().expect("base64 text"));
        std::fs::write(path, png).unwrap();
    }

    /// Waits up to 5 s for `script` to return true.
    pub fn wait_for(&self, script: &str) {
        self.wait_for_within(script, Duration::from_secs(5));
    }

    /// Waits up to `within` for `script` to return true.
    pub fn wait_for_within(&self, script: &str, within: Duration) {
        let deadline = Instant::now() + within;
        while self.eval(script, json!([])) != true {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for `{script}`"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn command(&self, method: &str, path: &str, body: Value) -> Value {
        let path = format!("/session/{}/{path}", self.session);
        let body = (method == "POST").then_some(&body);
        match self.request(method, &path, body) {
            Ok(v) => v["value"].clone(),
            Err(e) => panic!("webdriver {method} {path} failed: {e}"),
        }
    }

    /// One HTTP request to the driver; an error status comes back as its message.
    fn request(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .map_err(|e| e.to_string())?;
        let body = body.map(Value::to_string).unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\
             Content-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
            self.port,
            body.len()
        );
        stream
            .write_all(format!("{head}{body}").as_bytes())
            .map_err(|e| e.to_string())?;
        // The driver keeps the connection open: read the head, then as much body as it says.
        let mut raw = Vec::new();
        let mut buf = [0u8; 64 * 1024];
        let (split, length) = loop {
            let n = stream.read(&mut buf).map_err(|e| e.to_string())?;
            if n == 0 {
                return Err("the driver closed the connection".to_string());
            }
            raw.extend_from_slice(&buf[..n]);
            if let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
                let length = head.lines().find_map(|l| {
                    l.strip_prefix("content-length:")
                        .and_then(|v| v.trim().parse::<usize>().ok())
                });
                break (split, length);
            }
        };
        let head = String::from_utf8_lossy(&raw[..split]).to_string();
        let chunked = head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked");
        match length {
            Some(length) => {
                while raw.len() < split + 4 + length {
                    let n = stream.read(&mut buf).map_err(|e| e.to_string())?;
                    if n == 0 {
                        break;
                    }
                    raw.extend_from_slice(&buf[..n]);
                }
            }
            None if chunked => {
                while !raw.ends_with(b"0\r\n\r\n") {
                    let n = stream.read(&mut buf).map_err(|e| e.to_string())?;
                    if n == 0 {
                        break;
                    }
                    raw.extend_from_slice(&buf[..n]);
                }
            }
            None => {
                stream.read_to_end(&mut raw).map_err(|e| e.to_string())?;
            }
        }
        let rest = &raw[split + 4..];
        let body = if chunked {
            unchunk(rest)
        } else {
            rest.to_vec()
        };
        let body = String::from_utf8_lossy(&body);
        let value: Value = serde_json::from_str(&body).map_err(|e| format!("{e}: {body}"))?;
        let status = head.split(' ').nth(1).unwrap_or("");
        if status.starts_with('2') {
            Ok(value)
        } else {
            Err(format!("HTTP {status}: {}", value["value"]["message"]))
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let path = format!("/session/{}", self.session);
            let _ = self.request("DELETE", &path, None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Where Debian's Chromium binary is.
fn chromium() -> String {
    ["/usr/lib/chromium/chromium", "/usr/bin/chromium"]
        .iter()
        .find(|p| Path::new(p).exists())
        .unwrap_or(&"chromium")
        .to_string()
}

/// The body of a chunked HTTP reply.
fn unchunk(mut rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(line) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = String::from_utf8_lossy(&rest[..line]);
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        let tail = &rest[line + 2..];
        if n == 0 || tail.len() < n {
            break;
        }
        out.extend_from_slice(&tail[..n]);
        rest = tail[n..].strip_prefix(b"\r\n").unwrap_or(&tail[n..]);
    }
    out
}

/// Decodes standard base64 (the screenshots).
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let digits: Vec<u8> = text.bytes().filter_map(value).collect();
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let mut n = 0u32;
        for (i, d) in chunk.iter().enumerate() {
            n |= u32::from(*d) << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}
