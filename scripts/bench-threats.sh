#!/usr/bin/env bash
# Nodes per second of minimax's threat searcher on 15x15 (five in a row):
# one move from each of a set of positions (the openings of
# scripts/openings-15x15-k5.txt and middle-game positions of the tactical
# suite), searched for MOVETIME ms through the Gomocup protocol, whose
# MESSAGE line gives the nodes and the time; pinned to CPU 0. Other
# engines that speak the Gomocup protocol and print such a line (minimax
# built from an older commit, say) are measured in the same run.
#
# Nodes are what each search counts: this tree's threat searcher counts
# every position it visits, the VCF and VCT searches' included; main's
# minimax counted its alpha-beta nodes.
#
# Usage: scripts/bench-threats.sh [MOVETIME_MS] [NAME=KINROW_BINARY ...]
set -euo pipefail
cd "$(dirname "$0")/.."
movetime=${1:-1000}
shift || true
cargo build --release --quiet --bin kinrow
pin=(env)
if command -v taskset >/dev/null; then pin=(taskset -c 0); else echo "taskset not found: unpinned" >&2; fi
engines=("minimax=target/release/kinrow" "$@")

# Positions as 1-based "R C R C ..." move lists.
positions() {
    grep -v '^#' scripts/openings-15x15-k5.txt | grep -v '^ *$'
    grep '| 15x15 k5 free |' tests/data/tactics.txt | grep -v '^#' | cut -d'|' -f3
}

# A Gomocup session for one position: the side to move is the brain (1).
session() {
    python3 - "$movetime" "$1" <<'PY'
import sys
movetime, moves = sys.argv[1], list(map(int, sys.argv[2].split()))
cells = list(zip(moves[0::2], moves[1::2]))
me = len(cells) % 2
print("START 15\nINFO timeout_turn %s\nBOARD" % movetime)
for i, (r, c) in enumerate(cells):
    print("%d,%d,%d" % (c - 1, r - 1, 1 if i % 2 == me else 2))
print("DONE\nEND")
PY
}

printf '%-10s %10s %12s %10s %8s\n' engine positions nodes seconds nodes/s
for spec in "${engines[@]}"; do
    name=${spec%%=*}
    binary=${spec#*=}
    total_nodes=0
    total_ms=0
    count=0
    while read -r moves; do
        line=$(session "$moves" | "${pin[@]}" "$binary" --protocol gomocup | grep '^MESSAGE depth' | tail -1 || true)
        nodes=$(sed -n 's/.* nodes \([0-9]*\) .*/\1/p' <<<"$line")
        ms=$(sed -n 's/.* time \([0-9]*\)ms.*/\1/p' <<<"$line")
        [[ -n "$nodes" && -n "$ms" ]] || continue
        total_nodes=$((total_nodes + nodes))
        total_ms=$((total_ms + ms))
        count=$((count + 1))
    done < <(positions)
    python3 -c "import sys; n, ms = int(sys.argv[2]), int(sys.argv[3]); \
print('%-10s %10s %12d %10.2f %8.0f' % (sys.argv[1], sys.argv[4], n, ms / 1000, n * 1000 / max(ms, 1)))" \
        "$name" "$total_nodes" "$total_ms" "$count"
done
