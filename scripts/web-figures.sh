#!/usr/bin/env bash
# The figures of `kinrow serve`, taken by headless Chromium (apt-get install
# chromium chromium-driver) and by WebSocket clients:
#   - docs/img/web-*.png, the screenshots in the README and docs/web.md, and
#     docs/img/referee-watch.png, the referee's watch page (referee --serve);
#   - the time from a click to the bot's stone on the page (3x3 minimax, and
#     15x15 minimax at 100 ms per move);
#   - the server's memory with one session and with --max-sessions of them.
# Usage: scripts/web-figures.sh [screenshots|latency|memory]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
run() { cargo test --release --quiet --test "$1" -- --ignored --nocapture --test-threads 1 "$2"; }
case $what in
  screenshots|all) run web_browser screenshots; run web_browser watch_screenshot ;;&
  latency|all) run web_browser click_to_stone_latency ;;&
  memory|all) run serve server_memory ;;
  screenshots|latency) ;;
  *) echo "usage: $0 [screenshots|latency|memory]" >&2; exit 2 ;;
esac
