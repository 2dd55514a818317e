//! The replay viewer of report.html: a link of class `replay` opens its game in a dialog,
//! stepped through with the buttons, the slider or the arrow keys. Othello and Gomoku boards
//! are computed here from the moves; Numer0n shows the calls with their EAT and BITE, Morra
//! the rounds with the running score. Replays are embedded in the page or fetched beside it.
//! The views are also `window.ArenaViews`, for the live page of `arena serve`.
(function () {
  "use strict";
  var dialog = document.getElementById("viewer");
  var byId = function (id) { return document.getElementById(id); };
  var slider = byId("v-step");
  var view = null;
  var step = 0;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  function row(cells, cls) {
    var tr = el("tr", cls);
    cells.forEach(function (c) {
      tr.appendChild(typeof c === "object" ? c : el("td", null, c));
    });
    return tr;
  }

  function load(href) {
    var embedded = window.ARENA_REPLAYS || {};
    if (Object.prototype.hasOwnProperty.call(embedded, href)) {
      return Promise.resolve(embedded[href]);
    }
    return fetch(href).then(function (r) {
      if (!r.ok) { throw new Error("the server answered " + r.status); }
      return r.text();
    });
  }

  function parse(text) {
    var replay = { header: null, moves: [], result: null };
    text.split("\n").forEach(function (line) {
      if (line.trim() === "") { return; }
      var o;
      try { o = JSON.parse(line); } catch (e) { return; }
      if (!replay.header && o.game !== undefined) {
        // Seeds are 64-bit: keep their digits, which a JavaScript number would round.
        var seed = /"seed":(\d+)/.exec(line);
        if (seed) { o.seed = seed[1]; }
        replay.header = o;
      }
      else if (o.seat !== undefined) { replay.moves.push(o); }
      else if (o.result !== undefined) { replay.result = o; }
    });
    if (!replay.header) { throw new Error("this is not a replay"); }
    return replay;
  }

  function bot(r, seat) { return seat === "a" ? r.header.bot_a : r.header.bot_b; }

  /// What an exchange that got no reply says: `timeout`, and the fault if it lost the game.
  function failure(m) {
    return m.failure + (m.fault ? " (" + m.fault + ")" : "");
  }

  // Boards: Othello 8x8 and Gomoku 15x15, a1 first in the protocol's board strings.
  var DIRS = [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1], [-1, 1], [-1, -1]];

  function point(reply, size) {
    var m = /^\s*([a-zA-Z])(\d+)\s*$/.exec(reply || "");
    if (!m) { return -1; }
    var x = m[1].toLowerCase().charCodeAt(0) - 97;
    var y = parseInt(m[2], 10) - 1;
    return x >= 0 && x < size && y >= 0 && y < size ? y * size + x : -1;
  }

  function flip(board, at, me) {
    var them = me === "X" ? "O" : "X";
    var x0 = at % 8;
    var y0 = (at - x0) / 8;
    board[at] = me;
    DIRS.forEach(function (d) {
      var run = [];
      var x = x0 + d[0];
      var y = y0 + d[1];
      while (x >= 0 && x < 8 && y >= 0 && y < 8 && board[y * 8 + x] === them) {
        run.push(y * 8 + x);
        x += d[0];
        y += d[1];
      }
      if (run.length && x >= 0 && x < 8 && y >= 0 && y < 8 && board[y * 8 + x] === me) {
        run.forEach(function (i) { board[i] = me; });
      }
    });
  }

  function boardGame(r, size, othello) {
    var names = { X: "black", O: "white" };
    var first = r.moves.length && r.moves[0].request ? r.moves[0].request[0] : "";
    var start = first.length === size * size ? first.split("") : [];
    if (!start.length) {
      for (var i = 0; i < size * size; i++) { start.push("."); }
      if (othello) { start[27] = "O"; start[28] = "X"; start[35] = "X"; start[36] = "O"; }
    }
    var states = [{ board: start, last: -1 }];
    r.moves.forEach(function (m, k) {
      var before = m.request && m.request[0] && m.request[0].length === size * size
        ? m.request[0].split("") : states[k].board.slice();
      var stone = m.request && m.request[1] ? m.request[1] : (m.seat === "a" ? "X" : "O");
      var at = m.reply !== undefined ? point(m.reply, size) : -1;
      var board = before.slice();
      if (at >= 0 && board[at] === ".") {
        if (othello) { flip(board, at, stone); } else { board[at] = stone; }
      }
      states.push({ board: board, last: at, stone: stone });
    });
    return {
      steps: r.moves.length,
      draw: function (n, body, status) {
        var s = states[n];
        var grid = el("div", "board " + (othello ? "othello" : "gomoku"));
        grid.style.gridTemplateColumns = "1.4em repeat(" + size + ", 1fr)";
        for (var y = size - 1; y >= 0; y--) {
          grid.appendChild(el("span", "coord", y + 1));
          for (var x = 0; x < size; x++) {
            var cell = el("div", "cell" + (y * size + x === s.last ? " last" : ""));
            cell.title = String.fromCharCode(97 + x) + (y + 1);
            var c = s.board[y * size + x];
            if (c === "X" || c === "O") { cell.appendChild(el("span", "stone " + names[c])); }
            grid.appendChild(cell);
          }
        }
        grid.appendChild(el("span", "coord"));
        for (var f = 0; f < size; f++) {
          grid.appendChild(el("span", "coord", String.fromCharCode(97 + f)));
        }
        body.appendChild(grid);
        var count = { X: 0, O: 0 };
        s.board.forEach(function (c) { if (count[c] !== undefined) { count[c]++; } });
        var line = othello
          ? "● " + r.header.bot_a + " " + count.X + " · ○ " + r.header.bot_b + " " + count.O
          : "● " + r.header.bot_a + " · ○ " + r.header.bot_b;
        if (n === 0) {
          status.textContent = "Start" + (r.header.opening && r.header.opening.length
            ? " (after the opening " + r.header.opening.join(" ") + ")" : "") + ". " + line;
          return;
        }
        var m = r.moves[n - 1];
        var who = (states[n].stone === "X" ? "● " : "○ ") + bot(r, m.seat);
        status.textContent = who + (m.reply !== undefined ? " plays " + m.reply : ": " + failure(m)) +
          (m.fault && m.reply !== undefined ? " — " + m.fault : "") + " (" + m.ms + " ms). " + line;
      }
    };
  }

  function numeron(r) {
    var secrets = {};
    r.moves.forEach(function (m) {
      if (m.request && m.request[0] === "secret" && m.reply !== undefined) { secrets[m.seat] = m.reply; }
    });
    var answer = function (call, secret) {
      var eat = 0;
      var bite = 0;
      if (!secret) { return ["", ""]; }
      for (var i = 0; i < call.length; i++) {
        if (secret[i] === call[i]) { eat++; } else if (secret.indexOf(call[i]) >= 0) { bite++; }
      }
      return [eat, bite];
    };
    return {
      steps: r.moves.length,
      draw: function (n, body, status) {
        var table = el("table", "v-table numeron");
        table.appendChild(el("thead")).appendChild(row(
          ["#", "Bot", "Call", "EAT", "BITE"].map(function (h) { return el("th", null, h); })));
        var tbody = table.appendChild(el("tbody"));
        var calls = 0;
        r.moves.slice(0, n).forEach(function (m, k) {
          var cls = "call" + (k === n - 1 ? " now" : "");
          if (m.reply === undefined) {
            tbody.appendChild(row(["", bot(r, m.seat), failure(m), "", ""], cls + " bad"));
          } else if (m.request && m.request[0] === "secret") {
            tbody.appendChild(row(["", bot(r, m.seat), "hides " + m.reply, "", ""], cls + " secret"));
          } else {
            calls++;
            // A live game's answers come from the server (the secrets are hidden until the end).
            var note = /^(\d+) EAT (\d+) BITE$/.exec(m.note || "");
            var eb = note ? [+note[1], +note[2]] : answer(m.reply, secrets[m.seat === "a" ? "b" : "a"]);
            var hit = eb[0] === m.reply.length;
            tbody.appendChild(row([calls, bot(r, m.seat), m.reply, eb[0], eb[1]], cls + (hit ? " hit" : "")));
          }
        });
        body.appendChild(table);
        status.textContent = "Secrets: " + r.header.bot_a + " " + (secrets.a || "?") + " · " +
          r.header.bot_b + " " + (secrets.b || "?") + ". EAT: right digit in the right place; " +
          "BITE: right digit in the wrong place.";
      }
    };
  }

  function morra(r) {
    var rounds = [];
    var score = [0, 0];
    for (var i = 0; i < r.moves.length; i += 2) {
      var pair = [r.moves[i], r.moves[i + 1]];
      var t = pair.map(function (m) {
        if (!m || m.reply === undefined) { return null; }
        var p = m.reply.trim().split(/\s+/).map(Number);
        return { choice: p[0], guess: p[1] };
      });
      var pts = [0, 0];
      if (t[0] && t[1]) {
        var aRight = t[0].guess === t[1].choice;
        var bRight = t[1].guess === t[0].choice;
        var sum = t[0].choice + t[1].choice;
        if (aRight && !bRight) { pts[0] = sum; }
        if (bRight && !aRight) { pts[1] = sum; }
      }
      score = [score[0] + pts[0], score[1] + pts[1]];
      rounds.push({ pair: pair, t: t, pts: pts, score: score.slice() });
    }
    var cell = function (x, key, m) {
      return x ? x[key] : (key === "choice" && m ? failure(m) : "");
    };
    return {
      steps: rounds.length,
      draw: function (n, body, status) {
        var table = el("table", "v-table morra");
        table.appendChild(el("thead")).appendChild(row(["Round",
          r.header.bot_a + " shows", "guesses", r.header.bot_b + " shows", "guesses",
          "points", "score"].map(function (h) { return el("th", null, h); })));
        var tbody = table.appendChild(el("tbody"));
        for (var k = Math.max(0, n - 15); k < n; k++) {
          var x = rounds[k];
          tbody.appendChild(row([k + 1, cell(x.t[0], "choice", x.pair[0]), cell(x.t[0], "guess"),
            cell(x.t[1], "choice", x.pair[1]), cell(x.t[1], "guess"),
            x.pts[0] + "–" + x.pts[1], x.score[0] + "–" + x.score[1]],
            "round" + (k === n - 1 ? " now" : "") + (x.pts[0] || x.pts[1] ? " hit" : "")));
        }
        body.appendChild(table);
        var s = n ? rounds[n - 1].score : [0, 0];
        status.textContent = "Score after " + n + " of " + rounds.length + " rounds: " +
          r.header.bot_a + " " + s[0] + ", " + r.header.bot_b + " " + s[1] +
          ". Whoever alone guessed the other's number scores the sum of both.";
      }
    };
  }

  function duration(ms) {
    return ms >= 1000 && ms % 1000 === 0 ? ms / 1000 + " s" : ms + " ms";
  }

  function describe(r) {
    var x = r.result;
    if (!x) { return "The game did not finish (the controller was stopped)."; }
    var winner = x.result === "a" ? r.header.bot_a + " won" : x.result === "b" ? r.header.bot_b + " won" : "Draw";
    var why = x.reason === "normal" ? "by the rules" : x.reason + (x.culprit === "both" ? " by both"
      : x.culprit ? " by " + bot(r, x.culprit) : "");
    return "Result: " + winner + ", " + x.score_a + "–" + x.score_b + " (" + why + ").";
  }

  /// The view of a replay: `steps` and `draw(step, body, status)`.
  function viewOf(r) {
    var kinds = { othello: function () { return boardGame(r, 8, true); },
      gomoku: function () { return boardGame(r, 15, false); },
      numeron: function () { return numeron(r); }, morra: function () { return morra(r); } };
    if (!kinds[r.header.game]) { throw new Error("unknown game " + r.header.game); }
    return kinds[r.header.game]();
  }

  function show(n) {
    if (!view) { return; }
    step = Math.max(0, Math.min(view.steps, n));
    slider.value = String(step);
    byId("v-pos").textContent = step + " / " + view.steps;
    var body = byId("v-body");
    body.textContent = "";
    view.draw(step, body, byId("v-status"));
    byId("v-first").disabled = byId("v-prev").disabled = step === 0;
    byId("v-last").disabled = byId("v-next").disabled = step === view.steps;
  }

  function open(href) {
    view = null;
    byId("v-title").textContent = "Replay";
    byId("v-sub").textContent = "";
    byId("v-status").textContent = "Loading " + href + "…";
    byId("v-body").textContent = "";
    byId("v-result").textContent = "";
    byId("v-pos").textContent = "";
    if (!dialog.open) { dialog.showModal(); }
    load(href).then(parse).then(function (r) {
      var h = r.header;
      view = viewOf(r);
      byId("v-title").textContent = h.game + " · game " + h.game_id + ": " + h.bot_a + " vs " + h.bot_b;
      byId("v-sub").textContent = "Round " + h.round + " · seed " + h.seed + " · move time " +
        duration(h.move_time_ms) + " · run " + h.run;
      byId("v-result").textContent = describe(r);
      var raw = el("a", null, "raw replay");
      raw.href = href;
      byId("v-result").appendChild(document.createTextNode(" "));
      byId("v-result").appendChild(raw);
      slider.max = String(view.steps);
      show(0);
    }).catch(function (e) {
      var status = byId("v-status");
      status.textContent = "Cannot show " + href + ": " + e.message + ". " +
        (location.protocol === "file:" ? "Browsers do not let a page opened from a file read " +
          "other files: serve the report's directory over HTTP (e.g. python3 -m http.server) " +
          "or open the " : "Open the ");
      var raw = el("a", null, "raw replay");
      raw.href = href;
      status.appendChild(raw);
    });
  }

  window.ArenaViews = { parse: parse, of: viewOf, describe: describe, flip: flip, point: point };
  if (!dialog) {
    return;
  }
  document.addEventListener("click", function (e) {
    var a = e.target.closest ? e.target.closest("a.replay") : null;
    if (!a || e.ctrlKey || e.metaKey || e.shiftKey) { return; }
    e.preventDefault();
    open(a.getAttribute("href"));
  });
  byId("v-first").addEventListener("click", function () { show(0); });
  byId("v-prev").addEventListener("click", function () { show(step - 1); });
  byId("v-next").addEventListener("click", function () { show(step + 1); });
  byId("v-last").addEventListener("click", function () { show(view ? view.steps : 0); });
  byId("v-close").addEventListener("click", function () { dialog.close(); });
  slider.addEventListener("input", function () { show(parseInt(slider.value, 10)); });
  document.addEventListener("keydown", function (e) {
    if (!dialog.open || !view || e.target === slider) { return; }
    var to = { ArrowRight: step + 1, ArrowLeft: step - 1, Home: 0, End: view.steps }[e.key];
    if (to === undefined) { return; }
    e.preventDefault();
    show(to);
  });
}());
