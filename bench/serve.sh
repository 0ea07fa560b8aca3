#!/usr/bin/env bash
# The benchmarks of krow serve, from a fresh checkout in one command:
#   bash bench/serve.sh [--syncs N] [--partitions N] [--calls N] [--idle-seconds S] [--api-seconds S] [--out FILE]
# Installs and builds what is missing (release build), starts the local Kafka broker unless it
# already runs, runs bench/serve.py (see its --help), and stops what it started. Prints tables;
# saves the figures as JSON under bench/results/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
for arg in "$@"; do [[ $arg == -h || $arg == --help ]] && exec python3 bench/serve.py --help; done
bash scripts/setup-deps.sh >/dev/null
bash scripts/build.sh release >/dev/null

started=()
cleanup() { for s in "${started[@]}"; do bash "scripts/$s.sh" stop >/dev/null 2>&1 || true; done; }
trap cleanup EXIT
for s in kafka; do
  if ! bash "scripts/$s.sh" status >/dev/null 2>&1; then
    bash "scripts/$s.sh" start
    started+=("$s")
  fi
done
python3 bench/serve.py "$@"
