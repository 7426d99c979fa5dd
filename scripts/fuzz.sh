#!/usr/bin/env bash
# Runs every Go fuzz target of the module for the given time each (default 10s).
# CI calls it with a short time; `make fuzz` with a longer one.
set -euo pipefail
fuzztime=${1:-10s}
cd "$(dirname "$0")/.."
mapfile -t pkgs < <(go list ./...)
for pkg in "${pkgs[@]}"; do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  grep -lqs '^func Fuzz' "$dir"/*_test.go || continue
  for target in $(grep -h '^func Fuzz' "$dir"/*_test.go | sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/'); do
    echo "fuzz: $pkg $target for $fuzztime"
    go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
  done
done
