#!/bin/sh
# make bench: bench.sh BUILD — pam_localauth (release, as installed) against pam_permit.so and pam_unix.so, the
# matcher's error rates, and how cost grows. Builds localauth-bench into BUILD, prints a table, writes BUILD/bench.json
# and, on a full run, docs/PERFORMANCE.md. A figure that misses its target is reported, never a failed build.
# BENCH_QUICK=1: a smoke run of about a minute; the documents are left alone. Installs time(1) if missing (as root).
set -eu
build=$1
swift=${SWIFT:-swift}
[ -x /usr/bin/time ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; } || true
echo "$swift build -c release --product localauth-bench"
"$swift" build -c release --product localauth-bench
mkdir -p "$build" && cp .build/release/localauth-bench "$build/localauth-bench"
source=$(git log -1 --format='commit %h (%cs)' 2>/dev/null || true)
if git status --porcelain -- Sources Package.swift 2>/dev/null | grep -q .; then source="$source with uncommitted changes"; fi
if [ -n "${BENCH_QUICK:-}" ]; then set --; else set -- --doc docs/PERFORMANCE.md; fi
BENCH_QUICK=${BENCH_QUICK:-} setsid --wait "$build/localauth-bench" --build "$build" --json "$build/bench.json" "$@" --source "$source"
