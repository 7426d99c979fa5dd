#!/usr/bin/env bash
# neo4j-local.sh — run a real Neo4j Community (embedded, Bolt only) without
# Docker, from Maven Central jars.
#
#   neo4j-local.sh [--data DIR] [--port PORT] [--watch-stdin] [--password PW] [--tls-dir DIR]
#   neo4j-local.sh --prepare
#
#   --data DIR     Neo4j home (store + logs). Persistent: restarting on the
#                  same DIR keeps the data. Default: target/data (beside
#                  this script).
#   --port PORT    Bolt port on 127.0.0.1; 0 (default) picks a free port.
#   --watch-stdin  stop cleanly when stdin hits EOF (used by the Go test
#                  helper so a dying test binary never leaves a JVM behind).
#   --password PW  turn authentication on: user neo4j, password PW (8+
#                  characters). Default: auth disabled.
#   --tls-dir DIR  let Bolt accept TLS (optional) with DIR/private.key
#                  (PKCS#8 PEM) and DIR/public.crt.
#   --prepare      only resolve jars (first run downloads from Maven Central)
#                  and compile the launcher, then exit. Used to warm CI.
#
# Memory: NEO4J_LOCAL_HEAP (JVM -Xmx, default 512m) and NEO4J_LOCAL_PAGECACHE
# (default 256m) suit tests; benchmarks of large vaults raise them.
#
# Once ready, stdout gets exactly one line:
#   NEO4J_READY bolt://127.0.0.1:PORT version=5.26.x
# Status goes to stderr; Neo4j's own logs go to DIR/logs/.
# Auth is disabled unless --password: connect with NoAuth (basic auth tokens
# are also accepted).
#
# The Neo4j version comes only from ./NEO4J_VERSION. The resolved classpath
# and compiled classes are cached in target/<version>/, so later runs skip
# Maven entirely and work offline from ~/.m2.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

