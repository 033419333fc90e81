#!/usr/bin/env bash
# Builds coplay's release archives with goreleaser (.goreleaser.yaml):
#   scripts/release.sh --snapshot   archives for linux, darwin and windows (amd64, arm64),
#                                   checksums.txt, in dist/; nothing is published
#   scripts/release.sh              a release of the tag at HEAD (needs GITHUB_TOKEN)
# Other arguments go to `goreleaser release`. goreleaser is run at a pinned version through
# the Go module proxy, so nothing but Go is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
GORELEASER=github.com/goreleaser/goreleaser/v2@v2.15.1

# Some machines set GOFLAGS=-buildvcs=false; goreleaser's own build does not mind, and
# the release binary names its version and commit through ldflags either way. A stray
# -mod=vendor (there is no vendor directory) would break every build: drop it.
GOFLAGS=$(printf '%s\n' ${GOFLAGS:-} | grep -v '^-mod=vendor$' | tr '\n' ' ' || true)
export GOFLAGS

# goreleaser stops a release after an hour by default: six targets on a small, busy
# machine took nearly that (the first build, with an empty Go build cache).
args=(--timeout 3h "$@")
if [[ " ${args[*]:-} " == *" --snapshot "* ]]; then
  args+=(--clean)
  # A snapshot publishes nothing, so it needs no token; the Homebrew and Scoop entries
  # read TAP_GITHUB_TOKEN when they are rendered.
  export TAP_GITHUB_TOKEN=${TAP_GITHUB_TOKEN:-}
fi
go run "$GORELEASER" release "${args[@]}"

if [[ " ${args[*]:-} " == *" --snapshot "* ]]; then
  echo
  echo "archives in dist/:"
  (cd dist && ls -1 *.tar.gz *.zip checksums.txt)
  echo "check them with: (cd dist && sha256sum -c checksums.txt)"
fi
