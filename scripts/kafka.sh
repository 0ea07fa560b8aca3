#!/usr/bin/env bash
# Local single-node Kafka (KRaft, Apache Kafka 4.1.1, no Docker) for krow's tests.
#
#   scripts/kafka.sh start|stop|status
#   scripts/kafka.sh topics <TopicCommand args>   # --bootstrap-server is added
#   scripts/kafka.sh acl <AclCommand args>        # --bootstrap-server is added
#
# Listeners, all on 127.0.0.1:
#   PLAINTEXT  $KROW_KAFKA_PORT            (9092) no auth, User:ANONYMOUS is a super user
#   SASL_SSL   $KROW_KAFKA_SASL_PORT       (9093) SASL/PLAIN: admin/admin-secret (super user),
#                                                 krow/krow-secret (no ACLs at all)
#   CONTROLLER $KROW_KAFKA_CONTROLLER_PORT (9094) KRaft quorum
# TLS CA for SASL_SSL: <services>/kafka/tls/ca.pem. Ready-made client configs:
# <services>/kafka/client-admin.properties and client-krow.properties.
#
# Everything (jars, config, data, logs) lives in <services>/kafka, where <services> is
# $KROW_SERVICES_DIR or <repo>/.services. Jars come from Maven Central via scripts/kafka/pom.xml.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmpl="$root/scripts/kafka"
services=${KROW_SERVICES_DIR:-$root/.services}
mkdir -p "$services"
services=$(cd "$services" && pwd)
kdir="$services/kafka"
lib="$kdir/lib"
conf_dir="$kdir/config"
conf="$conf_dir/server.properties"
data="$kdir/data"
logs="$kdir/logs"
tls="$kdir/tls"
pidfile="$kdir/kafka.pid"

host=127.0.0.1
port=${KROW_KAFKA_PORT:-9092}
sasl_port=${KROW_KAFKA_SASL_PORT:-9093}
controller_port=${KROW_KAFKA_CONTROLLER_PORT:-9094}
start_timeout=${KROW_KAFKA_START_TIMEOUT:-90}
stop_timeout=30

