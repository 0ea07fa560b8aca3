#!/usr/bin/env bash
# Local BigQuery-API emulator for krow's BigQuery tests: PyPI's bqemulator (REST and Storage
# API gRPC, DuckDB-backed, in memory), in a Python virtual environment, no Docker, offline.
#
#   scripts/bigquery.sh start|stop|status|reset
#   scripts/bigquery.sh url        # prints the REST endpoint clients use
#   scripts/bigquery.sh query 'SELECT ...' [project]   # runs GoogleSQL (jobs.query), prints a table
#
# Endpoints, all on 127.0.0.1, project krow-test, no authentication:
#   REST  $KROW_BIGQUERY_PORT      (9050)  http://127.0.0.1:9050/bigquery/v2/projects/krow-test/...
#                                          (also the upload endpoint, /upload/bigquery/v2/...)
#   gRPC  $KROW_BIGQUERY_GRPC_PORT (9060)  Storage Read and Write APIs
# Data is kept in a DuckDB file under <services>/bigquery/data across restarts (as BigQuery
# keeps it across an outage); `scripts/bigquery.sh reset` (stopped) empties it.
#
# Everything (venv, private HOME with DuckDB's spatial extension, upload staging, logs) lives
# under <services>, which is $KROW_SERVICES_DIR or <repo>/.services: the venv in <services>/bq
# (scripts/bigquery/requirements.txt, made by tests/reference/setup_venv.sh), the rest in
# <services>/bigquery. The emulator loads DuckDB's spatial extension at start; offline it
# cannot download it, so the copy PyPI ships is put where DuckDB looks for it.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
services=${KROW_SERVICES_DIR:-$root/.services}
mkdir -p "$services"
services=$(cd "$services" && pwd)
bdir="$services/bigquery"
logs="$bdir/logs"
home="$bdir/home"
pidfile="$bdir/bqemulator.pid"

host=127.0.0.1
port=${KROW_BIGQUERY_PORT:-9050}
grpc_port=${KROW_BIGQUERY_GRPC_PORT:-9060}
project=krow-test
start_timeout=${KROW_BIGQUERY_START_TIMEOUT:-90}
stop_timeout=30

log() { printf '[bigquery] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

url() { echo "http://$host:$port"; }

# The process in the pid file, if it is still our emulator.
running_pid() {
  [[ -f $pidfile ]] || return 1
  local pid; pid=$(<"$pidfile")
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "--rest-port $port" || return 1
  echo "$pid"
}

answers() { # the REST API lists the project's datasets
  curl -fsS -m 2 "$(url)/bigquery/v2/projects/$project/datasets" >/dev/null 2>&1
}

port_taken() {
  (exec 3<>"/dev/tcp/$host/$1") 2>/dev/null
}

start() {
  if pid=$(running_pid); then
    log "already running (pid $pid) on $(url) (gRPC $host:$grpc_port)"
    return 0
  fi
  command -v curl >/dev/null || die "curl not found (run scripts/setup-deps.sh)"
  for p in "$port" "$grpc_port"; do
    port_taken "$p" && die "port $p is in use by another process; set KROW_BIGQUERY_PORT / KROW_BIGQUERY_GRPC_PORT"
  done
  local py; py=$(bash "$root/tests/reference/setup_venv.sh" "$root/scripts/bigquery/requirements.txt" bq)
  local venv; venv=$(dirname "$(dirname "$py")")
  mkdir -p "$logs" "$home" "$bdir/uploads" "$bdir/data"
  # DuckDB looks for extensions under $HOME/.duckdb/extensions/<version>/<platform>/.
  local ext; ext=$("$py" -c 'import duckdb_extension_spatial, pathlib; p = pathlib.Path(duckdb_extension_spatial.__file__).parent; print(next(p.rglob("spatial.duckdb_extension")))') ||
    die "no spatial.duckdb_extension in the duckdb-extension-spatial package of $venv"
  local version platform
  version=$("$py" -c 'import duckdb; print("v" + duckdb.__version__)')
  platform=$("$py" -c 'import duckdb; print(duckdb.execute("PRAGMA platform").fetchone()[0])')
  mkdir -p "$home/.duckdb/extensions/$version/$platform"
  cp -f "$ext" "$home/.duckdb/extensions/$version/$platform/"

  local t0=$SECONDS
  log "starting bqemulator on $(url) (gRPC $host:$grpc_port, project $project; log $logs/bqemulator.log)"
  HOME=$home BQEMU_UPLOAD_STAGING_DIR="$bdir/uploads" setsid "$venv/bin/bqemulator" start \
    --rest-host "$host" --rest-port "$port" --grpc-host "$host" --grpc-port "$grpc_port" \
    --project "$project" --persistent --data-dir "$bdir/data" --log-level warning >"$logs/bqemulator.log" 2>&1 </dev/null &
  echo $! >"$pidfile"
  local pid=$!
  until answers; do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 30 "$logs/bqemulator.log" >&2 || true
      rm -f "$pidfile"
      die "bqemulator exited while starting (log above, also in $logs/bqemulator.log)"
    fi
    if ((SECONDS - t0 > start_timeout)); then
      tail -n 30 "$logs/bqemulator.log" >&2 || true
      stop
      die "bqemulator did not answer on $(url) within ${start_timeout}s"
    fi
    sleep 0.5
  done
  log "running (pid $pid) after $((SECONDS - t0))s: REST $(url), gRPC $host:$grpc_port, project $project"
}

stop() {
  local pid
  if ! pid=$(running_pid); then
    rm -f "$pidfile"
    log "not running"
    return 0
  fi
  log "stopping bqemulator (pid $pid)"
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  local t0=$SECONDS
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS - t0 > stop_timeout)); then
      log "still running after ${stop_timeout}s; killing it"
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  rm -f "$pidfile"
  log "stopped"
}

