#!/usr/bin/env bash
# The cost of `krow audit` on a large table, from a fresh checkout in one command:
#   bash bench/audit.sh [--warehouse duckdb|postgres|bigquery] [--messages N] [--runs R] [--sample N] [--out FILE]
# Installs and builds what is missing (release build), starts the local Kafka broker and (for
# --warehouse postgres/bigquery) the PostgreSQL server or the BigQuery emulator unless they
# already run, runs bench/audit.py (see its --help), and stops the services it started.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
for arg in "$@"; do [[ $arg == -h || $arg == --help ]] && exec python3 bench/audit.py --help; done
bash scripts/setup-deps.sh >/dev/null
bash scripts/build.sh release >/dev/null

started=()
cleanup() { for s in "${started[@]}"; do bash "scripts/$s.sh" stop >/dev/null 2>&1 || true; done; }
trap cleanup EXIT
services=(kafka) prev=
for arg in "$@"; do
  [[ $arg == --warehouse=postgres || ($prev == --warehouse && $arg == postgres) ]] && services+=(postgres)
  [[ $arg == --warehouse=bigquery || ($prev == --warehouse && $arg == bigquery) ]] && services+=(bigquery)
  prev=$arg
done
for s in "${services[@]}"; do
  if ! bash "scripts/$s.sh" status >/dev/null 2>&1; then
    bash "scripts/$s.sh" start
    started+=("$s")
  fi
done
python3 bench/audit.py "$@"
