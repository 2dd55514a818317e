//! The web page at `/`: live standings and cross-table, the games being played with their
//! boards, finished games' replays, and a board for a person who signs in with a token to
//! play their games. Plain HTML, CSS and JavaScript embedded in the binary (no build step);
//! the boards are the report's replay views (`export::html::viewer`).

use std::sync::LazyLock;

use axum::http::header;
use axum::response::{IntoResponse, Response};

use crate::export::html::{style, viewer};

const INDEX: &str = include_str!("page/index.html");
const LIVE_JS: &str = include_str!("page/live.js");
const COMMON_JS: &str = include_str!("page/common.js");
const PLAY_JS: &str = include_str!("page/play.js");
const LIVE_CSS: &str = include_str!("page/live.css");

/// The page, with the report's replay dialog in it.
static PAGE: LazyLock<String> = LazyLock::new(|| INDEX.replace("<!-- viewer -->", viewer::DIALOG));

/// What the page may load: only its own scripts, styles and API.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

fn asset(kind: &'static str, body: &'static str) -> Response {
    let headers = [
        (header::CONTENT_TYPE, kind),
        (header::CACHE_CONTROL, "no-cache"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::CONTENT_SECURITY_POLICY, POLICY),
        (header::REFERRER_POLICY, "no-referrer"),
    ];
    (headers, body).into_response()
}

/// `GET /`.
pub async fn index() -> Response {
    asset("text/html; charset=utf-8", PAGE.as_str())
}

/// `GET /assets/live.js`: the page's script.
pub async fn live_js() -> Response {
    asset("text/javascript; charset=utf-8", LIVE_JS)
}

/// `GET /assets/common.js`: what the page's scripts share.
pub async fn common_js() -> Response {
    asset("text/javascript; charset=utf-8", COMMON_JS)
}

/// `GET /assets/play.js`: the person's own games.
pub async fn play_js() -> Response {
    asset("text/javascript; charset=utf-8", PLAY_JS)
}

/// The page's icon: a disc, as the report's boards draw them.
const ICON: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">\
     <rect width=\"16\" height=\"16\" rx=\"3\" fill=\"#2e7d32\"/>\
     <circle cx=\"8\" cy=\"8\" r=\"5\" fill=\"#fff\"/></svg>";

/// `GET /favicon.ico`: the icon browsers ask for (an SVG), so that they get no 404.
pub async fn favicon() -> Response {
    asset("image/svg+xml", ICON)
}

/// `GET /assets/viewer.js`: the report's replay views and dialog.
pub async fn viewer_js() -> Response {
    asset("text/javascript; charset=utf-8", viewer::SCRIPT)
}

/// `GET /assets/style.css`: the report's style sheet and the page's own.
pub async fn style_css() -> Response {
    static CSS: LazyLock<String> = LazyLock::new(|| format!("{}\n{LIVE_CSS}", style::CSS));
    asset("text/css; charset=utf-8", CSS.as_str())
}
