#!/bin/sh
# make asan: asan.sh BUILD CTL CYCLES, run with the built files staged (the Makefile's STAGED).
# The core, PAM-glue, reliability and integration tests built with AddressSanitizer (BUILD/asan-tests.log): no
# AddressSanitizer report, every test passed. Then the module itself built with ASan (BUILD/asan/pam_localauth.so)
# and driven through CYCLES real pam_start/pam_authenticate/pam_end cycles with the ASan runtime preloaded
# (pam-cycles.sh). Prints "RELIABILITY: AddressSanitizer: ..." lines.
set -u
build=$1 ctl=$2 cycles=$3
swift=${SWIFT:-swift}
here=$(dirname "$0")
root=$(cd "$here/../.." && pwd)
log=$build/asan-tests.log
filter='LocalAuthCoreTests|PAMLocalAuthTests|ReliabilityTests|IntegrationTests'

echo "$here/login-session.sh $swift test --sanitize=address --scratch-path .build-asan --filter '$filter'"
"$here/login-session.sh" "$swift" test --sanitize=address --scratch-path .build-asan --filter "$filter" 2>&1 | tee "$log" | tail -5
! grep -q "ERROR: AddressSanitizer" "$log" || exit 1
grep -Eq "Test run with [0-9]+ tests? .*passed" "$log" || exit 1
echo "RELIABILITY: AddressSanitizer: $(grep -Eo 'Test run with [0-9]+ tests? in [0-9]+ suites? passed' "$log" | sed 's/Test run with //') (LocalAuthCoreTests, PAMLocalAuthTests, ReliabilityTests, IntegrationTests), 0 AddressSanitizer reports"

set -- "$swift" build -c release --product pam_localauth --scratch-path .build-module-asan -Xswiftc -sanitize=address \
  -Xswiftc -static-stdlib -Xlinker --version-script="$root/Sources/PAMLocalAuth/link/exports.map" -Xlinker -z -Xlinker nodelete
echo "$*"
"$@" || exit 1
mkdir -p "$build/asan" && cp .build-module-asan/release/libpam_localauth.so "$build/asan/pam_localauth.so" || exit 1
runtime=$(ls "$(dirname "$(readlink -f "$(command -v "$swift")")")"/../lib/clang/*/lib/linux/libclang_rt.asan-x86_64.so 2>/dev/null | head -1)
"$here/pam-cycles.sh" "$build" "$ctl" "$root/$build/asan/pam_localauth.so" AddressSanitizer "$cycles" \
  env LD_PRELOAD="$runtime" ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
