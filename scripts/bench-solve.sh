#!/usr/bin/env bash
# The solver's targets (issue 11, DESIGN.md §5) in one run: each board solved
# from the empty position by `kinrow solve --json`, pinned to CPU 0, printing
# the value with its distance, what is proved (the value can be proved before
# its distance: "win" in that column with "unknown" in the value's), proof
# time (wall and the process's CPU), nodes, and the figures of a plain C++
# alpha-beta solver measured on this kind of machine for comparison. Asserts
# nothing but prints MISMATCH when a proved value disagrees with the
# literature. Machines here are shared: quote the CPU column, and compare
# runs made side by side.
#
# Usage: scripts/bench-solve.sh [SECONDS]   (time limit per board, default 60)
#   ONLY='5x5 k4'  solves just the boards whose "ROWSxCOLS kK" matches.
#   HASH=MIB       the table's size (kinrow solve --hash; default 64).
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-60}
cargo build --release --quiet --bin kinrow
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)

# board k expected-value C++-reference
boards=(
    "4x4 4 draw 0.01-0.02s"
    "5x5 4 draw 0.3-0.7s"
    "5x6 4 win11 0.2-0.5s"
    "6x6 4 win 0.3-0.6s"
    "5x5 5 draw 8-11s"
    "6x6 5 draw not-proved-in-120s"
    "7x7 5 draw not-proved"
    "4x8 4 draw -"
    "4x9 4 win -"
    "8x4 4 draw -"
    "9x4 4 win -"
)
printf '%-8s %-6s %-9s %-10s %-10s %9s %9s %14s  %s\n' board k expected value proved solve_s cpu_s nodes "C++ (plain alpha-beta)"
for entry in "${boards[@]}"; do
    read -r size k want cpp <<<"$entry"
    if [ -n "${ONLY:-}" ] && [[ "$size k$k" != *"$ONLY"* ]]; then
        continue
    fi
    json=$("${pin[@]}" target/release/kinrow solve "$size" --k "$k" --time-limit "$limit" \
        --hash "${HASH:-64}" --json 2>/dev/null)
    python3 - "$size" "$k" "$want" "$cpp" "$json" <<'PY'
import json, sys
size, k, want, cpp, raw = sys.argv[1:]
d = json.loads(raw)
value = d["value"] + (str(d["plies"]) if d["value"] == "win" and want.startswith("win") and want != "win" else "")
lo, hi = d["at_least"], d["at_most"]
proved = lo if lo == hi else f"{lo}..{hi}"
# The first player's value as proved, in the expected column's words.
settled = lo if lo == hi else None
ok = settled is None or settled == want.rstrip("0123456789")
if ok and d["value"] == "win" and want.startswith("win") and want != "win":
    ok = value == want
flag = "" if ok else "  MISMATCH"
print(f"{size:<8} {k:<6} {want:<9} {value:<10} {proved:<10} {d['solve_seconds']:>9.3f} {d['cpu_seconds']:>9.3f} {d['nodes']:>14,}  {cpp}{flag}")
PY
done
