#!/bin/sh
# make check-deb: the Debian package on this machine, as root, undoing everything: check-deb.sh PACKAGE.deb
#
# Twice in a row: dpkg -i (files, modes, libraries, the profiles registered and /etc/pam.d/common-* untouched),
# pam-auth-update --enable/--disable localauth (common-auth back byte for byte), pamtester under pam_wrapper through
# the installed module (loaded by name from libpam's folder) with a passcode set by /usr/sbin/localauthctl in
# /var/lib/localauth, a reinstall (an edited conffile and the state kept), dpkg -r (the PAM stacks as before, the
# configuration and the state kept), dpkg --purge (both gone). lintian: no error, no warning without an override.
# A configuration or state folder already there (make install) is moved aside and put back; installed files of
# make install, or the package already installed, make it refuse (make uninstall / dpkg --purge first).
set -eu

DEB=${1:?usage: check-deb.sh PACKAGE.deb}
PKG=libpam-localauth
CONF=/etc/security/localauth.conf
ACTIONS=/usr/share/polkit-1/actions/org.localauth.policy
STATE=/var/lib/localauth
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
MODULE=/usr/lib/$MULTIARCH/security/pam_localauth.so
EXTRA=/usr/lib/$MULTIARCH/security/pam_localauth/extra.so
PASSES=0
FAILS=0
# The toolchain's usr folder (/opt/swift/usr), hidden in a mount namespace to show localauthctl does not need it.
TOOLCHAIN=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)")")")

