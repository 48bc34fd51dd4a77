#!/usr/bin/env bash
# Plays shard I of N of a referee run, resumably: its records go to
# $OUT/shard-I-of-N.jsonl (default OUT=shards), and running it again after a
# crash, a pre-emption or a reboot plays only the games still missing. The
# scheduler scripts beside this one (Slurm, GNU parallel) call it; the
# Kubernetes manifest runs the same command inline.
#
# Usage: run-shard.sh I N REFEREE-ARGS...
#   e.g. run-shard.sh 3 8 --bots random,blocking --board 4x4 --k 4 --games 100000 --seed 1
# Every shard must get the same REFEREE-ARGS (and --seed): they are one run.
# Environment: REFEREE (the referee binary, default: referee on PATH), OUT;
# SAMPLES=csv, bin or lz4 writes the shard's training samples (gomoku) to
# $OUT/shard-I-of-N.SAMPLES, a file a shard (give no --samples in
# REFEREE-ARGS: the shards would share it); cat joins them into the run's.
set -euo pipefail
if [[ $# -lt 2 ]]; then
    echo "usage: $0 I N REFEREE-ARGS..." >&2
    exit 2
fi
index=$1
count=$2
shift 2
referee=${REFEREE:-referee}
out=${OUT:-shards}
mkdir -p "$out"
samples=()
case ${SAMPLES:-} in
    "") ;;
    csv | bin | lz4) samples=(--samples "$out/shard-$index-of-$count.$SAMPLES") ;;
    *)
        echo "$0: SAMPLES=$SAMPLES: give csv, bin or lz4" >&2
        exit 2
        ;;
esac
exec "$referee" "$@" --shard "$index/$count" "${samples[@]}" \
    --games-out "$out/shard-$index-of-$count.jsonl" --resume \
    --json "$out/shard-$index-of-$count.json" >"$out/shard-$index-of-$count.txt"
