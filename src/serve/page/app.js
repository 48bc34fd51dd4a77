// The page: a GUI that drives a kinrow session through the protocol.
//
// What it sends, and when:
//   players                                   once, to fill the player menus
//   seat X …, seat O …, newgame R C K RULE    at each new game
//   move R C + status                         when a person clicks a cell
//   genmove + status                          when an engine is to move
//   undo (once per move taken back) + status  on Undo
//   # interrupt                               on New game or Undo while an engine thinks
// It keeps the list of moves itself (as any GUI does) and takes the verdict
// from `status`, whose text it also puts in `data-status` for tools.

import { Connection, Failure, parseStatus } from "./protocol.js";
import { Board } from "./board.js";

const $ = (id) => document.getElementById(id);

const PRESETS = {
  "3x3k3": [3, 3, 3],
  "4x4k4": [4, 4, 4],
  "5x5k4": [5, 5, 4],
  "15x15k5": [15, 15, 5],
  "16x16k5": [16, 16, 5],
  "15x15renju": [15, 15, 5, "renju"],
  "15x15caro": [15, 15, 5, "caro"],
};

const game = {
  conn: null,
  // Bumped at every new game: answers that belong to an older one are dropped.
  gen: 0,
  started: false,
  shape: null, // {rows, cols, k, rule}
  seats: null, // {X: {value, movetime, label}, O: …}
  moves: [], // {row, col, side}
  statusText: "",
  status: null,
  thinking: false,
  busy: false,
  paused: false,
  timer: null,
  board: null,
  counted: null, // this game's result once it is in the score
  forbidden: [], // renju: the cells forbidden to X while X is to move, [{row, col, kind}]
  forbiddenAsk: 0, // bumped at every position: older answers are dropped
};

/** Why a kind of forbidden cell is forbidden, in plain words. */
const FORBIDDEN_WORDS = {
  overline: "six or more in a row (an overline)",
  "double-four": "two fours at once (a double-four)",
  "double-three": "two open threes at once (a double-three)",
};

// The running score between two participants, across games and swaps.
const score = { key: "", names: ["", ""], wins: [0, 0], draws: 0, aIsX: true };

const wsUrl = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;

// ---------------------------------------------------------------- settings

function readShape() {
  const preset = $("preset").value;
  if (PRESETS[preset]) {
    const [rows, cols, k, rule = "free"] = PRESETS[preset];
    return { rows, cols, k, rule };
  }
  const rows = Number($("rows").value);
  const cols = Number($("cols").value);
  const k = Number($("k").value);
  const whole = (v, max) => Number.isInteger(v) && v >= 1 && v <= max;
  if (!whole(rows, 32) || !whole(cols, 32)) {
    throw new Error("Rows and columns must be whole numbers from 1 to 32.");
  }
  if (!whole(k, Math.max(rows, cols))) {
    throw new Error(`In a row must be from 1 to ${Math.max(rows, cols)} on this board.`);
  }
  return { rows, cols, k, rule: $("rule").value };
}

function readSeat(side) {
  const select = $(`seat-${side}`);
  const value = select.value;
  const movetime = Math.round(Number($(`time-${side}`).value));
  if (value !== "human" && !(movetime >= 1 && movetime <= 60000)) {
    throw new Error(`The time per move for ${side} must be from 1 to 60000 ms.`);
  }
  const option = select.selectedOptions[0];
  return { value, movetime, label: option.dataset.label ?? option.textContent };
}

function seatLine(side, seat) {
  if (seat.value === "human") return `seat ${side} human`;
  const [kind, name] = seat.value.split(":");
  return `seat ${side} ${kind} ${name} ${seat.movetime}`;
}

const isPerson = (side) => game.seats[side].value === "human";

/** "X (minimax)", "O (you)". */
function who(side) {
  const people = ["X", "O"].filter(isPerson).length;
  if (isPerson(side)) return people === 2 ? `${side}` : `${side} (you)`;
  return `${side} (${game.seats[side].label})`;
}

