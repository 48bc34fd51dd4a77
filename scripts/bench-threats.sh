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
# Two rates: nodes over the searches' own clock (the MESSAGE time), and
# nodes over the CPU time the brain processes used (user + system, start-up
# included), which a machine busy with other work changes far less.
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

# One Gomocup session for all positions, each given with BOARD (the side to
# move is the brain, 1); the brain's MESSAGE lines give each search's nodes
# and time; the process's CPU time (user + system, from the kernel's
# accounting of children) covers every search and one start-up.
bench_py=$(cat <<'PY'
import resource, subprocess, sys
movetime, command = sys.argv[1], sys.argv[2:]
lines = ["START 15", "INFO timeout_turn %s" % movetime]
for text in sys.stdin:
    moves = list(map(int, text.split()))
    cells = list(zip(moves[0::2], moves[1::2]))
    me = len(cells) % 2
    lines.append("BOARD")
    lines += ["%d,%d,%d" % (c - 1, r - 1, 1 if i % 2 == me else 2) for i, (r, c) in enumerate(cells)]
    lines.append("DONE")
lines.append("END")
r = subprocess.run(command, input="\n".join(lines) + "\n", capture_output=True, text=True)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
nodes = ms = count = 0
for line in r.stdout.splitlines():
    if line.startswith("MESSAGE depth"):
        words = line.split()
        nodes += int(words[words.index("nodes") + 1])
        ms += int(words[words.index("time") + 1].rstrip("ms"))
        count += 1
print(count, nodes, ms, int((u.ru_utime + u.ru_stime) * 1e6))
PY
)
bench() { # BINARY
    positions | python3 -c "$bench_py" "$movetime" "${pin[@]}" "$1" --protocol gomocup
}

printf '%-10s %10s %12s %10s %8s %10s %10s\n' engine positions nodes seconds nodes/s cpu-s nodes/cpu-s
for spec in "${engines[@]}"; do
    name=${spec%%=*}
    binary=${spec#*=}
    read -r count nodes ms cpu < <(bench "$binary")
    python3 -c "import sys; c, n, ms, cpu = map(int, sys.argv[2:]); \
print('%-10s %10d %12d %10.2f %8.0f %10.2f %10.0f' % (sys.argv[1], c, n, ms / 1000, \
n * 1000 / max(ms, 1), cpu / 1e6, n * 1e6 / max(cpu, 1)))" "$name" "$count" "$nodes" "$ms" "$cpu"
done
