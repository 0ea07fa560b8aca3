#!/usr/bin/env bash
# Installs what is missing, builds, starts the local Kafka broker, runs every test (unit
# tests also under ASan/UBSan, integration tests against the real broker and real DuckDB
# files), then stops the broker if this script started it. Ends with ctest's summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

bash scripts/setup-deps.sh
preset=${KROW_TEST_PRESET:-ci}
bash scripts/build.sh "$preset"
bash scripts/build.sh asan

export KROW_TEST_BOOTSTRAP=${KROW_TEST_BOOTSTRAP:-127.0.0.1:${KROW_KAFKA_PORT:-9092}}
export KROW_TEST_SASL_BOOTSTRAP=${KROW_TEST_SASL_BOOTSTRAP:-127.0.0.1:${KROW_KAFKA_SASL_PORT:-9093}}
started_kafka=0
if ! bash scripts/kafka.sh status >/dev/null 2>&1; then
  bash scripts/kafka.sh start
  started_kafka=1
fi
cleanup() { if ((started_kafka)); then bash scripts/kafka.sh stop || true; fi; }
trap cleanup EXIT

echo "== unit tests under ASan/UBSan"
ctest --test-dir build/asan -L unit --output-on-failure -j2
echo "== all tests (unit and integration)"
ctest --test-dir "build/$preset" --output-on-failure
