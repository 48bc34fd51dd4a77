// kinrow's line protocol over a WebSocket: the whole client a GUI needs.
//
// A request is one line, `[id] command [arguments]`; the answer is
// `=[id] result` or `?[id] message` followed by an empty line. Answers come
// in the order the requests were sent, so a client may send several at once
// (pipelining) and match them up in order; the ids are a check on that.
// `kinrow serve` sends each answer as one WebSocket text message.

/** One framed answer: `ok` for `=`, `id` if one was echoed, `text` without the prefix. */
export function parseResponse(message) {
  const body = message.replace(/\n\n$/, "");
  const match = /^([=?])(\d*) ?([\s\S]*)$/.exec(body);
  if (!match) {
    return { ok: false, id: null, text: `syntax error: not a response: ${body.slice(0, 80)}` };
  }
  return {
    ok: match[1] === "=",
    id: match[2] === "" ? null : Number(match[2]),
    text: match[3],
  };
}

/** A `?` answer, thrown by `request`; `kind` is its fixed prefix (`illegal move`, `engine error`, …). */
export class Failure extends Error {
  constructor(text) {
    super(text);
    this.name = "Failure";
    this.kind = text.split(":")[0];
  }
}

/** The connection to a kinrow session. */
export class Connection {
  /**
   * @param {string} url  ws://host:port/ws
   * @param {object} handlers  onClose(code, reason) when the socket closes;
   *   onUnasked(response) for an answer to no request (the server's refusal
   *   of a session when it is full arrives this way).
   */
  constructor(url, handlers = {}) {
    this.url = url;
    this.handlers = handlers;
    this.nextId = 1;
    this.waiting = []; // {id, resolve, reject}, in the order sent
    this.socket = null;
  }

  /** Opens the socket; resolves once it is open. */
  open() {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url);
      this.socket = socket;
      socket.onopen = () => resolve();
      socket.onerror = () => reject(new Error("cannot connect to the server"));
      socket.onmessage = (event) => this.receive(String(event.data));
      socket.onclose = (event) => {
        const pending = this.waiting.splice(0);
        for (const w of pending) w.reject(new Error("the connection closed"));
        if (this.socket === socket && this.handlers.onClose) {
          this.handlers.onClose(event.code, event.reason);
        }
      };
    });
  }

  receive(message) {
    const response = parseResponse(message);
    const head = this.waiting[0];
    if (!head || (response.id !== null && response.id !== head.id)) {
      if (this.handlers.onUnasked) this.handlers.onUnasked(response);
      return;
    }
    this.waiting.shift();
    if (response.ok) head.resolve(response.text);
    else head.reject(new Failure(response.text));
  }

  /**
   * Sends one or more request lines in one message; returns one promise per
   * line, each resolving to the result text or rejecting with a Failure.
   */
  send(...lines) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
      return lines.map(() => Promise.reject(new Error("not connected")));
    }
    const promises = [];
    const framed = lines.map((line) => {
      const id = this.nextId++;
      promises.push(
        new Promise((resolve, reject) => this.waiting.push({ id, resolve, reject })),
      );
      return `${id} ${line}`;
    });
    this.socket.send(framed.join("\n"));
    return promises;
  }

  /**
   * Cuts an engine's search short: `genmove` then fails with `interrupted`.
   * It is a comment line (as GoGui sends it), so it has no answer and means
   * nothing to a server that doesn't know it.
   */
  interrupt() {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send("# interrupt");
  }

  /** One request; resolves to its result text. */
  request(line) {
    return this.send(line)[0];
  }

  /** Closes the socket without calling onClose. */
  close() {
    const socket = this.socket;
    this.socket = null;
    if (socket) socket.close(1000, "bye");
  }
}

/** `status` text as data: {state: "ongoing"|"win"|"draw", toMove, winner, line: [[r, c], …]}. */
export function parseStatus(text) {
  const words = text.trim().split(/\s+/);
  if (words[0] === "ongoing") return { state: "ongoing", toMove: words[1], line: [] };
  if (words[0] === "draw") return { state: "draw", line: [] };
  if (words[0] === "win") {
    const line = [];
    for (let i = 2; i + 1 < words.length; i += 2) line.push([Number(words[i]), Number(words[i + 1])]);
    return { state: "win", winner: words[1], line };
  }
  return { state: "unknown", line: [] };
}
