#!/usr/bin/env bash
# The mcts speed benchmark: random playouts per second inside the search
# next to the bare rules::Playouts loop in the same run, on 3x3 k3, 5x5 k4,
# 7x7 k5 and 15x15 k5, and the time to prove tic-tac-toe and 3x4 k3. Pinned
# to CPU 0 when taskset is there. Prints figures; asserts nothing.
#
# Usage: scripts/bench-mcts.sh [options of examples/bench-mcts.rs]
#   e.g. scripts/bench-mcts.sh --movetime 1000 --moves 10 --boards 15x15:5
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet --example bench-mcts
bench=target/release/examples/bench-mcts
echo "# $(uname -srm), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
if command -v taskset >/dev/null; then
    taskset -c 0 "$bench" "$@"
else
    echo "note: no taskset: unpinned" >&2
    "$bench" "$@"
fi
