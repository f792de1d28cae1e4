#!/bin/sh
# make pam-cycles-run (make valgrind, make asan): pam-cycles.sh BUILD CTL MODULE LABEL CYCLES [WRAPPER...]
# Builds BUILD/pam-cycles (Tests/ReliabilityTests/Fixtures/pam-cycles.c) and runs it under WRAPPER (valgrind, or env
# with the ASan runtime preloaded) over MODULE in three scenarios: feature mode (options, state, decision), an
# unknown user (conversation and yescrypt), a wrong passcode for a user who has one (conversation, lock, state,
# yescrypt); each for 10 and then CYCLES cycles, so that what remains is shown not to grow. Prints one
# "RELIABILITY: LABEL: ..." line per run; a failed run, or "possibly lost" growing with the cycles, fails.
# Logs: BUILD/LABEL-SCENARIO-CYCLES.log.
set -u
build=$1 ctl=$2 module=$3 label=$4 cycles_max=$5
shift 5
here=$(dirname "$0")
case $here in */*) tests=$(dirname "$here") ;; *) tests=$here/.. ;; esac
fixtures=$tests/ReliabilityTests/Fixtures

mkdir -p "$build"
echo "cc -O1 -Wall -o $build/pam-cycles $fixtures/pam-cycles.c -lpam"
cc -O1 -Wall -o "$build/pam-cycles" "$fixtures/pam-cycles.c" -lpam || exit 1
dir=$(mktemp -d /tmp/localauth-cycles-XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
mkdir -m 700 "$dir/state" "$dir/pam"
printf 'auth [success=done ignore=ignore default=die] %s state_dir=%s feature=vpn sensor=none\nauth required pam_permit.so\n' \
  "$module" "$dir/state" > "$dir/pam/feature"
printf 'auth required %s state_dir=%s hash_cost=1 sensor=none nodelay\n' "$module" "$dir/state" > "$dir/pam/unknown"
cp "$dir/pam/unknown" "$dir/pam/passcode"; printf 'hash_cost=1\n' > "$dir/cost.conf"
echo 123456 | "$ctl" passcode set root --conf "$dir/cost.conf" --state-dir "$dir/state" >/dev/null || exit 1

for run in "feature root" "unknown localauth-no-such-user" "passcode root"; do
  scenario=${run% *} user=${run#* } previous=""
  for cycles in 10 "$cycles_max"; do
    log=$build/$label-$scenario-$cycles.log
    if ! "$@" "$build/pam-cycles" "$dir/pam" "$scenario" "$user" "$cycles" wrong-passcode > "$log" 2>&1; then
      tail -60 "$log"; echo "$label: $scenario scenario, $cycles cycles FAILED (log: $log)"; exit 1
    fi
    result=$(sed -n 's/^cycles: //p' "$log" | tr '\n' ' ')
    leaks=$(grep -E '^==[0-9]+== +(definitely|indirectly|possibly) lost:' "$log" | sed 's/^==[0-9]*== *//' | tr -s ' ' | paste -sd ',' -)
    possibly=$(sed -n 's/^==[0-9]*== *possibly lost: \([0-9,]*\) bytes.*/\1/p' "$log")
    if [ -n "$previous" ] && [ "$possibly" != "$previous" ]; then
      echo "$label: $scenario scenario: possibly lost grew from $previous to $possibly bytes (log: $log)"; exit 1
    fi
    previous=$possibly
    echo "RELIABILITY: $label: $scenario scenario, $cycles pam_start/pam_authenticate/pam_end cycles ($result): ${leaks:-no leak report}, 0 errors"
  done
done