function fillPlayers(text) {
  for (const side of ["X", "O"]) {
    const select = $(`seat-${side}`);
    const keep = select.value;
    select.replaceChildren();
    for (const line of text.split("\n")) {
      const [kind, name] = line.trim().split(/\s+/);
      const option = document.createElement("option");
      if (kind === "human") {
        option.value = "human";
        option.textContent = "Person";
      } else if (kind === "bot" || kind === "engine") {
        option.value = `${kind}:${name}`;
        option.textContent = kind === "bot" ? `${name} (bot)` : `${name} (engine)`;
        option.dataset.label = name;
      } else continue;
      select.append(option);
    }
    // At first: you (X) against minimax (O), as `kinrow play` starts.
    const wanted = game.started ? keep : side === "O" ? "bot:minimax" : "human";
    if (select.querySelector(`option[value="${CSS.escape(wanted)}"]`)) select.value = wanted;
    showMovetime(side);
  }
}

function showMovetime(side) {
  const person = $(`seat-${side}`).value === "human";
  $(`time-${side}`).closest(".movetime").hidden = person;
}

// ------------------------------------------------------------------ score

function updateScoreFor(shape, seats) {
  const shapeKey = `${shape.rows}x${shape.cols}k${shape.k}${shape.rule}`;
  const [x, o] = [seats.X.value, seats.O.value];
  const [a, b] = score.aIsX ? [score.names[0], score.names[1]] : [score.names[1], score.names[0]];
  const sameKey = score.key.startsWith(`${shapeKey}|`);
  if (sameKey && x === a && o === b) return;
  if (sameKey && x === b && o === a) {
    score.aIsX = !score.aIsX;
    return;
  }
  score.key = `${shapeKey}|${[x, o].sort().join("|")}`;
  score.names = [x, o];
  score.labels = [seats.X.label, seats.O.label];
  if (x === "human" && o === "human") score.labels = ["Player 1", "Player 2"];
  else if (score.labels[0] === score.labels[1]) score.labels = score.labels.map((l, i) => `${l} #${i + 1}`);
  score.wins = [0, 0];
  score.draws = 0;
  score.aIsX = true;
}

function recordResult() {
  if (game.counted || !game.status || game.status.state === "ongoing") return;
  if (game.status.state === "win") {
    const a = (game.status.winner === "X") === score.aIsX ? 0 : 1;
    score.wins[a] += 1;
    game.counted = { winner: a };
  } else {
    score.draws += 1;
    game.counted = { draw: true };
  }
}

function uncountResult() {
  if (!game.counted) return;
  if (game.counted.draw) score.draws -= 1;
  else score.wins[game.counted.winner] -= 1;
  game.counted = null;
}

function renderScore() {
  const games = score.wins[0] + score.wins[1] + score.draws;
  if (games === 0) {
    $("score").textContent = "No games yet.";
    return;
  }
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const [la, lb] = score.labels;
  const sideOf = (i) => ((i === 0) === score.aIsX ? "X" : "O");
  $("score").textContent =
    `${la} (${sideOf(0)} now) ${plural(score.wins[0], "win")}, ` +
    `${lb} (${sideOf(1)} now) ${plural(score.wins[1], "win")}, ` +
    `${plural(score.draws, "draw")} — ${plural(games, "game")}.`;
}

// --------------------------------------------------------------- rendering

function setStatus(text) {
  game.statusText = text.trim();
  game.status = parseStatus(game.statusText);
  askForbidden();
}

/** Under renju, while X (Black) is to move, asks the session which cells
 * are forbidden and marks them on the board; otherwise clears the marks. */
function askForbidden() {
  const ask = ++game.forbiddenAsk;
  const status = game.status;
  const mark = (cells) => {
    if (ask !== game.forbiddenAsk) return;
    game.forbidden = cells;
    game.board?.setForbidden(cells);
  };
  if (game.shape?.rule !== "renju" || status?.state !== "ongoing" || status.toMove !== "X") {
    mark([]);
    return;
  }
  game.conn
    .request("forbidden")
    .then((text) =>
      mark(
        text
          .split("\n")
          .map((line) => line.trim().split(/\s+/))
          .filter((w) => w.length === 3)
          .map(([row, col, kind]) => ({ row: Number(row), col: Number(col), kind })),
      ),
    )
    .catch(() => mark([]));
}

