#!/bin/bash
# Regenerates module-order.txt: the functions of the module (Swift runtime, stdlib, libstdc++ and ours) that
# loading it and one biometric and one passcode authentication run, as callgrind sees them under pamtester
# and pam_wrapper. The Makefile's module target hands the list to lld (--symbol-ordering-file) so that those
# functions sit together and a sudo faults in fewer pages. Needs root, valgrind, pamtester, libpam-wrapper.
# Usage (after make module tools): bash scripts/module-order.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ctl=$PWD/build/localauthctl
user=laorder$$
work=$(mktemp -d /tmp/localauth-order.XXXXXX)
trap 'userdel "$user" 2>/dev/null || true; rm -rf "$work"' EXIT
# callgrind needs the symbol names but cannot read the C target's DWARF 5: a copy without debug sections.
module=$work/pam_localauth.so
strip --strip-debug -o "$module" .build-module/release/libpam_localauth.so
useradd -M "$user"
mkdir -m 0700 "$work/state" "$work/pam"
printf 'hash_cost=1\n' > "$work/conf"
"$ctl" enroll "$user" right-index --state-dir "$work/state" >/dev/null
echo 123456 | "$ctl" passcode set "$user" --state-dir "$work/state" --conf "$work/conf" >/dev/null
echo "auth required $module conf=$work/conf state_dir=$work/state timeout=2" > "$work/pam/bio"
echo "auth required $module conf=$work/conf state_dir=$work/state sensor=none" > "$work/pam/passcode"
run() { LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR=$work/pam "$@"; }
echo 123456 | run valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.passcode" \
  pamtester passcode "$user" authenticate >/dev/null 2>&1
"$ctl" touch "$user" right-index --state-dir "$work/state" --quality 0.9 >/dev/null
run valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.bio" pamtester bio "$user" authenticate >/dev/null 2>&1
nm "$module" | awk '$2 ~ /^[tTwW]$/ {print $3}' > "$work/defined"
# The prebuilt stdlib keeps most of its code in one 1.6 MB .text section (Swift.o), which lld can only move
# whole: naming any function in it would drag the whole block into the middle of the hot code and split it
# in two. Those names are left out; the block then follows the hot code.
static=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")/lib/swift_static/linux
for a in libswiftCore.a libswift_Concurrency.a libswift_StringProcessing.a; do
  [ -f "$static/$a" ] && readelf -SsW "$static/$a" 2>/dev/null
done | python3 -c '
import sys
big = set()
for line in sys.stdin:
  if line.startswith("File:"): big = set(); continue
  p = line.replace("[ ", "[").split()
  if len(p) > 6 and p[0].startswith("[") and p[1] == ".text" and int(p[5], 16) > 32768: big.add(p[0].strip("[]"))
  elif len(p) >= 8 and p[0].endswith(":") and p[6] in big: print(p[7])
' > "$work/unmovable"
python3 - "$work/defined" "$work/unmovable" "$work/cg.bio" "$work/cg.passcode" > module-order.txt <<'PY'
import re, sys
defined = set(open(sys.argv[1]).read().split()) - set(open(sys.argv[2]).read().split())
seen, order = set(), []
for path in sys.argv[3:]:
  names = {}
  for line in open(path):
    m = re.match(r'^c?fn=\((\d+)\)(?: (.*))?$', line.rstrip('\n'))
    if not m: continue
    if m.group(2): names[m.group(1)] = m.group(2)
    name = names.get(m.group(1))
    if name in defined and name not in seen:
      seen.add(name)
      order.append(name)
print('\n'.join(order))
PY
echo "module-order.txt: $(wc -l < module-order.txt) functions"
