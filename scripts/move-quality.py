#!/usr/bin/env python3
"""Paired move quality: in positions of real games, is a kinrow build's move
as good as a strong brain's own move, by that brain's judgement?

Takes the positions before ENGINE's first --moves moves as --colour in the
referee's --games-out records (each once), keeps those the judge (a Gomocup
brain that prints `Eval N` or `Eval -M7`, as Rapfi does) scores undecided
(within --limit of even, no forced result), and in each asks
  - the kinrow build for its move (one `genmove` at --movetime),
  - the judge for its own move at the same time,
then has the judge score the position after each at --judge-time. A score
becomes the mover's expected result, 1 / (1 + e^(-score / --scale)) (126 of
Rapfi's units are about a logit against itself), 0 or 1 when proved.

Prints a line per position and a summary: the mean expected result after the
build's moves and after the judge's, their paired difference with its
standard error, how many moves were the same, and how many walked into a
loss the judge proves. The judge's evaluations are cached in --cache (JSON),
so builds compared on the same positions share them.

Usage: move-quality.py --judge BRAIN --kinrow KINROW [--engine minimax]
           [--colour o] [--moves 8] [--movetime 200] [--judge-time 1000]
           [--limit 400] [--max 100] [--cache FILE] FILE.jsonl ...
"""
import argparse
import importlib.util
import json
import math
import os
import random

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("judge", os.path.join(here, "judge-games.py"))
judge = importlib.util.module_from_spec(spec)
spec.loader.exec_module(judge)


def positions(files, engine, colour, moves):
    """Each position before one of ENGINE's first MOVES moves as COLOUR, once."""
    seen, out = set(), []
    for path in files:
        for line in open(path):
            rec = json.loads(line)
            if "game" not in rec or rec[colour] != engine:
                continue
            stones = [tuple(c) for c in rec["opening"]]
            mine = 0 if colour == "x" else 1
            made = 0
            for move in rec["moves"]:
                if len(stones) % 2 == mine:
                    if tuple(stones) not in seen:
                        seen.add(tuple(stones))
                        out.append(list(stones))
                    made += 1
                    if made >= moves:
                        break
                stones.append(tuple(move))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--kinrow", required=True)
    ap.add_argument("--engine", default="minimax")
    ap.add_argument("--colour", choices=["x", "o"], default="o")
    ap.add_argument("--moves", type=int, default=8)
    ap.add_argument("--movetime", type=int, default=200)
    ap.add_argument("--judge-time", type=int, default=1000)
    ap.add_argument("--limit", type=int, default=400)
    ap.add_argument("--scale", type=float, default=126)
    ap.add_argument("--max", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache", default="")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    score = judge.Verdicts(args.judge, args.judge_time, args.cache)

    def expected(v):
        """The expected result of the side that just moved, from the judge's
        score for the side to move."""
        if v > judge.MATE // 2:
            return 0.0
        if v < -judge.MATE // 2:
            return 1.0
        return 1 / (1 + math.exp(v / args.scale))

    todo = positions(args.files, args.engine, args.colour, args.moves)
    random.Random(args.seed).shuffle(todo)
    diffs, same, ours_lost, theirs_lost = [], 0, 0, 0
    total = [0.0, 0.0]
    for stones in todo:
        if len(diffs) >= args.max:
            break
        v = score(stones)
        if v is None or abs(v) >= args.limit:
            continue
        ours = judge.kinrow_move(args.kinrow, stones, args.movetime)
        theirs = judge.think(args.judge, stones, args.movetime)[1]
        if theirs is None:  # the judge gave no move (it died or hung)
            continue
        after = [score(stones + [ours]), score(stones + [theirs])]
        if None in after:
            continue
        q = [expected(a) for a in after]
        total = [total[0] + q[0], total[1] + q[1]]
        diffs.append(q[0] - q[1])
        same += ours == theirs
        ours_lost += after[0] > judge.MATE // 2
        theirs_lost += after[1] > judge.MATE // 2
        print("stones %d  kinrow %s %.3f  judge %s %.3f%s" % (
            len(stones), "%d %d" % ours, q[0], "%d %d" % theirs, q[1],
            "  (same)" if ours == theirs else ""), flush=True)
    n = len(diffs)
    if n < 2:
        raise SystemExit("move-quality.py: fewer than two undecided positions")
    mean = sum(diffs) / n
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n)
    print("%d positions: kinrow %.3f, judge %.3f, difference %+.3f ± %.3f (one standard "
          "error); the same move %d times; into a proved loss: kinrow %d, judge %d" % (
              n, total[0] / n, total[1] / n, mean, se, same, ours_lost, theirs_lost))


if __name__ == "__main__":
    main()
