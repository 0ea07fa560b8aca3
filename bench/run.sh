#!/usr/bin/env bash
# The end-to-end benchmark, from a fresh checkout in one command:
#   bash bench/run.sh [--messages N] [--runs R] [--big K] [--no-avro] [--out FILE]
# Installs and builds what is missing (release build), starts the local Kafka broker and
# schema registry unless they already run, runs bench/run.py (see its --help), and stops
# the services it started. Prints a table; saves the figures as JSON under bench/results/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
for arg in "$@"; do [[ $arg == -h || $arg == --help ]] && exec python3 bench/run.py --help; done
bash scripts/setup-deps.sh >/dev/null
bash scripts/build.sh release >/dev/null

started=()
cleanup() { for s in "${started[@]}"; do bash "scripts/$s.sh" stop >/dev/null 2>&1 || true; done; }
trap cleanup EXIT
need_registry=true
for arg in "$@"; do [[ $arg == --no-avro ]] && need_registry=false; done
services=(kafka)
$need_registry && services+=(registry)
for s in "${services[@]}"; do
  if ! bash "scripts/$s.sh" status >/dev/null 2>&1; then
    bash "scripts/$s.sh" start
    started+=("$s")
  fi
done
python3 bench/run.py "$@"
