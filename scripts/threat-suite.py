#!/usr/bin/env python3
"""The walked-into suite: positions where a strong engine, right after one of
kinrow's moves, first claimed a forced win, and how many of them a kinrow
build proves a win in (as the side to move) within a node cap.

  threat-suite.py extract [--engine minimax] [--min-plies 7] [--count 150]
                          [--seed 1] GAMES.jsonl ... > SUITE
  threat-suite.py run SUITE KINROW NODES [NODES ...]

`extract` reads referee records made with --move-info, takes from each game
the first position where the opponent's score turned into "win in N" (N at
least --min-plies) just after the engine's move, and writes a random
--count of them as "N|R C R C ..." (1-based stones, the opening's first).
Positions a build proves at a node cap are threats its search reads; the
opponent proved each within its own move.

`run` sends every position to one `KINROW --bot minimax` session with
`set seed 1`, `set nodes NODES` and an hour's movetime (the default second
would cut a large cap short on a slow or busy machine) and counts the moves
answered with a proved win (`search_info` says "score win"). A node cap and
a seed replay exactly on any machine (unseeded, counts move by one or so
between runs).
"""
import json
import random
import subprocess
import sys


def claimed_wins(files, engine, min_plies):
    """In referee records made with --move-info, each game's first claim of a
    forced win ("win in N") by ENGINE's opponent right after one of ENGINE's
    moves: (path, record, N, the stones up to that move, opening first). A
    game whose first claim is shorter than MIN_PLIES gives nothing."""
    won = lambda s: isinstance(s, str) and s.startswith("win")
    for path in files:
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                if "game" not in r or not r.get("move_info"):
                    continue
                ours = "x" if r["x"] == engine else "o" if r["o"] == engine else None
                if ours is None:
                    continue
                x_first = len(r["opening"]) % 2 == 0
                infos = r["move_info"]
                for i in range(1, len(infos)):
                    mover = "x" if (i % 2 == 0) == x_first else "o"
                    if mover == ours or not infos[i]:
                        continue
                    before = (infos[i - 2] or {}).get("score") if i >= 2 else None
                    if won(infos[i].get("score")) and not won(before):
                        plies = int(infos[i]["score"].split()[-1])
                        if plies >= min_plies:
                            yield path, r, plies, r["opening"] + r["moves"][:i]
                        break


def extract(args):
    engine, min_plies, count, seed, files = "minimax", 7, 150, 1, []
    it = iter(args)
    for a in it:
        if a == "--engine":
            engine = next(it)
        elif a == "--min-plies":
            min_plies = int(next(it))
        elif a == "--count":
            count = int(next(it))
        elif a == "--seed":
            seed = int(next(it))
        else:
            files.append(a)
    if not files:
        sys.exit("usage: threat-suite.py extract [options] GAMES.jsonl ...")
    found = [(plies, stones) for _, _, plies, stones in claimed_wins(files, engine, min_plies)]
    random.seed(seed)
    random.shuffle(found)
    for plies, stones in found[:count]:
        print("%d|%s" % (plies, " ".join("%d %d" % (a, b) for a, b in stones)))
    print("threat-suite.py: %d positions, %d written" % (len(found), min(count, len(found))),
          file=sys.stderr)


NODE_CAP_MOVETIME = 3600000


def run(args):
    if len(args) < 3:
        sys.exit("usage: threat-suite.py run SUITE KINROW NODES [NODES ...]")
    suite, kinrow, caps = args[0], args[1], [int(n) for n in args[2:]]
    with open(suite) as f:
        positions = [line.strip().split("|") for line in f if "|" in line]
    for nodes in caps:
        # The movetime only keeps the default second from cutting the node cap short.
        commands = ["set seed 1", "set nodes %d" % nodes, "set movetime %d" % NODE_CAP_MOVETIME]
        for _, stones in positions:
            xs = stones.split()
            commands.append("newgame 15 15 5")
            commands += ["move %s %s" % (xs[i], xs[i + 1]) for i in range(0, len(xs), 2)]
            commands += ["genmove", "search_info"]
        out = subprocess.run([kinrow, "--bot", "minimax"], input="\n".join(commands) + "\nquit\n",
                             capture_output=True, text=True, check=True).stdout
        infos = [l for l in out.split("\n") if l.startswith("= depth")]
        wins = sum("score win" in l for l in infos)
        print("%s: %d nodes, %d positions, %d proved wins" % (kinrow, nodes, len(infos), wins))


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("extract", "run"):
        sys.exit(__doc__)
    (extract if sys.argv[1] == "extract" else run)(sys.argv[2:])
