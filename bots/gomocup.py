#!/usr/bin/env python3
"""Plays a Gomocup (piskvork) brain as a kinrow engine.

Speaks the kinrow engine protocol (GTP framing, see bots/README.md) on
stdin/stdout and drives the brain, a child process, over the Gomocup protocol
(START/RECTSTART, INFO, BEGIN, TURN, BOARD ... DONE, RESTART, ABOUT, END).
A small rules model keeps the position, so every move is checked here.
Python 3 standard library only.
Usage: python3 bots/gomocup.py [--timeout-turn MS] [--grace MS] [--] BRAIN-COMMAND...
"""
import argparse
import queue
import re
import subprocess
import sys
import threading
import time

COMMANDS = ["newgame", "move", "genmove", "undo", "legal", "set", "quit", "name",
            "version", "protocol_version", "known_command", "list_commands"]
MOVE_REPLY = re.compile(r"^\s*(\d{1,3})\s*,\s*(\d{1,3})\s*$")


# The rules this bot plays (renju is refused: see `respond`).
RULES = ("free", "exact", "caro", "caro-exact")
# What the Gomocup's INFO rule calls them (a sum of bits: 1 exactly five, 8 caro).
GOMOCUP_RULE = {"free": 0, "exact": 1, "caro": 8, "caro-exact": 9}


class Game:
    """The position, with just enough rules to check moves and see the end."""

    def __init__(self):
        self.reset(15, 15, 5, "free")  # 3x3 k3 can't be played by a brain

    def reset(self, rows, cols, k, rule):
        self.rows, self.cols, self.k, self.rule = rows, cols, k, rule
        self.moves = []          # (row, col), 1-based, X's first
        self.cells = {}          # (row, col) -> 0 for X, 1 for O
        self.over = False

    def check(self, r, c):
        """An error text if the side to move may not play (r, c), else None."""
        if self.over:
            return "illegal move: the game is over"
        if not (1 <= r <= self.rows and 1 <= c <= self.cols):
            return f"illegal move: {r} {c} is off the {self.rows}x{self.cols} board"
        if (r, c) in self.cells:
            return f"illegal move: {r} {c} is occupied"
        return None

    def play(self, r, c):
        me = len(self.moves) % 2
        self.cells[(r, c)] = me
        self.moves.append((r, c))
        self.over = self.wins(r, c, me) or len(self.moves) == self.rows * self.cols

    def undo(self):
        del self.cells[self.moves.pop()]
        self.over = False  # no move is accepted after the end, so before it the game was on

    def wins(self, r, c, me):
        """Whether the stone just put on (r, c) makes a winning run: K or
        more (free), exactly K (exact); under caro a run of exactly K closed
        at both ends by the other's stones (the edge is no block) does not
        win, and under caro-exact no overline does either."""
        other = 1 - me
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            run, closed = 1, 0
            for sign in (1, -1):
                rr, cc = r + sign * dr, c + sign * dc
                while self.cells.get((rr, cc)) == me:
                    run, rr, cc = run + 1, rr + sign * dr, cc + sign * dc
                closed += self.cells.get((rr, cc)) == other
            if run > self.k:
                if self.rule in ("free", "caro"):
                    return True
            elif run == self.k and not (self.rule.startswith("caro") and closed == 2):
                return True
        return False


class BrainError(Exception):
    """The brain failed: it exited, timed out or answered nonsense."""


class BrainRefused(BrainError):
    """The brain answered ERROR or UNKNOWN."""


