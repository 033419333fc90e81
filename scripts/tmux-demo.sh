#!/usr/bin/env bash
# Drives the companion as a person would, in tmux: starts `go run .` on a fresh notebook,
# approves three calls, edits one (first into an invalid state, to show the live
# validation, then into a valid one), vetoes one with a reason, types advice, and
# captures the screen after each move into $OUT (default: a temp dir).
#
#   scripts/tmux-demo.sh [WIDTHxHEIGHT]      e.g. scripts/tmux-demo.sh 80x24
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-160x48}
w=${size%x*}; h=${size#*x}
OUT=${OUT:-$(mktemp -d)}
sess=coplay-demo-$$
data="$OUT/demo.db"

go build -o "$OUT/coplay" .
tmux new-session -d -s "$sess" -x "$w" -y "$h" "$OUT/coplay --data $data --seed 1; sleep 5"
trap 'tmux kill-session -t "$sess" 2>/dev/null || true' EXIT

shot() { tmux capture-pane -p -t "$sess" > "$OUT/$1.txt"; echo "== $1"; cat "$OUT/$1.txt"; }
waitfor() { # waitfor TEXT: until the screen shows TEXT (20 s at most)
  for _ in $(seq 100); do tmux capture-pane -p -t "$sess" | grep -q -- "$1" && return 0; sleep 0.2; done
  echo "timed out waiting for: $1" >&2; shot timeout; exit 1
}
key() { tmux send-keys -t "$sess" "$@"; sleep 0.6; } # past the grace period

waitfor "Pending decision"
sleep 1 # the grace period after a new call ignores keys
shot 01-first-pending
key a; key a; key a
shot 02-approved-three

key e
waitfor "ctrl+s"
tmux send-keys -t "$sess" C-End; sleep 0.2
tmux send-keys -t "$sess" Up End BSpace BSpace BSpace; sleep 0.4
shot 03-edit-invalid
tmux send-keys -t "$sess" -l 'A2"'; sleep 0.4
shot 04-edit-valid
key C-s
shot 05-edited

key v
tmux send-keys -t "$sess" -l "the probe should stay docked for now"; sleep 0.3
shot 06-veto-reason
key Enter
shot 07-vetoed

key /
tmux send-keys -t "$sess" -l "sell the ore before mining more"; sleep 0.3
key Enter
key Escape
sleep 2
shot 08-after-advice

echo "screens saved in $OUT"
