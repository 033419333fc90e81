#!/usr/bin/env bash
# scripts/fuzz.sh [MINUTES] [NAME...]: runs every fuzz target in .ci/fuzz (or only the
# named ones, e.g. FuzzParse) for MINUTES each (default 10), one after another, and
# prints a table: target, minutes, inputs run, new interesting inputs, result.
#
# A failing input is written by go test under the target's testdata/fuzz/NAME/; commit
# it: it is then a regression case that `go test ./...` runs every time. Logs are kept
# in $FUZZ_LOGS (default: a new directory under /tmp). FUZZ_PARALLEL sets the workers
# (default: go test's, GOMAXPROCS).
#
# A duration, unlike CI's count: on a loaded machine Go's coordinator can race its own
# deadline and end with a bare "context deadline exceeded" and no failing input
# (golang/go#75804). That is reported as "deadline race" (no finding), not as a failure.
set -uo pipefail
cd "$(dirname "$0")/.."

minutes=${1:-10}
shift || true
if ! [[ $minutes =~ ^[0-9]+$ ]] || [ "$minutes" -lt 1 ]; then
  echo "usage: scripts/fuzz.sh [MINUTES] [NAME...] (MINUTES a whole number, at least 1)" >&2
  exit 2
fi
logs=${FUZZ_LOGS:-$(mktemp -d /tmp/coplay-fuzz.XXXXXX)}
mkdir -p "$logs"
parallel=()
if [ -n "${FUZZ_PARALLEL:-}" ]; then parallel=(-parallel "$FUZZ_PARALLEL"); fi

targets=()
while read -r line _count; do
  [ -z "$line" ] && continue
  name=${line##*:}
  if [ $# -gt 0 ]; then
    want=0
    for n in "$@"; do [ "$n" = "$name" ] && want=1; done
    [ $want = 1 ] || continue
  fi
  targets+=("$line")
done < .ci/fuzz
if [ ${#targets[@]} -eq 0 ]; then
  echo "no target in .ci/fuzz matches: $*" >&2
  exit 2
fi

echo "fuzzing ${#targets[@]} target(s) for $minutes min each; logs in $logs"
summary="$logs/summary.md"
{
  echo "| target | minutes | inputs | new interesting | result |"
  echo "|---|---|---|---|---|"
} > "$summary"
found=0
for target in "${targets[@]}"; do
  pkg=${target%%:*}; name=${target##*:}
  pkgname=${pkg#./}
  log="$logs/${pkgname//\//_}_$name.log"
  echo "== $target ($(date -u +%H:%M:%S))"
  # testdeps not inlined: see .ci/run, where the fuzzers run the same way.
  go test -gcflags=testing/internal/testdeps=-l -run '^$' -fuzz "^${name}\$" -fuzztime "${minutes}m" "${parallel[@]}" "$pkg" > "$log" 2>&1 </dev/null
  rc=$?
  last=$(grep -a -E '^fuzz: elapsed: .*execs: ' "$log" | tail -1)
  execs=$(sed -E 's/.*execs: ([0-9]+).*/\1/' <<<"$last")
  fresh=$(sed -E 's/.*new interesting: ([0-9]+).*/\1/' <<<"$last")
  if [ $rc = 0 ]; then
    result="nothing found"
  elif grep -aq 'Failing input written to' "$log"; then
    result="FOUND: $(grep -a 'Failing input written to' "$log" | sed -E 's/.*written to //') (commit it)"
    found=1
  elif grep -aq 'context deadline exceeded' "$log"; then
    result="deadline race (golang/go#75804), no failing input"
  else
    result="go test failed (exit $rc), see $log"
    found=1
  fi
  echo "| \`$target\` | $minutes | ${execs:-?} | ${fresh:-?} | $result |" | tee -a "$summary"
done
echo
cat "$summary"
exit $found
