#!/usr/bin/env python3
"""A random kinrow bot: plays a uniformly random empty cell.

Speaks the kinrow engine protocol (GTP framing) on stdin/stdout; see
bots/README.md. Python 3 standard library only.
Usage: python3 bots/random.py [--seed N]
"""
import argparse
import random
import sys

COMMANDS = ["newgame", "move", "genmove", "quit", "name", "version",
            "protocol_version", "known_command", "list_commands"]


# The rules this bot plays (renju is refused: see `respond`).
RULES = ("free", "exact", "caro", "caro-exact")


class Game:
    def __init__(self):
        self.reset(3, 3, 3, "free")

    def reset(self, rows, cols, k, rule):
        self.rows, self.cols, self.k, self.rule = rows, cols, k, rule
        self.cells = {}          # (row, col), 1-based -> "X" or "O"
        self.to_move = "X"
        self.over = False

    def empties(self):
        return [(r, c) for r in range(1, self.rows + 1)
                for c in range(1, self.cols + 1) if (r, c) not in self.cells]

    def play(self, r, c):
        """Plays the side to move on (r, c); returns an error text or None."""
        if self.over:
            return "illegal move: the game is over"
        if not (1 <= r <= self.rows and 1 <= c <= self.cols):
            return f"illegal move: {r} {c} is off the {self.rows}x{self.cols} board"
        if (r, c) in self.cells:
            return f"illegal move: {r} {c} is occupied"
        me = self.to_move
        self.cells[(r, c)] = me
        self.to_move = "O" if me == "X" else "X"
        self.over = self.wins(r, c, me) or not self.empties()
        return None

    def wins(self, r, c, me):
        """Whether the stone just put on (r, c) makes a winning run: K or
        more (free), exactly K (exact); under caro a run of exactly K closed
        at both ends by the other's stones (the edge is no block) does not
        win, and under caro-exact no overline does either."""
        other = "O" if me == "X" else "X"
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


def is_control(ch):
    return ord(ch) < 32 or 127 <= ord(ch) < 160


def is_number(word):
    return word.isascii() and word.isdigit()


def number(word):
    """The value of a digit string; anything too long to be a size or a
    coordinate counts as 10**9, so that int() never sees a huge string
    (Python refuses to convert over 4300 digits)."""
    digits = word.lstrip("0")
    return int(digits or "0") if len(digits) <= 9 else 10 ** 9


def respond(game, rng, words):
    """Runs one command; returns (ok, text)."""
    cmd, args = words[0], words[1:]
    if cmd == "newgame":
        if not args:
            game.reset(game.rows, game.cols, game.k, game.rule)
            return True, ""
        if len(args) not in (3, 4) or not all(map(is_number, args[:3])) \
                or (len(args) == 4 and args[3] not in RULES + ("renju",)):
            return False, "syntax error: newgame [ROWS COLS K [free|exact|caro|caro-exact]]"
        if len(args) == 4 and args[3] == "renju":
            return False, ("unacceptable size: renju is not played by this example bot "
                           "(its small rules model has no forbidden cells; it plays "
                           "free, exact, caro and caro-exact)")
        rows, cols, k = map(number, args[:3])
        if not (1 <= rows <= 32 and 1 <= cols <= 32 and 1 <= k <= max(rows, cols)):
            return False, f"unacceptable size: {rows}x{cols} k{k}"
        game.reset(rows, cols, k, args[3] if len(args) == 4 else game.rule)
        return True, ""
    if cmd == "move":
        if len(args) != 2 or not all(map(is_number, args)):
            return False, "syntax error: move R C"
        error = game.play(number(args[0]), number(args[1]))
        return error is None, error or ""
    if cmd == "genmove":
        if game.over:
            return False, "game over: the game is over"
        r, c = rng.choice(game.empties())
        game.play(r, c)
        return True, f"{r} {c}"
    if cmd == "name":
        return True, "random.py"
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
    parser = argparse.ArgumentParser(description="A random kinrow bot.")
    parser.add_argument("--seed", type=int, help="seed for reproducible games")
    rng, game = random.Random(parser.parse_args().seed), Game()
    sys.stdin.reconfigure(errors="replace")  # stray bytes must not crash us
    for line in sys.stdin:
        # GTP clean-up: drop control characters (C0, DEL and C1), cut
        # comments, tabs to spaces; words are separated by spaces only.
        line = "".join(ch for ch in line if ch == "\t" or not is_control(ch))
        words = [w for w in line.split("#")[0].replace("\t", " ").split(" ") if w]
        if not words:
            continue
        ident = words.pop(0) if is_number(words[0]) else ""
        if not words:
            ok, text = False, "syntax error: no command"
        else:
            ok, text = respond(game, rng, words)
        sys.stdout.write(("=" if ok else "?") + ident + (" " + text if text else "") + "\n\n")
        sys.stdout.flush()
        if ok and words[0] == "quit":
            break


if __name__ == "__main__":
    main()
