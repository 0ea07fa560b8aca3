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
# shellcheck source-path=SCRIPTDIR source=lib/service.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/service.sh"
svc_init bigquery

bdir=$svc_dir
logs="$bdir/logs"
home="$bdir/home"
pidfile="$bdir/bqemulator.pid"
svc_logs=("$logs/bqemulator.log")

port=${KROW_BIGQUERY_PORT:-9050}
grpc_port=${KROW_BIGQUERY_GRPC_PORT:-9060}
project=krow-test
start_timeout=${KROW_BIGQUERY_START_TIMEOUT:-90}

url() { echo "http://$host:$port"; }

# Ours: an emulator serving this port from this data folder. No /proc scan: the port check in
# start already keeps a second one (which DuckDB's file lock would refuse anyway) away.
is_our_emulator() { [[ $(svc_cmdline "$1") == *" start "*"--rest-port $port "*"--data-dir $bdir/data "* ]]; }
running_pid() { svc_pid "$pidfile" is_our_emulator; }

answers() { # the REST API lists the project's datasets
  curl -fsS -m 2 "$(url)/bigquery/v2/projects/$project/datasets" >/dev/null 2>&1
}

start() {
  svc_lock
  local pid
  if pid=$(running_pid); then
    log "already running (pid $pid) on $(url) (gRPC $host:$grpc_port)"
    return 0
  fi
  command -v curl >/dev/null || die "curl not found (run scripts/setup-deps.sh)"
  svc_ports_free "KROW_BIGQUERY_PORT=$port" "KROW_BIGQUERY_GRPC_PORT=$grpc_port"
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
  : >"$logs/bqemulator.log" # one start's log: the emulator is chatty
  svc_spawn "$pidfile" "$logs/bqemulator.log" "$bdir" \
    env HOME="$home" BQEMU_UPLOAD_STAGING_DIR="$bdir/uploads" "$venv/bin/bqemulator" start \
    --rest-host "$host" --rest-port "$port" --grpc-host "$host" --grpc-port "$grpc_port" \
    --project "$project" --persistent --data-dir "$bdir/data" --log-level warning
  svc_wait bqemulator "$pidfile" "$start_timeout" 0.5 answers
  log "running (pid $(<"$pidfile")) after $((SECONDS - t0))s: REST $(url), gRPC $host:$grpc_port, project $project"
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
  stop) svc_stop_each bqemulator running_pid "$pidfile" ;;
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
    svc_lock # not while a start is bringing the emulator up on this data
    running_pid >/dev/null && die "stop the emulator before resetting it"
    rm -rf "$bdir/data" "$bdir/uploads"
    log "emptied" ;;
  *) echo "usage: $0 start|stop|status|url|reset|query" >&2; exit 2 ;;
esac
