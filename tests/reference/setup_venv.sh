#!/usr/bin/env bash
# Creates (or reuses) the Python virtual environment with Confluent's serializers that
# tests/reference/produce.py needs, and prints its python interpreter's path on stdout:
#
#   py=$(tests/reference/setup_venv.sh)
#   "$py" tests/reference/produce.py avro-basic my-topic
#
# The venv is <services>/py, where <services> is $KROW_SERVICES_DIR or <repo>/.services. It is
# reused while requirements.txt and the interpreter stay the same, and rebuilt otherwise.
# Another venv: setup_venv.sh REQUIREMENTS NAME (e.g. bench/peers/requirements.txt bench-py).
# The interpreter is $KROW_PYTHON or python3.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
services=${KROW_SERVICES_DIR:-$root/.services}
mkdir -p "$services"
services=$(cd "$services" && pwd)
venv="$services/${2:-py}"
req=$(cd "$(dirname "${1:-$here/requirements.txt}")" && pwd)/$(basename "${1:-requirements.txt}")
python=${KROW_PYTHON:-python3}

log() { printf '[reference] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

command -v "$python" >/dev/null || die "$python not found (run scripts/setup-deps.sh)"
pyver=$("$python" -c 'import sys; print(sys.version.split()[0])')
want="$(sha256sum "$req" | cut -d' ' -f1) python $pyver"
stamp="$venv/.krow-requirements"

# Serialise concurrent callers (parallel test runners).
exec 9>"$services/.${2:-py}.lock"
if command -v flock >/dev/null; then
  flock -w 300 9 || log "another setup still holds $services/.${2:-py}.lock after 300s; going on"
fi

if [[ -x $venv/bin/python && -f $stamp && $(<"$stamp") == "$want" ]]; then
  echo "$venv/bin/python"
  exit 0
fi

log "creating Python $pyver venv in $venv"
rm -rf "$venv"
"$python" -m venv "$venv" >&2 || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip >&2 ||
  log "could not upgrade pip; going on with the venv's own"
log "installing $(basename "$req")"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >&2 ||
  die "pip install -r $req failed"
echo "$want" >"$stamp"
echo "$venv/bin/python"
