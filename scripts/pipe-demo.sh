#!/usr/bin/env bash
# Plays one game between two kinrow engines from a shell script, the way a
# referee or GUI drives engines over pipes: `genmove` to the side to move,
# its reply sent as `move` to the other, until `status` says the game is over.
#
# Usage: scripts/pipe-demo.sh [X_BOT [O_BOT [ROWS COLS K [free|exact]]]]
#   e.g. scripts/pipe-demo.sh random minimax
#        scripts/pipe-demo.sh blocking random 7 7 4
# Bots: random, blocking, minimax (defaults: random as X, minimax as O, 3x3 k3).
# The engine is $KINROW, else target/release/kinrow (built or refreshed with cargo).
# Set SEED for a repeatable game. Needs bash and mkfifo; no bash-4 features.
set -euo pipefail
cd "$(dirname "$0")/.."

x_bot=${1:-random}
o_bot=${2:-minimax}
shape=${*:3}
shape=${shape:-3 3 3}
seed=${SEED:-$RANDOM}
kinrow=${KINROW:-target/release/kinrow}
if [ -z "${KINROW:-}" ] && command -v cargo >/dev/null; then
    cargo build --release --quiet --bin kinrow   # quick when up to date; never stale
elif [ ! -x "$kinrow" ]; then
    echo "pipe-demo: no kinrow at $kinrow (set KINROW or install cargo)" >&2
    exit 1
fi

# One FIFO pair per engine: we write requests to .in and read replies from .out.
dir=$(mktemp -d)
pids=""
cleanup() {
    for pid in $pids; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$dir"
}
trap cleanup EXIT
mkfifo "$dir/x.in" "$dir/x.out" "$dir/o.in" "$dir/o.out"
"$kinrow" --bot "$x_bot" --seed "$seed" <"$dir/x.in" >"$dir/x.out" &
pids="$pids $!"
"$kinrow" --bot "$o_bot" --seed "$((seed + 1))" <"$dir/o.in" >"$dir/o.out" &
pids="$pids $!"
# Opened in the order the engines open theirs (stdin, then stdout): no deadlock.
exec 3>"$dir/x.in" 4<"$dir/x.out" 5>"$dir/o.in" 6<"$dir/o.out"

# ask x|o REQUEST: sends one request and puts the reply, without the empty
# line that ends it, in $reply. A `?` reply stops the script.
ask() {
    local to from line
    if [ "$1" = x ]; then to=3 from=4; else to=5 from=6; fi
    printf '%s\n' "$2" >&"$to"
    reply=""
    while IFS= read -r line <&"$from"; do
        [ -z "$line" ] && break
        reply="$reply${reply:+
}$line"
    done
    case $reply in
        "?"*) echo "engine $1 refused '$2': $reply" >&2; exit 1 ;;
        "") echo "engine $1 closed its output after '$2'" >&2; exit 1 ;;
    esac
}

ask x "newgame $shape"
ask o "newgame $shape"
echo "X: $x_bot, O: $o_bot, board $shape, seed $seed"
side=x
while :; do
    ask "$side" genmove
    move=${reply#= }
    if [ "$side" = x ]; then other=o; else other=x; fi
    echo "$(echo "$side" | tr xo XO) plays $move"
    ask "$other" "move $move"
    ask x status
    case $reply in "= ongoing"*) ;; *) break ;; esac
    side=$other
done

status=${reply#= }
ask x show
board=${reply#=}          # the board starts on the line after "="
printf '%s\n' "${board#?}"
case $status in
    "win X"*) echo "result: X ($x_bot) wins: ${status#win X }" ;;
    "win O"*) echo "result: O ($o_bot) wins: ${status#win O }" ;;
    *) echo "result: $status" ;;
esac
ask x quit
ask o quit
