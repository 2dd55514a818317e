//! The live page of `arena serve`: the standings, cross-table and games of the tournament as
//! they happen (from `/api/events`), finished games' replays in the report's viewer, and a
//! board for a person who signs in with an entrant's token and plays their games.
(function () {
  "use strict";
  var V = window.ArenaViews;
  var byId = function (id) { return document.getElementById(id); };
  var info = null;
  var games = {};
  var cards = {};
  var tablesShown = null;
  var rooms = { open: false, bots: [], rooms: [] };
  var roomsShown = null;
  /// Friendly games are numbered from here up.
  var FRIENDLY = 1000000000;
  var me = { token: null, name: null, playing: false, joining: false, game: null, key: "",
    state: null, fetched: 0, timer: null };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  /// A request to the API: resolves to `{status, body}` (`body`: the JSON, or null).
  function api(method, path, body, token) {
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
  }

  /// Runs `f` at most once per `ms`, the last call winning.
  function throttle(f, ms) {
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
  }

  function points(p) {
    var whole = Math.floor(p);
    var half = p - whole >= 0.5;
    return (whole || !half ? String(whole) : "") + (half ? "½" : "");
  }

  /// A game's name: friendly games are numbered apart. `long`: "Game 3", "Friendly game 2".
  function label(id, long) {
    id = Number(id);
    if (id > FRIENDLY) { return (long ? "Friendly game " : "friendly ") + (id - FRIENDLY); }
    return long ? "Game " + id : String(id);
  }

  function seconds(ms) { return ms % 1000 === 0 ? ms / 1000 + " s" : ms + " ms"; }

  // --- The game as the report's replay viewer reads it -------------------------------------

  function seatOf(s) { return s === "first" ? "a" : "b"; }

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
      opening: [], round: "", seed: "", move_time_ms: info ? info.move_ms : 0, run: "" },
      moves: moves, result: result };
  }

  /// Draws the game's latest position into `box`; returns the replay.
  function draw(box, g, status) {
    var r = toReplay(g);
    var view = V.of(r);
    box.textContent = "";
    var body = el("div", "v-body");
    box.appendChild(body);
    view.draw(view.steps, body, status);
    return r;
  }

  // --- The tournament: title, standings, cross-table, games -------------------------------

  function loadTournament() {
    return api("GET", "/api/tournament").then(function (r) {
      if (r.status !== 200) { return; }
      info = r.body;
      document.title = "arena · " + info.kind;
      byId("title").textContent = "arena · " + info.kind + " tournament";
      byId("register").hidden = !info.open || !!me.name;
      var n = info.entrants.filter(function (e) { return e.connected; }).length;
      var names = info.entrants.map(function (e) {
        return e.name + (e.playing ? " ▶" : e.connected ? " ●" : " ○");
      });
      byId("entrants").textContent = info.entrants.length
        ? "Remote entrants (● waiting for a game, ▶ playing, ○ not connected): " + names.join(", ") : "";
      var ours = Object.keys(games).filter(function (id) { return !games[id].friendly; });
      var done = ours.filter(function (id) { return games[id].result; }).length;
      var live = ours.length - done;
      byId("status").textContent = "Move time " + seconds(info.move_ms) + " (+ " +
        seconds(info.grace_ms) + " for the network). " + (info.closed ? "Over: every game is played (" + done + " here)."
          : info.started ? "Playing: " + done + " games finished, " + live + " under way."
            : "Waiting to start: " + n + " of " + info.entrants.length + " entrants connected.");
    });
  }

  function loadGames() {
    return api("GET", "/api/games").then(function (r) {
      if (r.status !== 200) { return; }
      var next = {};
      r.body.forEach(function (g) { next[g.game] = g; });
      games = next;
      tables();
      syncCards();
      loadTournament();
    });
  }

  function tables() {
    var players = {};
    var add = function (name) {
      if (!players[name]) { players[name] = { name: name, games: 0, w: 0, d: 0, l: 0, pts: 0, vs: {} }; }
      return players[name];
    };
    (info ? info.entrants : []).forEach(function (e) { add(e.name); });
    Object.keys(games).forEach(function (id) {
      var g = games[id];
      if (g.friendly) { return; }
      var a = add(g.players[0]);
      var b = add(g.players[1]);
      if (!g.result) { return; }
      var pa = g.result.winner === "first" ? 1 : g.result.winner === "draw" ? 0.5 : 0;
      [[a, b, pa], [b, a, 1 - pa]].forEach(function (x) {
        var p = x[0];
        p.games++;
        p.pts += x[2];
        if (x[2] === 1) { p.w++; } else if (x[2] === 0) { p.l++; } else { p.d++; }
        var vs = p.vs[x[1].name] || (p.vs[x[1].name] = { pts: 0, n: 0 });
        vs.pts += x[2];
        vs.n++;
      });
    });
    var list = Object.keys(players).map(function (k) { return players[k]; });
    list.sort(function (x, y) { return y.pts - x.pts || (x.name < y.name ? -1 : 1); });
    var ids = Object.keys(games).filter(function (id) { return games[id].result; })
      .map(Number).sort(function (x, y) { return y - x; });
    // The tables are rebuilt only when what they show changed, so that a reader's click on
    // a row or a replay link is never lost to a rebuild of the same rows.
    var shown = JSON.stringify([list, ids.map(function (id) { return [id, games[id]]; }),
      info && info.replays]);
    if (shown === tablesShown) { return; }
    tablesShown = shown;
    var st = byId("standings");
    st.textContent = "";
    var head = st.appendChild(el("thead")).appendChild(el("tr"));
    ["#", "Player", "Games", "Won", "Drawn", "Lost", "Points"].forEach(function (h, i) {
      head.appendChild(el("th", i === 1 ? "name" : null, h));
    });
    var body = st.appendChild(el("tbody"));
    list.forEach(function (p, i) {
      var tr = body.appendChild(el("tr"));
      tr.dataset.player = p.name;
      [i + 1, p.name, p.games, p.w, p.d, p.l, points(p.pts)].forEach(function (c, j) {
        tr.appendChild(el("td", j === 1 ? "name" : null, c));
      });
    });
    var cross = byId("cross");
    cross.textContent = "";
    var ch = cross.appendChild(el("thead")).appendChild(el("tr"));
    ch.appendChild(el("th", "name", ""));
    list.forEach(function (p, i) {
      var th = ch.appendChild(el("th", null, i + 1));
      th.title = p.name;
    });
    var cb = cross.appendChild(el("tbody"));
    list.forEach(function (p, i) {
      var tr = cb.appendChild(el("tr"));
      tr.appendChild(el("td", "name", (i + 1) + ". " + p.name));
      list.forEach(function (q) {
        var vs = p.vs[q.name];
        var td = tr.appendChild(el("td", p === q ? "self" : null,
          p === q ? "" : vs ? points(vs.pts) + "/" + vs.n : "·"));
        td.title = p.name + " against " + q.name;
      });
    });
    var fin = byId("finished");
    fin.textContent = "";
    if (!ids.length) { return; }
    var fh = fin.appendChild(el("thead")).appendChild(el("tr"));
    ["Game", "First", "Second", "Score", "Winner", "Reason", ""].forEach(function (h, i) {
      fh.appendChild(el("th", i === 1 || i === 2 || i === 4 ? "name" : null, h));
    });
    var fb = fin.appendChild(el("tbody"));
    ids.slice(0, 200).forEach(function (id) {
      var g = games[id];
      var x = g.result;
      var tr = fb.appendChild(el("tr"));
      tr.dataset.game = id;
      var winner = x.winner === "first" ? g.players[0] : x.winner === "second" ? g.players[1] : "draw";
      [label(id), g.players[0], g.players[1], x.scores[0] + "–" + x.scores[1], winner,
        x.reason + (x.detail ? ": " + x.detail : "")].forEach(function (c, j) {
        tr.appendChild(el("td", j === 1 || j === 2 || j === 4 ? "name" : null, c));
      });
      var td = tr.appendChild(el("td"));
      if (info && info.replays) {
        var a = td.appendChild(el("a", "replay", "replay"));
        a.href = "/api/games/" + id + "/replay";
      }
    });
  }

  // --- The games being played --------------------------------------------------------------

  function syncCards() {
    var ids = Object.keys(games).filter(function (id) { return !games[id].result; })
      .map(Number).sort(function (x, y) { return y - x; }).slice(0, 12);
    var box = byId("live");
    Object.keys(cards).forEach(function (id) {
      if (ids.indexOf(Number(id)) < 0) { box.removeChild(cards[id].el); delete cards[id]; }
    });
    ids.forEach(function (id) {
      if (cards[id]) { return; }
      var g = games[id];
      var card = el("div", "card");
      card.dataset.game = id;
      card.appendChild(el("h3", null, label(id, true) + ": " + g.players[0] + " vs " + g.players[1]));
      var body = card.appendChild(el("div"));
      var status = card.appendChild(el("p", "card-status"));
      box.insertBefore(card, box.firstChild);
      cards[id] = { el: card, body: body, status: status };
      cards[id].refresh = throttle(function () {
        api("GET", "/api/games/" + id).then(function (r) {
          if (r.status === 200 && cards[id] && info) { draw(cards[id].body, r.body, cards[id].status); }
        });
      }, 300);
      cards[id].refresh();
    });
    Array.prototype.forEach.call(box.querySelectorAll("p.note"), function (p) { box.removeChild(p); });
    if (!ids.length) { box.appendChild(el("p", "note", info && info.closed ? "None: the tournament is over." : "None now.")); }
  }

  // --- A person's own games ----------------------------------------------------------------

  function signedIn(name, token) {
    me.name = name;
    me.token = token;
    sessionStorage.setItem("arena-token", token);
    byId("signin").hidden = true;
    byId("register").hidden = true;
    byId("me").hidden = false;
    byId("me-name").textContent = name;
    showRooms();
  }

  function signIn(token, error) {
    // A later sign-in (typed while a saved token was being checked) wins.
    var attempt = me.attempt = (me.attempt || 0) + 1;
    return api("GET", "/api/me", null, token).then(function (r) {
      if (attempt !== me.attempt) { return; }
      if (r.status === 200) {
        signedIn(r.body.name, token);
        // A game under way (the page was reloaded): take it back.
        var games = r.body.games || [];
        if (games.length && !me.game) {
          me.playing = true;
          byId("play").disabled = true;
          byId("play").textContent = "Playing…";
          byId("mygame").hidden = false;
          start(games[0]);
        }
        return;
      }
      sessionStorage.removeItem("arena-token");
      if (error) { byId("signin-error").textContent = r.body && r.body.error ? r.body.error : "cannot sign in"; }
    });
  }

  function signOut() {
    sessionStorage.removeItem("arena-token");
    location.reload();
  }

  function myStatus(text) { byId("my-status").textContent = text; }

  function join() {
    if (!me.playing || me.joining || me.game) { return; }
    me.joining = true;
    byId("mygame").hidden = false;
    if (!me.state) { myStatus("Waiting for your next game…"); }
    api("POST", "/api/join", null, me.token).then(function (r) {
      me.joining = false;
      if (r.status === 200) { start(r.body); }
      else if (r.status === 204) { join(); }
      else if (r.status === 410) {
        me.playing = false;
        byId("play").disabled = true;
        byId("play").textContent = "No more games";
        myStatus((me.state ? byId("my-status").textContent + " " : "") + "You have no more games in this tournament." +
          (rooms.open ? " You may still play friendly games." : ""));
      }
      else if (r.status === 401) { signOut(); }
      else {
        myStatus("The server said: " + (r.body && r.body.error ? r.body.error : r.status) + ". Trying again…");
        setTimeout(join, 3000);
      }
    }, function () {
      me.joining = false;
      myStatus("The server cannot be reached. Trying again…");
      setTimeout(join, 3000);
    });
  }

  function start(joined) {
    me.game = joined.game;
    me.seat = joined.seat;
    me.key = "";
    me.state = null;
    delete byId("my-status").dataset.result;
    byId("my-title").textContent = label(joined.game, true) + ": you play " +
      (joined.seat === "first" ? "first" : "second") + " against " + joined.opponent +
      " (" + seconds(joined.move_ms) + " a move)";
    poll();
  }

  function poll() {
    clearTimeout(me.timer);
    if (!me.game) { return; }
    var id = me.game;
    api("GET", "/api/games/" + id, null, me.token).then(function (r) {
      if (me.game !== id) { return; }
      if (r.status === 200) { show(r.body); }
      if (me.game) { me.timer = setTimeout(poll, me.state && me.state.turn === "you" ? 1000 : 400); }
    }, function () {
      if (me.game !== id) { return; }
      myStatus("The server cannot be reached (it may have closed). Trying again…");
      me.timer = setTimeout(poll, 2000);
    });
  }

  function show(state) {
    me.state = state;
    me.fetched = Date.now();
    var key = state.moves.length + " " + state.turn + " " + state.request + " " + !!state.result;
    if (key !== me.key) {
      me.key = key;
      var status = el("p", "card-status");
      draw(byId("my-board"), state, status);
      byId("my-board").appendChild(status);
      byId("my-board").dataset.moves = String(state.moves.length);
      byId("my-error").textContent = "";
      if (state.turn === "you") { ask(state); } else { byId("my-move").hidden = true; }
      if (state.result) { over(state); return; }
      if (state.turn === "over") { myStatus("The game is over; its result comes in a moment."); }
    }
    tick();
  }

  function tick() {
    var s = me.state;
    if (!s || !me.game) { return; }
    if (s.turn === "you") {
      var left = Math.max(0, s.deadline_ms - (Date.now() - me.fetched));
      myStatus("Your move: " + (left / 1000).toFixed(1) + " s left.");
    } else if (s.turn === "opponent") {
      myStatus("Waiting for " + s.players[s.seat === "first" ? 1 : 0] + "…");
    }
  }

  function over(state) {
    me.game = null;
    clearTimeout(me.timer);
    var x = state.result;
    var mine = state.seat;
    var verdict = x.winner === "draw" ? "Draw" : x.winner === mine ? "You won" : "You lost";
    myStatus(verdict + ", " + x.scores[0] + "–" + x.scores[1] + " (" +
      (x.reason === "normal" ? "by the rules" : x.reason + (x.detail ? ": " + x.detail : "")) + ").");
    byId("my-status").dataset.result = verdict;
    if (me.playing) { setTimeout(join, 1500); }
  }

  /// Offers the moves the request allows: the board's legal points, or a form.
  function ask(state) {
    var words = state.request.split(" ");
    var form = byId("my-move");
    var fields = byId("my-fields");
    fields.textContent = "";
    if (state.kind === "othello" || state.kind === "gomoku") {
      form.hidden = true;
      var size = state.kind === "othello" ? 8 : 15;
      var board = words[0].split("");
      var side = words[1];
      byId("my-board").classList.toggle("gomoku-turn", state.kind === "gomoku");
      Array.prototype.forEach.call(byId("my-board").querySelectorAll(".cell"), function (cell) {
        var at = V.point(cell.title, size);
        if (at < 0 || board[at] !== ".") { return; }
        if (state.kind === "othello") {
          var after = board.slice();
          V.flip(after, at, side);
          var flipped = after.filter(function (c, i) { return c !== board[i]; }).length;
          if (flipped < 2) { return; }
        }
        cell.classList.add("legal");
        cell.setAttribute("role", "button");
        cell.tabIndex = 0;
        cell.addEventListener("click", function () { send(cell.title); });
        cell.addEventListener("keydown", function (e) { if (e.key === "Enter") { send(cell.title); } });
      });
      return;
    }
    form.hidden = false;
    if (state.kind === "numeron") {
      var mine = state.moves.filter(function (m) { return m.secret && m.seat === state.seat && m.move; });
      var digits = words[0] === "secret" ? Number(words[1]) : mine.length ? mine[0].move.length : 3;
      var label = el("label", null, words[0] === "secret" ? "Your secret (" + digits + " different digits)"
        : "Your call (" + digits + " different digits)");
      label.htmlFor = "my-input";
      var input = el("input");
      input.id = "my-input";
      input.inputMode = "numeric";
      input.maxLength = digits;
      input.size = digits + 2;
      input.autocomplete = "off";
      fields.appendChild(label);
      fields.appendChild(input);
      input.focus();
      me.check = function () {
        var v = input.value.trim();
        if (!new RegExp("^\\d{" + digits + "}$").test(v) || new Set(v.split("")).size !== digits) {
          return [null, digits + " different digits, please"];
        }
        return [v, null];
      };
    } else {
      var choice = select("my-choice", "Show");
      var guess = select("my-guess", "and guess the other's");
      fields.appendChild(choice[0]);
      fields.appendChild(choice[1]);
      fields.appendChild(guess[0]);
      fields.appendChild(guess[1]);
      me.check = function () { return [choice[1].value + " " + guess[1].value, null]; };
    }
  }

  function select(id, text) {
    var label = el("label", null, text);
    label.htmlFor = id;
    var s = el("select");
    s.id = id;
    for (var i = 0; i <= 5; i++) { s.appendChild(el("option", null, i)).value = String(i); }
    return [label, s];
  }

  function send(move) {
    if (!me.game || !me.state || me.state.turn !== "you") { return; }
    me.state.turn = "sent";
    byId("my-move").hidden = true;
    Array.prototype.forEach.call(byId("my-board").querySelectorAll(".cell.legal"), function (c) {
      c.classList.remove("legal");
    });
    myStatus("You play " + move + "…");
    api("POST", "/api/games/" + me.game + "/move", { move: move }, me.token).then(function (r) {
      if (r.status === 200) { me.key = ""; show(r.body); return; }
      byId("my-error").textContent = r.body && r.body.error ? r.body.error : "the server said " + r.status;
      me.key = "";
      poll();
    });
  }

  // --- Friendly games: play a bot, host a room, join one ------------------------------------

  function loadRooms() {
    return api("GET", "/api/rooms").then(function (r) {
      if (r.status === 200) { rooms = r.body; showRooms(); }
    });
  }

  function showRooms() {
    byId("friendly").hidden = !me.name || !rooms.open;
    // Rebuilt only when changed, so that a click on a button is never lost to a rebuild.
    var shown = JSON.stringify([rooms, me.name]);
    if (shown === roomsShown) { return; }
    roomsShown = shown;
    var bots = byId("friendly-bots");
    bots.textContent = "";
    rooms.bots.forEach(function (bot) {
      var b = bots.appendChild(el("button", "play-bot", "Play " + bot));
      b.type = "button";
      b.dataset.bot = bot;
      b.addEventListener("click", function () { friendly("POST", "/api/rooms", { bot: bot }); });
    });
    var mine = rooms.rooms.filter(function (r) { return r.host === me.name; })[0];
    byId("host").hidden = !!mine;
    byId("unhost").hidden = !mine;
    byId("hosting").textContent = mine ? "Your room " + mine.room + " waits for someone to join." : "";
    byId("unhost").dataset.room = mine ? mine.room : "";
    var list = byId("rooms-list");
    list.textContent = "";
    rooms.rooms.forEach(function (r) {
      if (r.host === me.name) { return; }
      var li = list.appendChild(el("li", null, r.host + " hosts room " + r.room));
      li.dataset.room = r.room;
      var b = li.appendChild(el("button", "join-room", "Join"));
      b.type = "button";
      b.addEventListener("click", function () { friendly("POST", "/api/rooms/" + r.room + "/join", null); });
    });
  }

  /// Asks for a friendly game (or a room), then plays as soon as it comes.
  function friendly(method, path, body) {
    byId("friendly-error").textContent = "";
    api(method, path, body, me.token).then(function (r) {
      if (r.status >= 300) {
        byId("friendly-error").textContent = r.body && r.body.error ? r.body.error : "the server said " + r.status;
      } else if (method === "POST") {
        playing();
      }
      loadRooms();
    });
  }

  // --- Wiring ------------------------------------------------------------------------------

  /// Plays the games that come, one after another, until there are none.
  function playing() {
    me.playing = true;
    byId("play").disabled = true;
    byId("play").textContent = "Playing…";
    join();
  }

  byId("host").addEventListener("click", function () { friendly("POST", "/api/rooms", null); });
  byId("unhost").addEventListener("click", function () {
    friendly("DELETE", "/api/rooms/" + byId("unhost").dataset.room, null);
  });

  byId("signin").addEventListener("submit", function (e) {
    e.preventDefault();
    byId("signin-error").textContent = "";
    signIn(byId("token").value.trim(), true);
  });
  byId("register").addEventListener("submit", function (e) {
    e.preventDefault();
    byId("register-error").textContent = "";
    api("POST", "/api/register", { name: byId("reg-name").value.trim() }).then(function (r) {
      if (r.status !== 200) {
        byId("register-error").textContent = r.body && r.body.error ? r.body.error : "the server said " + r.status;
        return;
      }
      signedIn(r.body.name, r.body.token);
      byId("register").hidden = false;
      byId("register-go").disabled = true;
      byId("register-token").textContent = "Your token (keep it: it is shown only once): " + r.body.token;
    });
  });
  byId("my-move").addEventListener("submit", function (e) {
    e.preventDefault();
    var checked = me.check ? me.check() : [null, "nothing to play"];
    if (!checked[0]) { byId("my-error").textContent = checked[1]; return; }
    send(checked[0]);
  });
  byId("play").addEventListener("click", playing);
  byId("signout").addEventListener("click", signOut);
  setInterval(tick, 250);

  // The list of games is fetched whole when the stream (re)opens or missed events; after
  // that each game's start and end come as events.
  var refresh = throttle(loadGames, 250);
  var render = throttle(function () { tables(); syncCards(); loadTournament(); }, 250);
  var events = new EventSource("/api/events");
  events.addEventListener("open", refresh);
  events.addEventListener("lagged", refresh);
  events.addEventListener("game_started", function (e) {
    var d = JSON.parse(e.data);
    if (!d.players) { refresh(); return; }
    games[d.game] = { game: d.game, players: d.players, moves: 0, result: null,
      friendly: d.game > FRIENDLY };
    render();
  });
  events.addEventListener("game_over", function (e) {
    var d = JSON.parse(e.data);
    if (!games[d.game] || !d.result) { refresh(); return; }
    games[d.game].result = d.result;
    render();
  });
  events.addEventListener("rooms", function (e) { rooms = JSON.parse(e.data); showRooms(); });
  ["started", "closed"].forEach(function (name) { events.addEventListener(name, loadRooms); });
  ["connected", "registered", "started", "closed", "entrant_done"].forEach(function (name) {
    events.addEventListener(name, function () { loadTournament(); if (name === "closed") { render(); } });
  });
  events.addEventListener("move", function (e) {
    var d = JSON.parse(e.data);
    if (cards[d.game]) { cards[d.game].refresh(); }
    if (me.game === d.game) { poll(); }
  });

  var saved = sessionStorage.getItem("arena-token");
  loadTournament().then(function () {
    if (saved) { signIn(saved, false); }
    loadGames();
    loadRooms();
  });
}());
