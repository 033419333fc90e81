#!/usr/bin/env bash
# Writes coplay's shell completions to completions/ (goreleaser's before hook: each archive
# ships them). They come from the commands' own flags: `coplay completion bash|zsh|fish`.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf completions
mkdir -p completions
go build -o completions/.coplay .
completions/.coplay completion bash > completions/coplay.bash
completions/.coplay completion zsh > completions/_coplay
completions/.coplay completion fish > completions/coplay.fish
rm completions/.coplay