function render() {
  const status = game.status;
  const el = $("status");
  el.dataset.status = game.statusText;
  let phrase = "";
  if (!status) phrase = "…";
  else if (status.state === "win") phrase = `${who(status.winner)} wins!`;
  else if (status.state === "draw") phrase = "A draw: the board is full.";
  else if (game.thinking) phrase = `${who(status.toMove)} is thinking…`;
  else phrase = `${who(status.toMove)} to move`;
  el.textContent = phrase;
  el.dataset.thinking = game.thinking ? "true" : "false";
  // For tools: true while a request that changes the game is out.
  el.dataset.busy = game.busy || game.thinking ? "true" : "false";
  el.dataset.game = game.gen;

  if (game.board && status) {
    game.board.setMoves(game.moves);
    game.board.setLine(status.state === "win" ? status.line : []);
    const clickable = status.state === "ongoing" && isPerson(status.toMove) && !game.busy && !game.thinking;
    game.board.setTurn(clickable ? status.toMove : null);
    game.board.element.dataset.thinking = game.thinking ? "true" : "false";
  }

  const list = $("moves");
  list.replaceChildren(
    ...game.moves.map((m, i) => {
      const item = document.createElement("li");
      const number = Object.assign(document.createElement("span"), { className: "ply", textContent: `${i + 1}.` });
      const mark = Object.assign(document.createElement("span"), { className: "side", textContent: m.side });
      mark.dataset.side = m.side;
      item.append(number, mark, ` ${m.row} ${m.col}`);
      if (i === game.moves.length - 1) item.className = "last";
      return item;
    }),
  );
  // The newest move in sight, scrolling the list only (never the page).
  list.scrollTop = list.scrollHeight;

  const watching = game.seats && !isPerson("X") && !isPerson("O");
  $("watch").hidden = !watching || !status || status.state !== "ongoing";
  $("pause").textContent = game.paused ? "Resume" : "Pause";
  $("undo").disabled = game.busy || game.moves.length === 0;
  renderScore();
}

// ------------------------------------------------------------------ alerts

let retryAction = null;

/** Shows what went wrong in plain words; `retry` offers a Try again button. */
function showError(error, retry = null) {
  let text = error instanceof Error ? error.message : String(error);
  if (error instanceof Failure) {
    const detail = text.slice(error.kind.length + 1).trim();
    const sentences = {
      "engine error": () =>
        `${capitalize(detail)}. Try again to restart it and continue this game, or start a new game.`,
      "illegal move": () => `That move is not allowed: ${detail}.`,
      "unacceptable size": () => `That board is not possible: ${detail}.`,
      busy: () => `The server is busy: ${detail}.`,
      "game over": () => `The game is over.`,
    };
    if (sentences[error.kind]) text = sentences[error.kind]();
    else text = capitalize(text);
  }
  $("alert-text").textContent = text;
  retryAction = retry;
  $("alert-retry").hidden = !retry;
  $("alert").hidden = false;
}

function hideAlert() {
  $("alert").hidden = true;
  retryAction = null;
}

const capitalize = (s) => s.charAt(0).toUpperCase() + s.slice(1);

function setConnection(state) {
  $("connection").dataset.state = state;
  $("connection").textContent = { connecting: "connecting…", open: "connected", lost: "disconnected" }[state];
}

// --------------------------------------------------------------- the game

function clearTimer() {
  if (game.timer) clearTimeout(game.timer);
  game.timer = null;
}

