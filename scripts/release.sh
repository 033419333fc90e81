#!/usr/bin/env bash
# Builds coplay's release archives with goreleaser (.goreleaser.yaml):
#   scripts/release.sh --snapshot        archives for linux, darwin and windows (amd64, arm64),
#                                        checksums.txt, in dist/; nothing is published
#   scripts/release.sh --single-target   a snapshot of this machine's archive only (GOOS/GOARCH
#                                        of `go env`): a quick check that the release builds
#   scripts/release.sh                   a release of the tag at HEAD (needs GITHUB_TOKEN)
# Other arguments go to `goreleaser release`. goreleaser is built once at a pinned version
# through the Go module proxy (so nothing but Go is needed) and kept in the Go build cache.
#
# How long (2-CPU machine, goreleaser already built, measured 2026-11-28): --single-target
# 52 s; a --snapshot (six targets, two built at a time) 22 minutes when the build cache
# has never held the darwin and windows targets (each ~9 minutes), 53 s once it has.
# Building goreleaser the first time takes 5 to 10 minutes more. Every line goreleaser
# prints comes with the seconds since the start, so a long build shows where it is.
set -euo pipefail
cd "$(dirname "$0")/.."
GORELEASER=github.com/goreleaser/goreleaser/v2@v2.15.1
start=$SECONDS
say() { printf '[release %3ds] %s\n' "$((SECONDS - start))" "$*"; }

# Some machines set GOFLAGS=-buildvcs=false; goreleaser's own build does not mind, and
# the release binary names its version and commit through ldflags either way. A stray
# -mod=vendor (there is no vendor directory) would break every build: drop it.
GOFLAGS=$(printf '%s\n' ${GOFLAGS:-} | grep -v '^-mod=vendor$' | tr '\n' ' ' || true)
export GOFLAGS

single=""
args=()
for a in "$@"; do
  case "$a" in
    --single-target) single=1 ;;
    *) args+=("$a") ;;
  esac
done
config=.goreleaser.yaml
if [ -n "$single" ]; then
  # goreleaser's release has no --single-target (only its build does, without archives):
  # the same config, with this machine's one target, written beside dist/.
  goos=$(go env GOOS) goarch=$(go env GOARCH)
  config=$(mktemp "${TMPDIR:-/tmp}/coplay-goreleaser.XXXXXX.yaml")
  trap 'rm -f "$config"' EXIT
  # Scoop's manifest needs the windows archive, which a single target off windows lacks
  # (goreleaser fails at the end: "scoop requires a single windows archive"): drop it.
  sed -e "s/^    goos: \[.*\]$/    goos: [$goos]/" -e "s/^    goarch: \[.*\]$/    goarch: [$goarch]/" .goreleaser.yaml |
    if [ "$goos" = windows ]; then cat; else awk '/^[a-z_]+:/ { skip = ($1 == "scoops:") } !skip'; fi >"$config"
  grep -q "goos: \[$goos\]" "$config" && grep -q "goarch: \[$goarch\]" "$config" || {
    echo "release: could not narrow .goreleaser.yaml to $goos/$goarch (its goos/goarch lines changed?)" >&2; exit 1; }
  args+=(--snapshot)
  say "one target: $goos/$goarch"
fi

# goreleaser stops a release after an hour by default: six targets on a small, busy
# machine took nearly that (the first build, with an empty Go build cache).
args=(--timeout 3h --config "$config" "${args[@]}")
snapshot=""
if [[ " ${args[*]} " == *" --snapshot "* ]]; then
  snapshot=1
  args+=(--clean)
  # A snapshot publishes nothing, so it needs no token; the Homebrew and Scoop entries
  # read TAP_GITHUB_TOKEN when they are rendered.
  export TAP_GITHUB_TOKEN=${TAP_GITHUB_TOKEN:-}
fi

bin_dir="${XDG_CACHE_HOME:-$HOME/.cache}/coplay-release"
bin="$bin_dir/goreleaser-v2.15.1"
if [ ! -x "$bin" ]; then
  say "building goreleaser v2.15.1 (once; minutes on a small machine)…"
  mkdir -p "$bin_dir"
  GOBIN="$bin_dir" go install "$GORELEASER"
  mv "$bin_dir/goreleaser" "$bin"
  say "goreleaser built"
fi
say "goreleaser release ${args[*]}"
"$bin" release "${args[@]}" 2>&1 | while IFS= read -r line; do printf '[release %3ds] %s\n' "$((SECONDS - start))" "$line"; done
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] || { say "goreleaser failed (exit $status)"; exit "$status"; }

if [ -n "$snapshot" ]; then
  echo
  say "done; archives in dist/:"
  # One target has no .zip (only windows archives are zips): ls's "no such file" for
  # the other pattern is not a failure of the release.
  (cd dist && ls -1 *.tar.gz *.zip checksums.txt 2>/dev/null || true)
  echo "check them with: (cd dist && sha256sum -c checksums.txt)"
fi