die() { echo "check-deb: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root"
[ -f "$DEB" ] || die "no $DEB: run make deb"
command -v pamtester >/dev/null || die "pamtester is missing (make deps)"
ldconfig -p | grep -q 'libpam_wrapper\.so ' || die "libpam-wrapper is missing (make deps)"
if dpkg-query -W -f='${db:Status-Status}' "$PKG" 2>/dev/null | grep -qv '^not-installed$'; then
  die "$PKG is installed on this machine; the test installs and purges it: dpkg --purge $PKG first"
fi
for f in /usr/sbin/localauthctl /usr/sbin/localauth-helper /usr/share/pam-configs/localauth "$ACTIONS" \
  /lib/"$MULTIARCH"/security/pam_localauth.so; do
  [ ! -e "$f" ] || die "$f is there (make install?): the package would take it over and remove it; make uninstall first"
done

WORK=$(mktemp -d /tmp/localauth-deb.XXXXXX)
mkdir "$WORK/saved" "$WORK/pam.d"
cp -a /etc/pam.d/common-* "$WORK/pam.d/"
(cd /etc/pam.d && sha256sum common-*) >"$WORK/common.sha256"
sha256sum /var/lib/pam/* >"$WORK/varlibpam.sha256"
[ ! -e "$CONF" ] || mv "$CONF" "$WORK/saved/localauth.conf"
[ ! -e "$STATE" ] || mv "$STATE" "$WORK/saved/state"

# Whatever happens: the package purged, the saved configuration and state back, and the PAM stacks as they were.
cleanup() {
  status=$?
  if dpkg-query -W -f='${db:Status-Status}' "$PKG" 2>/dev/null | grep -qv '^not-installed$'; then
    echo "check-deb: purging $PKG left installed by a failed step"; dpkg --purge "$PKG" >/dev/null 2>&1 || status=1
  fi
  if ! (cd /etc/pam.d && sha256sum -c --quiet "$WORK/common.sha256") >/dev/null 2>&1; then
    echo "check-deb: /etc/pam.d/common-* changed: putting the saved copies back"; cp -a "$WORK/pam.d/." /etc/pam.d/; status=1
  fi
  rm -rf "$CONF" "$STATE"
  [ ! -e "$WORK/saved/localauth.conf" ] || mv "$WORK/saved/localauth.conf" "$CONF"
  [ ! -e "$WORK/saved/state" ] || mv "$WORK/saved/state" "$STATE"
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

check() { # check DESCRIPTION COMMAND...: runs the command quietly; counts and reports the result
  what=$1; shift
  if "$@" >"$WORK/check.out" 2>&1; then PASSES=$((PASSES + 1)); echo "  ok    $what"
  else FAILS=$((FAILS + 1)); echo "  FAIL  $what"; sed 's/^/        /' "$WORK/check.out" | head -20; fi
}
mode_owner_is() { [ "$(stat -c '%a %U:%G' "$2")" = "$1" ]; }
common_unchanged() { (cd /etc/pam.d && sha256sum -c --quiet "$WORK/common.sha256"); }
installed() { dpkg-query -W -f='${db:Status-Abbrev}' "$PKG" | grep -q "^$1"; }

# Every ELF file the package installs finds each library it needs in Debian's folders, none in the toolchain's.
libraries_are_debians() {
  for f in "$@"; do
    ldd "$f" | awk -v f="$f" '
      /not found/ { print f ": " $0; bad = 1 }
      /=>/ && $3 !~ /^\/(usr\/)?lib(64)?\// { print f ": " $0 " (outside /lib, /usr/lib, /lib64)"; bad = 1 }
      /\/opt\/|swift/ { print f ": " $0 " (a Swift toolchain library)"; bad = 1 }
      END { exit bad }'
  done
}

# pamtester under pam_wrapper, on a service that names the module without a path: libpam finds it in its folder.
printf '%s\n' "auth required pam_localauth.so sensor=none nodelay" "account required pam_permit.so" >"$WORK/localauth-deb"
pt() { # pt TYPED: pamtester's verdict for root on that service, the line typed at the passcode prompt
  printf '%s\n' "$1" | env LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$WORK" \
    pamtester localauth-deb root authenticate
}
refused() { ! pt "$1"; }
# The passcode change runs in the module's library (pam_localauth/extra.so), which it opens from beside itself.
printf '%s\n' "password required pam_localauth.so sensor=none nodelay" >"$WORK/localauth-deb-passwd"
chpass() { # chpass NEW: root sets the passcode through pam_sm_chauthtok, typing NEW twice
  printf '%s\n%s\n' "$1" "$1" | env LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$WORK" \
    pamtester localauth-deb-passwd root chauthtok
}

# The control for the hidden-toolchain check below: make tools' dynamic localauthctl does not start there.
DYNAMIC=$(dirname "$0")/../../build/localauthctl
if [ -x "$DYNAMIC" ]; then
  check "build/localauthctl (make tools, dynamic) does not start with the toolchain hidden (the check's control)" \
    unshare -m sh -c "mount -t tmpfs none '$TOOLCHAIN' && ! '$DYNAMIC' --help"
fi

echo "lintian $(basename "$DEB")"
lintian "$DEB" >"$WORK/lintian.out" 2>/dev/null || true
check "lintian: no error and no warning without an override in debian/" sh -c "! grep -E '^(E|W):' '$WORK/lintian.out'"
[ ! -s "$WORK/lintian.out" ] || sed 's/^/        /' "$WORK/lintian.out"

for round in 1 2; do
  echo "Round $round: install, use, reinstall, remove, purge"
  check "dpkg -i" dpkg -i "$DEB"
  check "installed (ii)" installed ii
  check "module $MODULE, 0644 root:root" mode_owner_is "644 root:root" "$MODULE"
  check "its library $EXTRA, 0644 root:root" mode_owner_is "644 root:root" "$EXTRA"
  check "/usr/sbin/localauth-helper setuid root, 4755 root:root" mode_owner_is "4755 root:root" /usr/sbin/localauth-helper
  check "/usr/sbin/localauthctl, 0755 root:root" mode_owner_is "755 root:root" /usr/sbin/localauthctl
  check "$CONF, 0644, a conffile" sh -c "[ \"\$(stat -c %a $CONF)\" = 644 ] && dpkg-query -W -f='\${Conffiles}' $PKG | grep -q ' $CONF '"
  check "$STATE made by postinst, 0700 root:root" mode_owner_is "700 root:root" "$STATE"
  check "profiles in /usr/share/pam-configs" test -f /usr/share/pam-configs/localauth -a -f /usr/share/pam-configs/localauth-keyring
  check "polkit's action file $ACTIONS, 0644 root:root" mode_owner_is "644 root:root" "$ACTIONS"
  check "tmpfiles.d entry for /run/localauth (0700 root)" grep -q '^d /run/localauth 0700 root root' /usr/lib/tmpfiles.d/$PKG.conf
  check "man pages pam_localauth(8), localauthctl(8), localauth-helper(8), localauth.conf(5)" sh -c \
    "man -w 8 pam_localauth && man -w 8 localauthctl && man -w 8 localauth-helper && man -w 5 localauth.conf"
  check "module, helper and localauthctl need only libraries in /lib, /usr/lib, /lib64 (ldd)" \
    libraries_are_debians "$MODULE" "$EXTRA" /usr/sbin/localauth-helper /usr/sbin/localauthctl
  check "localauthctl runs with the Swift toolchain hidden ($TOOLCHAIN under an empty tmpfs)" \
    unshare -m sh -c "mount -t tmpfs none '$TOOLCHAIN' && /usr/sbin/localauthctl --help && /usr/sbin/localauthctl status root"
  check "the profile is registered with pam-auth-update (/var/lib/pam/seen)" grep -qx localauth /var/lib/pam/seen
  check "/etc/pam.d/common-* unchanged by the install (the profiles are Default: no)" common_unchanged
  check "pam-auth-update --enable localauth puts pam_localauth in common-auth" sh -c \
    "DEBIAN_FRONTEND=noninteractive pam-auth-update --enable localauth && grep -q pam_localauth.so /etc/pam.d/common-auth"
  check "pam-auth-update --disable localauth gives common-* back byte for byte" sh -c \
    "DEBIAN_FRONTEND=noninteractive pam-auth-update --disable localauth && cd /etc/pam.d && sha256sum -c --quiet $WORK/common.sha256"
  check "/usr/sbin/localauthctl passcode set root (in $STATE)" sh -c "echo 2468 | /usr/sbin/localauthctl passcode set root"
  check "pamtester through the installed module: the right passcode authenticates" pt 2468
  check "pamtester through the installed module: a wrong passcode is refused" refused 1357
  check "pamtester chauthtok through the installed module's library: root sets a new passcode" chpass 1357
  check "pamtester through the installed module: the new passcode authenticates" pt 1357
  check "pamtester through the installed module: the old passcode is refused" refused 2468
  echo "# edited by check-deb" >>"$CONF"
  check "dpkg -i again (reinstall)" dpkg -i "$DEB"
  check "the reinstall keeps the edited conffile and the state" sh -c \
    "grep -qx '# edited by check-deb' $CONF && [ -n \"\$(ls -A $STATE)\" ]"
  check "dpkg -r" dpkg -r "$PKG"
  check "removed: module, helper, localauthctl, profiles and the action file gone" sh -c \
    "[ ! -e $MODULE ] && [ ! -e $EXTRA ] && [ ! -e /usr/sbin/localauth-helper ] && [ ! -e /usr/sbin/localauthctl ] && [ ! -e /usr/share/pam-configs/localauth ] && [ ! -e $ACTIONS ]"
  check "dpkg -r leaves /etc/pam.d/common-* as before the install, byte for byte" common_unchanged
  check "dpkg -r keeps the configuration and the state in $STATE (rc)" sh -c \
    "dpkg-query -W -f='\${db:Status-Abbrev}' $PKG | grep -q '^rc' && grep -qx '# edited by check-deb' $CONF && [ -n \"\$(ls -A $STATE)\" ]"
  check "dpkg --purge" dpkg --purge "$PKG"
  check "purged: no configuration, no state, not known to dpkg" sh -c \
    "[ ! -e $CONF ] && [ ! -e $STATE ] && ! dpkg-query -W -f='\${db:Status-Status}' $PKG 2>/dev/null | grep -qv '^not-installed\$'"
  check "/etc/pam.d/common-* still as before" common_unchanged
  check "/var/lib/pam (pam-auth-update's record) as before, the profiles forgotten" sha256sum -c --quiet "$WORK/varlibpam.sha256"
done

echo
if [ "$FAILS" -eq 0 ]; then echo "check-deb: all $PASSES checks passed."
else echo "check-deb: $FAILS of $((PASSES + FAILS)) checks FAILED."; exit 1; fi
