#!/usr/bin/env bash
# Drives the companion as a person would, in tmux, and captures the screen after each
# move into $OUT (default: a temp dir). On a fresh notebook with the autopilot it:
# approves a call; edits one (edit → review → approve); allows a tool (A), opens the
# rules dialog, adds a rule there (a typo first) and removes the allow rule; types advice and then approves with "a"; vetoes one with
# a reason; focuses and scrolls the world, the notes and the log ([ ] 1 2 3, pgdown);
# hides and shows the notebook's bookkeeping in the log (b); opens the help; quits; and
# resumes the session, whose log opens with the journal's last entries.
#
#   scripts/tmux-demo.sh [WIDTHxHEIGHT]      e.g. scripts/tmux-demo.sh 80x24
#
# Edit → review needs a runner that knows the "revise" command: with one that does not,
# the screen logs the runner's refusal, puts the old arguments back, and "a" approves
# those; the script goes on either way.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-160x48}
w=${size%x*}; h=${size#*x}
OUT=${OUT:-$(mktemp -d)}
sess=coplay-demo-$$
data="$OUT/demo.db"

go build -o "$OUT/coplay" .
start() { tmux new-session -d -s "$sess" -x "$w" -y "$h" "$OUT/coplay --data $data --seed 1 $*; sleep 5"; }
trap 'tmux kill-session -t "$sess" 2>/dev/null || true' EXIT

shot() { tmux capture-pane -p -t "$sess" > "$OUT/$1.txt"; echo "== $1"; cat "$OUT/$1.txt"; }
screen() { tmux capture-pane -p -t "$sess"; }
waitfor() { # waitfor TEXT...: until the screen shows one of the TEXTs (20 s at most)
  for _ in $(seq 100); do
    for t in "$@"; do screen | grep -q -- "$t" && return 0; done
    sleep 0.2
  done
  echo "timed out waiting for: $*" >&2; shot timeout; exit 1
}
waitgone() { # waitgone TEXT: until the screen no longer shows TEXT (20 s at most)
  for _ in $(seq 100); do
    screen | grep -q -- "$1" || return 0
    sleep 0.2
  done
  echo "timed out waiting for $1 to go" >&2; shot timeout; exit 1
}
key() { tmux send-keys -t "$sess" "$@"; sleep 0.6; } # past the grace period
type_() { tmux send-keys -t "$sess" -l "$1"; sleep 0.3; }

start
waitfor "Pending decision"
sleep 1 # the grace period after a new call ignores keys
shot 01-first-pending

key a                                   # approve accept_contract
shot 02-approved

# Edit → review → approve: set_flight_mode BURN → CRUISE.
waitfor "set_flight_mode  (act"
key e
waitfor "ctrl+s"
tmux send-keys -t "$sess" C-End; sleep 0.2
tmux send-keys -t "$sess" Up Up End BSpace BSpace BSpace BSpace BSpace BSpace; sleep 0.3
type_ 'cruise",'
shot 03-edit-invalid                    # the schema refuses "cruise" as you type
tmux send-keys -t "$sess" BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace; sleep 0.2
type_ 'CRUISE",'
shot 04-edit-valid
key C-s                                 # sends the new arguments for review
waitfor "edited: review" "was not taken" "edit was not sent"
shot 05-edit-review
key a                                   # approve the reviewed call
shot 06-edited-approved

# Allow orbit_ship (A), see the rule in the rules dialog, add a rule there (a typo is
# explained with its column as it is typed), then remove the allow rule.
waitfor "orbit_ship  (act"
key A
key R
waitfor "Approval rules"
shot 07-rules-dialog
key a
type_ "dny jettison_cargo"
waitfor "column 1: expected allow, ask or deny"
shot 07a-rule-typo
tmux send-keys -t "$sess" Home Right; sleep 0.2
type_ "e"
tmux send-keys -t "$sess" End; sleep 0.2
type_ ": never throw cargo away"
shot 07b-rule-valid
key Enter
waitfor "rule added: deny jettison_cargo" "▸ deny jettison_cargo"
shot 07c-rule-added
key k                                   # back to allow orbit_ship
key x
waitgone "  allow orbit_ship"
shot 08-rules-removed
key Escape

# Advice, then "a" approves: the input gives the focus back once advice is sent.
key /
type_ "sell the ore before mining more"
key Enter
key a
shot 09-advice-then-approve

# Veto with a reason, if a call still waits; then approve whatever is left.
if screen | grep -q "Pending decision"; then
  key v
  type_ "the probe should stay docked for now"
  shot 10-veto-reason
  key Enter
fi
key C-a
sleep 3
shot 11-running

# Panes: focus the world and scroll it, then the notes, then the log.
key 1
key PgDn
shot 12-world-scrolled
key ]                                   # notes & plan
key PgDn
shot 13-notes-scrolled
key ]                                   # log
key PgUp
shot 14-log-scrolled
key End
key b                                   # hide the notebook's bookkeeping
shot 15-log-notebook-hidden
key b
key [
shot 16-focus-back
key '?'
shot 17-help
key PgDn                                # the help scrolls on a small terminal
shot 17b-help-scrolled
key Escape

# Quit (answering the question if calls wait), then resume: the log opens with the
# journal's last entries and the brain stays in the status bar.
key q
screen | grep -q "Quit?" && key y
sleep 2
tmux kill-session -t "$sess" 2>/dev/null || true
start --resume
waitfor "── resumed"
sleep 1
shot 18-resumed-log
for _ in $(seq 60); do screen | grep -q "earlier in this session" && break; tmux send-keys -t "$sess" PgUp; sleep 0.15; done
shot 19-resumed-log-from-the-journal
key q
screen | grep -q "Quit?" && key y

echo "screens saved in $OUT"
