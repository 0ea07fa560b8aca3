#!/usr/bin/env bash
# The long form of the fault-injection suite (tests/chaos): kill -9 fifty times during one
# sync of over a million messages (JSON, Avro through the registry, transactional) and ten
# times during a full resync, thirty times a continuous sync (--follow) during steady
# production, restarted at once each time, two syncs of one sync ID started together twenty times, the
# warehouse file hitting a size limit mid-batch, the registry's front stopped longer than one
# retry, records deleted under a running sync (five rounds), the broker stopped and started
# ten times during one sync; workers (PostgreSQL and the BigQuery emulator, 24 partitions,
# steady production) killed thirty times and restarted, added and removed, a worker frozen
# past its session timeout and woken three times, the broker and the warehouse server
# restarted under running workers three times each. Starts the services it needs (and stops those it started), then prints
# one row per scenario: rows expected / found / duplicated / lost / differing from an
# independent consumer. Exit code 0 only when every scenario passed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

bash scripts/setup-deps.sh
bash scripts/build.sh ci
source scripts/lib/services.sh
export KROW_TEST_BOOTSTRAP=${KROW_TEST_BOOTSTRAP:-127.0.0.1:${KROW_KAFKA_PORT:-9092}}
eval "$(bash scripts/postgres.sh env)"
export KROW_TEST_PG_HOST=$KROW_PG_HOST KROW_TEST_PG_PORT=$KROW_PG_PORT
export KROW_TEST_PG_ADMIN_PASSWORD=$KROW_PG_ADMIN_PASSWORD KROW_TEST_PG_PASSWORD=$KROW_PG_PASSWORD
start_services kafka registry postgres bigquery
export KROW_TEST_REGISTRY=${KROW_TEST_REGISTRY:-https://127.0.0.1:${KROW_REGISTRY_PORT:-8081}}
export KROW_TEST_BIGQUERY=${KROW_TEST_BIGQUERY:-http://127.0.0.1:${KROW_BIGQUERY_PORT:-9050}}

report=$(mktemp)
rc=0
KROW_CHAOS_LONG=1 KROW_CHAOS_REPORT=$report build/ci/tests/krow_chaos_tests "$@" || rc=$?
echo
printf '| %-70s | %5s | %9s | %9s | %10s | %5s | %9s |\n' injected times expected found duplicated lost differing
printf '|%s|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..72})" "-------:" "----------:" "----------:" \
  "-----------:" "------:" "----------:"
while IFS=$'\t' read -r what times expected found duplicated lost differing; do
  printf '| %-70s | %5s | %9s | %9s | %10s | %5s | %9s |\n' "$what" "$times" "$expected" "$found" "$duplicated" \
    "$lost" "$differing"
done <"$report"
rm -f "$report"
exit "$rc"
