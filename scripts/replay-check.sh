#!/usr/bin/env bash
# Behaviour unchanged, shown and not assumed: plays a fixed matrix of seeded
# referee runs (process and in-process, every built-in bot, boards 3x3 to
# 15x15, Gomocup fixture brains, faulty engines) with two builds and compares
# their --games-out records, --json summaries and reports byte for byte, after
# taking out what a clock decides (times, rates) and the builds' paths.
#
#   scripts/replay-check.sh --save DIR        # copy this checkout's release build
#                                             # (kinrow, referee, pbrain-fixture) into DIR
#   scripts/replay-check.sh OLD_DIR NEW_DIR   # compare two saved builds
#
# Exit 0 when every run matches; otherwise the first differences are printed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = --save ]; then
  dir=${2:?usage: replay-check.sh --save DIR}
  cargo build --release --bins --example pbrain-fixture >/dev/null 2>&1
  mkdir -p "$dir"
  cp target/release/kinrow target/release/referee target/release/examples/pbrain-fixture "$dir"/
  echo "build saved in $dir"
  exit 0
fi

old=$(cd "${1:?usage: replay-check.sh OLD_DIR NEW_DIR}" && pwd)
new=$(cd "${2:?usage: replay-check.sh OLD_DIR NEW_DIR}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A minimax capped at a depth, so no clock decides a big board's move: the shim
# sends `set depth N` once, swallows its reply, then passes everything on.
cat >"$work/depth.py" <<'EOF'
import os, subprocess, sys, threading
depth, argv = sys.argv[1], sys.argv[2:]
p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
p.stdin.write(b"set depth " + depth.encode() + b"\n")
while p.stdout.readline().strip():  # "=" and then the blank line that ends it
    pass
def pump():
    while True:
        b = os.read(p.stdout.fileno(), 65536)
        if not b:
            break
        os.write(1, b)
threading.Thread(target=pump, daemon=True).start()
for line in sys.stdin.buffer:
    p.stdin.write(line)
p.stdin.close()
p.wait()
EOF

# name|referee arguments, as shell words (BIN: the build's folder; WORK: scratch)
runs=(
  "bots-3x3|--bots random,blocking,minimax --games 40 --seed 11 --concurrency 2"
  "bots-3x3-in-process|--bots random,blocking,minimax --games 400 --seed 11 --in-process"
  "bots-4x4|--bots random,blocking,minimax --board 4x4 --k 3 --games 20 --seed 5 --concurrency 2"
  "bots-5x5k4-in-process|--bots random,blocking --board 5x5 --k 4 --games 200 --seed 9 --in-process"
  "bots-15x15|--bots random,blocking --board 15x15 --k 5 --games 20 --seed 4 --concurrency 2"
  "bots-15x15-in-process|--bots random,blocking --board 15x15 --k 5 --rule exact --games 200 --seed 4 --in-process"
  "minimax-depth-9x9|--engine 'd2=python3 WORK/depth.py 2 BIN/kinrow --bot minimax' --engine 'd1=python3 WORK/depth.py 1 BIN/kinrow --bot minimax' --board 9x9 --k 5 --games 4 --seed 2 --concurrency 2"
  "openings-file|--bots random,blocking --board 15x15 --k 5 --openings-file scripts/openings-15x15-k5.txt --games 10 --seed 1 --concurrency 1"
  "gomocup|--engine 'fix=gomocup:BIN/pbrain-fixture' --bots random --board 15x15 --k 5 --games 10 --seed 7 --concurrency 1"
  "gomocup-pair|--engine 'a=gomocup:BIN/pbrain-fixture --seed 3' --engine 'b=gomocup:BIN/pbrain-fixture --seed 4' --board 10x10 --k 5 --games 6 --seed 7 --concurrency 1"
  "gomocup-faults|--engine 'bad=gomocup:BIN/pbrain-fixture --mode occupied' --engine 'off=gomocup:BIN/pbrain-fixture --mode offboard' --bots random --board 15x15 --k 5 --games 4 --seed 1 --concurrency 1"
  "faults|--engine 'crash=python3 tests/fixtures/crash_mid_game.py' --engine 'garbage=python3 tests/fixtures/garbage.py' --engine 'occ=python3 tests/fixtures/occupied.py' --engine 'off=python3 tests/fixtures/off_board.py' --engine 'refuse=python3 tests/fixtures/refuse_genmove.py' --games 2 --seed 5 --concurrency 2"
  "python|--engine 'py=python3 bots/random.py --seed 1' --bots blocking --games 10 --seed 6 --concurrency 2"
  "sprt|--bots minimax,random --games 400 --sprt 0,50 --seed 3 --concurrency 1"
  "match-time|--bots random,blocking --board 7x7 --k 4 --match-time 5000 --games 6 --seed 2 --concurrency 1"
)

# Drop what a clock decides and what names the build; keep everything else.
normalize() { # kind file
  python3 - "$1" "$2" "$old" "$new" "$work" <<'EOF'
import json, re, sys
kind, path, old, new, work = sys.argv[1:]
text = open(path, encoding="utf-8", errors="replace").read()
for d in (old, new, work):
    text = text.replace(d, "DIR")
def scrub(v):
    if isinstance(v, dict):
        return {k: scrub(x) for k, x in v.items()
                if k not in ("time_ms", "seconds", "per_ply_us", "referee")}
    if isinstance(v, list):
        return [scrub(x) for x in v]
    return v
if kind == "jsonl":
    rows = [json.dumps(scrub(json.loads(l)), sort_keys=True) for l in text.splitlines() if l.strip()]
    print("\n".join(sorted(rows)))
elif kind == "json":
    print(json.dumps(scrub(json.loads(text)), sort_keys=True, indent=1))
else:
    for line in text.splitlines():
        if re.search(r"games in |time per ply|games/s|games/min|min/game|µs", line):
            continue
        print(line)
EOF
}

fail=0
for entry in "${runs[@]}"; do
  name=${entry%%|*}
  args=${entry#*|}
  for side in old new; do
    dir=${!side}
    out="$work/$name.$side"
    mkdir -p "$out"
    a=${args//BIN/$dir}
    a=${a//WORK/$work}
    eval "set -- $a"
    "$dir/referee" "$@" --quiet --games-out "$out/games.jsonl" --json "$out/run.json" \
      >"$out/report.txt" 2>"$out/stderr.txt" || echo "exit $?" >>"$out/report.txt"
    normalize jsonl "$out/games.jsonl" >"$out/games.norm" 2>/dev/null || echo "(no records)" >"$out/games.norm"
    normalize json "$out/run.json" >"$out/run.norm" 2>/dev/null || echo "(no json)" >"$out/run.norm"
    normalize text "$out/report.txt" >"$out/report.norm"
  done
  same=1
  for f in games run report; do
    if ! cmp -s "$work/$name.old/$f.norm" "$work/$name.new/$f.norm"; then
      same=0
      echo "== $name: $f differs"
      diff "$work/$name.old/$f.norm" "$work/$name.new/$f.norm" | head -20 || true
    fi
  done
  if [ "$same" = 1 ]; then
    printf '%-24s same (%s records)\n' "$name" "$(grep -c . "$work/$name.new/games.norm")"
  else
    fail=1
  fi
done
exit $fail
