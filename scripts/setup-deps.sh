#!/usr/bin/env bash
# Installs everything krow needs to build and test on a fresh Debian 12 machine.
# Idempotent: packages already present and fetched archives already verified are reused.
# Fetched third-party code lands in .deps/ (ignored by git), never in the tree.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
deps="$root/.deps"
mkdir -p "$deps"

log() { printf '[setup] %s\n' "$*" >&2; }

apt_packages=(
  build-essential cmake ninja-build ccache pkg-config git curl ca-certificates
  libssl-dev libsasl2-dev libsasl2-modules zlib1g-dev libzstd-dev liblz4-dev
  libsimdjson-dev libyaml-cpp-dev libcli11-dev libcurl4-openssl-dev libsodium-dev
  libgtest-dev libgmock-dev libbenchmark-dev clang-14 libclang-rt-14-dev
  libprotobuf-dev libprotoc-dev protobuf-compiler libpq-dev postgresql postgresql-client
  openjdk-17-jre-headless maven nodejs npm python3 python3-venv openssl
  libcpp-httplib-dev prometheus-cpp-dev prometheus libsqlite3-dev
  chromium chromium-driver python3-selenium
)

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Packages another install on the machine already provides are not asked of apt. Whole names
# only: a pattern substitution would also cut "python3" out of "python3-selenium".
provided=()
# Debian's nodejs/npm may be replaced by a newer install on the machine; accept any working npm.
if command -v npm >/dev/null && command -v node >/dev/null; then provided+=(nodejs npm); fi
if command -v java >/dev/null && java -version 2>&1 | grep -qE 'version "(1[7-9]|2[0-9])'; then
  provided+=(openjdk-17-jre-headless)
fi
if command -v mvn >/dev/null; then provided+=(maven); fi
if command -v python3 >/dev/null && python3 -c 'import venv' 2>/dev/null; then
  provided+=(python3 python3-venv)
fi
still=()
for p in "${missing[@]}"; do
  [[ " ${provided[*]} " == *" $p "* ]] || still+=("$p")
done
missing=("${still[@]}")
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  sudo=(); if ((EUID != 0)); then sudo=(sudo -E); fi
  # Debian's postgresql package would create and start a server of its own on port 5432;
  # krow runs a private one (scripts/postgres.sh), so the package is told not to.
  if [[ " ${missing[*]} " == *" postgresql "* && ! -e /etc/postgresql-common/createcluster.conf ]]; then
    "${sudo[@]}" mkdir -p /etc/postgresql-common
    echo "create_main_cluster = false" | "${sudo[@]}" tee /etc/postgresql-common/createcluster.conf >/dev/null
  fi
  # Debian's prometheus package would start a server of its own on port 9090; the tests run
  # theirs (tests/support/prometheus_child.py), so no service may start while packages install.
  no_starts=0
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee /usr/sbin/policy-rc.d >/dev/null
    "${sudo[@]}" chmod +x /usr/sbin/policy-rc.d
    no_starts=1
  fi
  rc=0
  { "${sudo[@]}" apt-get update -qq &&
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-confdef \
      -o Dpkg::Options::=--force-confold "${missing[@]}" >/dev/null; } || rc=$?
  if ((no_starts)); then "${sudo[@]}" rm -f /usr/sbin/policy-rc.d; fi
  ((rc == 0)) || { log "apt-get failed (exit $rc)"; exit "$rc"; }
fi

# npm verifies each tarball against the registry's integrity hash; we record and re-check it.
npm_fetch() { # <package@version> <dest dir>
  local spec=$1 dest=$2
  [[ -f $dest/.fetched ]] && return 0
  log "fetching $spec from npm"
  local tmp; tmp=$(mktemp -d)
  local integrity; integrity=$(cd "$tmp" && npm view "$spec" dist.integrity)
  (cd "$tmp" && npm pack --silent "$spec" >/dev/null)
  local tgz; tgz=$(ls "$tmp"/*.tgz)
  local algo=${integrity%%-*} want=${integrity#*-}
  local got; got=$(openssl dgst "-$algo" -binary "$tgz" | base64 -w0)
  if [[ $got != "$want" ]]; then
    log "integrity mismatch for $spec"; rm -rf "$tmp"; exit 1
  fi
  rm -rf "$dest"; mkdir -p "$dest"
  tar -xzf "$tgz" -C "$dest" --strip-components=1
  echo "$spec $integrity" >"$dest/.fetched"
  rm -rf "$tmp"
}

# librdkafka >= 2.4 is needed (topic IDs, ListOffsets with isolation level); Debian 12 has 2.0.2.
rdkafka_ok=0
if pkg-config --exists 'rdkafka >= 2.4' 2>/dev/null; then rdkafka_ok=1; fi
if [[ -f $deps/librdkafka/lib/pkgconfig/rdkafka.pc ]]; then rdkafka_ok=1; fi
if ((!rdkafka_ok)); then
  npm_fetch node-rdkafka@3.6.1 "$deps/src/node-rdkafka"
  src="$deps/src/node-rdkafka/deps/librdkafka"
  log "building librdkafka from $src"
  build="$deps/build/librdkafka"
  rm -rf "$build"; mkdir -p "$build"; cp -a "$src/." "$build/"
  (cd "$build" && ./configure --prefix="$deps/librdkafka" --no-download \
      --disable-lz4-ext --enable-ssl --enable-sasl --enable-zstd \
      --disable-curl --disable-gssapi >/dev/null && make -j"$(nproc)" libs >/dev/null && make install-subdirs >/dev/null) \
    || { log "librdkafka build failed"; exit 1; }
fi

# DuckDB 1.4.4: shared library from the Node bindings package, header from the duckdb package.
if [[ ! -f $deps/duckdb/lib/libduckdb.so || ! -f $deps/duckdb/include/duckdb.h ]]; then
  npm_fetch @duckdb/node-bindings-linux-x64@1.4.4-r.4 "$deps/src/duckdb-bindings"
  npm_fetch duckdb@1.4.4 "$deps/src/duckdb-node"
  mkdir -p "$deps/duckdb/lib" "$deps/duckdb/include"
  cp "$deps/src/duckdb-bindings/libduckdb.so" "$deps/duckdb/lib/"
  cp "$deps/src/duckdb-node/src/duckdb/src/include/duckdb.h" "$deps/duckdb/include/"
fi
log "dependencies ready in $deps"
