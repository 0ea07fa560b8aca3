#!/usr/bin/env bash
# Produces N (default 100,000) JSON messages of about 350 bytes (key + one header) into a
# fresh 6-partition topic on the local broker, then times `krow sync` into a fresh DuckDB
# file: wall time, messages/s, MB/s and peak resident memory. Prints a table and JSON.
#   bash bench/sync_100k.sh [MESSAGES]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
n=${1:-100000}
bash scripts/setup-deps.sh >/dev/null
bash scripts/build.sh release >/dev/null
bash scripts/kafka.sh start
bootstrap=127.0.0.1:${KROW_KAFKA_PORT:-9092}
topic="bench.json.$n.$(date +%s)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build/release/bench/bench-produce "$bootstrap" "$topic" "$n" 6
cat >"$work/bench.yaml" <<YAML
name: bench
source:
  bootstrap_servers: $bootstrap
topics:
  names: ["$topic"]
warehouse:
  path: bench.duckdb
YAML
/usr/bin/time -f '%e %M' -o "$work/time" build/release/src/krow sync -q "$work/bench.yaml" >"$work/out"
read -r wall rss_kb <"$work/time"
bytes=$(build/release/tools/krow-sql "$work/bench.duckdb" "SELECT sum(value_size_bytes + coalesce(length(key), 0)) FROM confluent.\"$(echo "$topic" | tr '.' '_')\"" | sed -n 3p | tr -d ' ')
awk -v n="$n" -v wall="$wall" -v rss="$rss_kb" -v bytes="$bytes" 'BEGIN {
  printf "%-10s %10s %12s %8s %12s\n", "messages", "wall s", "messages/s", "MB/s", "peak RSS MiB";
  printf "%-10d %10.2f %12.0f %8.1f %12.1f\n", n, wall, n / wall, bytes / wall / 1e6, rss / 1024;
  printf "{\"messages\": %d, \"wall_s\": %.3f, \"messages_per_s\": %.0f, \"mb_per_s\": %.2f, \"peak_rss_mib\": %.1f}\n",
         n, wall, n / wall, bytes / wall / 1e6, rss / 1024 }'
bash scripts/kafka.sh topics --delete --topic "$topic" >/dev/null 2>&1 || true
