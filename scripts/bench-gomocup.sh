#!/usr/bin/env bash
# Benchmark of the referee's per-ply cost on 15x15 (five in a row) with
# Gomocup brains driven natively, against kinrow engines and against the
# Python bridge (bots/gomocup.py), all pinned to CPU 0 with taskset in the
# same run:
#   gomocup  two trivial Gomocup brains (examples/pbrain-random.rs, a random
#            empty cell), driven natively by the referee
#   kinrow   two `kinrow --bot random` engines (kinrow's protocol)
#   bridge   the same trivial brains, each behind bots/gomocup.py
# Prints microseconds per ply (wall time of the run over all plies played),
# the best of three runs each (machines here are shared: the best is the one
# least disturbed).
# For comparison: c-gomoku-cli, a Gomocup manager in C, was measured at about
# 17 us per ply with two trivial brains, pinned.
#
# Usage: scripts/bench-gomocup.sh [GAMES]     (default 400; the bridge plays
# a tenth of them, it is that much slower)
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-400}
cargo build --release --quiet --bin referee --bin kinrow --example pbrain-random
referee=target/release/referee
brain=target/release/examples/pbrain-random
pin=(env)
if command -v taskset >/dev/null; then pin=(taskset -c 0); else echo "taskset not found: unpinned" >&2; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The best of three measurements.
measure() {
    for _ in 1 2 3; do measure_once "$@"; done | sort -g | head -1
}

# One measurement: prints "us_per_ply plies games faults".
measure_once() {
    local n=$1; shift
    rm -f "$tmp/games.jsonl" "$tmp/summary.json"
    "${pin[@]}" "$referee" "$@" --board 15x15 --k 5 --games "$n" --concurrency 1 --seed 1 \
        --quiet --json "$tmp/summary.json" --games-out "$tmp/games.jsonl" >/dev/null
    python3 - "$tmp/summary.json" "$tmp/games.jsonl" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
games = [json.loads(line) for line in open(sys.argv[2])]
faults = sum(1 for g in games if g["fault_by"])
plies = sum(len(g["moves"]) for g in games)
print("%.2f %d %d %d" % (summary["seconds"] * 1e6 / plies, plies, len(games), faults))
PY
}

printf '%-8s %10s %8s %7s %7s\n' engines us/ply plies games faults
read -r us plies n faults < <(measure "$games" --engine "a=gomocup:$brain 1" --engine "b=gomocup:$brain 2")
printf '%-8s %10s %8s %7s %7s\n' gomocup "$us" "$plies" "$n" "$faults"
read -r us plies n faults < <(measure "$games" --engine "a=target/release/kinrow --bot random" \
    --engine "b=target/release/kinrow --bot random")
printf '%-8s %10s %8s %7s %7s\n' kinrow "$us" "$plies" "$n" "$faults"
bridge_games=$(( games / 10 > 2 ? games / 10 : 2 ))
read -r us plies n faults < <(measure "$bridge_games" \
    --engine "a=python3 bots/gomocup.py -- $brain 1" --engine "b=python3 bots/gomocup.py -- $brain 2")
printf '%-8s %10s %8s %7s %7s\n' bridge "$us" "$plies" "$n" "$faults"
echo "(random play on 15x15, concurrency 1, every process pinned to CPU 0; c-gomoku-cli: ~17 us/ply)"
