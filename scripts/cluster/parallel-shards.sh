#!/usr/bin/env bash
# A referee run over several machines with GNU parallel and ssh: N shards,
# at most one at a time per machine (per --jobs), each resumable, their
# records copied back, then merged here into one report.
#
# Usage: parallel-shards.sh N SSHLOGINFILE REFEREE-ARGS...
#   SSHLOGINFILE: one ssh login a line (user@host, or "4/host" for 4 jobs
#   there; ":" is this machine), as GNU parallel reads it.
#   e.g. parallel-shards.sh 16 hosts.txt --bots minimax,mcts --board 15x15 --k 5 \
#            --movetime 200 --games 2000 --seed 1
# Each machine needs the referee and kinrow binaries on its PATH (or give
# REMOTE_REFEREE, the referee's path there). Results: shards/ and, merged,
# run.txt, run.json, run.jsonl here.
set -euo pipefail
if [[ $# -lt 3 ]]; then
    echo "usage: $0 N SSHLOGINFILE REFEREE-ARGS..." >&2
    exit 2
fi
count=$1
logins=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p shards
# --basefile sends run-shard.sh to each machine once; --return brings each
# shard's files back (and --cleanup removes them there); --retries reruns a
# failed shard, which resumes from what it had written.
parallel --sshloginfile "$logins" --jobs 1 --line-buffer --retries 3 \
    --basefile "$here/run-shard.sh" \
    --return "shards/shard-{}-of-$count.jsonl" --return "shards/shard-{}-of-$count.json" \
    --return "shards/shard-{}-of-$count.txt" --cleanup \
    REFEREE="${REMOTE_REFEREE:-referee}" bash "$here/run-shard.sh" "{}" "$count" "$@" \
    ::: $(seq 1 "$count")
"${REFEREE:-referee}" merge shards/shard-*-of-"$count".jsonl \
    --json run.json --games-out run.jsonl >run.txt
cat run.txt
