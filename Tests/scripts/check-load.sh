#!/bin/sh
# make check-load: check-load.sh MODULE HELPER BUILD EXTRA — the installed-shape module, its library of rarely used
# parts (pam_localauth/extra.so: only pam_localauth_extra_v1 exported, otherwise checked as the module) and the
# setuid helper as built.
#
# The module: only pam_sm_* exported, -z nodelete, no run path, no C++ or Swift runtime library, no libm (its own
# ceil, floor and sqrt: Sources/PAMLocalAuth/link/rounding.c), libcrypt, libcrypto,
# tpm2-tss and libsystemd opened on first use rather than linked, nothing from the Swift runtime in its symbols and
# no signal handler; then dlopen(RTLD_NOW) with SWIFT_* variables set prints nothing and changes no signal
# disposition (check-load.c, built into BUILD/check-load with $CLANG). The helper: libc only, no Swift
# runtime (it would read SWIFT_* variables), bound at start (-z now), no run path.
# Both against the size budget in Tests/budget/sizes: "NAME: N bytes (budget M)", and over budget fails.
set -eu

module=${1:?usage: check-load.sh MODULE HELPER BUILD EXTRA}
helper=${2:?usage: check-load.sh MODULE HELPER BUILD EXTRA}
build=${3:?usage: check-load.sh MODULE HELPER BUILD EXTRA}
extra=${4:?usage: check-load.sh MODULE HELPER BUILD EXTRA}
here=$(cd "$(dirname "$0")" && pwd)
budgets=$here/../budget/sizes
fail() { echo "$*"; exit 1; }

# budget FILE: prints "NAME: N bytes (budget M)", and fails above M (the line of Tests/budget/sizes named NAME).
budget() {
  name=$(basename "$1")
  size=$(stat -c %s "$1")
  limit=$(awk -v name="$name" '$1 == name { print $2 }' "$budgets")
  [ -n "$limit" ] || fail "$name has no size budget in Tests/budget/sizes"
  echo "$name: $size bytes (budget $limit)"
  [ "$size" -le "$limit" ] || fail "$name is $((size - limit)) bytes over its budget of $limit bytes (Tests/budget/sizes): make it smaller, or raise the budget with a reason in the commit"
}

# shape FILE EXPORTS: FILE exports only symbols matching EXPORTS, is NODELETE, has no run path, needs no C++ or Swift
# runtime, opens libcrypt, libcrypto, tpm2-tss and libsystemd on first use, and installs no signal handler.
shape() {
  file=$1
  bad=$(nm -D --defined-only "$file" | awk -v pattern="$2" '$2 ~ /^[A-Z]$/ && $3 !~ pattern')
  [ -z "$bad" ] || fail "Unexpected exported symbols:
  $bad"
  dynamic=$(readelf -d "$file")
  echo "$dynamic" | grep -q 'Flags:.*NODELETE' || fail "$file lacks the NODELETE flag"
  ! echo "$dynamic" | grep -Eq 'NEEDED.*(libstdc\+\+|libgcc_s|libswift|libdispatch|libFoundation)' || fail "$file needs a C++ or Swift runtime library"
  ! echo "$dynamic" | grep -Eq 'RUNPATH|RPATH' || fail "$file has a run path; libraries (and libcrypt's dlopen) must come from the system's"
  ! echo "$dynamic" | grep -q 'NEEDED.*libcrypt' || fail "$file links libcrypt or libcrypto; it should open them on first use (Sources/CCrypt, Sources/CLibCrypto)"
  ! echo "$dynamic" | grep -q 'NEEDED.*libm\.so' || fail "$file needs libm, which maps 384 KiB more into every process that authenticates: give it its own copy of the function it calls (nm -D --undefined-only) in Sources/PAMLocalAuth/link/rounding.c"
  ! echo "$dynamic" | grep -Eq 'NEEDED.*(libtss2|libsystemd)' || fail "$file links tpm2-tss or libsystemd; it should open them on first use (Sources/CTPM, Sources/CDBus)"
  if nm -D --undefined-only "$file" | grep -Eq 'swift_|_swift|sigaction|signal'; then
    echo "$file refers to the Swift runtime or installs signal handlers:"; nm -D --undefined-only "$file" | grep -E 'swift|sigaction'; exit 1
  fi
}
shape "$module" '^pam_sm_'
shape "$extra" '^pam_localauth_extra_v1$'
${CLANG:-clang} -O1 -Wall -o "$build/check-load" "$here/check-load.c" -ldl
${CLANG:-clang} -O2 -fno-builtin -fno-math-errno -Wall -Dceil=own_ceil -Dfloor=own_floor -Dsqrt=own_sqrt \
  -c "$here/../../Sources/PAMLocalAuth/link/rounding.c" -o "$build/check-rounding-own.o"
${CLANG:-clang} -O1 -Wall -o "$build/check-rounding" "$here/check-rounding.c" "$build/check-rounding-own.o" -lm
"$build/check-rounding"
"$build/check-load" "$(readlink -f "$module")" "$(readlink -f "$extra")"
echo "Exports: $(nm -D --defined-only "$module" | awk '$2 ~ /^[A-Z]$/ {print $3}' | tr '\n' ' ')"
echo "Needs: $(readelf -d "$module" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
budget "$module"
echo "Library: exports $(nm -D --defined-only "$extra" | awk '$2 ~ /^[A-Z]$/ {print $3}' | tr '\n' ' ')"
budget "$extra"

needed=$(readelf -d "$helper" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
[ "$needed" = "libc.so.6 " ] || fail "$helper needs more than libc: $needed (libm's ceil, floor and sqrt are its own: Sources/PAMLocalAuth/link/rounding.c)"
! nm -D --undefined-only "$helper" | grep -Eq 'swift_|_swift' || fail "$helper refers to the Swift runtime"
readelf -d "$helper" | grep -q 'FLAGS.*NOW' || fail "$helper is not linked with -z now"
! readelf -d "$helper" | grep -Eq 'RUNPATH|RPATH' || fail "$helper has a run path"
echo "Helper: $(stat -c %s "$helper") bytes, libc only, no Swift runtime, bound at start"
budget "$helper"
