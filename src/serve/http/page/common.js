//! What the live page's scripts share (`window.ArenaPage`): elements, the API, the names of
//! games and results, and a game's board drawn by the report's replay views.
(function () {
  "use strict";
  var V = window.ArenaViews;
  var P = window.ArenaPage = {};
  /// Friendly games are numbered from here up.
  P.FRIENDLY = 1000000000;
  /// The tournament as `GET /api/tournament` last told it.
  P.info = null;

  P.byId = function (id) { return document.getElementById(id); };

  P.el = function (tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  };

  /// A request to the API: resolves to `{status, body}` (`body`: the JSON, or null).
  P.api = function (method, path, body, token) {
    var headers = {};
    if (token) { headers.Authorization = "Bearer " + token; }
    if (body !== undefined && body !== null) { headers["Content-Type"] = "application/json"; }
    return fetch(path, { method: method, headers: headers, cache: "no-store",
      body: body === undefined || body === null ? undefined : JSON.stringify(body) })
      .then(function (r) {
        return r.text().then(function (text) {
          var json = null;
          try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
          return { status: r.status, body: json };
        });
      });
  };

  /// Runs `f` at most once per `ms`, the last call winning.
  P.throttle = function (f, ms) {
    var timer = null;
    var again = false;
    return function () {
      if (timer) { again = true; return; }
      f();
      timer = setTimeout(function () {
        timer = null;
        if (again) { again = false; f(); }
      }, ms);
    };
  };

  /// A game's name: friendly games are numbered apart. `long`: "Game 3", "Friendly game 2".
  P.label = function (id, long) {
    id = Number(id);
    if (id > P.FRIENDLY) { return (long ? "Friendly game " : "friendly ") + (id - P.FRIENDLY); }
    return long ? "Game " + id : String(id);
  };

  P.seconds = function (ms) { return ms % 1000 === 0 ? ms / 1000 + " s" : ms + " ms"; };

  /// How a game ended, the reason said once: the detail of a forfeit already names it
  /// ("timeout: no reply in time").
  P.why = function (x) {
    var detail = x.detail || "";
    if (!detail) { return x.reason; }
    return detail.indexOf(x.reason + ":") >= 0 ? detail : x.reason + ": " + detail;
  };

  /// A text whose `backticked` parts are code, as nodes (never as HTML).
  P.code = function (text) {
    var box = document.createDocumentFragment();
    String(text).split("`").forEach(function (part, i) {
      if (part) { box.appendChild(i % 2 ? P.el("code", null, part) : document.createTextNode(part)); }
    });
    return box;
  };

  /// Whether `name` plays game `g` (a summary or state with `players`).
  P.plays = function (g, name) { return !!(g && g.players && name && g.players.indexOf(name) >= 0); };

  function seatOf(s) { return s === "first" ? "a" : "b"; }

  /// The game as the report's replay viewer reads it.
  function toReplay(g) {
    var moves = [];
    (g.opening || []).forEach(function (m) {
      moves.push({ seat: seatOf(m.seat), reply: m.move, ms: 0 });
    });
    g.moves.forEach(function (m) {
      var x = { seat: seatOf(m.seat), ms: m.ms === undefined ? "?" : m.ms, note: m.note };
      if (m.secret) { x.request = ["secret"]; }
      if (m.fault) { x.failure = m.fault; } else { x.reply = m.hidden ? "???" : m.move; }
      moves.push(x);
    });
    var result = null;
    if (g.result) {
      var w = g.result.winner;
      result = { result: w === "first" ? "a" : w === "second" ? "b" : "draw",
        score_a: g.result.scores[0], score_b: g.result.scores[1], reason: g.result.reason,
        culprit: g.result.reason === "normal" ? null : w === "first" ? "b" : w === "second" ? "a" : "both" };
    }
    return { header: { game: g.kind, game_id: g.game, bot_a: g.players[0], bot_b: g.players[1],
      opening: [], round: "", seed: "", move_time_ms: P.info ? P.info.move_ms : 0, run: "" },
      moves: moves, result: result };
  }

  /// Draws the game's latest position into `box`; returns the replay.
  P.draw = function (box, g, status) {
    var r = toReplay(g);
    var view = V.of(r);
    box.textContent = "";
    var body = P.el("div", "v-body");
    box.appendChild(body);
    view.draw(view.steps, body, status);
    return r;
  };
}());
