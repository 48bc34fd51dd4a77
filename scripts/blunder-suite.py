#!/usr/bin/env python3
"""The moves that lost games, as a suite to replay: does a build still play
into the forced loss?

  extract: finds the losing moves in the referee's --games-out files, and
      writes one position per line: the stones before the losing move (row
      and column from 1, X first), `|`, that move, `|`, where it came from.
      With --report, the moves judge-games.py's report names (its "walked
      into a forced loss at ply P" lines). With --claims, no judge is
      needed: in records made with --move-info, ENGINE's move right after
      which its opponent first claimed a forced win ("win in N", N at least
      --min-plies); --count keeps a random sample (--seed) of them.
  run: for each position, asks each kinrow build for its move (one
      `genmove` at --movetime, or with --nodes at that node cap, `set seed
      1` and an hour's movetime, which replays exactly on any machine) and
      the judge (a Gomocup brain that prints `Eval N` or `Eval -M7`, as
      Rapfi does) for the position after it. A move after which the judge
      proves a loss for its player is a miss. Prints a line per position
      and build and, per build, the misses and how many of them are the
      game's own losing move again. --reference adds the judge's own move
      at --movetime as a row (`judge`): what a strong player avoids.
      --cache keeps the judge's verdicts (JSON), so builds compared on one
      suite share them.

The judge is not an oracle: at a short time it may not see a loss it saw
in the game (it judged there at --judge-time too); judge long enough. A
position may be lost whatever is played: the reference row says how many
misses a strong player makes too.

Usage: blunder-suite.py extract --report JUDGE.txt FILE.jsonl ... > SUITE
       blunder-suite.py extract --claims [--engine minimax] [--min-plies 7]
                        [--count N] [--seed 1] FILE.jsonl ... > SUITE
       blunder-suite.py run --judge BRAIN [--judge-time 1000] [--movetime 200]
                        [--nodes N] [--reference] [--cache FILE]
                        SUITE NAME=KINROW ...
(KINROW may be a command line, such as "env VAR=1 path/to/kinrow".)
"""
import argparse
import importlib.util
import json
import os
import random
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("judge", os.path.join(here, "judge-games.py"))
judge = importlib.util.module_from_spec(spec)
spec.loader.exec_module(judge)
spec = importlib.util.spec_from_file_location("threats", os.path.join(here, "threat-suite.py"))
threats = importlib.util.module_from_spec(spec)
spec.loader.exec_module(threats)


def cells(text):
    nums = [int(t) for t in text.split()]
    return list(zip(nums[0::2], nums[1::2]))


def extract(args):
    if args.claims:
        return extract_claims(args)
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


def extract_claims(args):
    """The positions before ENGINE's moves that drew a claimed forced win."""
    found = [(stones, "%s game %d ply %d, win in %d claimed" % (
                 os.path.basename(path), rec["game"], len(stones), plies))
             for path, rec, plies, stones in threats.claimed_wins(
                 args.files, args.engine, args.min_plies)]
    if args.count is not None:
        random.Random(args.seed).shuffle(found)
        found = found[: args.count]
    for stones, source in found:
        before, move = stones[:-1], stones[-1]
        print("%s | %d %d | %s" % (" ".join("%d %d" % tuple(c) for c in before), move[0], move[1],
                                   source))


def run(args):
    builds = [b.split("=", 1) for b in args.builds]
    if any(len(b) != 2 for b in builds):
        sys.exit("blunder-suite: a build is NAME=KINROW")
    if args.reference:
        builds.append(["judge", None])
    misses = {name: 0 for name, _ in builds}
    again = {name: 0 for name, _ in builds}
    suite = [l for l in open(args.suite) if l.strip() and not l.startswith("#")]
    verdict = judge.Verdicts(args.judge, args.judge_time, args.cache)

    for line in suite:
        before, lost, source = [p.strip() for p in line.split("|")]
        stones, lost = cells(before), cells(lost)[0]
        for name, kinrow in builds:
            if kinrow is None:
                move = judge.think(args.judge, stones, args.movetime)[1]
                if move is None:
                    sys.exit("blunder-suite: the judge gave no move")
            else:
                move = judge.kinrow_move(kinrow, stones, args.movetime, args.nodes)
            v = verdict(stones + [move])
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
    source = e.add_mutually_exclusive_group(required=True)
    source.add_argument("--report")
    source.add_argument("--claims", action="store_true")
    e.add_argument("--engine", default="minimax")
    e.add_argument("--min-plies", type=int, default=7)
    e.add_argument("--count", type=int)
    e.add_argument("--seed", type=int, default=1)
    e.add_argument("files", nargs="+")
    r = sub.add_parser("run")
    r.add_argument("--judge", required=True)
    r.add_argument("--judge-time", type=int, default=1000)
    r.add_argument("--movetime", type=int, default=200)
    r.add_argument("--nodes", type=int)
    r.add_argument("--reference", action="store_true")
    r.add_argument("--cache")
    r.add_argument("suite")
    r.add_argument("builds", nargs="+", metavar="NAME=KINROW")
    args = ap.parse_args()
    extract(args) if args.cmd == "extract" else run(args)


if __name__ == "__main__":
    main()
