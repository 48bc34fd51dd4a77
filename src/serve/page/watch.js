// The referee's watch page: read-only. It listens to the run's state as
// Server-Sent Events (`/events`, one JSON object per change; the same object
// is at `/state`) and draws it: progress, the pairings with Elo, the
// crosstable, the boards of the games in progress and the last results.
// Stable hooks for tests and tools: `#status[data-run-state]` (starting,
// running, finished, interrupted), `#progress-text[data-done][data-total]`,
// one `.game[data-game]` per game in progress with its board's cells
// (`data-row`/`data-col`, stones `data-stone`), `#pairings` rows
// `[data-pairing="A vs B"]`.

import { Board } from "./board.js";

const $ = (id) => document.getElementById(id);

/** Boards of the games on the page, by game index. */
const boards = new Map();

function text(tag, content, attrs = {}) {
  const el = document.createElement(tag);
  el.textContent = content;
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  return el;
}

function clock(seconds) {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const two = (n) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

function pct(x) {
  return `${(x * 100).toFixed(1)} %`;
}

function drawHead(view) {
  const s = view.summary;
  if (!s) return;
  const b = s.board;
  const names = s.engines.map((e) => e.name).join(", ");
  $("head").textContent =
    `${b.rows}x${b.cols}, ${b.k} in a row (${b.rule}) · seed ${view.seed} · ${names}`;
}

function drawProgress(view) {
  const states = {
    starting: "Starting the engines…",
    running: "Running",
    finished: "Finished",
    interrupted: "Interrupted",
  };
  $("status").dataset.runState = view.state;
  $("status").textContent = states[view.state] ?? view.state;
  const bar = $("progress");
  bar.max = Math.max(view.total, 1);
  bar.value = view.done;
  const parts = [`${view.done} of ${view.total} games`];
  if (view.resumed > 0) parts.push(`${view.resumed} resumed`);
  parts.push(view.rate);
  if (view.eta_seconds != null) parts.push(`ETA ${clock(view.eta_seconds)}`);
  else if (view.state !== "running") parts.push(`in ${clock(view.seconds)}`);
  const t = $("progress-text");
  t.textContent = parts.join(" · ");
  t.dataset.done = view.done;
  t.dataset.total = view.total;
}

function drawPairings(view) {
  const body = $("pairings").tBodies[0];
  const rows = (view.summary?.pairings ?? []).map((p) => {
    const tr = document.createElement("tr");
    tr.dataset.pairing = `${p.a} vs ${p.b}`;
    const score = p.games > 0 ? (p.a_wins + p.draws / 2) / p.games : null;
    const faults = Object.entries(p.faults).map(([r, n]) => `${r} ${n}`).join(", ");
    const elo = p.elo == null ? "" : `${p.elo >= 0 ? "+" : ""}${p.elo.toFixed(1)} ± ${p.elo_error.toFixed(1)}`;
    for (const cell of [
      `${p.a} vs ${p.b}`,
      p.games,
      p.a_wins,
      p.draws,
      p.b_wins,
      score == null ? "" : pct(score),
      elo,
      p.los == null ? "" : pct(p.los),
      faults || "none",
    ]) {
      tr.append(text("td", String(cell)));
    }
    return tr;
  });
  body.replaceChildren(...rows);
}

/** With three or more engines: each row's score against each column. */
function drawCrosstable(view) {
  const s = view.summary;
  const n = s?.engines.length ?? 0;
  $("cross-box").hidden = n < 3;
  if (n < 3) return;
  const names = s.engines.map((e) => e.name);
  const score = new Map(); // "a|b" -> [points, games] for a
  const points = new Map(names.map((x) => [x, [0, 0]]));
  for (const p of s.pairings) {
    const a = p.a_wins + p.draws / 2;
    const b = p.b_wins + p.draws / 2;
    score.set(`${p.a}|${p.b}`, [a, p.games]);
    score.set(`${p.b}|${p.a}`, [b, p.games]);
    points.get(p.a)[0] += a;
    points.get(p.a)[1] += p.games;
    points.get(p.b)[0] += b;
    points.get(p.b)[1] += p.games;
  }
  const order = [...names].sort((x, y) => {
    const [px, gx] = points.get(x);
    const [py, gy] = points.get(y);
    return (gy ? py / gy : 0) - (gx ? px / gx : 0);
  });
  const table = $("crosstable");
  const head = document.createElement("tr");
  head.append(text("th", "engine"), text("th", "score"));
  for (const x of order) head.append(text("th", x));
  const rows = order.map((row) => {
    const tr = document.createElement("tr");
    const [pts, games] = points.get(row);
    tr.append(text("td", row), text("td", games ? `${pts} / ${games}` : ""));
    for (const col of order) {
      const sc = score.get(`${row}|${col}`);
      tr.append(text("td", row === col ? "—" : sc && sc[1] ? `${sc[0]} / ${sc[1]}` : ""));
    }
    return tr;
  });
  table.replaceChildren(head, ...rows);
}

function drawGames(view) {
  const host = $("games");
  const b = view.summary?.board;
  const live = new Set(view.playing.map((g) => g.game));
  for (const [game, entry] of boards) {
    if (!live.has(game)) {
      entry.tile.remove();
      boards.delete(game);
    }
  }
  for (const g of view.playing) {
    let entry = boards.get(g.game);
    if (!entry) {
      const tile = document.createElement("article");
      tile.className = "game";
      tile.dataset.game = g.game;
      const title = text("p", "");
      const wrap = document.createElement("div");
      wrap.className = "board-wrap";
      tile.append(title, wrap);
      host.append(tile);
      entry = { tile, title, board: new Board(wrap, b.rows, b.cols) };
      boards.set(g.game, entry);
    }
    const all = [...g.opening, ...g.moves];
    // X moves first, openings included.
    const moves = all.map(([row, col], i) => ({ row, col, side: i % 2 === 0 ? "X" : "O" }));
    entry.board.setMoves(moves);
    entry.title.textContent = `game ${g.game + 1}: ${g.x} (X) vs ${g.o} (O) · ${all.length} stones`;
  }
  // Games in schedule order.
  const tiles = [...boards.entries()].sort((a, b) => a[0] - b[0]).map(([, e]) => e.tile);
  host.replaceChildren(...tiles);
  $("playing-count").textContent = view.playing.length ? `(${view.playing.length})` : "";
}

function drawRecent(view) {
  const items = view.recent.map((r) => {
    const result =
      r.result === "draw" ? "draw" : `${r.result === "x" ? r.x : r.o} won`;
    const how = r.reason === "win" || r.reason === "draw" ? "" : ` (${r.fault_by} ${r.reason})`;
    return text("li", `game ${r.game + 1}: ${r.x} (X) vs ${r.o} (O): ${result}${how}, ${r.plies} moves`, {
      "data-game": r.game,
      "data-result": r.result,
    });
  });
  $("recent").replaceChildren(...items);
}

function draw(view) {
  drawHead(view);
  drawProgress(view);
  drawPairings(view);
  drawCrosstable(view);
  drawGames(view);
  drawRecent(view);
  $("report").textContent = view.report ?? "";
}

function setConnection(state) {
  $("connection").dataset.state = state;
  $("connection").textContent = {
    connecting: "connecting…",
    open: "live",
    ended: "the run has ended",
    lost: "disconnected (the referee may have ended)",
  }[state];
}

function connect() {
  const events = new EventSource("/events");
  let over = false;
  events.onopen = () => setConnection("open");
  events.onmessage = (message) => {
    const view = JSON.parse(message.data);
    draw(view);
    if (view.state === "finished" || view.state === "interrupted") {
      // Nothing more will come: no reconnecting to a referee that ends.
      over = true;
      events.close();
      setConnection("ended");
    }
  };
  events.onerror = () => {
    if (!over) setConnection(events.readyState === EventSource.CLOSED ? "lost" : "connecting");
  };
}

connect();
