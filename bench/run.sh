#!/usr/bin/env bash
# The end-to-end benchmark, from a fresh checkout in one command:
#   bash bench/run.sh [--warehouse duckdb|postgres|bigquery] [--messages N] [--runs R] [--big K] [--no-avro]
#                     [--no-peers] [--out FILE]
# Installs and builds what is missing (release build), starts the local Kafka broker, the
# schema registry and (for --warehouse postgres/bigquery) the PostgreSQL server or the BigQuery
# emulator unless they already
# run, runs bench/run.py (see its --help; it sets up the peers: a Python venv and Kafka
# Connect's jars from Maven Central), and stops the services it started. Prints a table;
# saves the figures as JSON under bench/results/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
for arg in "$@"; do [[ $arg == -h || $arg == --help ]] && exec python3 bench/run.py --help; done
bash scripts/setup-deps.sh >/dev/null
bash scripts/build.sh release >/dev/null

started=()
cleanup() { for s in "${started[@]}"; do bash "scripts/$s.sh" stop >/dev/null 2>&1 || true; done; }
trap cleanup EXIT
need_registry=true need_postgres=false need_bigquery=false prev=
for arg in "$@"; do
  [[ $arg == --no-avro ]] && need_registry=false
  [[ $arg == --warehouse=postgres || ($prev == --warehouse && $arg == postgres) ]] && need_postgres=true
  [[ $arg == --warehouse=bigquery || ($prev == --warehouse && $arg == bigquery) ]] && need_bigquery=true
  prev=$arg
done
$need_postgres && need_registry=false  # the PostgreSQL and BigQuery runs read JSON only
$need_bigquery && need_registry=false
services=(kafka)
$need_registry && services+=(registry)
$need_postgres && services+=(postgres)
$need_bigquery && services+=(bigquery)
for s in "${services[@]}"; do
  if ! bash "scripts/$s.sh" status >/dev/null 2>&1; then
    bash "scripts/$s.sh" start
    started+=("$s")
  fi
done
python3 bench/run.py "$@"
