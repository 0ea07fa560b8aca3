#!/usr/bin/env bash
# Installs what is missing, builds, starts the local Kafka broker, schema registry and
# PostgreSQL server, runs every test (unit tests also under ASan/UBSan, integration tests
# against the real broker, the real registry, real DuckDB files and the real PostgreSQL
# server), then stops the services this script started.
# Ends with ctest's summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

bash scripts/setup-deps.sh
preset=${KROW_TEST_PRESET:-ci}
bash scripts/build.sh "$preset"
bash scripts/build.sh asan
bash scripts/build.sh fuzz

export KROW_TEST_BOOTSTRAP=${KROW_TEST_BOOTSTRAP:-127.0.0.1:${KROW_KAFKA_PORT:-9092}}
export KROW_TEST_SASL_BOOTSTRAP=${KROW_TEST_SASL_BOOTSTRAP:-127.0.0.1:${KROW_KAFKA_SASL_PORT:-9093}}
export KROW_TEST_REGISTRY=${KROW_TEST_REGISTRY:-https://127.0.0.1:${KROW_REGISTRY_PORT:-8081}}
eval "$(bash scripts/postgres.sh env)"
export KROW_TEST_PG_HOST=$KROW_PG_HOST KROW_TEST_PG_PORT=$KROW_PG_PORT
export KROW_TEST_PG_ADMIN_PASSWORD=$KROW_PG_ADMIN_PASSWORD KROW_TEST_PG_PASSWORD=$KROW_PG_PASSWORD
started_kafka=0 started_registry=0 started_postgres=0
cleanup() {
  if ((started_postgres)); then bash scripts/postgres.sh stop || true; fi
  if ((started_registry)); then bash scripts/registry.sh stop || true; fi
  if ((started_kafka)); then bash scripts/kafka.sh stop || true; fi
}
trap cleanup EXIT
if ! bash scripts/kafka.sh status >/dev/null 2>&1; then
  started_kafka=1
  bash scripts/kafka.sh start
fi
if ! bash scripts/registry.sh status >/dev/null 2>&1; then
  started_registry=1
  bash scripts/registry.sh start
fi
if ! bash scripts/postgres.sh status >/dev/null 2>&1; then
  started_postgres=1
  bash scripts/postgres.sh start
fi
# Reference payloads come from Confluent's own serializers (Python confluent-kafka).
bash tests/reference/setup_venv.sh >/dev/null

echo "== fuzz targets (libFuzzer with ASan/UBSan), ${KROW_FUZZ_SECONDS:-20} s each"
for f in build/fuzz/tests/fuzz/fuzz-*; do
  corpus="build/fuzz/corpus/$(basename "$f")"
  mkdir -p "$corpus"
  "$f" -max_total_time="${KROW_FUZZ_SECONDS:-20}" -print_final_stats=1 "$corpus" >"$corpus.log" 2>&1 ||
    { tail -40 "$corpus.log"; echo "$(basename "$f") found a failure"; exit 1; }
  echo "$(basename "$f"): $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$corpus.log" | grep -o '[0-9]*$') runs, no failure"
done
echo "== unit tests under ASan/UBSan"
ctest --test-dir build/asan -L unit --output-on-failure -j2
echo "== all tests (unit and integration)"
ctest --test-dir "build/$preset" --output-on-failure
