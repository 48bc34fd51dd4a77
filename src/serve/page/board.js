// A board on the page: cells, coordinates, stones, the last move and the
// winning line. It knows nothing of the protocol: it draws what it is told
// and reports clicks and keys. Every cell carries `data-row`/`data-col`
// (1-based, as in the protocol); a stone carries `data-stone="X"` or `"O"`.

/** Boards up to this many cells draw X and O marks; bigger ones draw stones. */
const MARKS_UP_TO = 49;

export class Board {
  /**
   * @param {HTMLElement} host  where the board goes (emptied)
   * @param {number} rows
   * @param {number} cols
   * @param {(row: number, col: number) => void} [onPlay]  a click or Enter on a cell; none: read-only
   */
  constructor(host, rows, cols, onPlay) {
    this.rows = rows;
    this.cols = cols;
    this.onPlay = onPlay;
    this.cells = [];
    this.focus = [Math.ceil(rows / 2), Math.ceil(cols / 2)];
    this.last = null;
    this.line = [];
    this.forbidden = []; // [[r, c], …] marked forbidden
    this.stones = new Map(); // "r,c" -> "X" | "O"

    const grid = document.createElement("div");
    grid.className = "board";
    grid.classList.add(rows * cols <= MARKS_UP_TO ? "marks" : "stones");
    grid.style.setProperty("--rows", rows);
    grid.style.setProperty("--cols", cols);
    grid.setAttribute("role", "grid");
    grid.setAttribute("aria-label", `${rows} by ${cols} board`);
    grid.dataset.rows = rows;
    grid.dataset.cols = cols;

    grid.append(Object.assign(document.createElement("div"), { className: "corner" }));
    for (let c = 1; c <= cols; c++) {
      const head = document.createElement("div");
      head.className = "head col";
      head.textContent = c;
      grid.append(head);
    }
    for (let r = 1; r <= rows; r++) {
      const head = document.createElement("div");
      head.className = "head row";
      head.textContent = r;
      grid.append(head);
      const row = [];
      for (let c = 1; c <= cols; c++) {
        const cell = document.createElement("button");
        cell.type = "button";
        cell.className = "cell";
        cell.dataset.row = r;
        cell.dataset.col = c;
        cell.tabIndex = -1;
        cell.setAttribute("role", "gridcell");
        this.label(cell, null);
        row.push(cell);
        grid.append(cell);
      }
      this.cells.push(row);
    }
    this.cell(...this.focus).tabIndex = 0;

    if (onPlay) {
      grid.addEventListener("click", (event) => {
        // Mouse, touch, and Enter or Space on a focused cell (buttons
        // click on those keys by themselves).
        const cell = event.target.closest(".cell");
        if (!cell) return;
        const r = Number(cell.dataset.row);
        const c = Number(cell.dataset.col);
        this.moveFocus(r, c, false);
        onPlay(r, c);
      });
      grid.addEventListener("keydown", (event) => this.key(event));
      // However a cell got the focus (Tab, a click, a screen reader), the
      // arrow keys go on from there.
      grid.addEventListener("focusin", (event) => {
        const cell = event.target.closest(".cell");
        if (cell) this.moveFocus(Number(cell.dataset.row), Number(cell.dataset.col), false);
      });
    } else {
      grid.classList.add("readonly");
    }
    host.replaceChildren(grid);
    this.element = grid;
  }

  cell(r, c) {
    return this.cells[r - 1][c - 1];
  }

  label(cell, stone) {
    let what = stone ? stone : "empty";
    if (cell.dataset.forbidden) what += `, forbidden to X (${cell.dataset.forbidden})`;
    cell.setAttribute("aria-label", `row ${cell.dataset.row}, column ${cell.dataset.col}, ${what}`);
  }

  /** Puts a stone of `side` ("X" or "O") on a cell, or clears it (`null`). */
  setStone(r, c, side) {
    const key = `${r},${c}`;
    if ((this.stones.get(key) ?? null) === side) return;
    const cell = this.cell(r, c);
    cell.replaceChildren();
    if (side) {
      const stone = document.createElement("span");
      stone.className = "stone";
      stone.dataset.stone = side;
      cell.append(stone);
      this.stones.set(key, side);
    } else {
      this.stones.delete(key);
    }
    this.label(cell, side);
  }

  /** Draws exactly these moves, [{row, col, side}]; the last is marked.
   * Only the cells that change are touched, so a 32x32 board stays cheap. */
  setMoves(moves) {
    const wanted = new Map(moves.map((m) => [`${m.row},${m.col}`, m.side]));
    for (const key of [...this.stones.keys()]) {
      if (!wanted.has(key)) this.setStone(...key.split(",").map(Number), null);
    }
    for (const m of moves) this.setStone(m.row, m.col, m.side);
    const last = moves[moves.length - 1];
    this.setLast(last ? [last.row, last.col] : null);
  }

  setLast(rc) {
    if (this.last) this.cell(...this.last).classList.remove("last");
    this.last = rc;
    if (rc) this.cell(...rc).classList.add("last");
  }

  /** Marks the winning cells, [[r, c], …] (empty: none). */
  setLine(cells) {
    for (const rc of this.line) {
      const cell = this.cell(...rc);
      cell.classList.remove("win");
      delete cell.dataset.win;
    }
    this.line = cells;
    for (const rc of cells) {
      const cell = this.cell(...rc);
      cell.classList.add("win");
      cell.dataset.win = "true";
    }
  }

  /** Marks the cells forbidden to the side to move (renju's Black), as
   * Yixin Board does: [{row, col, kind}] (empty: none). Each marked cell
   * carries `data-forbidden="KIND"`. */
  setForbidden(cells) {
    for (const rc of this.forbidden) {
      const cell = this.cell(...rc);
      cell.classList.remove("forbidden");
      delete cell.dataset.forbidden;
      this.label(cell, null);
    }
    this.forbidden = cells.map((f) => [f.row, f.col]);
    for (const f of cells) {
      const cell = this.cell(f.row, f.col);
      cell.classList.add("forbidden");
      cell.dataset.forbidden = f.kind;
      this.label(cell, null);
    }
  }

  /** Whose move a click would make (shown as a faint stone on hover), or null: no clicks now. */
  setTurn(side) {
    if (side) this.element.dataset.turn = side;
    else delete this.element.dataset.turn;
  }

  moveFocus(r, c, focus = true) {
    r = Math.min(Math.max(r, 1), this.rows);
    c = Math.min(Math.max(c, 1), this.cols);
    this.cell(...this.focus).tabIndex = -1;
    this.focus = [r, c];
    const cell = this.cell(r, c);
    cell.tabIndex = 0;
    if (focus) cell.focus();
  }

  /** Arrow keys move, Home/End go to the row's ends, PageUp/PageDown to
   * the column's (Enter and Space click the focused cell). */
  key(event) {
    const [r, c] = this.focus;
    const moves = {
      ArrowUp: [r - 1, c],
      ArrowDown: [r + 1, c],
      ArrowLeft: [r, c - 1],
      ArrowRight: [r, c + 1],
      Home: [r, 1],
      End: [r, this.cols],
      PageUp: [1, c],
      PageDown: [this.rows, c],
    };
    if (moves[event.key]) {
      event.preventDefault();
      this.moveFocus(...moves[event.key]);
    }
  }
}