async function newGame() {
  let shape;
  let seats;
  try {
    shape = readShape();
    seats = { X: readSeat("X"), O: readSeat("O") };
  } catch (e) {
    showError(e);
    return;
  }
  clearTimer();
  hideAlert();
  // An engine still thinking about the old game need not finish.
  if (game.thinking) game.conn.interrupt();
  const gen = ++game.gen;
  game.started = true;
  game.shape = shape;
  game.seats = seats;
  game.moves = [];
  game.counted = null;
  game.thinking = false;
  game.busy = true;
  game.paused = false;
  updateScoreFor(shape, seats);
  game.board = new Board($("board-wrap"), shape.rows, shape.cols, humanMove);
  const lines = [
    seatLine("X", seats.X),
    seatLine("O", seats.O),
    `newgame ${shape.rows} ${shape.cols} ${shape.k} ${shape.rule}`,
    "status",
  ];
  const results = await Promise.allSettled(game.conn.send(...lines));
  if (gen !== game.gen) return;
  game.busy = false;
  const status = results[3];
  if (status.status === "fulfilled") setStatus(status.value);
  const failed = results.find((r) => r.status === "rejected");
  render();
  if (failed) {
    // A seat whose engine could not start: Try again asks for its move,
    // which starts it again.
    showError(failed.reason, results[2].status === "fulfilled" ? () => afterMove(gen) : null);
    return;
  }
  afterMove(gen);
}

/** After every change: count a finished game, or let an engine move. */
function afterMove(gen) {
  render();
  if (gen !== game.gen || !game.status) return;
  if (game.status.state !== "ongoing") {
    recordResult();
    render();
    return;
  }
  const side = game.status.toMove;
  if (isPerson(side) || game.thinking || game.timer) return;
  const watching = !isPerson("X") && !isPerson("O");
  if (watching && game.paused) return;
  const pace = watching && game.moves.length > 0 ? Number($("pace").value) : 0;
  game.timer = setTimeout(() => engineMove(gen), pace);
}

async function engineMove(gen) {
  game.timer = null;
  if (gen !== game.gen || game.thinking || !game.status || game.status.state !== "ongoing") return;
  hideAlert();
  const side = game.status.toMove;
  game.thinking = true;
  render();
  const [moved, status] = await Promise.allSettled(game.conn.send("genmove", "status"));
  if (gen !== game.gen) return;
  game.thinking = false;
  if (moved.status === "fulfilled") {
    const [row, col] = moved.value.trim().split(/\s+/).map(Number);
    game.moves.push({ row, col, side });
  }
  if (status.status === "fulfilled") setStatus(status.value);
  if (moved.status === "rejected") {
    render();
    // Interrupted by Undo: what comes next is Undo's to say.
    if (moved.reason instanceof Failure && moved.reason.kind === "interrupted") return;
    const connected = game.conn.socket && game.conn.socket.readyState === WebSocket.OPEN;
    if (connected) showError(moved.reason, () => engineMove(gen));
    return;
  }
  afterMove(gen);
}

async function humanMove(row, col) {
  const status = game.status;
  if (!status || status.state !== "ongoing" || game.busy || game.thinking) return;
  const side = status.toMove;
  if (!isPerson(side)) return;
  if (game.moves.some((m) => m.row === row && m.col === col)) return;
  const forbidden = game.forbidden.find((f) => f.row === row && f.col === col);
  if (forbidden) {
    const why = FORBIDDEN_WORDS[forbidden.kind] ?? forbidden.kind;
    showError(`That move is not allowed: ${row} ${col} is forbidden to X under renju: it would make ${why}.`);
    return;
  }
  hideAlert();
  const gen = game.gen;
  game.busy = true;
  const [moved, after] = await Promise.allSettled(game.conn.send(`move ${row} ${col}`, "status"));
  if (gen !== game.gen) return;
  game.busy = false;
  if (moved.status === "fulfilled") game.moves.push({ row, col, side });
  if (after.status === "fulfilled") setStatus(after.value);
  if (moved.status === "rejected") {
    render();
    showError(moved.reason);
    return;
  }
  afterMove(gen);
}

/** Takes back to before the last move a person made (against an engine: the
 * engine's reply too); with no person playing, one move, and the bots pause. */
