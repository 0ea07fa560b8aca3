# shellcheck shell=bash
# What the local service scripts (kafka.sh, registry.sh, postgres.sh, bigquery.sh) share:
# paths, logging, the start/stop lock, pid-file ownership, port checks, starting a daemon,
# waiting until it is ready, and stopping it. Sourced, never run:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/service.sh"
#   svc_init kafka    # sets root, services, svc_dir (<services>/kafka), host; log/die say [kafka]
#
# Conventions the scripts rely on:
# - A daemon runs in a session of its own (svc_spawn's setsid): it outlives the caller's
#   terminal and process group, and its pid is also its process group id, so svc_stop reaches
#   its helpers (nginx's workers, say) through the group.
# - fd 9 holds the start/stop lock. No daemon inherits it: the lock would otherwise stay held
#   for the daemon's whole life and every later start or stop would wait for it.
# - Messages go to stderr as "[name] ..."; stdout is left for what callers read (status, url,
#   env, query), and `status` exit codes stay each script's own.

svc_init() { # <name>: the log prefix and the folder under <services>
  svc_name=$1
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  services=${KROW_SERVICES_DIR:-$root/.services}
  mkdir -p "$services/$1"
  # Absolute: the path ends up in configs and in command lines that svc_pid matches later.
  services=$(cd "$services" && pwd)
  svc_dir="$services/$1"
  host=127.0.0.1
  svc_logs=()  # logs whose last lines explain a failed start (svc_tail); set by each script
  svc_locked=0
  svc_lock_wait=120  # seconds svc_lock waits for another start/stop
}

log() { printf '[%s] %s\n' "$svc_name" "$*" >&2; }
die() { log "$*"; exit 1; }

# Serialises start, stop (and bigquery's reset) between concurrent callers, such as parallel
# test runners that each find the service stopped. Held until the script exits; taking it
# twice (restart = stop + start) is a no-op. Without flock (not Linux) callers are not
# serialised, and after svc_lock_wait seconds we go on rather than hang a test run forever.
svc_lock() {
  ((svc_locked)) && return 0
  exec 9>"$svc_dir/.lock"
  svc_locked=1
  command -v flock >/dev/null || return 0
  flock -w "$svc_lock_wait" 9 || log "another start/stop still holds $svc_dir/.lock after ${svc_lock_wait}s; going on"
}

svc_cmdline() { # <pid> -> its arguments joined by spaces; nothing once it is gone (or a zombie)
  local args=()
  if [[ -d /proc/self ]]; then
    mapfile -d '' -t args 2>/dev/null <"/proc/$1/cmdline" || true
    printf '%s\n' "${args[*]}"
  else
    ps -o args= -p "$1" 2>/dev/null || true
  fi
}

