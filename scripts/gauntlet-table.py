#!/usr/bin/env python3
"""The gauntlet's table from referee --games-out files: one row per file, the
games of ENGINE (default: minimax) against the other engine of the run.

Score counts a win 1, a draw 1/2. Elo is -400 log10(1/score - 1); its 95 %
error is the referee's: from the spread of the games' scores (normal
approximation; when every game scored the same, half a win and half a loss
are added). That error takes the games as independent; they are not when
runs replay the same openings against an engine that answers alike (Carbon
and Rapfi mostly do, so a line lost once is often lost again). "± by
opening" is the same 95 % error with the games grouped by opening (a
cluster-robust variance: the squared sums of each opening's deviations from
the mean score), followed by the number of openings; it is the one to read
when a run's openings repeat. Losses on time and illegal moves are counted
from the records' reasons and fault_by fields; "peak MiB" is ENGINE's largest
peak resident size in the records (the referee's peak_mib; "-" where none was
measured), with the games it lost for passing its memory limit.

A file in which ENGINE does not play is a reference: an opponent against
itself on the same openings (gauntlet.sh --reference writes ENGINE-MS-self.jsonl
beside ENGINE-MS.jsonl). The openings are seldom even for play, so a second
table gives, per reference, how X scores there, and ENGINE's score by colour
in the file of the same name without "-self" as Elo against that: how far
behind equal strength it is as X and as O.

Usage: gauntlet-table.py [--engine NAME] FILE.jsonl ...
"""
import argparse
import json
import math
import sys


def elo(score):
    score = min(max(score, 1e-9), 1 - 1e-9)
    return max(-2000, min(2000, -400 * math.log10(1 / score - 1)))


def half_width(mean, sd):
    """The 95 % half-width in Elo of a mean score with standard error sd."""
    return (elo(mean + 1.96 * sd) - elo(mean - 1.96 * sd)) / 2


def elo_with_error(scores):
    """Elo and its 95 % half-width from per-game scores (0, 1/2, 1)."""
    n = len(scores)
    if n == 0:
        return None, None
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / n
    if var < 1e-15:
        # As the referee: half a win and half a loss added.
        n += 1
        mean = (sum(scores) + 0.5) / n
        var = (sum((s - mean) ** 2 for s in scores) + 0.5 * (mean ** 2 + (1 - mean) ** 2)) / n
    return elo(mean), half_width(mean, math.sqrt(var / n))


def elo_error_by_group(scores, groups):
    """The 95 % half-width in Elo of the mean of `scores` when the games of
    a group (an opening) may be alike: the variance of the mean is the sum
    over groups of the squared sum of their deviations, over n squared.
    With one game a group it is the plain error; None when it is zero."""
    n = len(scores)
    mean = sum(scores) / n
    sums = {}
    for s, g in zip(scores, groups):
        sums[g] = sums.get(g, 0.0) + s - mean
    var = sum(d * d for d in sums.values()) / (n * n)
    if var < 1e-15:
        return None
    return half_width(mean, math.sqrt(var))


def summarize(path, me):
    games = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            rec = json.loads(line)
            if "game" in rec:
                games.append(rec)
    if not games:
        return None
    names = {g["x"] for g in games} | {g["o"] for g in games}
    if me not in names:
        if len(names) != 2:
            sys.exit("%s: no engine named %s (%s)" % (path, me, ", ".join(sorted(names))))
        # A reference: how X scores, whichever engine it was.
        x_points = sum(1.0 if g["result"] == "x" else 0.5 if g["result"] == "draw" else 0.0
                       for g in games)
        return {"file": path, "reference": True, "games": len(games),
                "x_score": x_points / len(games), "names": sorted(names)}
    other = sorted(names - {me})[0] if len(names) > 1 else me
    tally = {"x": [0, 0, 0], "o": [0, 0, 0]}  # win, draw, loss by my colour
    scores = []
    openings = []
    on_time = illegal = over_memory = 0
    peak = None
    for g in games:
        colour = "x" if g["x"] == me else "o"
        mine = (g.get("peak_mib") or {}).get(colour)
        if mine is not None:
            peak = mine if peak is None else max(peak, mine)
        if g["result"] == colour:
            points, i = 1.0, 0
        elif g["result"] == "draw":
            points, i = 0.5, 1
        else:
            points, i = 0.0, 2
            reason = g.get("reason", "")
            if "time" in reason:
                on_time += 1
            elif g.get("fault_by") == me and reason == "memory":
                over_memory += 1
            elif g.get("fault_by") == me:
                illegal += 1
        tally[colour][i] += 1
        scores.append(points)
        # A record without its opening is a group of its own.
        opening = g.get("opening")
        openings.append(json.dumps(opening) if opening is not None else ("game", len(scores)))
    n = len(games)
    wins = tally["x"][0] + tally["o"][0]
    draws = tally["x"][1] + tally["o"][1]
    score = (wins + draws / 2) / n
    e, err = elo_with_error(scores)
    err_by_opening = elo_error_by_group(scores, openings)
    return {
        "file": path,
        "opponent": other,
        "games": n,
        "wdl": (wins, draws, n - wins - draws),
        "score": score,
        "elo": e,
        "err": err,
        "err_by_opening": err_by_opening,
        "openings": len(set(openings)),
        "x": tally["x"],
        "o": tally["o"],
        "on_time": on_time,
        "illegal": illegal,
        "peak": peak,
        "over_memory": over_memory,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default="minimax")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    print("| opponent | run | games | +W =D -L | score | Elo (95 %) | ± by opening | as X | as O "
          "| lost on time | illegal | peak MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    runs, references = {}, []
    for path in args.files:
        s = summarize(path, args.engine)
        if s is None:
            continue
        run = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if s.get("reference"):
            references.append((run, s))
            continue
        runs[run] = s
        elo_text = "%+.0f ± %.0f" % (s["elo"], s["err"]) if s["elo"] is not None else "-"
        by_opening = "%s (%d)" % (
            "-" if s["err_by_opening"] is None else "± %.0f" % s["err_by_opening"], s["openings"])
        half = lambda t: "%g of %d" % (t[0] + t[1] / 2, sum(t))
        peak = "-" if s["peak"] is None else "%.1f" % s["peak"]
        if s["over_memory"]:
            peak += " (%d lost over the limit)" % s["over_memory"]
        print("| %s | %s | %d | +%d =%d -%d | %.1f %% | %s | %s | %s | %s | %d | %d | %s |" % (
            s["opponent"], run, s["games"], *s["wdl"], 100 * s["score"], elo_text, by_opening,
            half(s["x"]), half(s["o"]), s["on_time"], s["illegal"], peak))
    if references:
        print()
        print("| reference | games | X scores | %s as X, Elo against it | as O |" % args.engine)
        print("|---|---|---|---|---|")
    for run, r in references:
        gaps = ["-", "-"]
        s = runs.get(run[: -len("-self")] if run.endswith("-self") else None)
        if s is not None:
            expected = [r["x_score"], 1 - r["x_score"]]
            for i, t in enumerate([s["x"], s["o"]]):
                if sum(t):
                    gaps[i] = "%+.0f" % (elo((t[0] + t[1] / 2) / sum(t)) - elo(expected[i]))
        print("| %s (%s) | %d | %.1f %% | %s | %s |" % (
            run, " against ".join(r["names"]), r["games"], 100 * r["x_score"], *gaps))


if __name__ == "__main__":
    main()
