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
export KROW_TEST_BIGQUERY=${KROW_TEST_BIGQUERY:-http://127.0.0.1:${KROW_BIGQUERY_PORT:-9050}}
source scripts/lib/services.sh
start_services kafka registry postgres bigquery
# Reference payloads come from Confluent's own serializers (Python confluent-kafka).
bash tests/reference/setup_venv.sh >/dev/null

echo "== fuzz targets (libFuzzer with ASan/UBSan), ${KROW_FUZZ_SECONDS:-10} s each"
bash scripts/fuzz.sh --seconds-each "${KROW_FUZZ_SECONDS:-10}"
echo "== unit tests under ASan/UBSan"
ctest --test-dir build/asan -L unit --output-on-failure -j2
echo "== all tests (unit, integration, and the short form of the fault-injection suite)"
ctest --test-dir "build/$preset" --output-on-failure
