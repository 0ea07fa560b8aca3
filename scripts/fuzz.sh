#!/usr/bin/env bash
# Runs every libFuzzer target (tests/fuzz: the Avro and Protobuf decoders, the framing,
# krow's JSON validator against simdjson, the manifest loader) one after the other and
# prints, per target, how long it ran, how many inputs it executed and what it found.
#   scripts/fuzz.sh HOURS              # a long session: HOURS in all, shared by the targets
#   scripts/fuzz.sh --seconds-each N   # N seconds per target (scripts/test.sh: 20)
# Corpora grow in build/fuzz/corpus/<target> and are reused by the next run; findings
# (crash-*, leak-*, timeout-* inputs) go to build/fuzz/findings/<target>/. Exit code 0 only
# when no target found anything.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if [[ ${1:-} == --seconds-each ]]; then
  each=${2:?--seconds-each needs a number of seconds}
elif [[ ${1:-} =~ ^[0-9]+([.][0-9]+)?$ ]]; then
  hours=$1
else
  echo "usage: scripts/fuzz.sh HOURS | --seconds-each SECONDS" >&2
  exit 3
fi

bash scripts/setup-deps.sh >/dev/null
bash scripts/build.sh fuzz >/dev/null
targets=(build/fuzz/tests/fuzz/fuzz-*)
if [[ -z ${each:-} ]]; then
  each=$(awk -v h="$hours" -v n="${#targets[@]}" 'BEGIN { s = int(h * 3600 / n); print (s < 1 ? 1 : s) }')
fi

found_any=0
printf '%-22s %10s %14s %9s\n' target seconds executions findings
for f in "${targets[@]}"; do
  name=$(basename "$f")
  corpus=build/fuzz/corpus/$name findings=build/fuzz/findings/$name
  mkdir -p "$corpus" "$findings"
  seeds=()
  [[ $name == fuzz-manifest ]] && seeds=(examples)  # real manifests to mutate from
  before=$(find "$findings" -type f | wc -l)
  rc=0
  "$f" -max_total_time="$each" -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "${seeds[@]}" \
    >"$corpus.log" 2>&1 || rc=$?
  runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$corpus.log" | grep -o '[0-9]*$' || echo 0)
  new=$(($(find "$findings" -type f | wc -l) - before))
  printf '%-22s %10s %14s %9s\n' "$name" "$each" "$runs" "$new"
  if ((rc != 0 || new > 0)); then
    found_any=1
    tail -40 "$corpus.log"
    echo "$name found a failure: input in $findings, log in $corpus.log"
  fi
done
exit "$found_any"
