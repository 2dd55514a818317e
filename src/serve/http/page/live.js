//! The live page of `arena serve`: the standings (counted as `standings.csv` counts them),
//! a gauntlet's grades, the cross-table and the games of the tournament as they happen (from
//! `/api/events`), finished games' replays in the report's viewer; the person's own games
//! are `play.js`'s.
(function () {
  "use strict";
  var P = window.ArenaPage;
  var byId = P.byId;
  var el = P.el;
  var api = P.api;
  var games = {};
  var cards = {};
  var standings = [];
  var tablesShown = null;
  var events = null;

  // --- The tournament: title, status, standings, grades, cross-table, games ---------------

  function loadTournament() {
    return api("GET", "/api/tournament").then(function (r) {
      if (r.status !== 200) { return; }
      var info = P.info = r.body;
      document.title = "arena · " + info.kind;
      byId("title").textContent = "arena · " + info.kind + " tournament";
      byId("register").hidden = !info.open || !!(P.me && P.me.name);
      var n = info.entrants.filter(function (e) { return e.connected; }).length;
      var names = info.entrants.map(function (e) {
        return e.name + (e.playing ? " ▶" : e.connected ? " ●" : " ○");
      });
      byId("entrants").textContent = info.entrants.length
        ? "Remote entrants (● waiting for a game, ▶ playing, ○ not connected): " + names.join(", ") : "";
      var ours = Object.keys(games).filter(function (id) { return !games[id].friendly; });
      var done = ours.filter(function (id) { return games[id].result; }).length;
      var live = ours.length - done;
      var waiting = info.open && !info.entrants.length ? "no one has registered yet."
        : n + " of " + info.entrants.length + " entrants connected.";
      byId("status").textContent = "Move time " + P.seconds(info.move_ms) + " (+ " +
        P.seconds(info.grace_ms) + " for the network). " +
        (info.closed ? "The tournament is over: every game is played (" + done + " here)."
          : info.started ? "Playing: " + done + " games finished, " + live + " under way."
            : "Waiting to start: " + waiting);
      tables();
    });
  }

  function loadStandings() {
    return api("GET", "/api/standings").then(function (r) {
      if (r.status === 200) { standings = r.body; tables(); }
    });
  }

  function loadGames() {
    return api("GET", "/api/games").then(function (r) {
      if (r.status !== 200) { return; }
      var next = {};
      r.body.forEach(function (g) { next[g.game] = g; P.play.seen(g); });
      games = next;
      tables();
      syncCards();
      loadTournament();
    });
  }

  /// Every player, ranked as the files rank them; players with no game yet (the local bots
  /// and a gauntlet's references, entrants) after them.
  function players() {
    var info = P.info || { bots: [], entrants: [], references: [] };
    var list = standings.map(function (s) { return s; });
    var known = {};
    list.forEach(function (s) { known[s.name] = true; });
    var add = function (name) {
      if (known[name]) { return; }
      known[name] = true;
      list.push({ rank: "", name: name, games: 0, wins: 0, draws: 0, losses: 0, points: 0 });
    };
    (info.bots || []).forEach(add);
    info.entrants.forEach(function (e) { add(e.name); });
    return list;
  }

  function table(id, heads, rows, named) {
    var t = byId(id);
    t.textContent = "";
    var head = t.appendChild(el("thead")).appendChild(el("tr"));
    heads.forEach(function (h, i) { head.appendChild(el("th", named.indexOf(i) >= 0 ? "name" : null, h)); });
    var body = t.appendChild(el("tbody"));
    rows.forEach(function (row) {
      var tr = body.appendChild(el("tr"));
      row.cells.forEach(function (c, j) {
        var td = tr.appendChild(el("td", named.indexOf(j) >= 0 ? "name" : null, c));
        if (row.titles && row.titles[j]) { td.title = row.titles[j]; }
        if (row.classes && row.classes[j]) { td.className += " " + row.classes[j]; }
      });
      Object.keys(row.data || {}).forEach(function (k) { tr.dataset[k] = row.data[k]; });
    });
    return t;
  }

  function tables() {
    var info = P.info;
    var list = players();
    var refs = info ? info.references || [] : [];
    var ids = Object.keys(games).filter(function (id) { return games[id].result; })
      .map(Number).sort(function (x, y) { return y - x; });
    // The tables are rebuilt only when what they show changed, so that a reader's click on
    // a row or a replay link is never lost to a rebuild of the same rows.
    var shown = JSON.stringify([list, ids.map(function (id) { return [id, games[id]]; }),
      info && [info.replays, info.grades, refs]]);
    if (shown === tablesShown) { return; }
    tablesShown = shown;
    table("standings", ["#", "Player", "Games", "Won", "Drawn", "Lost", "Points"], list.map(function (p) {
      return { cells: [p.rank, p.name, p.games, p.wins, p.draws, p.losses, p.points], data: { player: p.name } };
    }), [1]);
    var grades = info && info.grades;
    byId("grades-box").hidden = !grades;
    if (grades) {
      var t = table("grades", ["Candidate", "Grade", "Points", "Of", "Why"], grades.map(function (g) {
        return { cells: [g.candidate, g.grade, g.points, g.available, ""], data: { candidate: g.candidate },
          classes: [null, g.grade, null, null, "why"] };
      }), [0]);
      Array.prototype.forEach.call(t.querySelectorAll("tbody tr"), function (tr, i) {
        tr.lastChild.appendChild(P.code(grades[i].reason));
      });
    }
    cross(list, refs);
    finished(ids);
  }

  /// The cross-table: points of the row's player against the column's (a win 2, a draw 1)
  /// over the games played. In a gauntlet, only the pairings that are played: candidates
  /// against references.
  function cross(list, refs) {
    var vs = {};
    Object.keys(games).forEach(function (id) {
      var g = games[id];
      if (g.friendly || !g.result) { return; }
      var pa = g.result.winner === "first" ? 2 : g.result.winner === "draw" ? 1 : 0;
      [[0, 1, pa], [1, 0, 2 - pa]].forEach(function (x) {
        var key = g.players[x[0]] + "\n" + g.players[x[1]];
        var c = vs[key] || (vs[key] = { pts: 0, n: 0 });
        c.pts += x[2];
        c.n++;
      });
    });
    var isRef = function (p) { return refs.indexOf(p.name) >= 0; };
    var rows = refs.length ? list.filter(function (p) { return !isRef(p); }) : list;
    var cols = refs.length ? refs.map(function (r) { return { name: r }; }) : list;
    var t = table("cross", [""].concat(cols.map(function (p, i) { return refs.length ? p.name : i + 1; })),
      rows.map(function (p, i) {
        var cells = [(refs.length ? "" : (i + 1) + ". ") + p.name];
        var titles = [null];
        var classes = [null];
        cols.forEach(function (q) {
          var c = vs[p.name + "\n" + q.name];
          cells.push(p.name === q.name ? "" : c ? c.pts + "/" + c.n : "·");
          titles.push(p.name + " against " + q.name);
          classes.push(p.name === q.name ? "self" : null);
        });
        return { cells: cells, titles: titles, classes: classes, data: { player: p.name } };
      }), [0]);
    Array.prototype.forEach.call(t.querySelectorAll("thead th"), function (th, i) {
      if (i > 0) { th.title = cols[i - 1].name; }
    });
  }

  function finished(ids) {
    var fin = byId("finished");
    fin.textContent = "";
    if (!ids.length) { return; }
    var info = P.info;
    table("finished", ["Game", "First", "Second", "Score", "Winner", "Reason", ""], ids.slice(0, 200).map(function (id) {
      var g = games[id];
      var x = g.result;
      var winner = x.winner === "first" ? g.players[0] : x.winner === "second" ? g.players[1] : "draw";
      return { cells: [P.label(id), g.players[0], g.players[1], x.scores[0] + "–" + x.scores[1], winner, P.why(x), ""],
        data: { game: id } };
    }), [1, 2, 4]);
    if (info && info.replays) {
      Array.prototype.forEach.call(fin.querySelectorAll("tbody tr"), function (tr) {
        var a = tr.lastChild.appendChild(el("a", "replay", "replay"));
        a.href = "/api/games/" + tr.dataset.game + "/replay";
      });
    }
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
      card.appendChild(el("h3", null, P.label(id, true) + ": " + g.players[0] + " vs " + g.players[1]));
      var body = card.appendChild(el("div"));
      var status = card.appendChild(el("p", "card-status"));
      box.insertBefore(card, box.firstChild);
      cards[id] = { el: card, body: body, status: status };
      cards[id].refresh = P.throttle(function () {
        api("GET", "/api/games/" + id).then(function (r) {
          if (r.status === 200 && cards[id] && P.info) { P.draw(cards[id].body, r.body, cards[id].status); }
        });
      }, 300);
      cards[id].refresh();
    });
    Array.prototype.forEach.call(box.querySelectorAll("p.note"), function (p) { box.removeChild(p); });
    if (!ids.length) { box.appendChild(el("p", "note", P.info && P.info.closed ? "None: the tournament is over." : "None now.")); }
  }

  // --- Wiring ------------------------------------------------------------------------------

  // The list of games is fetched whole when the stream (re)opens or missed events; after
  // that each game's start and end come as events.
  var refresh = P.throttle(function () { loadGames(); loadStandings(); }, 250);
  var render = P.throttle(function () { tables(); syncCards(); loadTournament(); }, 250);

  /// After the last game the server closes: the stream's end is the tournament's.
  function ended() {
    if (!P.info || !P.info.closed || !events) { return false; }
    events.close();
    P.ended();
    byId("status").textContent = byId("status").textContent.replace(/\s*The server has closed\.$/, "") +
      " The server has closed.";
    return true;
  }

  events = new EventSource("/api/events");
  P.events = events;
  events.addEventListener("open", refresh);
  events.addEventListener("lagged", refresh);
  events.addEventListener("error", function () {
    if (!ended() && P.info && P.info.closed === false) {
      // Maybe closed since: asked once more before the stream tries again.
      loadTournament().then(ended, ended);
    }
  });
  events.addEventListener("game_started", function (e) {
    var d = JSON.parse(e.data);
    if (!d.players) { refresh(); return; }
    games[d.game] = { game: d.game, players: d.players, moves: 0, result: null,
      friendly: d.game > P.FRIENDLY };
    P.play.seen(games[d.game]);
    render();
  });
  events.addEventListener("game_over", function (e) {
    var d = JSON.parse(e.data);
    if (!games[d.game] || !d.result) { refresh(); return; }
    games[d.game].result = d.result;
    render();
  });
  events.addEventListener("standings", function (e) {
    standings = JSON.parse(e.data).standings || [];
    loadTournament();
  });
  events.addEventListener("rooms", function (e) { P.play.rooms(JSON.parse(e.data)); });
  ["started", "closed"].forEach(function (name) { events.addEventListener(name, P.play.loadRooms); });
  events.addEventListener("closed", function () { if (P.info) { P.info.closed = true; } });
  ["connected", "registered", "started", "closed", "entrant_done"].forEach(function (name) {
    events.addEventListener(name, function () { loadTournament(); if (name === "closed") { render(); } });
  });
  events.addEventListener("move", function (e) {
    var d = JSON.parse(e.data);
    if (cards[d.game]) { cards[d.game].refresh(); }
    if (games[d.game]) { P.play.seen(games[d.game]); }
    P.play.moved(d.game);
  });

  var saved = sessionStorage.getItem("arena-token");
  loadTournament().then(function () {
    if (saved) { P.play.signIn(saved, false); }
    loadGames();
    loadStandings();
    P.play.loadRooms();
  });
}());
