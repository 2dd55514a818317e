//! The replay viewer: a dialog in the page, its script (`viewer.js`), and the replays
//! embedded for it when they are small enough.

use super::replays::{embedded_json, Replays};

/// The viewer's script, inlined in the page.
pub const SCRIPT: &str = include_str!("viewer.js");

/// The dialog the script fills, closed until a replay link is clicked.
pub const DIALOG: &str = "<dialog id=\"viewer\" aria-labelledby=\"v-title\">
<div class=\"v-head\"><h2 id=\"v-title\">Replay</h2>\
<button type=\"button\" id=\"v-close\" title=\"close (Esc)\">✕</button></div>
<p id=\"v-sub\" class=\"sub\"></p>
<div class=\"v-controls\">\
<button type=\"button\" id=\"v-first\" title=\"first (Home)\">«</button>\
<button type=\"button\" id=\"v-prev\" title=\"previous (←)\">‹</button>\
<input type=\"range\" id=\"v-step\" min=\"0\" max=\"0\" value=\"0\" aria-label=\"move\"/>\
<button type=\"button\" id=\"v-next\" title=\"next (→)\">›</button>\
<button type=\"button\" id=\"v-last\" title=\"last (End)\">»</button>\
<span id=\"v-pos\"></span></div>
<p id=\"v-status\"></p>
<div id=\"v-body\"></div>
<p id=\"v-result\"></p>
</dialog>
";

/// Appends the dialog, the embedded replays (if any) and the script. Scripts sit in CDATA
/// sections behind `//` so the page stays well-formed XML and HTML parsers skip the markers.
pub(super) fn viewer(out: &mut String, replays: &Replays) {
    if !replays.any() {
        return;
    }
    out.push_str(DIALOG);
    if !replays.embedded.is_empty() {
        out.push_str("<script>//<![CDATA[\nwindow.ARENA_REPLAYS = ");
        out.push_str(&embedded_json(replays));
        out.push_str(";\n//]]>\n</script>\n");
    }
    out.push_str("<script>//<![CDATA[\n");
    out.push_str(SCRIPT);
    out.push_str("//]]>\n</script>\n");
}
