#!/usr/bin/env bash
# Resolves (or reuses) the jars of Kafka Connect standalone and its FileStreamSink connector
# from Maven Central (bench/peers/connect/pom.xml) and prints their folder on stdout:
#
#   lib=$(bench/peers/connect.sh)
#   java -cp "$lib/*" org.apache.kafka.connect.cli.ConnectStandalone worker.properties sink.properties
#
# The folder is <services>/connect/lib (<services>: $KROW_SERVICES_DIR or <repo>/.services),
# resolved again when pom.xml changes.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
services=${KROW_SERVICES_DIR:-$root/.services}
dir="$services/connect"
lib="$dir/lib"
pom="$here/connect/pom.xml"

log() { printf '[connect] %s\n' "$*" >&2; }

want=$(sha256sum "$pom" | cut -d' ' -f1)
if [[ -f $lib/.resolved && $(<"$lib/.resolved") == "$want" ]]; then
  echo "$lib"
  exit 0
fi
command -v mvn >/dev/null || { log "mvn not found (run scripts/setup-deps.sh)"; exit 1; }
log "resolving Kafka Connect jars from Maven Central into $lib"
mkdir -p "$dir"
tmp="$dir/lib.tmp.$$"
rm -rf "$tmp"
if ! mvn -q -B -Dstyle.color=never -f "$pom" dependency:copy-dependencies "-DoutputDirectory=$tmp" \
  >"$dir/maven.log" 2>&1; then
  sed 's/\x1b\[[0-9;]*m//g' "$dir/maven.log" >&2
  rm -rf "$tmp"
  log "maven failed to resolve $pom (output above, also in $dir/maven.log)"
  exit 1
fi
echo "$want" >"$tmp/.resolved"
rm -rf "$lib"
mv "$tmp" "$lib"
echo "$lib"
