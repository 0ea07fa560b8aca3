#!/usr/bin/env bash
# Local PostgreSQL server (Debian's PostgreSQL 15, no Docker) for krow's tests, demo and
# benchmark.
#
#   scripts/postgres.sh start|stop|status
#   scripts/postgres.sh psql [psql args]    # psql as the krow role on the krow database
#   scripts/postgres.sh admin [psql args]   # psql as the superuser
#   scripts/postgres.sh env                 # the settings below, as shell assignments
#
# Listens on 127.0.0.1:$KROW_PG_PORT (55432) only, password authentication (SCRAM) for every
# connection, fsync on. Roles:
#   postgres       / postgres-secret  superuser (setup and tests only)
#   krow           / krow-pg-secret   LOGIN CREATEDB; owns the database krow
#   krow_nocreate  / krow-pg-secret   LOGIN, no CREATE anywhere (for permission tests)
#
# The server refuses to run as root: as root it runs as the OS user postgres (created by
# Debian's package). Data, logs and socket live in <services>/postgres, where <services> is
# $KROW_SERVICES_DIR or <repo>/.services. Starting twice is a no-op; stop stops only this
# server.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/service.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/service.sh"
svc_init postgres

pgdir=$svc_dir
port=${KROW_PG_PORT:-55432}
admin_password=postgres-secret
krow_password=krow-pg-secret

bindir=
for d in $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V -r); do
  [[ -x $d/pg_ctl && -x $d/postgres ]] && { bindir=$d; break; }
done

# The OS user the server runs as, and a way to run commands as that user.
as_user=()
if ((EUID == 0)); then
  run_user=postgres
  id "$run_user" >/dev/null 2>&1 || die "OS user '$run_user' not found (install Debian's postgresql package: scripts/setup-deps.sh)"
  as_user=(runuser -u "$run_user" --)
else
  run_user=$(id -un)
fi
as_server() { "${as_user[@]}" "$@"; }

# The server's files live in <services>/postgres unless the server's OS user cannot reach
# that folder (a checkout under /root, say): then in a folder of its own under /var/tmp.
srv=$pgdir
if ((EUID == 0)) && ! as_server test -x "$pgdir" 2>/dev/null; then
  srv="/var/tmp/krow-postgres-$(printf '%s' "$pgdir" | sha256sum | cut -c1-12)"
fi
data="$srv/data"
logs="$srv/logs"
sock="$srv/run"
svc_logs=("$logs/pg_ctl.log" "$logs/postgres.log")

pg_ctl() { as_server "$bindir/pg_ctl" -D "$data" "$@"; }

admin_psql() { # superuser over TCP: what the tests use too
  PGPASSWORD=$admin_password psql -X -q -v ON_ERROR_STOP=1 -h "$host" -p "$port" -U postgres -d postgres "$@"
}

ensure_cluster() {
  [[ -f $data/PG_VERSION ]] && return 0
  log "creating the database cluster in $data"
  rm -rf "$data"
  mkdir -p "$data" "$logs" "$sock"
  chown "$run_user" "$srv" "$data" "$logs" "$sock"
  chmod 700 "$data"
  local pwfile; pwfile=$(mktemp)
  printf '%s\n' "$admin_password" >"$pwfile"
  chown "$run_user" "$pwfile"
  chmod 600 "$pwfile"
  as_server "$bindir/initdb" -D "$data" -U postgres --pwfile="$pwfile" --auth=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 >"$logs/initdb.log" 2>&1 || {
    rm -f "$pwfile"
    cat "$logs/initdb.log" >&2
    die "initdb failed"
  }
  rm -f "$pwfile"
  cat >>"$data/postgresql.conf" <<EOF

# scripts/postgres.sh: a private server for krow's tests and demo.
listen_addresses = '$host'
port = $port
unix_socket_directories = '$sock'
max_connections = 60
fsync = on
logging_collector = off
log_min_messages = warning
log_line_prefix = '%m [%p] %q%u@%d '
EOF
  cat >"$data/pg_hba.conf" <<EOF
# scripts/postgres.sh: passwords everywhere, loopback only.
local all all scram-sha-256
host  all all 127.0.0.1/32 scram-sha-256
EOF
}