class Brain:
    """The brain process, and what it knows of the game."""

    def __init__(self, argv, timeout_turn, grace):
        self.argv, self.timeout_turn, self.grace = argv, timeout_turn, grace
        self.proc = None
        self.shape = None        # (rows, cols) the brain was started with
        self.known = None        # the moves the brain has seen, None if unknown
        self.about = None

    def spawn(self):
        self.stop()
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True,
                                         errors="replace", bufsize=1)
        except OSError as e:
            raise BrainError(f"cannot start {' '.join(self.argv)}: {e}") from e
        self.lines = queue.Queue()
        threading.Thread(target=self.pump, args=(self.proc.stdout, self.lines),
                         daemon=True).start()

    @staticmethod
    def pump(stream, lines):
        # Universal newlines: the brain may end its lines with CR LF, LF or CR.
        for line in stream:
            lines.put(line)
        lines.put(None)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def send(self, *lines):
        # Lines nobody asked for (a stray answer to INFO, say) must not be
        # taken for the answer to this request.
        while not self.lines.empty():
            stale = self.lines.get_nowait()
            if stale is None:
                self.stop()
                raise BrainError("the brain exited")
            if stale.strip():
                print("brain (unasked):", stale.strip(), file=sys.stderr, flush=True)
        try:
            self.proc.stdin.write("".join(line + "\r\n" for line in lines))
            self.proc.stdin.flush()
        except (OSError, ValueError) as e:
            self.stop()
            raise BrainError("the brain exited") from e

    def reply(self, what):
        """The brain's next answer line; MESSAGE, DEBUG and SUGGEST lines are
        passed on to stderr, ERROR and UNKNOWN become a BrainError."""
        deadline = time.monotonic() + (self.timeout_turn + self.grace) / 1000
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.stop()
                raise BrainError(f"the brain did not answer {what} in time") from None
            if line is None:
                self.stop()
                raise BrainError(f"the brain exited instead of answering {what}")
            line = line.strip()
            word = line.split(" ", 1)[0].upper()
            if word in ("MESSAGE", "DEBUG", "SUGGEST"):
                print("brain:", line, file=sys.stderr, flush=True)
            elif word in ("ERROR", "UNKNOWN"):
                raise BrainRefused(f"the brain answered {what} with {line[:200]!r}")
            elif line:
                return line

    def stop(self):
        """Says END, waits a moment, then kills the brain."""
        if self.proc is None:
            return
        proc, self.proc, self.shape, self.known = self.proc, None, None, None
        try:
            proc.stdin.write("END\r\n")
            proc.stdin.close()
        except (OSError, ValueError):
            pass
        try:
            proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def new_board(self, rows, cols, rule):
        """An empty board of that shape in the brain: RESTART when it runs
        with that shape already, else a fresh process and START/RECTSTART."""
        if not self.alive():
            self.stop()  # forget a brain that has exited
        elif self.shape == (rows, cols):
            self.send("RESTART")
            try:
                ok = self.reply("RESTART").upper().startswith("OK")
            except BrainError:
                ok = False  # RESTART is optional in the protocol
            if not ok:
                self.stop()
        elif self.shape is not None:
            self.stop()  # a brain is started once: a new shape needs a new process
        if self.shape is None:
            if self.proc is None:
                self.spawn()
            start = f"START {rows}" if rows == cols else f"RECTSTART {cols},{rows}"
            self.send(start)
            try:
                answer = self.reply(start)
            except BrainRefused as e:
                self.stop()
                raise BrainError(f"unacceptable size: {e}") from e
            if not answer.upper().startswith("OK"):
                self.stop()
                raise BrainError(f"unacceptable size: the brain answered {start} "
                                 f"with {answer[:200]!r}")
            self.shape = (rows, cols)
        self.send(f"INFO timeout_turn {self.timeout_turn}", "INFO timeout_match 0",
                  "INFO game_type 1", f"INFO rule {GOMOCUP_RULE[rule]}")
        self.known = []

    def name(self):
        if self.about is None:
            self.about = "gomocup"
            try:
                if not self.alive():
                    self.spawn()
                self.send("ABOUT")
                found = re.search(r'name="([^"]*)"', self.reply("ABOUT"))
                if found and found.group(1).strip():
                    self.about = found.group(1).strip()
            except BrainError as e:
                print("gomocup.py:", e, file=sys.stderr, flush=True)
        return self.about

    def genmove(self, game):
        """Asks the brain for a move in game's position; returns (row, col)."""
        moves = game.moves
        if not self.alive() or self.shape != (game.rows, game.cols) or self.known is None:
            self.new_board(game.rows, game.cols, game.rule)
        if moves and self.known == moves[:-1]:
            r, c = moves[-1]
            request = f"TURN {c - 1},{r - 1}"
            self.send(request)
        else:
            if self.known:  # the brain has a game on: clear it first
                self.new_board(game.rows, game.cols, game.rule)
            # Stones of the side to move (the brain's) are 1, the others 2.
            mine = len(moves) % 2
            request = "BOARD" if moves else "BEGIN"
            self.send(request, *[f"{c - 1},{r - 1},{1 if i % 2 == mine else 2}"
                                 for i, (r, c) in enumerate(moves)],
                      *(["DONE"] if moves else []))
        self.known = None  # until the brain has answered with a good move
        answer = self.reply(request)
        found = MOVE_REPLY.match(answer)
        if not found:
            raise BrainError(f"the brain answered {request} with {answer[:200]!r}, "
                             "not a move x,y")
        x, y = int(found.group(1)), int(found.group(2))
        error = game.check(y + 1, x + 1)
        if error:
            raise BrainError(f"the brain played {x},{y}: {error}")
        game.play(y + 1, x + 1)
        self.known = list(game.moves)
        return y + 1, x + 1


def is_control(ch):
    return ord(ch) < 32 or 127 <= ord(ch) < 160


def is_number(word):
    return word.isascii() and word.isdigit()


def number(word):
    """The value of a digit string, huge ones capped (int() refuses 4300 digits)."""
    digits = word.lstrip("0")
    return int(digits or "0") if len(digits) <= 9 else 10 ** 9


