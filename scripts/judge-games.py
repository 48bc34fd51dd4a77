#!/usr/bin/env python3
"""Where were the lost games decided? Replays the games that ENGINE lost in
referee --games-out files and asks a judge (a Gomocup brain that prints
`Eval N` or `Eval +M5`/`-M7` in its MESSAGE lines, as Rapfi does) for its
evaluation after each of ENGINE's moves, from ENGINE's side.

For each lost game it prints one line: the plies of the game, the judge's
evaluation after each of ENGINE's moves (M+n: a win in n plies proved,
M-n: a loss), and the verdict on the move that lost it:
  - "walked into a forced loss": the judge saw no forced loss before the
    move and a forced loss right after it (the bot missed the other's VCF
    or VCT, or played a move that let one appear);
  - "slid": the evaluation sank below -THRESHOLD over several moves with no
    single move into a proved loss (positional loss);
  - "had a win": at some point the judge proved a win for ENGINE that it
    did not play.
A summary counts the verdicts by ENGINE's colour.

Usage: judge-games.py --judge BRAIN [--engine minimax] [--movetime 300]
                      [--threshold 400] [--max N] FILE.jsonl ...
"""
import argparse
import json
import os
import re
import subprocess
import threading
from collections import Counter

MATE = 100000


def think(brain, stones, movetime):
    """The brain's move and evaluation for the side to move (mates as +-(MATE -
    plies)): it thinks its whole movetime, since END is sent only after its move
    (sent at once, END stops a Gomocup brain's search within milliseconds)."""
    to_move = len(stones) % 2
    lines = ["START 15", "INFO timeout_turn %d" % movetime, "BOARD"]
    for i, (r, c) in enumerate(stones):
        lines.append("%d,%d,%d" % (c - 1, r - 1, 1 if i % 2 == to_move else 2))
    lines.append("DONE")
    p = subprocess.Popen([brain], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
    p.stdin.write("\n".join(lines) + "\n")
    p.stdin.flush()
    timer = threading.Timer(movetime / 1000 * 3 + 5, p.kill)
    timer.start()
    score = move = None
    for line in p.stdout:
        m = re.search(r"Eval ([+-]?)(M?)(\d+)", line)
        if m:
            sign = -1 if m.group(1) == "-" else 1
            n = int(m.group(3))
            score = sign * (MATE - n) if m.group(2) else sign * n
        m = re.match(r"^(\d+),(\d+)\s*$", line)
        if m:
            move = (int(m.group(2)) + 1, int(m.group(1)) + 1)  # row, column from 1
            break
    timer.cancel()
    try:
        p.stdin.write("END\n")
        p.stdin.close()
    except BrokenPipeError:
        pass
    p.wait()
    return score, move


def evaluate(brain, stones, movetime):
    """The judge's evaluation for the side to move (mates as +-(MATE - plies))."""
    return think(brain, stones, movetime)[0]


class Verdicts:
    """The judge's evaluations for the side to move, by position and judging
    time, kept in the JSON file PATH when given, so that runs and builds
    compared on the same positions share them."""

    def __init__(self, brain, movetime, path=None):
        self.brain, self.movetime, self.path = brain, movetime, path
        self.known = {}
        if path and os.path.exists(path):
            self.known = json.load(open(path))

    def __call__(self, stones):
        key = "%s@%d" % (" ".join("%d %d" % tuple(c) for c in stones), self.movetime)
        if key not in self.known:
            self.known[key] = evaluate(self.brain, stones, self.movetime)
            if self.path:
                json.dump(self.known, open(self.path, "w"))
        return self.known[key]


def kinrow_move(kinrow, stones, movetime, nodes=None):
    """A kinrow build's move (`KINROW --bot minimax`, a command line) on 15x15:
    one `genmove` at MOVETIME, or with NODES at that node cap, `set seed 1`
    and an hour's movetime, so that the cap, not the clock, ends the search
    and the answer replays exactly."""
    lines = ["newgame 15 15 5"] + ["move %d %d" % tuple(c) for c in stones]
    if nodes:
        lines += ["set seed 1", "set nodes %d" % nodes, "set movetime 3600000"]
    else:
        lines += ["set movetime %d" % movetime]
    lines += ["genmove", "quit"]
    # Under a node cap the cap ends the move, however long that takes.
    out = subprocess.run(kinrow.split() + ["--bot", "minimax"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, timeout=None if nodes else 60).stdout
    answers = [a for a in out.split("\n\n") if a.strip()]
    reply = answers[-2].strip() if len(answers) >= 2 else ""
    m = re.match(r"= (\d+) (\d+)", reply)
    if not m:
        raise SystemExit("%s answered genmove with %r" % (kinrow, reply))
    return int(m.group(1)), int(m.group(2))


def shown(v):
    if v is None:
        return "?"
    if abs(v) > MATE // 2:
        return "M%+d" % ((MATE - abs(v)) * (1 if v > 0 else -1))
    return "%+d" % v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--engine", default="minimax")
    ap.add_argument("--movetime", type=int, default=300)
    ap.add_argument("--threshold", type=int, default=400)
    ap.add_argument("--max", type=int, default=1000)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    verdicts = Counter()
    done = 0
    for path in args.files:
        for line in open(path):
            rec = json.loads(line)
            if "game" not in rec or done >= args.max:
                continue
            me = "x" if rec["x"] == args.engine else "o" if rec["o"] == args.engine else None
            if me is None or rec["result"] in (me, "draw"):
                continue
            done += 1
            stones = [tuple(c) for c in rec["opening"]]
            my_parity = 0 if me == "x" else 1
            trail = []
            verdict = "slid"
            had_win = False
            prev = None
            for mv in rec["moves"]:
                stones.append(tuple(mv))
                if (len(stones) - 1) % 2 != my_parity:
                    continue
                v = evaluate(args.judge, stones, args.movetime)
                v = None if v is None else -v  # the judge spoke for the other side
                trail.append((len(stones), v))
                if v is not None and v > MATE // 2:
                    had_win = True
                if v is not None and v < -MATE // 2 and verdict == "slid":
                    if prev is not None and prev > -MATE // 2:
                        verdict = "walked into a forced loss at ply %d (%s -> %s)" % (
                            len(stones), shown(prev), shown(v))
                    else:
                        verdict = "forced loss from ply %d" % len(stones)
                prev = v
            if had_win:
                verdict += "; had a win"
            key = verdict.split(" at ")[0].split(" from ")[0]
            verdicts[(me, key)] += 1
            evals = " ".join("%d:%s" % (p, shown(v)) for p, v in trail)
            print("game %d (%s as %s, %d plies, %s): %s\n   %s" % (
                rec["game"], args.engine, me.upper(), len(stones), rec["reason"], verdict, evals),
                flush=True)
    print("\nverdicts:")
    for (colour, key), n in sorted(verdicts.items()):
        print("  as %s: %-30s %d" % (colour.upper(), key, n))


if __name__ == "__main__":
    main()
