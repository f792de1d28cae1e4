#!/bin/sh
# make deb: builds libpam-localauth_<version>_amd64.deb the way Debian builds packages (dpkg-buildpackage -b with
# debhelper, debian/), from a copy of the tree in build/deb/src, so that nothing is written outside the clone and the
# working tree stays clean. The package lands in build/deb/ with its .buildinfo and .changes, and is copied to the
# top of the clone for `apt install ./libpam-localauth_*.deb`. Installs nothing: a missing tool stops it with a hint.
# The Swift build folders are kept in build/deb/cache, named relative to the copy (../cache): the clone's path may
# hold a space, which debian/rules cannot quote.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/build/deb
SRC=$OUT/src

die() { echo "make deb: $*" >&2; exit 1; }
command -v dpkg-buildpackage >/dev/null || die "dpkg-dev is missing: run make deps (as root), or install it"
command -v dh >/dev/null || die "debhelper is missing: run make deps (as root), or install it"
command -v swiftc >/dev/null || die "swiftc is not on PATH: the Swift toolchain (e.g. /opt/swift/usr/bin) is needed to build"

version=$(cd "$ROOT" && dpkg-parsechangelog -S Version)
deb=libpam-localauth_${version}_amd64.deb
start=$(date +%s)

# The copy: the files git knows (with their uncommitted changes) and new files that are not ignored; outside a git
# checkout, the tree without its build folders. Package.resolved pins the same swift-argument-parser as `make tools`.
rm -rf "$SRC" "$OUT"/libpam-localauth_*
mkdir -p "$SRC"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh \
    | tar --null -T - -cf -) | tar -xf - -C "$SRC"
else
  (cd "$ROOT" && tar --exclude=./build --exclude='./.build*' --exclude='./*.deb' -cf - .) | tar -xf - -C "$SRC"
fi
[ ! -f "$ROOT/Package.resolved" ] || cp "$ROOT/Package.resolved" "$SRC/"

echo "make deb: dpkg-buildpackage -b -us -uc in build/deb/src (log: build/deb/build.log)"
if ! (cd "$SRC" && LOCALAUTH_DEB_CACHE=../cache dpkg-buildpackage -b -us -uc) >"$OUT/build.log" 2>&1; then
  tail -40 "$OUT/build.log"
  die "dpkg-buildpackage failed (log: build/deb/build.log)"
fi
[ -f "$OUT/$deb" ] || die "dpkg-buildpackage made no $deb (log: build/deb/build.log)"
rm -f "$ROOT"/libpam-localauth_*.deb
cp "$OUT/$deb" "$ROOT/$deb"
echo "make deb: $deb, $(stat -c %s "$ROOT/$deb") bytes, in $(($(date +%s) - start)) s (also in build/deb/)"
dpkg-deb -c "$ROOT/$deb" | awk '$1 !~ /^d/ { printf "  %s %s %9s %s\n", $1, $2, $3, $6 }'
if command -v lintian >/dev/null; then
  echo "make deb: lintian (overrides and their reasons: debian/libpam-localauth.lintian-overrides)"
  lintian "$ROOT/$deb" >"$OUT/lintian.txt" 2>/dev/null || true
  sed 's/^/  /' "$OUT/lintian.txt"
  echo "  lintian: $(grep -c '^E:' "$OUT/lintian.txt" || true) errors, $(grep -c '^W:' "$OUT/lintian.txt" || true) warnings not overridden"
fi
