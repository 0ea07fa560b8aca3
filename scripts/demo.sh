#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, starts a local Kafka and a
# local schema registry with a few sample topics (JSON, text, binary, keyed, headers, a
# tombstone, transactions, Avro and Protobuf), syncs them into demo/demo.duckdb and shows
# some rows. The services keep running for you to explore; scripts/kafka.sh stop and
# scripts/registry.sh stop stop them.
#
#   scripts/demo.sh --postgres   # the same into the local PostgreSQL server instead
#                                # (scripts/postgres.sh start; query it with scripts/postgres.sh psql)
#   scripts/demo.sh --console    # the DuckDB demo, then `krow serve` hosting its sync with the
#                                # web console on http://127.0.0.1:8470 (Ctrl-C stops it)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
warehouse=duckdb
console=0
case ${1:-} in
  --postgres) warehouse=postgres ;;
  --bigquery) warehouse=bigquery ;;
  --console) console=1 ;;
  "") ;;
  *) echo "usage: $0 [--postgres|--bigquery|--console]" >&2; exit 2 ;;
esac

bash scripts/setup-deps.sh
bash scripts/build.sh release
bash scripts/kafka.sh start
bash scripts/registry.sh start
if [[ $warehouse == postgres ]]; then bash scripts/postgres.sh start; fi
if [[ $warehouse == bigquery ]]; then bash scripts/bigquery.sh start; fi
bin=build/release
"$bin/tools/krow-demo-produce" 127.0.0.1:9092
# Avro and Protobuf values made by Confluent's own serializers through the registry. The
# registry keeps schemas in memory, so they are produced again after each registry start.
py=$(bash tests/reference/setup_venv.sh)
demo_stamp=.services/registry/demo-produced
if [[ ! -f $demo_stamp || .services/registry/registry.pid -nt $demo_stamp ]]; then
  "$py" tests/reference/produce.py avro-basic demo.avro >/dev/null
  "$py" tests/reference/produce.py protobuf-basic demo.protobuf >/dev/null
  touch "$demo_stamp"
fi
export KROW_DEMO_REGISTRY_SECRET=registry-secret

mkdir -p demo
if [[ $warehouse == postgres ]]; then
  export KROW_PG_PASSWORD=krow-pg-secret
  cp examples/local-postgres.yaml demo/local-postgres.yaml
  echo
  echo "== krow plan demo/local-postgres.yaml"
  "$bin/src/krow" plan demo/local-postgres.yaml
  echo "== krow sync demo/local-postgres.yaml"
  "$bin/src/krow" sync demo/local-postgres.yaml
  echo
  echo "== some rows (database krow on 127.0.0.1:55432)"
  bash scripts/postgres.sh psql -c \
    "SELECT kafka_partition AS p, kafka_offset AS off, key, value, headers FROM confluent.demo_orders ORDER BY kafka_timestamp, p, off LIMIT 5" \
    -c "SELECT key, key_format, value, value_format, value_base64, is_tombstone FROM confluent.demo_users UNION ALL SELECT key, key_format, value, value_format, value_base64, is_tombstone FROM confluent.demo_blobs UNION ALL SELECT key, key_format, value, value_format, value_base64, is_tombstone FROM confluent.demo_notes" \
    -c "SELECT kafka_offset AS off, value_format, value_schema_id AS schema_id, value FROM confluent.demo_avro UNION ALL SELECT kafka_offset, value_format, value_schema_id, value FROM confluent.demo_protobuf ORDER BY 2, 1" \
    -c "SELECT value->>'currency' AS currency, count(*), sum((value->>'amount')::numeric) AS amount FROM confluent.demo_orders WHERE value_format = 'json' GROUP BY 1"
  echo "The local broker, registry and PostgreSQL server are still running (scripts/kafka.sh stop; scripts/registry.sh stop; scripts/postgres.sh stop)."
  echo "Query it: bash scripts/postgres.sh psql    Sync again: KROW_DEMO_REGISTRY_SECRET=registry-secret KROW_PG_PASSWORD=krow-pg-secret $bin/src/krow sync demo/local-postgres.yaml"
  exit 0