log() { printf 'neo4j-local: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

data="$here/target/data"
port=0
prepare_only=0
watch_stdin=0
password=""
tls_dir=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --data) [[ $# -ge 2 ]] || die "--data needs a value"; data="$2"; shift 2 ;;
    --port) [[ $# -ge 2 ]] || die "--port needs a value"; port="$2"; shift 2 ;;
    --password) [[ $# -ge 2 ]] || die "--password needs a value"; password="$2"; shift 2 ;;
    --tls-dir) [[ $# -ge 2 ]] || die "--tls-dir needs a value"; tls_dir="$2"; shift 2 ;;
    --prepare) prepare_only=1; shift ;;
    --watch-stdin) watch_stdin=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
[[ "$port" =~ ^[0-9]+$ ]] || die "--port must be a number, got '$port'"

command -v java >/dev/null 2>&1 || die "java not found on PATH (need Java 17+)"
command -v javac >/dev/null 2>&1 || die "javac not found on PATH (need a Java 17+ JDK)"

# `java -version` prints e.g. 'openjdk version "17.0.15"' (or "1.8.0_x" for old ones).
java_major="$(java -version 2>&1 | sed -n 's/.*version "\([0-9][0-9]*\)\(\.[0-9]*\)*.*".*/\1/p' | head -n1)"
[[ -n "$java_major" ]] || die "cannot determine the Java version"
[[ "$java_major" -ge 17 ]] || die "Java $java_major found, need 17+"

version="$(tr -d '[:space:]' < "$here/NEO4J_VERSION")"
[[ -n "$version" ]] || die "empty $here/NEO4J_VERSION"

cache="$here/target/$version"
cpfile="$cache/classpath.txt"
classes="$cache/classes"
src="$here/src/main/java/io/vaultgraph/neo4jlocal/Launcher.java"
stamp="$classes/.built"

# Is the cached classpath usable? Stale if the pom changed, or if a jar was
# removed from ~/.m2 since (then Maven must fetch it again).
classpath_ok() {
  [[ -s "$cpfile" && "$cpfile" -nt "$here/pom.xml" ]] || return 1
  local jar
  local IFS=:
  for jar in $(cat "$cpfile"); do
    [[ -f "$jar" ]] || return 1
  done
}

# A prepared classpath and launcher are also kept outside the checkout, per
# Neo4j version, pom and launcher source, so that a fresh clone on a machine
# that prepared them before (CI's, a developer's) skips Maven and javac: about
# 100 s on a 2-core machine.
shared="${XDG_CACHE_HOME:-$HOME/.cache}/vaultgraph-neo4j-local/$version-$(cat "$here/pom.xml" "$src" | sha256sum | cut -c1-16)"

build() {
  mkdir -p "$cache"
  if ! classpath_ok && [[ -s "$shared/classpath.txt" && -f "$shared/classes/.built" ]]; then
    cp "$shared/classpath.txt" "$cpfile.tmp.$$" && mv -f "$cpfile.tmp.$$" "$cpfile"
    if classpath_ok; then
      rm -rf "$classes" "$cache/classes.tmp.$$"
      cp -R "$shared/classes" "$cache/classes.tmp.$$"
      touch "$cache/classes.tmp.$$/.built"
      mv "$cache/classes.tmp.$$" "$classes"
      log "using the launcher prepared in $shared"
    fi
  fi
  if ! classpath_ok; then
    command -v mvn >/dev/null 2>&1 || die "mvn not found on PATH (needed once to fetch Neo4j $version)"
    log "resolving Neo4j $version jars with Maven (first run downloads ~130 MB)..."
    # Written to a temp file and renamed so a concurrent reader never sees a
    # half-written classpath.
    local tmp="$cpfile.tmp.$$"
    # Maven's output (errors only, with -q) goes to stderr: stdout is
    # reserved for NEO4J_READY. sed strips the stray ANSI resets Maven 3.8's
    # -q mode prints even in batch mode. pipefail keeps mvn's exit status.
    if ! mvn -B -q -ntp -Dstyle.color=never -f "$here/pom.xml" -Dneo4j.version="$version" \
         dependency:build-classpath -Dmdep.outputFile="$tmp" -Dmdep.includeScope=runtime 2>&1 \
         | sed 's/\x1b\[[0-9;]*m//g' >&2; then
      rm -f "$tmp"
      die "Maven could not resolve org.neo4j:neo4j:$version"
    fi
    mv -f "$tmp" "$cpfile"
    rm -f "$stamp"
  fi
  if [[ ! -f "$stamp" || "$src" -nt "$stamp" || "$cpfile" -nt "$stamp" ]]; then
    log "compiling launcher..."
    local out="$cache/classes.tmp.$$"
    rm -rf "$out"
    mkdir -p "$out"
    javac -nowarn -Xlint:-path --release 17 -encoding UTF-8 -cp "$(cat "$cpfile")" -d "$out" "$src" >&2
    touch "$out/.built"
    rm -rf "$classes"
    mv "$out" "$classes"
  fi
  if [[ ! -f "$shared/classes/.built" ]] && mkdir -p "$(dirname "$shared")"; then
    local tmp="$shared.tmp.$$"
    rm -rf "$tmp"
    mkdir -p "$tmp"
    cp "$cpfile" "$tmp/classpath.txt" && cp -R "$classes" "$tmp/classes" &&
      { mv -T "$tmp" "$shared" 2>/dev/null || rm -rf "$tmp"; }
  fi
}

# Several test binaries may start at once on a cold cache; serialise the
# build so they don't run Maven/javac into the same directory together.
mkdir -p "$here/target"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$here/target/.build.lock"
  flock 9
  build
  flock -u 9
  exec 9>&-
else
  build
fi

if [[ "$prepare_only" -eq 1 ]]; then
  log "prepared Neo4j $version (classpath and classes in $cache)"
  exit 0
fi

mkdir -p "$data"
args=(--home "$data" --port "$port")
[[ "$watch_stdin" -eq 1 ]] && args+=(--watch-stdin)
[[ -n "$password" ]] && args+=(--password "$password")
[[ -n "$tls_dir" ]] && args+=(--tls-dir "$tls_dir")

# exec: the JVM replaces this shell, so SIGTERM/SIGINT (Ctrl-C) reach it
# directly and its shutdown hook stops Neo4j cleanly; no forwarding races.
# The --add-opens flags are the ones Neo4j's own launcher passes on Java 17.
exec java \
  -Xms128m -Xmx"${NEO4J_LOCAL_HEAP:-512m}" \
  -Dneo4jlocal.pagecache="${NEO4J_LOCAL_PAGECACHE:-256m}" \
  -XX:+UseG1GC -XX:-OmitStackTraceInFastThrow \
  -Djdk.nio.maxCachedBufferSize=1024 \
  -Dio.netty.tryReflectionSetAccessible=true \
  -Dlog4j2.disable.jmx=true \
  --add-opens=java.base/java.nio=ALL-UNNAMED \
  --add-opens=java.base/java.io=ALL-UNNAMED \
  --add-opens=java.base/java.lang=ALL-UNNAMED \
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
  -cp "$classes:$(cat "$cpfile")" \
  io.vaultgraph.neo4jlocal.Launcher "${args[@]}"