status() {
  local pid
  if pid=$(running_pid) && answers; then
    echo "running (pid $pid) on $(url), gRPC $host:$grpc_port, project $project"
    return 0
  fi
  echo "stopped"
  return 1
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  status) status ;;
  url) url ;;
  query)
    [[ -n ${2:-} ]] || die "usage: $0 query 'SQL' [project]"
    KROW_BQ_URL=$(url) python3 - "$2" "${3:-$project}" <<'PY'
import json, os, sys, urllib.error, urllib.request
sql, project = sys.argv[1], sys.argv[2]
base = f"{os.environ['KROW_BQ_URL']}/bigquery/v2/projects/{project}/queries"
req = urllib.request.Request(base, data=json.dumps({"query": sql, "useLegacySql": False}).encode(),
                             headers={"Content-Type": "application/json"})
try:
    r = json.load(urllib.request.urlopen(req, timeout=600))
except urllib.error.HTTPError as e:
    sys.exit(e.read().decode())
if r.get("errors"):
    sys.exit("; ".join(e.get("message", "") for e in r["errors"]))
names = [f["name"] for f in r.get("schema", {}).get("fields", [])]
types = [f["type"] for f in r.get("schema", {}).get("fields", [])]
def show(v, t):
    if v is None:
        return "NULL"
    if t == "TIMESTAMP":  # seconds as a float (BigQuery) or microseconds (the emulator)
        import datetime
        s = float(v) if any(c in v for c in ".eE") else int(v) / 1e6
        return datetime.datetime.fromtimestamp(s, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + " UTC"
    return str(v)
rows = [[show(c["v"], t) for c, t in zip(row["f"], types)] for row in r.get("rows", [])]
widths = [min(60, max([len(n)] + [len(row[i]) for row in rows])) for i, n in enumerate(names)]
print(" | ".join(n.ljust(w) for n, w in zip(names, widths)))
print("-+-".join("-" * w for w in widths))
for row in rows:
    print(" | ".join((v if len(v) <= w else v[: w - 1] + "…").ljust(w) for v, w in zip(row, widths)))
print(f"({len(rows)} rows)")
PY
    ;;
  reset)
    running_pid >/dev/null && die "stop the emulator before resetting it"
    rm -rf "$bdir/data" "$bdir/uploads"
    log "emptied" ;;
  *) echo "usage: $0 start|stop|status|url|reset|query" >&2; exit 2 ;;
esac
