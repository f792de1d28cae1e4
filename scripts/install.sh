#!/bin/sh
# make install / make uninstall: install.sh install BUILD | install.sh uninstall
# Directories from the environment, as the Makefile names them: DESTDIR, PAMDIR, SBINDIR, PAMCONFIGSDIR, STATEDIR,
# POLKITACTIONSDIR (default /usr/share/polkit-1/actions, the only folder polkitd reads actions from).
# install: the module (and pam_localauth/extra.so beside it) to the system's PAM folder and the profiles to PAMCONFIGSDIR whatever PREFIX says (libpam and
# pam-auth-update look only there), localauthctl, the setuid helper, polkit's action file (the rights the helper asks
# polkitd for when an app has no terminal), the state folder (0700), and the configuration only if absent. uninstall: takes the profiles out of /etc/pam.d/common-* first (only on the live system), then
# removes the files; the configuration and the state folder stay. Each command is printed before it runs.
set -eu
: "${DESTDIR=}" "${PAMDIR:?}" "${SBINDIR:?}" "${PAMCONFIGSDIR:?}" "${STATEDIR:?}"
: "${POLKITACTIONSDIR:=/usr/share/polkit-1/actions}"
run() { echo "$*"; "$@"; }

case ${1:-} in
install)
  build=${2:?usage: install.sh install BUILD}
  run install -d "$DESTDIR$PAMDIR" "$DESTDIR$SBINDIR" "$DESTDIR/etc/security" "$DESTDIR$PAMCONFIGSDIR" "$DESTDIR$POLKITACTIONSDIR"
  run install -d -m 0700 "$DESTDIR$STATEDIR"
  run install -m 0644 "$build/pam_localauth.so" "$DESTDIR$PAMDIR/pam_localauth.so"
  # The module's rarely used parts, which it opens on first use from beside itself (docs/EMBEDDED.md).
  run install -d "$DESTDIR$PAMDIR/pam_localauth"
  run install -m 0644 "$build/pam_localauth/extra.so" "$DESTDIR$PAMDIR/pam_localauth/extra.so"
  # Linked with the Swift standard library inside (make installed-ctl): no Swift toolchain on the machine.
  run install -m 0755 "$build/installed/localauthctl" "$DESTDIR$SBINDIR/localauthctl"
  # setuid root, as unix_chkpwd is setgid shadow; a packager building as another user (fakeroot) sets the owner.
  if [ "$(id -u)" = 0 ]; then owner="-o root -g root"; else owner=""; fi
  run install $owner -m 4755 "$build/localauth-helper" "$DESTDIR$SBINDIR/localauth-helper"
  [ -e "$DESTDIR/etc/security/localauth.conf" ] || run install -m 0644 etc/localauth.conf "$DESTDIR/etc/security/localauth.conf"
  run install -m 0644 pam.d/pam-configs/localauth "$DESTDIR$PAMCONFIGSDIR/localauth"
  run install -m 0644 pam.d/pam-configs/localauth-keyring "$DESTDIR$PAMCONFIGSDIR/localauth-keyring"
  run install -m 0644 etc/polkit-1/org.localauth.policy "$DESTDIR$POLKITACTIONSDIR/org.localauth.policy"
  [ -n "$DESTDIR" ] || echo "Installed. Enable it with: pam-auth-update --enable localauth [localauth-keyring] (see docs/INSTALL.md)"
  ;;
uninstall)
  if [ -z "$DESTDIR" ] && [ -e "$PAMCONFIGSDIR/localauth" ] && command -v pam-auth-update >/dev/null; then
    run pam-auth-update --package --remove localauth localauth-keyring
  fi
  run rm -f "$DESTDIR$PAMDIR/pam_localauth.so" "$DESTDIR$PAMDIR/pam_localauth/extra.so" "$DESTDIR$SBINDIR/localauthctl" "$DESTDIR$SBINDIR/localauth-helper" \
    "$DESTDIR$PAMCONFIGSDIR/localauth" "$DESTDIR$PAMCONFIGSDIR/localauth-keyring" "$DESTDIR$POLKITACTIONSDIR/org.localauth.policy"
  run rmdir --ignore-fail-on-non-empty "$DESTDIR$PAMDIR/pam_localauth" 2>/dev/null || true
  ;;
*) echo "usage: install.sh install BUILD | install.sh uninstall" >&2; exit 2 ;;
esac