async function undo() {
  if (game.busy || game.moves.length === 0) return;
  clearTimer();
  if (game.thinking) game.conn.interrupt();
  let plies;
  if (!isPerson("X") && !isPerson("O")) {
    plies = 1;
    game.paused = true;
  } else {
    let i = game.moves.length - 1;
    while (i >= 0 && !isPerson(game.moves[i].side)) i--;
    plies = i < 0 ? 0 : game.moves.length - i;
  }
  if (plies === 0) {
    showError("Nothing of yours to take back yet.");
    return;
  }
  hideAlert();
  const gen = game.gen;
  game.busy = true;
  const lines = Array(plies).fill("undo").concat("status");
  const results = await Promise.allSettled(game.conn.send(...lines));
  if (gen !== game.gen) return;
  game.busy = false;
  const undone = results.slice(0, plies).filter((r) => r.status === "fulfilled").length;
  game.moves.splice(game.moves.length - undone, undone);
  uncountResult();
  const status = results[plies];
  if (status.status === "fulfilled") setStatus(status.value);
  afterMove(gen);
}

function swapSides() {
  for (const id of ["seat", "time"]) {
    const x = $(`${id}-X`);
    const o = $(`${id}-O`);
    [x.value, o.value] = [o.value, x.value];
  }
  showMovetime("X");
  showMovetime("O");
  newGame();
}

function togglePause() {
  game.paused = !game.paused;
  render();
  if (!game.paused) afterMove(game.gen);
  else clearTimer();
}

// -------------------------------------------------------------- connection

/** After a reconnect: the same players, board and moves on a new session. */
async function resync() {
  const gen = ++game.gen;
  const { rows, cols, k, rule } = game.shape;
  const lines = [
    seatLine("X", game.seats.X),
    seatLine("O", game.seats.O),
    `newgame ${rows} ${cols} ${k} ${rule}`,
    ...game.moves.map((m) => `move ${m.row} ${m.col}`),
    "status",
  ];
  game.busy = true;
  const results = await Promise.allSettled(game.conn.send(...lines));
  if (gen !== game.gen) return;
  game.busy = false;
  game.thinking = false;
  const status = results[results.length - 1];
  if (status.status === "fulfilled") setStatus(status.value);
  afterMove(gen);
}

async function connect() {
  hideAlert();
  setConnection("connecting");
  const conn = new Connection(wsUrl, {
    onClose: (code, reason) => {
      setConnection("lost");
      clearTimer();
      game.thinking = false;
      game.busy = false;
      render();
      if (code === 1013) return; // busy: said already, with its reason
      const why = reason ? ` (${reason})` : "";
      showError(`The connection to the server was lost${why}. Reconnect to go on with this game.`, connect);
    },
    onUnasked: (response) => showError(new Failure(response.text), connect),
  });
  game.conn = conn;
  try {
    await conn.open();
  } catch {
    setConnection("lost");
    showError("Cannot reach the server. Is `kinrow serve` still running?", connect);
    return;
  }
  setConnection("open");
  let players;
  try {
    players = await conn.request("players");
  } catch (e) {
    showError(e, connect);
    return;
  }
  fillPlayers(players);
  if (game.started) await resync();
  else await newGame();
}

// ------------------------------------------------------------------ wiring

$("setup").addEventListener("submit", (event) => {
  event.preventDefault();
  newGame();
});
$("preset").addEventListener("change", () => {
  $("custom").hidden = $("preset").value !== "custom";
});
for (const side of ["X", "O"]) $(`seat-${side}`).addEventListener("change", () => showMovetime(side));
$("swap").addEventListener("click", swapSides);
$("undo").addEventListener("click", undo);
$("pause").addEventListener("click", togglePause);
$("pace").addEventListener("input", () => {
  $("pace-value").textContent = `${$("pace").value} ms`;
});
$("alert-retry").addEventListener("click", () => {
  const action = retryAction;
  hideAlert();
  if (action) action();
});
$("alert-new").addEventListener("click", () => {
  hideAlert();
  if (game.conn?.socket?.readyState === WebSocket.OPEN) newGame();
  else connect();
});
$("alert-close").addEventListener("click", hideAlert);
document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input, select, textarea")) return;
  const key = event.key.toLowerCase();
  if (key === "u") undo();
  else if (key === "n") newGame();
});

connect();
