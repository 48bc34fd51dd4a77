#!/usr/bin/env bash
# The threat searcher's evaluation and move order, fitted to games: the data
# recipe and the fit (examples/tune-eval.rs). The games are not kept in the
# repository (tens of megabytes); this makes them again, one game at a time:
#
#   1. openings: scripts/make-openings.py --judge none --seed 3 --count 1000
#      --stones 2,3,4,5 --radius 4 (random, not judged: the games decide);
#   2. Rapfi (classical) against itself, 40 ms a move, 2000 games;
#   3. Carbon against Rapfi, 100 ms a move, 600 games;
#   4. minimax (this tree's build, or KINROW) against itself at 20000 nodes a
#      move, 1000 games, and against Carbon and Rapfi at 100 ms, 400 games each
#      (the positions its own search meets);
#   5. the fit: results for the evaluation, Rapfi's moves for the move order.
#
# The weights of 7 December 2026 were fitted (step 5's command with
# --keep-policy, then the evaluation's tables multiplied by 1.95: see the
# head of weights.rs) to the 30,872 games of that week's measurements in
# docs/minimax.md instead: about 23,000 of minimax's self-play at 40,000
# nodes a move (builds a switch apart, the openings of openings-dev.txt and
# openings-gauntlet.txt), 4,400 against Rapfi and 1,500 against Carbon at
# 200 ms and 1 s (the gauntlet's openings), and 360 of Rapfi and Carbon
# against themselves. Step 4 with more self-play games makes data of the
# same kind; those builds are gone.
#
# Every step appends to DATA/NAME.jsonl and resumes, so the recipe can be
# stopped and run again; STEPS picks steps (default: all). The weights go to
# src/bots/minimax/threat/weights.rs; rebuild and measure them by games
# (self-play with --sprt, then scripts/gauntlet.sh) before keeping them.
#
# Usage: SPAR=DIR scripts/tune-eval.sh [DATA_DIR] [TUNE-EVAL FLAGS ...]
#   SPAR: the folder of the sparring brains (pbrain-carbon, pbrain-rapfi)
#   KINROW: the kinrow binary whose games are step 4 (default: this tree's)
#   STEPS: e.g. "1 2 5" (default "1 2 3 4 5")
set -euo pipefail
cd "$(dirname "$0")/.."
data=${1:-tune-data}
shift || true
: "${SPAR:?set SPAR to the folder of the sparring brains}"
steps=${STEPS:-1 2 3 4 5}
kinrow=${KINROW:-target/release/kinrow}
cargo build --release --quiet --bin kinrow --bin referee --example tune-eval
mkdir -p "$data"
openings=$data/openings-train.txt
referee() { # NAME GAMES REFEREE-ARGS...
  local name=$1 games=$2
  shift 2
  local resume=()
  [ -s "$data/$name.jsonl" ] && resume=(--resume)
  echo "== $name: $(date)"
  target/release/referee --board 15x15 --k 5 --concurrency 1 --games "$games" \
    --openings-file "$openings" \
    --games-out "$data/$name.jsonl" "${resume[@]}" --quiet "$@" ||
    echo "tune-eval.sh: $name failed" >&2
}
shim="python3 scripts/with-options.py nodes=20000 --"
for step in $steps; do
  case $step in
    1) [ -s "$openings" ] || python3 scripts/make-openings.py --judge none --seed 3 \
         --count 1000 --stones 2,3,4,5 --radius 4 --avoid scripts/openings-dev.txt \
         scripts/openings-gauntlet.txt > "$openings" ;;
    2) referee rapfi-rapfi-40 2000 --seed 11 --movetime 40 \
         --engine "rapfiA=gomocup:$SPAR/pbrain-rapfi" --engine "rapfiB=gomocup:$SPAR/pbrain-rapfi" ;;
    3) referee carbon-rapfi-100 600 --seed 12 --movetime 100 --openings-order random \
         --engine "carbon=gomocup:$SPAR/pbrain-carbon" --engine "rapfi=gomocup:$SPAR/pbrain-rapfi" ;;
    4) referee minimax-self-20k 1000 --seed 13 --movetime 60000 --openings-order random \
         --engine "a=$shim $kinrow --bot minimax" --engine "b=$shim $kinrow --bot minimax"
       referee minimax-carbon-100 400 --seed 14 --movetime 100 --openings-order random \
         --engine "carbon=gomocup:$SPAR/pbrain-carbon" --engine "minimax=$kinrow --bot minimax"
       referee minimax-rapfi-100 400 --seed 15 --movetime 100 --openings-order random \
         --engine "rapfi=gomocup:$SPAR/pbrain-rapfi" --engine "minimax=$kinrow --bot minimax" ;;
    5) target/release/examples/tune-eval --out src/bots/minimax/threat/weights.rs \
         --teachers rapfi,rapfiA,rapfiB "$@" "$data"/*.jsonl ;;
    *) echo "tune-eval.sh: no step $step" >&2; exit 2 ;;
  esac
done
