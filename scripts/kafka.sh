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
# shellcheck source-path=SCRIPTDIR source=lib/service.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/service.sh"
svc_init kafka

tmpl="$root/scripts/kafka"
kdir=$svc_dir
lib="$kdir/lib"
conf_dir="$kdir/config"
conf="$conf_dir/server.properties"
data="$kdir/data"
logs="$kdir/logs"
tls="$kdir/tls"
pidfile="$kdir/kafka.pid"
svc_logs=("$logs/stdout.log" "$logs/server.log")

port=${KROW_KAFKA_PORT:-9092}
sasl_port=${KROW_KAFKA_SASL_PORT:-9093}
controller_port=${KROW_KAFKA_CONTROLLER_PORT:-9094}
start_timeout=${KROW_KAFKA_START_TIMEOUT:-90}

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

is_our_broker() { [[ $(svc_cmdline "$1") == *kafka.Kafka\ "$conf"* ]]; } # <pid>
broker_pid() { svc_pid "$pidfile" is_our_broker scan; }

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

broker_ready() { # "Kafka Server started" written by this start, and both client listeners open
  if ((!started)) && [[ -f $logs/server.log ]]; then
    local size; size=$(stat -c %s "$logs/server.log")
    ((size < log_offset)) && log_offset=0 # rotated
    tail -c "+$((log_offset + 1))" "$logs/server.log" | grep -q 'Kafka Server started' && started=1
  fi
  ((started)) && svc_port_open "$port" && svc_port_open "$sasl_port"
}

cmd_start() {
  svc_lock
  local pid
  if pid=$(broker_pid); then
    log "already running (pid $pid) on $host:$port (PLAINTEXT) and $host:$sasl_port (SASL_SSL)"
    return 0
  fi
  svc_ports_free "KROW_KAFKA_PORT=$port" "KROW_KAFKA_SASL_PORT=$sasl_port" \
    "KROW_KAFKA_CONTROLLER_PORT=$controller_port"
  command -v java >/dev/null || die "java not found (run scripts/setup-deps.sh)"
  local t0=$SECONDS
  ensure_lib
  mkdir -p "$conf_dir" "$data" "$logs"
  ensure_tls
  render "$tmpl/server.properties.in" "$conf"
  write_client_configs
  ensure_formatted

  # Only look at log output written by this start.
  log_offset=0 started=0
  [[ -f $logs/server.log ]] && log_offset=$(stat -c %s "$logs/server.log")
  log "starting broker (logs in $logs)"
  svc_spawn "$pidfile" "$logs/stdout.log" "$kdir" java "${broker_java_opts[@]}" -cp "$lib/*" kafka.Kafka "$conf"
  svc_wait broker "$pidfile" "$start_timeout" 0.2 broker_ready
  log "running (pid $(<"$pidfile")) after $((SECONDS - t0))s: PLAINTEXT $host:$port, SASL_SSL $host:$sasl_port (CA $tls/ca.pem)"
}

require_broker() {
  svc_port_open "$port" || die "no broker on $host:$port (run: $0 start)"
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
  stop) svc_stop_each broker broker_pid "$pidfile" ;;
  status) if pid=$(broker_pid); then echo "running (pid $pid)"; else echo "stopped"; exit 3; fi ;;
  topics) shift; require_broker; tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$host:$port" "$@" ;;
  acl | acls) shift; require_broker; tool org.apache.kafka.tools.AclCommand --bootstrap-server "$host:$port" "$@" ;;
  -h | --help | help) usage ;;
  *) usage; exit 2 ;;
esac
