#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, starts a local Kafka with a
# few sample topics, syncs them into demo/demo.duckdb and shows some rows.
# The broker keeps running for you to explore; `scripts/kafka.sh stop` stops it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

bash scripts/setup-deps.sh
bash scripts/build.sh release
bash scripts/kafka.sh start
bin=build/release
"$bin/tools/krow-demo-produce" 127.0.0.1:9092

mkdir -p demo
cp examples/local.yaml demo/local.yaml
echo
echo "== krow plan demo/local.yaml"
"$bin/src/krow" plan demo/local.yaml
echo "== krow sync demo/local.yaml"
"$bin/src/krow" sync demo/local.yaml
echo
echo "== some rows (demo/demo.duckdb)"
"$bin/tools/krow-sql" demo/demo.duckdb \
  "SELECT kafka_partition AS p, kafka_offset AS off, key, value, headers FROM confluent.demo_orders ORDER BY kafka_timestamp, p, off LIMIT 5" \
  "SELECT key, key_format, value, value_format, value_base64, is_tombstone FROM confluent.demo_users UNION ALL SELECT key, key_format, value, value_format, value_base64, is_tombstone FROM confluent.demo_blobs UNION ALL SELECT key, key_format, value, value_format, value_base64, is_tombstone FROM confluent.demo_notes" \
  "SELECT table_name, count(*) AS rows FROM (SELECT 'demo_orders' AS table_name FROM confluent.demo_orders UNION ALL SELECT 'demo_users' FROM confluent.demo_users UNION ALL SELECT 'demo_blobs' FROM confluent.demo_blobs UNION ALL SELECT 'demo_notes' FROM confluent.demo_notes) GROUP BY 1 ORDER BY 1"
echo "The local broker is still running (scripts/kafka.sh stop to stop it)."
echo "Run the sync again: $bin/src/krow sync demo/local.yaml   (nothing new: a fast no-op)"