fi
if [[ $warehouse == bigquery ]]; then
  cp examples/local-bigquery.yaml demo/local-bigquery.yaml
  echo
  echo "== krow plan demo/local-bigquery.yaml"
  "$bin/src/krow" plan demo/local-bigquery.yaml
  echo "== krow sync demo/local-bigquery.yaml"
  "$bin/src/krow" sync demo/local-bigquery.yaml
  echo
  echo "== some rows (project krow-test, dataset confluent, on the emulator at $(bash scripts/bigquery.sh url))"
  q() { bash scripts/bigquery.sh query "$1"; echo; }
  q "SELECT kafka_partition AS p, kafka_offset AS off, key, TO_JSON_STRING(value) AS value FROM confluent.demo_orders ORDER BY kafka_timestamp, p, off LIMIT 5"
  q "SELECT key, key_format, TO_JSON_STRING(value) AS value, value_format, value_base64, is_tombstone FROM confluent.demo_users"
  q "SELECT kafka_offset AS off, value_format, value_schema_id AS schema_id, TO_JSON_STRING(value) AS value FROM confluent.demo_avro ORDER BY off"
  q "SELECT JSON_VALUE(value, '\$.currency') AS currency, COUNT(*) AS orders, SUM(CAST(JSON_VALUE(value, '\$.amount') AS FLOAT64)) AS amount FROM confluent.demo_orders WHERE value_format = 'json' GROUP BY 1 ORDER BY 1"
  echo "The local broker, registry and BigQuery emulator are still running (scripts/kafka.sh stop; scripts/registry.sh stop; scripts/bigquery.sh stop)."
  echo "Query it: bash scripts/bigquery.sh query 'SELECT ...'    Sync again: KROW_DEMO_REGISTRY_SECRET=registry-secret $bin/src/krow sync demo/local-bigquery.yaml"
  exit 0
fi
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
  "SELECT kafka_offset AS off, value_format, value_schema_id AS schema_id, value FROM confluent.demo_avro UNION ALL SELECT kafka_offset, value_format, value_schema_id, value FROM confluent.demo_protobuf ORDER BY 2, 1" \
  "SELECT table_name, count(*) AS rows FROM (SELECT 'demo_orders' AS table_name FROM confluent.demo_orders UNION ALL SELECT 'demo_users' FROM confluent.demo_users UNION ALL SELECT 'demo_blobs' FROM confluent.demo_blobs UNION ALL SELECT 'demo_notes' FROM confluent.demo_notes UNION ALL SELECT 'demo_avro' FROM confluent.demo_avro UNION ALL SELECT 'demo_protobuf' FROM confluent.demo_protobuf) GROUP BY 1 ORDER BY 1"
echo "The local broker and registry are still running (scripts/kafka.sh stop; scripts/registry.sh stop)."
echo "Run the sync again: KROW_DEMO_REGISTRY_SECRET=registry-secret $bin/src/krow sync demo/local.yaml   (nothing new: a fast no-op)"

if [[ $console == 1 ]]; then
  # The demo's sync hosted by `krow serve` (every minute), an admin user for the console,
  # and the service in the foreground. docs/console.md shows its pages.
  listen=${KROW_DEMO_LISTEN:-127.0.0.1:8470}
  cat > demo/server.yaml <<YAML
# krow serve's config for the demo (scripts/demo.sh --console); docs/serve.md has every key.
listen: $listen
state: serve.db
syncs:
  - manifest: local.yaml
    schedule: every 1m
YAML
  # The demo's admin: made once, its password kept beside the state file (mode 600).
  if [[ ! -f demo/serve.db || ! -f demo/console-password ]]; then
    rm -f demo/serve.db demo/serve.db-wal demo/serve.db-shm
    (umask 077; head -c 12 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' > demo/console-password)
    "$bin/src/krow" serve add-user demo --role admin --config demo/server.yaml < demo/console-password
  fi
  password=$(cat demo/console-password)
  echo
  echo "== the console: open http://$listen and sign in as demo / $password"
  echo "   (krow serve hosts the demo's sync, run every minute; Ctrl-C stops it)"
  exec "$bin/src/krow" serve --config demo/server.yaml
fi
