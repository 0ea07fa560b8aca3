# shellcheck shell=bash
# Sourced by scripts that need the local services: `start_services kafka registry postgres`
# starts those that are not running, and stops exactly those on exit.
started_services=()
stop_started_services() {
  local i
  for ((i = ${#started_services[@]} - 1; i >= 0; i--)); do
    bash "scripts/${started_services[i]}.sh" stop || true
  done
}
trap stop_started_services EXIT
start_services() {
  local s
  for s in "$@"; do
    if ! bash "scripts/$s.sh" status >/dev/null 2>&1; then
      started_services+=("$s")
      bash "scripts/$s.sh" start
    fi
  done
}
