#!/usr/bin/env bash
# The mcts strength table: mcts against random, blocking and minimax on 3x3,
# 5x5 k4, 7x7 k5 and 15x15 k5 under the referee (pairs of games with colours
# swapped, the referee's default random openings), one game at a time, niced.
# Prints one markdown row per match: W/D/L from mcts's side, the score, Elo
# with its 95 % error, and the split by colour. Asserts nothing.
#
# Usage: scripts/mcts-table.sh [MOVETIME_MS] [SEED]
#   GAMES_3x3, GAMES_5x5, GAMES_7x7, GAMES_15x15 override the games per match
#   (defaults 1000, 100, 60, 40); BOARDS limits the boards (e.g. "5x5 7x7");
#   OPPONENTS the opponents (e.g. "minimax").
set -euo pipefail
cd "$(dirname "$0")/.."

movetime=${1:-100}
seed=${2:-1}
boards=${BOARDS:-"3x3 5x5 7x7 15x15"}
opponents=${OPPONENTS:-"random blocking minimax"}
cargo build --release --quiet --bin kinrow --bin referee
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "# $(uname -srm), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'); movetime ${movetime} ms, seed ${seed}"
echo "| board | opponent | games | mcts W-D-L | score | Elo (95 %) | as X W-D-L | as O W-D-L | seconds |"
echo "|---|---|---|---|---|---|---|---|---|"
for board in $boards; do
    case $board in
        3x3) k=3 games=${GAMES_3x3:-1000} ;;
        5x5) k=4 games=${GAMES_5x5:-100} ;;
        7x7) k=5 games=${GAMES_7x7:-60} ;;
        15x15) k=5 games=${GAMES_15x15:-40} ;;
        *) echo "unknown board $board" >&2; exit 2 ;;
    esac
    for opponent in $opponents; do
        json="$out/$board-$opponent.json"
        nice -n 10 target/release/referee --bots "mcts,$opponent" --board "$board" --k "$k" \
            --movetime "$movetime" --games "$games" --seed "$seed" --concurrency 1 --quiet \
            --json "$json" >/dev/null
        python3 - "$json" "$board k$k" "$opponent" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
p = s["pairings"][0]
w, d, l, n = p["a_wins"], p["draws"], p["b_wins"], p["games"]
x, o = p["a_as_x"], p["a_as_o"]
split = lambda c: f'{c["wins"]}-{c["draws"]}-{c["losses"]}'
elo = f'{p["elo"]:+.0f} ± {p["elo_error"]:.0f}' + (" (est.: ½-½ added)" if p.get("corrected") else "")
faults = f' (faults: {p["faults"]})' if p["faults"] else ""
print(f'| {sys.argv[2]} | {sys.argv[3]} | {n} | {w}-{d}-{l} | {(w + d / 2) / n:.1%} | {elo} '
      f'| {split(x)} | {split(o)} | {s["seconds"]:.0f}{faults} |')
EOF
    done
done