log() { printf '[kafka] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# Short-lived tool JVMs: optimise for start-up time, not throughput.
tool_java_opts=(-Xmx256m -Xss1m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto
  -Djava.awt.headless=true "-Dlog4j2.configurationFile=$tmpl/tools-log4j2.xml")
broker_java_opts=(-Xmx512m -Xms256m -XX:+UseG1GC -XX:MaxGCPauseMillis=20
  -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:+ExitOnOutOfMemoryError
  -Djava.awt.headless=true "-Dkafka.logs.dir=$logs" "-Dlog4j2.configurationFile=$tmpl/log4j2.xml")

# --- jars -------------------------------------------------------------------------------

ensure_lib() {
  local want; want=$(sha256sum "$tmpl/pom.xml" | cut -d' ' -f1)
  if [[ -f $lib/.resolved && $(<"$lib/.resolved") == "$want" ]]; then return 0; fi
  command -v mvn >/dev/null || die "mvn not found (run scripts/setup-deps.sh)"
  log "resolving Kafka jars from Maven Central into $lib"
  mkdir -p "$kdir"
  local tmp="$kdir/lib.tmp.$$"
  rm -rf "$tmp"
  # Output goes to a file: Debian's Maven 3.8 emits stray ANSI resets even with -q -B.
  if ! mvn -q -B -Dstyle.color=never -f "$tmpl/pom.xml" dependency:copy-dependencies \
    "-DoutputDirectory=$tmp" >"$kdir/maven.log" 2>&1; then
    sed 's/\x1b\[[0-9;]*m//g' "$kdir/maven.log" >&2
    rm -rf "$tmp"
    die "maven failed to resolve $tmpl/pom.xml (output above, also in $kdir/maven.log)"
  fi
  echo "$want" >"$tmp/.resolved"
  rm -rf "$lib"
  mv "$tmp" "$lib"
}

tool() { # <main class> <args...>; runs a Kafka command-line tool in the foreground
  # (start re-resolves when pom.xml changed; never swap jars under a running broker here)
  [[ -f $lib/.resolved ]] || ensure_lib
  java "${tool_java_opts[@]}" -cp "$lib/*" "$@"
}

# --- process bookkeeping ----------------------------------------------------------------

cmdline_of() { # <pid> -> command line joined with spaces, or nothing
  if [[ -d /proc/$1 ]]; then
    local args=()
    mapfile -d '' -t args <"/proc/$1/cmdline" 2>/dev/null || true
    printf '%s\n' "${args[*]}"
  else
    ps -o args= -p "$1" 2>/dev/null || true
  fi
}

is_our_broker() { # <pid>
  local cl; cl=$(cmdline_of "$1")
  [[ $cl == *kafka.Kafka\ "$conf"* ]]
}

# Prints the broker's pid if it is running. Falls back to scanning /proc for a broker using
# our config file, so a lost pid file does not lead to a second broker on the same data.
broker_pid() {
  local pid
  if [[ -f $pidfile ]]; then
    pid=$(<"$pidfile")
    if [[ $pid =~ ^[0-9]+$ ]] && is_our_broker "$pid"; then echo "$pid"; return 0; fi
    rm -f "$pidfile"
  fi
  [[ -d /proc ]] || return 1
  local f
  for f in /proc/[0-9]*/cmdline; do
    pid=${f#/proc/}; pid=${pid%/cmdline}
    if is_our_broker "$pid"; then echo "$pid" >"$pidfile"; echo "$pid"; return 0; fi
  done 2>/dev/null
  return 1
}

port_open() { # <port>
  (exec 3<>"/dev/tcp/$host/$1") 2>/dev/null
}

lock() { # serialise start/stop between concurrent callers
  mkdir -p "$kdir"
  exec 9>"$kdir/.lock"
  command -v flock >/dev/null && flock -w 120 9 || true
}

# --- configuration ----------------------------------------------------------------------

render() { # <template> <output>; replaces @NAME@ placeholders
  local text; text=$(<"$1")
  text=${text//@PORT@/"$port"}
  text=${text//@SASL_PORT@/"$sasl_port"}
  text=${text//@CONTROLLER_PORT@/"$controller_port"}
  text=${text//@DATA_DIR@/"$data"}
  text=${text//@TLS_DIR@/"$tls"}
  printf '%s\n' "$text" >"$2.tmp"
  mv "$2.tmp" "$2"
}

ensure_tls() {
  [[ -s $tls/ca.pem && -s $tls/broker-keystore.pem ]] && return 0
  command -v openssl >/dev/null || die "openssl not found"
  log "creating throw-away CA and broker certificate in $tls"
  rm -rf "$tls.tmp"; mkdir -p "$tls.tmp"
  (
    cd "$tls.tmp"
    umask 077
    openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out ca.key
    openssl req -x509 -new -key ca.key -sha256 -days 3650 -subj "/CN=krow test CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
      -out ca.pem
    # PKCS#8, unencrypted: what Kafka's PEM key store expects when ssl.key.password is unset.
    openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out broker.key
    openssl req -new -key broker.key -subj "/CN=localhost" -out broker.csr
    printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
      "extendedKeyUsage=serverAuth" "subjectAltName=DNS:localhost,IP:127.0.0.1" \
      "subjectKeyIdentifier=hash" "authorityKeyIdentifier=keyid" >broker.ext
    openssl x509 -req -in broker.csr -CA ca.pem -CAkey ca.key -CAcreateserial -sha256 -days 3650 \
      -extfile broker.ext -out broker.pem 2>/dev/null
    cat broker.key broker.pem ca.pem >broker-keystore.pem
    rm -f broker.csr broker.ext ca.srl
    chmod 644 ca.pem broker.pem
  ) || die "openssl failed"
  rm -rf "$tls"
  mv "$tls.tmp" "$tls"
}

write_client_configs() {
  local user secret
  for user in admin krow; do
    secret="$user-secret"
    cat >"$kdir/client-$user.properties.tmp" <<EOF
# Client settings for the SASL_SSL listener $host:$sasl_port as $user (written by scripts/kafka.sh).
bootstrap.servers=$host:$sasl_port
security.protocol=SASL_SSL
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="$user" password="$secret";
ssl.truststore.type=PEM
ssl.truststore.location=$tls/ca.pem
EOF
    mv "$kdir/client-$user.properties.tmp" "$kdir/client-$user.properties"
  done
}

ensure_formatted() {
  [[ -f $data/meta.properties ]] && return 0
  local id
  # A Kafka cluster id is 16 random bytes in URL-safe base64 without padding. One in 64
  # starts with '-', which kafka-storage's argument parser takes for an option: draw again.
  id=-
  while [[ $id == -* ]]; do id=$(openssl rand 16 | base64 | tr '+/' '-_' | tr -d '=\n'); done
  log "formatting storage in $data (cluster id $id)"
  mkdir -p "$data"
  tool kafka.tools.StorageTool format --config "$conf" --cluster-id "$id" >"$logs/format.log" 2>&1 || {
    cat "$logs/format.log" >&2
    die "storage format failed"
  }
}

# --- subcommands ------------------------------------------------------------------------

print_tail() {
  local f
  for f in "$logs/stdout.log" "$logs/server.log"; do
    [[ -s $f ]] || continue
    log "---- last lines of $f ----"
    tail -n 40 "$f" >&2
  done
}

cmd_start() {
  lock
  local pid
  if pid=$(broker_pid); then
    log "already running (pid $pid) on $host:$port (PLAINTEXT) and $host:$sasl_port (SASL_SSL)"
    return 0
  fi
  local p
  for p in "$port" "$sasl_port" "$controller_port"; do
    port_open "$p" && die "port $p on $host is already in use by another process"
  done
  command -v java >/dev/null || die "java not found (run scripts/setup-deps.sh)"
  local t0=$SECONDS
  ensure_lib
  mkdir -p "$conf_dir" "$data" "$logs"
  ensure_tls
  render "$tmpl/server.properties.in" "$conf"
  write_client_configs
  ensure_formatted

  # Only look at log output written by this start.
  local log_offset=0
  [[ -f $logs/server.log ]] && log_offset=$(stat -c %s "$logs/server.log")

  log "starting broker (logs in $logs)"
  # setsid: own session, so the broker survives the caller's terminal/process group;
  # the inner bash records its own pid and then execs java, so the pid file is exact.
  # fd 9 (the start/stop lock) must not be inherited by the broker.
  setsid nohup bash -c 'echo $$ >"$1"; shift; exec "$@"' kafka-start "$pidfile" \
    java "${broker_java_opts[@]}" -cp "$lib/*" kafka.Kafka "$conf" \
    </dev/null >>"$logs/stdout.log" 2>&1 9>&- &
  disown 2>/dev/null || true

  local deadline=$((SECONDS + start_timeout)) started=0
  while :; do
    pid=$(cat "$pidfile" 2>/dev/null || true)
    if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then
      print_tail
      rm -f "$pidfile"
      die "broker exited during start-up"
    fi
    if ((!started)) && [[ -f $logs/server.log ]]; then
      local size; size=$(stat -c %s "$logs/server.log")
      ((size < log_offset)) && log_offset=0 # rotated
      tail -c "+$((log_offset + 1))" "$logs/server.log" | grep -q 'Kafka Server started' && started=1
    fi
    if ((started)) && port_open "$port" && port_open "$sasl_port"; then break; fi
    if ((SECONDS >= deadline)); then
      print_tail
      die "broker not ready after ${start_timeout}s (pid ${pid:-?} left running; use '$0 stop')"
    fi
    sleep 0.2
  done
  log "running (pid $pid) after $((SECONDS - t0))s: PLAINTEXT $host:$port, SASL_SSL $host:$sasl_port (CA $tls/ca.pem)"
}

cmd_stop() {
  lock
  local pid
  if ! pid=$(broker_pid); then
    log "not running"
    rm -f "$pidfile"
    return 0
  fi
  log "stopping broker (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + stop_timeout))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      log "still running after ${stop_timeout}s, killing"
      kill -KILL "$pid" 2>/dev/null || true
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
      break
    fi
    sleep 0.2
  done
  rm -f "$pidfile"
  log "stopped"
}

cmd_status() {
  local pid
  if pid=$(broker_pid); then
    echo "running (pid $pid)"
    return 0
  fi
  echo "stopped"
  return 3
}

require_broker() {
  port_open "$port" || die "no broker on $host:$port (run: $0 start)"
}

usage() {
  cat >&2 <<EOF
usage: $0 start|stop|status
       $0 topics <kafka-topics arguments>   (--bootstrap-server $host:$port is added)
       $0 acl <kafka-acls arguments>        (--bootstrap-server $host:$port is added)
EOF
}

case ${1:-} in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  topics) shift; require_broker; tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$host:$port" "$@" ;;
  acl | acls) shift; require_broker; tool org.apache.kafka.tools.AclCommand --bootstrap-server "$host:$port" "$@" ;;
  -h | --help | help) usage ;;
  *) usage; exit 2 ;;
esac
