#!/bin/sh
# tmux_session.sh drives the companion screen like a player would, in a detached tmux
# session, and prints the pane after each decision:
#   approves three calls, edits one, vetoes one with a reason, types advice.
#
# Usage (from anywhere):  ui/testdata/tmux_session.sh [WIDTHxHEIGHT]
# COPLAY_CMD overrides what is started (default: `go run .` in the repository root),
# NO_COLOR=1 is passed through. Captures go to $OUT (default /tmp/coplay-tmux).
set -eu
size=${1:-160x48}
w=${size%x*}
h=${size#*x}
root=$(cd "$(dirname "$0")/../.." && pwd)
cmd=${COPLAY_CMD:-go run .}
out=${OUT:-/tmp/coplay-tmux}
s=coplay-ui-$$
mkdir -p "$out"

tmux new-session -d -s "$s" -x "$w" -y "$h" -c "$root" "env NO_COLOR=${NO_COLOR:-} $cmd"
trap 'tmux kill-session -t "$s" 2>/dev/null || true' EXIT

# wait_for TEXT: poll the pane until TEXT shows (60 s at most: the first go run builds).
wait_for() {
	i=0
	until tmux capture-pane -p -t "$s" | grep -qF -- "$1"; do
		i=$((i + 1))
		if [ $i -gt 600 ]; then
			echo "timed out waiting for: $1" >&2
			tmux capture-pane -p -t "$s" >&2
			exit 1
		fi
		sleep 0.1
	done
}

snap() { tmux capture-pane -p -t "$s" >"$out/$1.txt"; echo "== $1 ($size)"; cat "$out/$1.txt"; }

# A decision key pressed within the grace period is ignored, so wait a moment
# after each call appears.
decide_next() { wait_for "Pending decision"; sleep 0.6; }

for n in 1 2 3; do
	decide_next
	[ $n = 1 ] && snap 1-pending
	tmux send-keys -t "$s" a
	sleep 0.3
done
snap 2-after-three-approvals

decide_next
tmux send-keys -t "$s" e
wait_for "╭─ Edit"
snap 3-edit
tmux send-keys -t "$s" C-s
sleep 0.3

decide_next
tmux send-keys -t "$s" v
wait_for "reason›"
tmux send-keys -t "$s" -l "fuel is low, refuel first"
wait_for "fuel is low"
snap 4-veto-reason
tmux send-keys -t "$s" Enter
sleep 0.3

tmux send-keys -t "$s" /
tmux send-keys -t "$s" -l "sell the ore at A1 before mining more"
tmux send-keys -t "$s" Enter
# Leave the input; on a narrow terminal show the notes tab, where the advice waits.
# (Pause after Escape, or the terminal reads Escape and ] as alt+].)
tmux send-keys -t "$s" Escape
sleep 0.3
if [ "$w" -lt 120 ]; then tmux send-keys -t "$s" ]; fi
wait_for "sell the ore at A1"
sleep 0.5
snap 5-advice

# A call is waiting, so quitting asks first.
tmux send-keys -t "$s" q
wait_for "Quit?"
snap 6-quit-asks
tmux send-keys -t "$s" y
sleep 1
if tmux has-session -t "$s" 2>/dev/null && tmux capture-pane -p -t "$s" | grep -qF "Quit?"; then
	echo "still running after y" >&2
	exit 1
fi
echo "== quit: done"
