#!/usr/bin/env python3
"""Balanced openings for 15x15 free-style gomoku, judged by a Gomocup brain.

Draws random openings of 2 to 4 stones near the centre (X's first stone on
the centre, the others anywhere within RADIUS rows and columns of it), asks the judge brain for its evaluation after MOVETIME ms of
thought (the `Eval` of its last `MESSAGE` line, from the side to move), and
keeps those it scores within BOUND of even. The openings are written one a
line as 1-based cells `R C R C ...`, as the referee's --openings-file takes
them, with the judge's score (from X's side) as a comment.

The openings files in scripts/ were made with Rapfi (classical evaluation)
as the judge, 1000 ms a candidate:
  scripts/make-openings.py --judge PATH/TO/pbrain-rapfi --seed 1 --count 60 > dev.txt

Training openings for the evaluation's tuner are not judged (`--judge none`:
every candidate is kept, the games decide):
  scripts/make-openings.py --judge none --seed 3 --count 1000 --stones 2,3,4,5 --radius 4

Usage: make-openings.py --judge BRAIN|none [--seed N] [--count N] [--movetime MS]
                        [--bound CP] [--radius R] [--stones 2,3,3,4] [--avoid FILE ...]
"""
import argparse
import random
import re
import subprocess
import sys
import threading

SIZE = 15
CENTRE = (8, 8)


def judge(brain, stones, movetime):
    """The brain's evaluation of the position, from X's side (None: no answer)."""
    lines = ["START %d" % SIZE, "INFO timeout_turn %d" % movetime, "BOARD"]
    to_move = len(stones) % 2  # 0: X to move
    for i, (r, c) in enumerate(stones):
        # Gomocup BOARD lines are x,y,who with 1 the brain's own stones: the brain
        # is the side to move.
        who = 1 if i % 2 == to_move else 2
        lines.append("%d,%d,%d" % (c - 1, r - 1, who))
    lines.append("DONE")
    p = subprocess.Popen([brain], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, bufsize=1)
    p.stdin.write("\n".join(lines) + "\n")
    p.stdin.flush()
    timer = threading.Timer(movetime / 1000 * 3 + 5, p.kill)
    timer.start()
    score = None
    for line in p.stdout:
        m = re.search(r"Eval (-?\d+)", line)
        if m:
            score = int(m.group(1))
        if re.match(r"^\d+,\d+\s*$", line):
            break
    timer.cancel()
    try:
        p.stdin.write("END\n")
        p.stdin.close()
    except BrokenPipeError:
        pass
    p.wait()
    if score is None:
        return None
    return score if to_move == 0 else -score


def candidate(rng, radius, counts):
    stones = [CENTRE]
    n = rng.choice(counts)
    while len(stones) < n:
        r = CENTRE[0] + rng.randint(-radius, radius)
        c = CENTRE[1] + rng.randint(-radius, radius)
        if (r, c) not in stones:
            stones.append((r, c))
    return stones


def canonical(stones):
    """The same opening under the board's eight symmetries, as one key."""
    forms = []
    for t in range(8):
        out = []
        for r, c in stones:
            r, c = r - 8, c - 8
            if t & 1:
                r, c = c, r
            if t & 2:
                r = -r
            if t & 4:
                c = -c
            out.append((r, c))
        forms.append((tuple(sorted(out[0::2])), tuple(sorted(out[1::2]))))
    return min(forms)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--judge", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--movetime", type=int, default=1000)
    ap.add_argument("--bound", type=int, default=60)
    ap.add_argument("--radius", type=int, default=3)
    ap.add_argument("--avoid", nargs="*", default=[])
    ap.add_argument("--stones", default="2,3,3,4",
                    help="the choices of the number of stones, comma-separated")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    counts = [int(n) for n in args.stones.split(",")]
    seen = set()
    for path in args.avoid:
        for line in open(path):
            line = line.split("#")[0].split()
            if line:
                v = list(map(int, line))
                seen.add(canonical(list(zip(v[0::2], v[1::2]))))
    if args.judge == "none":
        print("# Random 15x15 openings (%s stones), not judged" % args.stones)
    else:
        print("# Balanced 15x15 free openings (%s stones), judged by %s at %d ms a position:"
              % (args.stones, args.judge.rsplit("/", 1)[-1], args.movetime))
        print("# kept when its evaluation is within %d of even; the score is from X's side."
              % args.bound)
    print("# Made by scripts/make-openings.py --seed %d --count %d --bound %d --radius %d --stones %s"
          % (args.seed, args.count, args.bound, args.radius, args.stones))
    kept = tried = 0
    while kept < args.count:
        stones = candidate(rng, args.radius, counts)
        key = canonical(stones)
        if key in seen:
            continue
        seen.add(key)
        tried += 1
        if args.judge == "none":
            score = 0
        else:
            score = judge(args.judge, stones, args.movetime)
        if score is None or abs(score) > args.bound:
            continue
        kept += 1
        cells = "  ".join("%d %d" % s for s in stones)
        if args.judge == "none":
            print(cells, flush=True)
        else:
            print("%s  # %+d" % (cells, score), flush=True)
        print("kept %d of %d" % (kept, tried), file=sys.stderr)


if __name__ == "__main__":
    main()