# Prints the pid of our running daemon. A pid file alone proves nothing (the daemon may have
# died and its pid been reused by anything), so its pid counts only when <predicate pid>
# recognises the command line as the one we started; a stale file is removed. With "scan",
# a lost pid file is recovered from /proc, so a service is never started twice on one data
# folder.
# A daemon killed with -9 can leave helpers behind in its process group (nginx's workers,
# which keep serving its port). While they live the kernel cannot hand the group's id to
# anyone else, so a group led by nobody whose id is in our pid file is ours: under the
# start/stop lock they are stopped; until then the pid file that names them is kept.
svc_pid() { # <pidfile> <predicate> [scan]
  local pidf=$1 pred=$2 pid f
  pid=$(cat "$pidf" 2>/dev/null || true)
  if [[ $pid =~ ^[0-9]+$ ]]; then
    if "$pred" "$pid"; then echo "$pid"; return 0; fi
    svc_wait_reaped "$pid" # a zombie leader would pass for a leftover group
    if ! kill -0 "$pid" 2>/dev/null && kill -0 -- "-$pid" 2>/dev/null; then
      ((svc_locked)) || return 1
      svc_stop "processes a killed daemon left behind" "$pid" 10
    fi
  fi
  rm -f "$pidf"
  [[ ${3:-} == scan && -d /proc/self ]] || return 1
  for f in /proc/[0-9]*/cmdline; do
    pid=${f#/proc/}; pid=${pid%/cmdline}
    if "$pred" "$pid"; then echo "$pid" >"$pidf"; echo "$pid"; return 0; fi
  done 2>/dev/null
  return 1
}

# A process killed a moment ago stays a zombie until its parent (init, for our daemons) reaps
# it, which takes a few seconds here, and kill -0 still finds it. Tools that judge a pid by
# kill -0 (pg_ctl, the postmaster's lock file check) get svc_wait_reaped first.
svc_zombie() { [[ $(cat "/proc/$1/stat" 2>/dev/null) == *") Z "* ]]; } # <pid>
svc_running() { kill -0 "$1" 2>/dev/null && ! svc_zombie "$1"; }        # <pid>
svc_wait_reaped() { # <pid>; at most 10s
  local i
  for ((i = 0; i < 50; i++)); do svc_zombie "$1" || return 0; sleep 0.2; done
}

svc_port_open() { (exec 3<>"/dev/tcp/$host/$1") 2>/dev/null; } # <port>: something listens

# Checked before starting, so a port held by someone else fails at once with a clear message
# instead of as a bind error deep in the daemon's log after a long start-up.
svc_ports_free() { # <VARIABLE=port>...; the message names the variable that moves the port
  local a
  for a in "$@"; do
    svc_port_open "${a#*=}" && die "port ${a#*=} on $host is already in use by another process (set ${a%%=*})"
  done
  return 0
}

# Starts <command> as a daemon and returns at once; svc_wait then waits for it. The inner
# bash writes its own pid and then execs the command, so the pid file holds the daemon's pid
# exactly (no wrapper process in between). stdin is /dev/null and output is appended to <log>.
svc_spawn() { # <pidfile> <log> <working dir> <command...>
  local pidf=$1 out=$2 cwd=$3; shift 3
  rm -f "$pidf"  # a stale pid must not pass for the new daemon in svc_wait
  # shellcheck disable=SC2016 # expanded by the inner bash
  setsid nohup bash -c 'echo $$ >"$1" && cd "$2" && shift 2 && exec "$@"' "$svc_name-start" "$pidf" "$cwd" "$@" \
    </dev/null >>"$out" 2>&1 9>&- &
  disown 2>/dev/null || true
}

# Waits until <ready command> succeeds. When the daemon dies first, or the deadline passes,
# prints the last lines of its logs and leaves nothing behind (a daemon that is up but not
# ready is stopped, the pid file removed) before dying: a failed start must not look like a
# running service to the next status or start. <ready command> may set svc_not_ready to say
# what it last saw.
svc_wait() { # <what> <pidfile> <timeout seconds> <poll interval> <ready command...>
  local what=$1 pidf=$2 timeout=$3 interval=$4 pid; shift 4
  local deadline=$((SECONDS + timeout))
  svc_not_ready=
  while :; do
    pid=$(cat "$pidf" 2>/dev/null || true)
    if [[ -n $pid ]] && ! svc_running "$pid"; then
      svc_tail
      rm -f "$pidf"
      die "$what exited during start-up (see the log lines above)"
    fi
    if [[ -n $pid ]] && "$@"; then return 0; fi
    if ((SECONDS >= deadline)); then
      svc_tail
      [[ -n $pid ]] && svc_stop "$what" "$pid"
      rm -f "$pidf"
      die "$what not ready after ${timeout}s${svc_not_ready:+ ($svc_not_ready)}; stopped it"
    fi
    sleep "$interval"
  done
}

svc_tail() { # the last lines of each of svc_logs that has any
  local f
  for f in "${svc_logs[@]}"; do
    [[ -s $f ]] || continue
    log "---- last lines of $f ----"
    tail -n 40 "$f" >&2
  done
}

# To the process group the daemon leads (svc_spawn), so helpers it forked go too; a pid that
# leads no group (a daemon found by scanning /proc) gets the signal alone. The kernel keeps a
# pid from being reused while it names a live group, so the group is always the daemon's own.
svc_signal() { kill -"$1" -- "-$2" 2>/dev/null || kill -"$1" "$2" 2>/dev/null || true; }
svc_alive() { kill -0 -- "-$1" 2>/dev/null || kill -0 "$1" 2>/dev/null; } # <pid>: it or its group

# TERM, then KILL after <timeout> seconds; returns once the daemon and its group are gone. A
# KILLed process that stays visible (a zombie nobody reaps) is reported and left after 10s
# rather than hanging the caller.
svc_stop() { # <what> <pid> [timeout, default 30]
  local what=$1 pid=$2 timeout=${3:-30} killed=0
  log "stopping $what (pid $pid)"
  svc_signal TERM "$pid"
  local deadline=$((SECONDS + timeout))
  while svc_alive "$pid"; do
    if ((SECONDS >= deadline)); then
      if ((killed)); then log "$what (pid $pid) still visible 10s after KILL; going on"; return 0; fi
      log "$what still running after ${timeout}s, killing"
      svc_signal KILL "$pid"
      killed=1 deadline=$((SECONDS + 10))
    fi
    sleep 0.2
  done
}

# The whole of `stop` for scripts whose daemons all have pid files: stops each running one,
# in the order given, and says "stopped", or "not running" when none was.
svc_stop_each() { # (<what> <pid function> <pidfile>)...
  local any=0 pid
  svc_lock
  while (($# >= 3)); do
    if pid=$("$2"); then svc_stop "$1" "$pid"; any=1; fi
    rm -f "$3"
    shift 3
  done
  if ((any)); then log "stopped"; else log "not running"; fi
}
