//! The person's own games on the live page: signing in or registering (the token shown once,
//! to keep), joining games one after another, the board of the game shown and its moves, and
//! every other game of theirs under way (a join whose answer was lost, another tab's), so
//! that no game of theirs runs unseen. Friendly games: play a bot, host a room, join one.
(function () {
  "use strict";
  var P = window.ArenaPage;
  var V = window.ArenaViews;
  var byId = P.byId;
  var el = P.el;
  var api = P.api;
  var rooms = { open: false, bots: [], rooms: [] };
  var roomsShown = null;
  /// `game`: the game shown; `others`: the person's other games under way, by id, each
  /// `{joined, state}`; `over`: the games whose result the page has shown.
  var me = { token: null, name: null, playing: false, joining: false, game: null, key: "",
    state: null, joined: null, fetched: 0, timer: null, others: {}, over: {} };
  /// The tournament is over and the server gone: nothing to retry.
  var ended = false;
  P.me = me;

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
        // Games under way (the page was reloaded, or a join's answer was lost): take them.
        adopt(r.body.games || []);
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

  /// The person's games under way as the server lists them: the first is shown if none is,
  /// the others are listed (and shown in turn), none is left unseen.
  function adopt(list) {
    var under = {};
    list.forEach(function (j) {
      if (me.over[j.game]) { return; }
      under[j.game] = true;
      if (j.game === me.game) { return; }
      if (!me.game) { playing(true); start(j); return; }
      if (!me.others[j.game]) { me.others[j.game] = { joined: j, state: null }; }
    });
    Object.keys(me.others).forEach(function (id) {
      if (!under[id] && !(me.others[id].state && me.others[id].state.result)) { delete me.others[id]; }
    });
    showOthers();
    if (!me.game) { next(); }
  }

  /// Asks the server which of the person's games are under way.
  var mine = P.throttle(function () {
    if (!me.token || ended) { return; }
    api("GET", "/api/me", null, me.token).then(function (r) {
      if (r.status === 200) { adopt(r.body.games || []); }
    }, function () {});
  }, 500);
  P.mine = mine;

  /// The person's other games under way, each with a button to show it.
  function showOthers() {
    var box = byId("my-others");
    var ids = Object.keys(me.others).map(Number).sort(function (x, y) { return x - y; });
    box.hidden = !ids.length;
    box.textContent = "";
    if (!ids.length) { return; }
    box.appendChild(document.createTextNode("Your other games under way: "));
    ids.forEach(function (id) {
      var s = me.others[id].state;
      var b = box.appendChild(el("button", "other-game", P.label(id, true) +
        (s && s.turn === "you" ? " (your move)" : s && s.result ? " (over)" : "")));
      b.type = "button";
      b.dataset.game = id;
      b.addEventListener("click", function () { switchTo(id); });
    });
  }

  /// Shows game `id`, keeping the one shown among the others if it is not over.
  function switchTo(id) {
    var o = me.others[id];
    if (!o) { return; }
    delete me.others[id];
    if (me.game && !(me.state && me.state.result)) {
      me.others[me.game] = { joined: me.joined, state: me.state };
    }
    start(o.joined);
    if (o.state) { show(o.state); }
    showOthers();
  }

  /// After a game: the next game of the person under way, or a join for a new one.
  function next() {
    if (me.game) { return; }
    var ids = Object.keys(me.others).map(Number).sort(function (x, y) { return x - y; });
    if (ids.length) { switchTo(ids[0]); return; }
    join();
  }

  function join() {
    if (!me.playing || me.joining || me.game || ended) { return; }
    me.joining = true;
    byId("mygame").hidden = false;
    if (!me.state) { myStatus("Waiting for your next game…"); }
    api("POST", "/api/join", null, me.token).then(function (r) {
      me.joining = false;
      if (r.status === 200) {
        if (me.game) {
          // A game found meanwhile is shown: this one waits among the others.
          if (r.body.game !== me.game && !me.others[r.body.game]) {
            me.others[r.body.game] = { joined: r.body, state: null };
            showOthers();
          }
          return;
        }
        delete me.others[r.body.game];
        // A game whose result is shown already (its end not yet known to the server's join).
        if (me.over[r.body.game]) { setTimeout(next, 500); return; }
        start(r.body);
      }
      else if (r.status === 204) { next(); }
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
        setTimeout(next, 3000);
      }
    }, function () {
      me.joining = false;
      if (gone()) { return; }
      myStatus("The server cannot be reached. Trying again…");
      setTimeout(next, 3000);
    });
  }

  /// Whether the server is gone after the tournament's end (then the page says so).
  function gone() {
    if (!P.info || !P.info.closed) { return false; }
    ended = true;
    clearTimeout(me.timer);
    myStatus((me.state && me.state.result ? byId("my-status").textContent + " " : "") + "The tournament is over.");
    return true;
  }
  P.ended = gone;

  function start(joined) {
    me.game = joined.game;
    me.joined = joined;
    me.seat = joined.seat;
    me.key = "";
    me.state = null;
    delete byId("my-status").dataset.result;
    byId("mygame").hidden = false;
    byId("my-title").textContent = P.label(joined.game, true) + ": you play " +
      (joined.seat === "first" ? "first" : "second") + " against " + joined.opponent +
      " (" + P.seconds(joined.move_ms) + " a move)";
    // The board comes into view, wherever the person had scrolled to.
    byId("mygame").scrollIntoView({ block: "start" });
    poll();
  }

  function poll() {
    clearTimeout(me.timer);
    pollOthers();
    if (!me.game) { return; }
    var id = me.game;
    api("GET", "/api/games/" + id, null, me.token).then(function (r) {
      if (me.game !== id) { return; }
      if (r.status === 200) { show(r.body); }
      if (me.game) { me.timer = setTimeout(poll, me.state && me.state.turn === "you" ? 1000 : 400); }
    }, function () {
      if (me.game !== id || gone()) { return; }
      myStatus("The server cannot be reached (it may have closed). Trying again…");
      me.timer = setTimeout(poll, 2000);
    });
  }

  /// The other games' states: one that waits for the person's move is shown at once when
  /// the game shown does not.
  var pollOthers = P.throttle(function () {
    Object.keys(me.others).forEach(function (id) {
      api("GET", "/api/games/" + id, null, me.token).then(function (r) {
        var o = me.others[id];
        if (!o || r.status !== 200) { return; }
        o.state = r.body;
        if (r.body.turn === "you" && !(me.state && me.state.turn === "you")) {
          if (me.state && me.state.result) { me.game = null; }
          switchTo(Number(id));
        } else { showOthers(); }
      }, function () {});
    });
  }, 900);

  function show(state) {
    me.state = state;
    me.fetched = Date.now();
    var key = state.moves.length + " " + state.turn + " " + state.request + " " + !!state.result;
    if (key !== me.key) {
      me.key = key;
      var status = el("p", "card-status");
      P.draw(byId("my-board"), state, status);
      byId("my-board").appendChild(status);
      byId("my-board").dataset.moves = String(state.moves.length);
      byId("my-board").dataset.game = String(state.game);
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
    me.over[state.game] = true;
    me.game = null;
    clearTimeout(me.timer);
    var x = state.result;
    var mine = state.seat;
    var verdict = x.winner === "draw" ? "Draw" : x.winner === mine ? "You won" : "You lost";
    myStatus(verdict + ", " + x.scores[0] + "–" + x.scores[1] + " (" +
      (x.reason === "normal" ? "by the rules" : P.why(x)) + ").");
    byId("my-status").dataset.result = verdict;
    // Another game under way is shown at once; a new one is asked for after a moment.
    if (Object.keys(me.others).length) { next(); } else if (me.playing) { setTimeout(next, 1500); }
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

  /// Plays the games that come, one after another, until there are none; `quiet`: a game
  /// is about to be shown, no join.
  function playing(quiet) {
    me.playing = true;
    byId("play").disabled = true;
    byId("play").textContent = "Playing…";
    if (!quiet) { next(); }
  }

  // --- The token of a new entrant: shown once, to keep ---------------------------------------

  function showToken(token) {
    byId("token-value").textContent = token;
    byId("token-box").hidden = false;
    byId("token-copied").textContent = "";
  }

  function copyToken() {
    var token = byId("token-value").textContent;
    var said = function (ok) {
      byId("token-copied").textContent = ok ? "Copied." : "Select it and copy it by hand.";
    };
    var selectIt = function () {
      var range = document.createRange();
      range.selectNodeContents(byId("token-value"));
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      said(ok);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(token).then(function () { said(true); }, selectIt);
    } else { selectIt(); }
  }

  // --- Wiring ------------------------------------------------------------------------------

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
      showToken(r.body.token);
    });
  });
  byId("token-copy").addEventListener("click", copyToken);
  byId("token-kept").addEventListener("click", function () {
    byId("token-box").hidden = true;
    byId("token-value").textContent = "";
  });
  byId("my-move").addEventListener("submit", function (e) {
    e.preventDefault();
    var checked = me.check ? me.check() : [null, "nothing to play"];
    if (!checked[0]) { byId("my-error").textContent = checked[1]; return; }
    send(checked[0]);
  });
  byId("play").addEventListener("click", function () { playing(); });
  byId("signout").addEventListener("click", signOut);
  setInterval(tick, 250);
  // The server is asked now and then which games are the person's: a game given to a join
  // whose answer never came (a reload, another tab) is found even with no event for it.
  setInterval(function () { if (me.name) { mine(); } }, 2000);

  P.play = {
    signIn: signIn,
    loadRooms: loadRooms,
    rooms: function (r) { rooms = r; showRooms(); },
    /// A game started or moved: if it is the person's and not shown, find it.
    seen: function (g) {
      if (me.name && P.plays(g, me.name) && g.game !== me.game && !me.over[g.game] && !me.others[g.game]) { mine(); }
    },
    moved: function (id) { if (me.game === id) { poll(); } else if (me.others[id]) { pollOthers(); } }
  };
}());
