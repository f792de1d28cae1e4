#!/bin/sh
# scripts/module-hot-path.sh OUT: the functions of pam_localauth.so that a simulated-finger authentication runs
# (issue 29, item 7), one mangled name a line, into OUT.
#
# Runs localauth-bench's items 1–3 (--quick) on the unstripped module (.build-embedded/pam_localauth.so) in a private
# mount namespace where /usr/bin/pamtester is a wrapper: the three biometric runs after the setup's passcode
# authentication (service wp-bio: the enrolled finger touched as soon as the prompt shows, the record written) run
# under valgrind's callgrind, and every function of the module that callgrind saw run is listed. As root, after
# `make module` and `swift build -c release` of the products localauth-bench and localauthctl.
# scripts/module-anatomy.py ELF --executed OUT sums them per component; `scripts/module-hot-path.sh Sources/PAMLocalAuth/link/module.order`
# refreshes the list the module's link lays out first (Makefile).
set -eu
out=${1:?usage: module-hot-path.sh OUT}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/module-hot-path.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/build" "$work/cg"
chmod 755 "$work" "$work/build"
cp "$here/.build-embedded/pam_localauth.so" "$work/build/pam_localauth.so"
cp "$here/.build/release/localauthctl" "$work/build/localauthctl"
cp /usr/bin/pamtester "$work/pamtester.real"
cat > "$work/pamtester" <<WRAP
#!/bin/sh
if [ "\$1" = wp-bio ]; then
  n=\$(cat "$work/cg/count" 2>/dev/null || echo 0)
  if [ "\$n" -ge 1 ] && [ "\$n" -le 3 ]; then
    echo \$((n + 1)) > "$work/cg/count"
    exec valgrind --quiet --tool=callgrind --callgrind-out-file="$work/cg/out.%p" "$work/pamtester.real" "\$@"
  fi
  echo \$((n + 1)) > "$work/cg/count"
fi
exec "$work/pamtester.real" "\$@"
WRAP
chmod 755 "$work/pamtester"
unshare -m sh -c "mount --bind '$work/pamtester' /usr/bin/pamtester && \
  setsid --wait '$here/.build/release/localauth-bench' --build '$work/build' --only 1 --quick --json '$work/bench.json'" \
  > "$work/bench.out" 2>&1 || { cat "$work/bench.out"; exit 1; }
ls "$work"/cg/out.* > /dev/null 2>&1 || { echo "No callgrind profile was written:"; cat "$work/bench.out"; exit 1; }
/usr/bin/python3 - "$work/build/pam_localauth.so" "$work"/cg/out.* > "$out" <<'PY'
import re, sys
module, profiles = sys.argv[1], sys.argv[2:]
ran = set()
for profile in profiles:
    objects, names, current = {}, {}, None
    for line in open(profile, encoding="utf-8", errors="replace"):
        match = re.match(r"^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not match:
            continue
        kind, number, name = match.groups()
        table = objects if kind.endswith("ob") else names
        if name is not None:
            table[number] = name
        if kind == "ob":
            current = objects.get(number)
        elif kind == "fn" and current == module:
            ran.add(names.get(number))
for name in sorted(n for n in ran if n and not n.startswith("0x")):  # 0x...: code without a symbol (PLT)
    print(name)
PY
echo "$(wc -l < "$out") functions of the module ran in $(ls "$work"/cg/out.* | wc -l) simulated-finger authentications: $out"
