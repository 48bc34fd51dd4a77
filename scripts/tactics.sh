#!/usr/bin/env bash
# The tactical suite (tests/data/tactics.txt, see kinrow::tactics): how many
# puzzles an engine solves with one genmove, and how long it takes, for
# this tree's minimax and, when given, other engines (say, minimax built
# from an older commit) — all in one run, pinned to one CPU when taskset
# is there. A puzzle is solved when the move is one of its proven answers.
#
# Usage: scripts/tactics.sh [MOVETIME_MS] [NAME=COMMAND ...]
#   e.g. scripts/tactics.sh 1000 base=/tmp/base/target/release/kinrow
#   VERIFY=1 first proves every answer again (as the tests do).
set -euo pipefail
cd "$(dirname "$0")/.."
movetime=${1:-1000}
shift || true
cargo build --release --quiet --bin kinrow --example tactics
pin=(env)
if command -v taskset >/dev/null; then pin=(taskset -c 0); else echo "taskset not found: unpinned" >&2; fi
suite=tests/data/tactics.txt
if [[ -n "${VERIFY:-}" ]]; then
    target/release/examples/tactics verify "$suite"
fi
engines=(--engine "minimax=target/release/kinrow --bot minimax")
for spec in "$@"; do
    engines+=(--engine "$spec")
done
"${pin[@]}" target/release/examples/tactics run "$suite" --movetime "$movetime" "${engines[@]}"
