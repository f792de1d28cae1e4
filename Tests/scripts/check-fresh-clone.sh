#!/usr/bin/env bash
# check-fresh-clone.sh [COMMIT]: the README's commands as a new user runs them, each alone, from nothing built.
# Clones COMMIT (default HEAD) with `git clone --no-local` into root's home folder (0700, as on a fresh machine),
# under a path with a space, then:
#   1. `make deb` builds the package, and leaves no helper in build/ (so that the demo below starts from nothing);
#   2. `make demo` passes (it must build everything it stages itself: issue 26, "install: cannot stat
#      'build/localauth-helper'");
# and the clone is left as git made it (no file changed or added that git does not ignore). Prints "N passed,
# M failed" and, for a failure, the command's last lines. The clone is removed on exit. Run by .ci/run.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
commit=${1:-HEAD}
home=$(getent passwd "$(id -un)" | cut -d: -f6)
[ -d "$home" ] || { echo "check-fresh-clone: no home folder for $(id -un)" >&2; exit 1; }
base=$(mktemp -d "$home/localauth-fresh.XXXXXX") || exit 1
clone="$base/pam localauth"
cleanup() {
  rm -rf "$base"
  # SwiftPM leaves its lock files in /tmp, named after the build folder's path.
  rm -rf /tmp/"${clone//\//_}"_* 2>/dev/null || true
}
trap cleanup EXIT

passed=0 failed=0
pass() { echo "ok: $1"; passed=$((passed + 1)); }
fail() {
  echo "FAILED: $1"
  [ -f "$2" ] && tail -25 "$2" | sed 's/^/  | /'
  failed=$((failed + 1))
}

# Run a command in the clone, logging outside it; returns its status.
run() {
  local log=$1
  shift
  local start=$SECONDS
  (cd "$clone" && "$@") >"$log" 2>&1
  local status=$?
  echo "  ($* took $((SECONDS - start)) s, exit $status)"
  return $status
}

git clone -q --no-local "$root" "$clone" || { echo "check-fresh-clone: git clone failed" >&2; exit 1; }
git -C "$clone" checkout -q --detach "$commit" || { echo "check-fresh-clone: no commit $commit" >&2; exit 1; }
echo "check-fresh-clone: $(git -C "$clone" log -1 --format='%h %s' | cut -c1-80) in \"$clone\""

if run "$base/deb.log" make deb && ls "$clone"/libpam-localauth_*_amd64.deb >/dev/null 2>&1; then
  if [ -e "$clone/build/localauth-helper" ]; then
    fail "make deb left build/localauth-helper behind, so make demo would not start from nothing" "$base/deb.log"
  else
    pass "make deb alone built $(basename "$clone"/libpam-localauth_*_amd64.deb) in a fresh clone"
  fi
else
  fail "make deb alone in a fresh clone" "$base/deb.log"
fi

if run "$base/demo.log" make demo; then
  pass "make demo alone in a fresh clone ($(grep -c "as expected" "$base/demo.log" || true) steps as expected)"
else
  fail "make demo alone in a fresh clone" "$base/demo.log"
fi

changed=$(git -C "$clone" status --porcelain)
if [ -n "$changed" ]; then
  echo "FAILED: the clone is not left as git made it:"
  echo "$changed" | sed 's/^/  | /'
  failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
