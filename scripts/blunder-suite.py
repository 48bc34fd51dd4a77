#!/usr/bin/env python3
"""The moves that lost games, as a suite to replay: does a build still play
into the forced loss?

  extract: reads judge-games.py's report (its "walked into a forced loss at
      ply P" lines) and the referee's --games-out files it judged, and
      writes one position per line: the stones before the losing move (row
      and column from 1, X first), `|`, that move, `|`, where it came from.
  run: for each position, asks each kinrow build for its move (one
      `genmove` at MOVETIME) and the judge (a Gomocup brain that prints
      `Eval N` or `Eval -M7`, as Rapfi does) for the position after it. A
      move after which the judge proves a loss for its player is a miss.
      Prints a line per position and build and, per build, the misses and
      how many of them are the game's own losing move again.

The judge is not an oracle: at a short time it may not see a loss it saw
in the game (it judged there at --judge-time too); judge long enough.

Usage: blunder-suite.py extract --report JUDGE.txt FILE.jsonl ... > SUITE
       blunder-suite.py run --judge BRAIN [--judge-time 1000] [--movetime 200]
                        SUITE NAME=KINROW ...
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("judge", os.path.join(here, "judge-games.py"))
judge = importlib.util.module_from_spec(spec)
spec.loader.exec_module(judge)


def cells(text):
    nums = [int(t) for t in text.split()]
    return list(zip(nums[0::2], nums[1::2]))


def extract(args):
    losing = {}  # (run file's games, game number) -> ply of the losing move
    for line in open(args.report):
        m = re.match(r"game (\d+) .*walked into a forced loss at ply (\d+)", line)
        if m:
            losing[int(m.group(1))] = int(m.group(2))
    for path in args.files:
        for line in open(path):
            rec = json.loads(line)
            ply = losing.get(rec.get("game"))
            if ply is None:
                continue
            stones = [tuple(c) for c in rec["opening"]] + [tuple(c) for c in rec["moves"]]
            before, move = stones[: ply - 1], stones[ply - 1]
            print("%s | %d %d | %s game %d ply %d" % (
                " ".join("%d %d" % c for c in before), move[0], move[1],
                os.path.basename(path), rec["game"], ply))


def genmove(kinrow, stones, movetime):
    lines = ["newgame 15 15 5"] + ["move %d %d" % c for c in stones]
    lines += ["set movetime %d" % movetime, "genmove", "quit"]
    out = subprocess.run(kinrow.split() + ["--bot", "minimax"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, timeout=60).stdout
    answers = [a for a in out.split("\n\n") if a.strip()]
    reply = answers[-2].strip() if len(answers) >= 2 else ""
    m = re.match(r"= (\d+) (\d+)", reply)
    if not m:
        sys.exit("blunder-suite: %s answered genmove with %r" % (kinrow, reply))
    return int(m.group(1)), int(m.group(2))


def run(args):
    builds = [b.split("=", 1) for b in args.builds]
    misses = {name: 0 for name, _ in builds}
    again = {name: 0 for name, _ in builds}
    suite = [l for l in open(args.suite) if l.strip() and not l.startswith("#")]
    for line in suite:
        before, lost, source = [p.strip() for p in line.split("|")]
        stones, lost = cells(before), cells(lost)[0]
        for name, kinrow in builds:
            move = genmove(kinrow, stones, args.movetime)
            v = judge.evaluate(args.judge, stones + [move], args.judge_time)
            v = None if v is None else -v  # the judge spoke for the other side
            miss = v is not None and v < -judge.MATE // 2
            misses[name] += miss
            again[name] += miss and move == lost
            print("%-40s %-10s %2d %2d %-6s %s" % (
                source, name, move[0], move[1], judge.shown(v),
                "MISS" + (" (the game's move)" if move == lost else "") if miss else ""),
                flush=True)
    print("\n%d positions" % len(suite))
    for name, _ in builds:
        print("  %-10s %2d misses, %d of them the game's move" % (name, misses[name], again[name]))


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("--report", required=True)
    e.add_argument("files", nargs="+")
    r = sub.add_parser("run")
    r.add_argument("--judge", required=True)
    r.add_argument("--judge-time", type=int, default=1000)
    r.add_argument("--movetime", type=int, default=200)
    r.add_argument("suite")
    r.add_argument("builds", nargs="+", metavar="NAME=KINROW")
    args = ap.parse_args()
    extract(args) if args.cmd == "extract" else run(args)


if __name__ == "__main__":
    main()
