#!/usr/bin/env bash
# The engine benchmark in one run: random playouts per CPU-second in process
# (3x3 k3 and 15x15 k5, against OpenSpiel 2.0.2's C++ loop as last measured
# on the development VM: 0.55 M and 6,300 per CPU-second; with
# OPENSPIEL_PYTHON set to a python that has pyspiel, OpenSpiel is measured
# again before and after the playouts, pinned alike; 15x15 renju beside free,
# with the cost of renju's forbidden check), then protocol round
# trips per second through target/release/kinrow next to the pipe floor that
# scripts/bench/pipe-limit.rs measures, both pinned to CPU 0 and both
# unpinned. Prints figures; asserts nothing (machines here are shared and noisy).
#
# Usage: scripts/bench-engine.sh [extra options for examples/bench-engine.rs]
#   e.g. scripts/bench-engine.sh --playout-secs 5 --round-trips 200000
# PIPE_LIMIT_SRC overrides the path of pipe-limit.rs.
set -euo pipefail
cd "$(dirname "$0")/.."

pipe_limit_src=${PIPE_LIMIT_SRC:-scripts/bench/pipe-limit.rs}
cargo build --release --quiet --bin kinrow --example bench-engine
bench=target/release/examples/bench-engine
pipe_opts=(--kinrow target/release/kinrow)
if [ -f "$pipe_limit_src" ]; then
    if [ ! target/pipe-limit -nt "$pipe_limit_src" ]; then
        rustc -O "$pipe_limit_src" -o target/pipe-limit
    fi
    pipe_opts+=(--pipe-limit target/pipe-limit)
else
    echo "note: $pipe_limit_src not found: round trips without the floor" >&2
fi

echo "# $(uname -srm), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
openspiel() {
    if [ -n "${OPENSPIEL_PYTHON:-}" ]; then
        taskset -c 0 "$OPENSPIEL_PYTHON" scripts/bench-openspiel.py 3
    fi
}
if command -v taskset >/dev/null; then
    openspiel
    # Children inherit the affinity: kinrow, pipe-limit and its echo child
    # all share CPU 0 with the measuring process.
    taskset -c 0 "$bench" "${pipe_opts[@]}" --label "all on cpu 0 (taskset -c 0)" "$@"
    openspiel
    "$bench" --skip-playouts "${pipe_opts[@]}" --label "unpinned" "$@"
else
    echo "note: no taskset: unpinned only" >&2
    "$bench" "${pipe_opts[@]}" --label "unpinned" "$@"
fi