def respond(game, brain, words):
    """Runs one command; returns (ok, text)."""
    cmd, args = words[0], words[1:]
    if cmd == "newgame":
        if not args:
            args = [str(game.rows), str(game.cols), str(game.k), game.rule]
        if len(args) not in (3, 4) or not all(map(is_number, args[:3])) \
                or (len(args) == 4 and args[3] not in RULES + ("renju",)):
            return False, "syntax error: newgame [ROWS COLS K [free|exact|caro|caro-exact]]"
        if len(args) == 4 and args[3] == "renju":
            return False, ("unacceptable size: renju is not played by this example bot "
                           "(its small rules model has no forbidden cells; it plays "
                           "free, exact, caro and caro-exact)")
        rows, cols, k = map(number, args[:3])
        rule = args[3] if len(args) == 4 else game.rule
        if not (1 <= rows <= 32 and 1 <= cols <= 32 and 1 <= k <= max(rows, cols)):
            return False, f"unacceptable size: {rows}x{cols} k{k}"
        if k != 5:
            return False, "unacceptable size: gomocup brains play five in a row"
        try:
            brain.new_board(rows, cols, rule)
        except BrainError as e:
            text = str(e)
            return False, text if text.startswith("unacceptable") else "brain error: " + text
        game.reset(rows, cols, k, rule)
        return True, ""
    if cmd == "move":
        if len(args) != 2 or not all(map(is_number, args)):
            return False, "syntax error: move R C"
        r, c = number(args[0]), number(args[1])
        error = game.check(r, c)
        if error is None:
            game.play(r, c)
        return error is None, error or ""
    if cmd == "genmove":
        if game.over:
            return False, "game over: the game is over"
        try:
            r, c = brain.genmove(game)
        except BrainError as e:
            return False, f"brain error: {e}"
        return True, f"{r} {c}"
    if cmd == "undo":
        if not game.moves:
            return False, "cannot undo: no move to take back"
        game.undo()  # the brain learns the new position by BOARD at its next move
        return True, ""
    if cmd == "legal":
        if game.over:
            return True, ""
        return True, " ".join(f"{r} {c}" for r in range(1, game.rows + 1)
                              for c in range(1, game.cols + 1) if (r, c) not in game.cells)
    if cmd == "set":
        if len(args) != 2:
            return False, "syntax error: set NAME VALUE"
        if args[0] == "movetime" and is_number(args[1]):
            brain.timeout_turn = number(args[1])
            if brain.alive():
                try:
                    brain.send(f"INFO timeout_turn {brain.timeout_turn}")
                except BrainError:
                    pass  # a fresh brain gets it at its START
            return True, ""
        if args[0] == "seed" and is_number(args[1]):
            return True, ""  # brains have no seed in the protocol
        return False, f"invalid option: {args[0]} {args[1]}"
    if cmd == "name":
        return True, brain.name()
    if cmd == "version":
        return True, "1"
    if cmd == "protocol_version":
        return True, "2"
    if cmd == "known_command":
        return True, str(bool(args) and args[0] in COMMANDS).lower()
    if cmd == "list_commands":
        return True, "\n".join(COMMANDS)
    if cmd == "quit":
        return True, ""
    return False, f"unknown command: {cmd}"


def main():
    parser = argparse.ArgumentParser(description="Plays a Gomocup brain as a kinrow engine.")
    parser.add_argument("--timeout-turn", type=int, default=5000, metavar="MS",
                        help="INFO timeout_turn until `set movetime` (default 5000)")
    parser.add_argument("--grace", type=int, default=10000, metavar="MS",
                        help="how much longer than timeout_turn to wait for the brain "
                             "(default 10000)")
    parser.add_argument("brain", nargs=argparse.REMAINDER, help="the brain's command")
    opts = parser.parse_args()
    argv = opts.brain[1:] if opts.brain[:1] == ["--"] else opts.brain
    if not argv or opts.timeout_turn < 0 or opts.grace < 0:
        parser.error("give the brain's command, and times of 0 ms or more")
    brain, game = Brain(argv, opts.timeout_turn, opts.grace), Game()
    try:
        brain.spawn()  # now, so that its start-up overlaps the first requests
    except BrainError as e:
        print("gomocup.py:", e, file=sys.stderr)
        sys.exit(1)
    sys.stdin.reconfigure(errors="replace")  # stray bytes must not crash us
    try:
        for line in sys.stdin:
            line = "".join(ch for ch in line if ch == "\t" or not is_control(ch))
            words = [w for w in line.split("#")[0].replace("\t", " ").split(" ") if w]
            if not words:
                continue
            ident = words.pop(0) if is_number(words[0]) else ""
            if not words:
                ok, text = False, "syntax error: no command"
            else:
                ok, text = respond(game, brain, words)
            sys.stdout.write(("=" if ok else "?") + ident + (" " + text if text else "")
                             + "\n\n")
            sys.stdout.flush()
            if ok and words[0] == "quit":
                break
    except BrokenPipeError:
        pass  # our controller went away: just clean up
    finally:
        brain.stop()


if __name__ == "__main__":
    main()