ensure_roles() {
  admin_psql <<EOF
DO \$\$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'krow') THEN
    CREATE ROLE krow LOGIN CREATEDB PASSWORD '$krow_password';
  END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'krow_nocreate') THEN
    CREATE ROLE krow_nocreate LOGIN PASSWORD '$krow_password';
  END IF;
END
\$\$;
EOF
  if [[ -z $(admin_psql -tAc "SELECT 1 FROM pg_database WHERE datname = 'krow'") ]]; then
    admin_psql -c "CREATE DATABASE krow OWNER krow"
  fi
  # Nobody but the owner may create in the public schema (PostgreSQL 15's default, said aloud).
  admin_psql -d krow -c "REVOKE CREATE ON SCHEMA public FROM PUBLIC" >/dev/null
}

# PostgreSQL keeps its own pid file (postmaster.pid, pid on the first line) and pg_ctl waits
# for the start (-w) and the stop, so the lib's pid file, spawn and stop are not used. A
# postmaster killed a moment ago is a zombie until init reaps it; pg_ctl, and a new
# postmaster checking the lock file, would take it for running.
is_running() {
  [[ -f $data/PG_VERSION ]] || return 1
  svc_wait_reaped "$(head -n 1 "$data/postmaster.pid" 2>/dev/null)"
  pg_ctl status >/dev/null 2>&1
}

cmd_start() {
  [[ -n $bindir ]] || die "PostgreSQL server binaries not found under /usr/lib/postgresql (run scripts/setup-deps.sh)"
  svc_lock
  if is_running; then
    log "already running on $host:$port"
    return 0
  fi
  svc_ports_free "KROW_PG_PORT=$port"
  ensure_cluster
  mkdir -p "$logs" "$sock"
  chown "$run_user" "$logs" "$sock"
  log "starting PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') (log $logs/postgres.log)"
  # setsid: own session, so the server outlives the caller's terminal; fd 9 (the lock) is
  # not inherited.
  if ! setsid "${as_user[@]}" "$bindir/pg_ctl" -D "$data" -l "$logs/postgres.log" -w -t 60 start \
    >"$logs/pg_ctl.log" 2>&1 9>&-; then
    svc_tail
    # Up but not ready within 60s: leave nothing behind, as svc_wait does.
    { is_running && pg_ctl -m immediate -w stop; } >/dev/null 2>&1 || true
    die "the server did not start"
  fi
  ensure_roles
  log "running on $host:$port (database krow, role krow / $krow_password)"
}

cmd_stop() {
  svc_lock
  if ! is_running; then
    log "not running"
    return 0
  fi
  log "stopping"
  # Fast (TERM: roll back sessions, checkpoint); if that takes over 60s, immediate (QUIT, crash
  # recovery at the next start): PostgreSQL's own TERM then KILL.
  if ! pg_ctl -m fast -w -t 60 stop >/dev/null && is_running; then
    log "still running after 60s, stopping immediately"
    pg_ctl -m immediate -w -t 60 stop >/dev/null
  fi
  log "stopped"
}

cmd_status() {
  if is_running; then
    echo "running on $host:$port"
    return 0
  fi
  echo "stopped"
  return 3
}

case ${1:-} in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  restart) cmd_stop; cmd_start ;;
  psql) shift; PGPASSWORD=$krow_password exec psql -X -h "$host" -p "$port" -U krow -d krow "$@" ;;
  admin) shift; admin_psql "$@" ;;
  env)
    printf 'KROW_PG_HOST=%s\nKROW_PG_PORT=%s\nKROW_PG_ADMIN_PASSWORD=%s\nKROW_PG_PASSWORD=%s\n' \
      "$host" "$port" "$admin_password" "$krow_password"
    ;;
  -h | --help | help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
