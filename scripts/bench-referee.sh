#!/usr/bin/env bash
# Benchmark of the referee's per-ply cost: random against random on 3x3 at
# concurrency 1, printing games per second, microseconds per ply, and the
# ratio of the cost per ply to one pipe round trip measured by
# ../shared/bench/pipe-limit.rs in the same run under the same CPU pinning
# (all processes on CPU 0 with taskset, and unpinned). Target: at most 1.5
# round trips per ply.
#
# Usage: scripts/bench-referee.sh [GAMES]     (default 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-20000}
cargo build --release --quiet --bin referee --bin kinrow
referee=target/release/referee
pipe_src=../shared/bench/pipe-limit.rs
pipe_bin=target/pipe-limit
have_pipe=0
if [[ -f $pipe_src ]] && command -v rustc >/dev/null; then
    rustc -O "$pipe_src" -o "$pipe_bin" && have_pipe=1
else
    echo "note: $pipe_src not found: skipping the round-trip comparison" >&2
fi
have_taskset=0
command -v taskset >/dev/null && have_taskset=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One measurement: prints "games_per_s us_per_ply plies".
measure_referee() {
    local pin=("$@")
    rm -f "$tmp/games.jsonl" "$tmp/summary.json"
    "${pin[@]}" "$referee" --bots random,random --games "$games" --concurrency 1 \
        --seed 1 --quiet --json "$tmp/summary.json" --games-out "$tmp/games.jsonl" >/dev/null
    python3 - "$tmp/summary.json" "$tmp/games.jsonl" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
plies = sum(len(json.loads(line)["moves"]) for line in open(sys.argv[2]))
secs = summary["seconds"]
print("%.0f %.2f %d" % (summary["games"] / secs, secs * 1e6 / plies, plies))
PY
}

measure_pipe() {
    "$@" "$pipe_bin" 200000 | sed -n 's/.*per_rt_us=\([0-9.]*\).*/\1/p'
}

printf '%-10s %12s %12s %14s %16s\n' pinning games/s us/ply us/roundtrip roundtrips/ply
for mode in unpinned cpu0; do
    pin=(env)
    if [[ $mode == cpu0 ]]; then
        [[ $have_taskset == 1 ]] || { echo "cpu0: taskset not found, skipped"; continue; }
        pin=(taskset -c 0)
    fi
    read -r gps us plies < <(measure_referee "${pin[@]}")
    rt="-"
    ratio="-"
    if [[ $have_pipe == 1 ]]; then
        rt=$(measure_pipe "${pin[@]}")
        ratio=$(python3 -c "print('%.2f' % ($us / $rt))")
    fi
    printf '%-10s %12s %12s %14s %16s\n' "$mode" "$gps" "$us" "$rt" "$ratio"
done
echo "($games games of random vs random on 3x3, concurrency 1; the last column is the cost of a ply in pipe round trips: target <= 1.5)"
