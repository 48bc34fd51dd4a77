#!/usr/bin/env python3
"""OpenSpiel's MCTS as a kinrow engine, to pit kinrow's `mcts` against it.

OpenSpiel's C++ MCTSBot (UCT, random-rollout evaluator, MCTS-Solver on)
chooses the moves; the protocol, the board and the checks come from
bots/random.py, imported as a module. Square boards with the free rule play
OpenSpiel's `gomoku(size=N,connect=K)` (overlines win, as under `free`),
other rectangles its `mnk` game; the `exact` rule is refused. Time per move:
`set movetime MS` (default 1000), minus a margin; `set seed N` seeds it.

Needs OpenSpiel's Python package (the C++ bot comes with it):
    python3 -m venv /tmp/os-venv && /tmp/os-venv/bin/pip install open-spiel==2.0.2
    target/release/referee --engine 'openspiel=/tmp/os-venv/bin/python bots/openspiel_mcts.py' \\
        --bots mcts --board 7x7 --k 5 --movetime 200 --timeout 2000 --games 20
Usage: openspiel_mcts.py [--uct-c C] [--rollouts N] [--margin MS] [--seed N]
"""
import argparse
import importlib.util
import pathlib
import sys
import time

import pyspiel

_spec = importlib.util.spec_from_file_location(
    "kinrow_random_bot", pathlib.Path(__file__).with_name("random.py"))
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)

COMMANDS = base.COMMANDS + ["set"]


class Spiel:
    """The OpenSpiel side: the game for the current shape, the options."""

    def __init__(self, args):
        self.args = args
        self.seed = args.seed % 2 ** 31
        self.movetime_ms = 1000
        self.shape = None
        self.game = None

    def load(self, game):
        shape = (game.rows, game.cols, game.k)
        if shape != self.shape:
            rows, cols, k = shape
            name = (f"gomoku(size={rows},connect={k})" if rows == cols
                    else f"mnk(m={cols},n={rows},k={k})")
            self.game, self.shape = pyspiel.load_game(name), shape
        return self.game

    def state(self, game, order):
        """OpenSpiel's state of the kinrow position (stones in the order
        played; any order of a position without a win gives the same state)."""
        spiel = self.load(game)
        state = spiel.new_initial_state()
        for r, c in order:
            state.apply_action((r - 1) * game.cols + (c - 1))
        return state

    def choose(self, game, order):
        state = self.state(game, order)
        seconds = max(0.001, (self.movetime_ms - self.args.margin) / 1000)
        evaluator = pyspiel.RandomRolloutEvaluator(self.args.rollouts, self.seed)
        bot = pyspiel.MCTSBot(self.load(game), evaluator, self.args.uct_c, 10 ** 9,
                              self.args.memory, True, self.seed, False,
                              pyspiel.ChildSelectionPolicy.UCT, seconds)
        self.seed = (self.seed * 1103515245 + 12345) % 2 ** 31
        start = time.monotonic()
        action = bot.step(state)
        print(f"openspiel_mcts: {time.monotonic() - start:.3f} s", file=sys.stderr)
        return divmod(action, game.cols)


def main():
    parser = argparse.ArgumentParser(description="OpenSpiel's MCTS as a kinrow engine.")
    parser.add_argument("--uct-c", type=float, default=2.0,
                        help="UCT constant (OpenSpiel's default for rewards in [-1, 1])")
    parser.add_argument("--rollouts", type=int, default=1, help="random rollouts per leaf")
    parser.add_argument("--margin", type=int, default=30,
                        help="ms of movetime kept for Python and the pipes")
    parser.add_argument("--memory", type=int, default=1000, help="MCTS tree memory in MB")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    spiel, game = Spiel(args), base.Game()
    order = []  # the stones in the order played, 1-based
    sys.stdin.reconfigure(errors="replace")
    for line in sys.stdin:
        line = "".join(ch for ch in line if ch == "\t" or not base.is_control(ch))
        words = [w for w in line.split("#")[0].replace("\t", " ").split(" ") if w]
        if not words:
            continue
        ident = words.pop(0) if base.is_number(words[0]) else ""
        cmd, rest = (words[0], words[1:]) if words else ("", [])
        if not words:
            ok, text = False, "syntax error: no command"
        elif cmd == "set" and len(rest) == 2 and rest[0] in ("seed", "movetime"):
            ok = base.is_number(rest[1]) and (rest[0] == "seed" or base.number(rest[1]) >= 1)
            if ok and rest[0] == "seed":
                spiel.seed = base.number(rest[1]) % 2 ** 31
            elif ok:
                spiel.movetime_ms = base.number(rest[1])
            text = "" if ok else f"invalid option: {rest[0]}: '{rest[1]}'"
        elif cmd == "set":
            ok, text = False, "invalid option: only seed and movetime"
        elif cmd == "genmove" and not game.over:
            r, c = spiel.choose(game, order)
            game.play(r + 1, c + 1)
            order.append((r + 1, c + 1))
            ok, text = True, f"{r + 1} {c + 1}"
        elif cmd == "name":
            ok, text = True, "openspiel_mcts.py"
        elif cmd == "known_command":
            ok, text = True, str(bool(rest) and rest[0] in COMMANDS).lower()
        elif cmd == "list_commands":
            ok, text = True, "\n".join(COMMANDS)
        elif cmd == "newgame" and rest[3:4] == ["exact"]:
            ok, text = False, "unacceptable size: OpenSpiel's games have no exact rule"
        else:
            ok, text = base.respond(game, None, words)
            if ok and cmd == "newgame":
                order = []
            elif ok and cmd == "move":
                order.append((base.number(rest[0]), base.number(rest[1])))
        sys.stdout.write(("=" if ok else "?") + ident + (" " + text if text else "") + "\n\n")
        sys.stdout.flush()
        if ok and cmd == "quit":
            break


if __name__ == "__main__":
    main()
