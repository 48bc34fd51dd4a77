#!/usr/bin/env bash
# Benchmark of the referee, in two parts.
#
# 1. Process mode: random against random on 3x3 at concurrency 1, printing
#    games per second, microseconds per ply, the referee's own time per ply,
#    and the cost of a ply in pipe round trips measured by
#    scripts/bench/pipe-limit.rs in the same run under the same CPU pinning
#    (all processes on CPU 0 with taskset, and unpinned). Target: at most
#    1.5 round trips per ply pinned. Beside it, the same against the floor
#    of a game (scripts/bench/pipe-limit-two.rs: one parent alternating
#    between two children, as a referee does between two engines; on one
#    CPU each hand-off is to a third process, which costs more).
# 2. In process (--in-process): random against random on 3x3 pinned to CPU 0
#    and its ratio to the pinned process mode of part 1 (target: at least
#    50), the same unpinned at concurrency 1 and 2 (scaling with cores), and
#    games per second on 3x3, 4x4 k4 and 15x15 k5.
#
# Usage: scripts/bench-referee.sh [GAMES [IN_PROCESS_GAMES]]
#        (default 20000 games in process mode, 1000000 in process)
set -euo pipefail
cd "$(dirname "$0")/.."
games=${1:-20000}
in_games=${2:-1000000}
cargo build --release --quiet --bin referee --bin kinrow
referee=target/release/referee
pipe_src=scripts/bench/pipe-limit.rs
pipe_bin=target/pipe-limit
have_pipe=0
if [[ -f $pipe_src ]] && command -v rustc >/dev/null; then
    rustc -O "$pipe_src" -o "$pipe_bin" && have_pipe=1
    rustc -O scripts/bench/pipe-limit-two.rs -o target/pipe-limit-two
else
    echo "note: $pipe_src not found: skipping the round-trip comparison" >&2
fi
have_taskset=0
command -v taskset >/dev/null && have_taskset=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One run: prints "games_per_s us_per_ply referee_us_per_ply" from the
# summary (wall time of the games, plies, the referee's own time per ply).
measure() {
    local pin=("$1")
    [[ $1 == none ]] && pin=()
    [[ $1 == cpu0 ]] && pin=(taskset -c 0)
    shift
    rm -f "$tmp/games.jsonl" "$tmp/summary.json"
    "${pin[@]}" "$referee" --bots random,random --seed 1 --quiet \
        --json "$tmp/summary.json" "$@" >/dev/null
    python3 - "$tmp/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = s["per_ply_us"]
print("%.0f %.2f %.2f" % (s["games"] / s["seconds"], s["seconds"] * 1e6 / t["plies"], t["referee"]))
PY
}

measure_pipe() {
    local pin=()
    [[ $1 == cpu0 ]] && pin=(taskset -c 0)
    "${pin[@]}" "${2:-$pipe_bin}" 200000 | sed -n 's/.*per_rt_us=\([0-9.]*\).*/\1/p'
}

echo "Process mode: $games games of random vs random on 3x3, concurrency 1, with --games-out"
printf '%-10s %10s %9s %13s %13s %15s %12s\n' pinning games/s us/ply referee-us/ply us/roundtrip roundtrips/ply x-game-floor
process_cpu0=""
for mode in none cpu0; do
    if [[ $mode == cpu0 && $have_taskset == 0 ]]; then
        echo "cpu0: taskset not found, skipped"
        continue
    fi
    read -r gps us own < <(measure "$mode" --games "$games" --concurrency 1 \
        --games-out "$tmp/games.jsonl")
    [[ $mode == cpu0 ]] && process_cpu0=$gps
    rt="-"
    ratio="-"
    game_ratio="-"
    if [[ $have_pipe == 1 ]]; then
        rt=$(measure_pipe "$mode")
        ratio=$(python3 -c "print('%.2f' % ($us / $rt))")
        game_rt=$(measure_pipe "$mode" target/pipe-limit-two)
        game_ratio=$(python3 -c "print('%.2f' % ($us / $game_rt))")
    fi
    printf '%-10s %10s %9s %13s %13s %15s %12s\n' "${mode/none/unpinned}" "$gps" "$us" "$own" "$rt" "$ratio" "$game_ratio"
done
echo "(roundtrips/ply: the cost of a ply in pipe round trips, target <= 1.5 pinned;"
echo " x-game-floor: against a parent alternating between two echoing children)"
echo
echo "In process: random vs random, $in_games games a run"
printf '%-26s %12s %9s %8s\n' run games/s us/ply "x process"
row() {
    local label=$1 mode=$2
    shift 2
    read -r gps us _ < <(measure "$mode" --in-process "$@")
    local x="-"
    if [[ -n $process_cpu0 && $label == "3x3, CPU 0, concurrency 1" ]]; then
        x=$(python3 -c "print('%.0f' % ($gps / $process_cpu0))")
    fi
    printf '%-26s %12s %9s %8s\n' "$label" "$gps" "$us" "$x"
}
if [[ $have_taskset == 1 ]]; then
    row "3x3, CPU 0, concurrency 1" cpu0 --games "$in_games" --concurrency 1
fi
row "3x3, unpinned, conc. 1" none --games "$in_games" --concurrency 1
row "3x3, unpinned, conc. 2" none --games "$in_games" --concurrency 2
row "3x3, with --games-out" none --games "$in_games" --concurrency 1 \
    --games-out "$tmp/games.jsonl"
row "4x4 k4, unpinned, conc. 1" none --games "$((in_games / 2))" --board 4x4 --k 4 --concurrency 1
row "15x15 k5, unpinned, conc. 1" none --games "$((in_games / 20))" --board 15x15 --k 5 \
    --concurrency 1
echo "(x process: games per second against the pinned process mode above; target >= 50)"
