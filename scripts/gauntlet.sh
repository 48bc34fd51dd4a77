#!/usr/bin/env bash
# The gauntlet: minimax against the sparring engines (Carbon 2.3, Rapfi in its
# classical form, Whatateam) on 15x15 free, one game at a time, at 1 s and
# 200 ms a move, on the balanced openings of scripts/openings-gauntlet.txt
# (each played twice, colours swapped), and the table of the results: games,
# score, Elo with its 95 % error (and that error with the games grouped by
# opening: runs on other seeds replay the same openings, and the opponents
# answer alike), per colour, losses on time, illegal moves, and minimax's
# peak memory (the referee records every engine's peak resident
# size; the brains are told the Gomocup's 350 MiB, INFO max_memory).
#
# Every run appends its games to OUT/ENGINE-MS.jsonl and resumes from there,
# so the gauntlet can be stopped and started again (and, run again when it
# is complete, only prints the table). The sparring engines are Gomocup
# brains found in $SPAR (pbrain-carbon, pbrain-rapfi, pbrain-whatateam).
#
# With --reference, each engine also plays itself on the same openings
# (OUT/ENGINE-MS-self.jsonl): the openings are seldom even in play (Rapfi
# against itself at 200 ms: X scores 69 %), and the table then says how far
# behind equal strength minimax is as X and as O.
#
# Usage: SPAR=DIR scripts/gauntlet.sh [--kinrow BIN] [--out DIR] [--games N]
#            [--times "1000 200"] [--engines "carbon rapfi whatateam"]
#            [--openings FILE] [--seed N] [--reference] [--table-only]
#   e.g. nohup env SPAR=$HOME/spar/bin scripts/gauntlet.sh --out gauntlet > gauntlet.log 2>&1 &
set -euo pipefail
cd "$(dirname "$0")/.."
kinrow=target/release/kinrow
out=gauntlet
# Two games an opening of the 60: every opening once with each colour (100,
# the default before, left 10 unplayed in every run, whatever the seed).
games=120
times="1000 200"
engines="carbon rapfi whatateam"
openings=scripts/openings-gauntlet.txt
seed=2024
table_only=
reference=
while [ $# -gt 0 ]; do
  case $1 in
    --kinrow) kinrow=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --games) games=$2; shift 2 ;;
    --times) times=$2; shift 2 ;;
    --engines) engines=$2; shift 2 ;;
    --openings) openings=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --reference) reference=1; shift ;;
    --table-only) table_only=1; shift ;;
    *) echo "gauntlet.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
# play RUN MS ENGINE-SPEC ENGINE-SPEC: one run of the gauntlet's games into
# OUT/RUN.jsonl, resumed when it has begun.
play() {
  local run=$1 ms=$2 resume=()
  shift 2
  echo "== $run: $(date)"
  [ -s "$out/$run.jsonl" ] && resume=(--resume)
  target/release/referee --engine "$1" --engine "$2" \
    --board 15x15 --k 5 --movetime "$ms" --concurrency 1 --games "$games" \
    --openings-file "$openings" --seed "$seed" \
    --games-out "$out/$run.jsonl" "${resume[@]}" --quiet ||
    echo "gauntlet.sh: the run $run failed" >&2
}
if [ -z "$table_only" ]; then
  : "${SPAR:?set SPAR to the folder of the sparring brains (pbrain-carbon, ...)}"
  cargo build --release --quiet --bin kinrow --bin referee
  for ms in $times; do
    for engine in $engines; do
      brain="$SPAR/pbrain-$engine"
      [ -x "$brain" ] || { echo "gauntlet.sh: no $brain" >&2; exit 1; }
      play "$engine-$ms" "$ms" "$engine=gomocup:$brain" "minimax=$kinrow --bot minimax"
      if [ -n "$reference" ]; then
        play "$engine-$ms-self" "$ms" "${engine}A=gomocup:$brain" "${engine}B=gomocup:$brain"
      fi
    done
  done
fi
files=()
for ms in $times; do
  for engine in $engines; do
    for run in "$engine-$ms" "$engine-$ms-self"; do
      [ -s "$out/$run.jsonl" ] && files+=("$out/$run.jsonl")
    done
  done
done
python3 scripts/gauntlet-table.py "${files[@]}"
