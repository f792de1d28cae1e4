#!/bin/sh
# make check-cycles: check-cycles.sh HARNESS MODULE CYCLES — CYCLES pam_start/pam_authenticate/pam_end cycles in one
# PAMHarness process (feature= mode, user root, a private state folder and an empty configuration): prints resident
# memory after warm-up, midway and at the end, and the time per cycle.
set -eu
harness=$1 module=$(readlink -f "$2") cycles=$3
dir=$(mktemp -d /tmp/localauth-cycles.XXXXXX)
trap 'rm -rf "$dir"' EXIT
mkdir -m 0700 "$dir/state"; : > "$dir/empty.conf"
printf 'auth [success=done ignore=ignore default=die] %s state_dir=%s conf=%s feature=cycles\nauth required pam_permit.so\n' \
  "$module" "$dir/state" "$dir/empty.conf" > "$dir/localauth-cycles"
"$harness" --confdir "$dir" --service localauth-cycles --user root --cycles "$cycles"
