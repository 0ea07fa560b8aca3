#!/usr/bin/env bash
# The continuous-sync and workers benchmarks, from a fresh checkout in one command:
#   bash bench/continuous.sh [freshness] [workers] [idle] [--engines postgres,duckdb,bigquery] [--rates 5000,20000]
#                            [--seconds S] [--backlog N] [--idle-minutes M] [--out FILE]
# Installs and builds what is missing (release build), starts the local Kafka broker, the
# PostgreSQL server and the BigQuery emulator unless they already run, runs
# bench/continuous.py (see its --help), and stops the services it started. Prints tables;
# saves the figures as JSON under bench/results/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
for arg in "$@"; do [[ $arg == -h || $arg == --help ]] && exec python3 bench/continuous.py --help; done
bash scripts/setup-deps.sh >/dev/null
bash scripts/build.sh release >/dev/null

started=()
cleanup() { for s in "${started[@]}"; do bash "scripts/$s.sh" stop >/dev/null 2>&1 || true; done; }
trap cleanup EXIT
for s in kafka postgres bigquery; do
  if ! bash "scripts/$s.sh" status >/dev/null 2>&1; then
    bash "scripts/$s.sh" start
    started+=("$s")
  fi
done
python3 bench/continuous.py "$@"
