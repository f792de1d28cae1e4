#!/bin/sh
# make fuzz, make fuzz-short: fuzz.sh SECONDS BUILD FUZZER [TARGET...]
# Runs the libFuzzer build of localauth-fuzz (FUZZER, make fuzz-build) on each TARGET (default: options state helper
# app) for SECONDS seconds, on a corpus kept in fuzz-corpus/TARGET seeded from
# Tests/ReliabilityTests/Fixtures/fuzz-seeds/TARGET. A crash, leak or timeout fails, and the crashing input is left in
# BUILD/fuzz-TARGET-crash-*. Prints one "RELIABILITY: libFuzzer TARGET: ..." line per target.
set -u
seconds=$1 build=$2 fuzzer=$3
shift 3
[ $# -gt 0 ] || set -- options state helper app
seeds=$(dirname "$0")/../ReliabilityTests/Fixtures/fuzz-seeds
for target in "$@"; do mkdir -p "fuzz-corpus/$target"; done
mkdir -p "$build"
for target in "$@"; do
  log=$build/fuzz-$target.log
  if ! LOCALAUTH_FUZZ_TARGET=$target "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$build/fuzz-$target-" "fuzz-corpus/$target" "$seeds/$target" \
      > "$log" 2>&1; then
    tail -40 "$log"; echo "fuzz: target $target FAILED (log: $log)"; exit 1
  fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "RELIABILITY: libFuzzer $target: $runs inputs in $seconds s, 0 crashes, corpus of $(ls "fuzz-corpus/$target" | wc -l) inputs"
done
