#!/bin/bash
# setup.sh ROOT: prepares the box's root (box.sh start's SETUP, run before the boot; ROOT is the overlay, whose writes
# land in the box's tmpfs) as an administrator would prepare a Debian desktop after `make install`:
# - the built files where scripts/install.sh puts them (the module and pam_localauth/extra.so in the PAM folder, the
#   setuid localauth-helper and localauthctl in /usr/sbin, polkit's action file org.localauth.policy), from the folder named by LOCALAUTH_MODULE (the Makefile's
#   STAGED folder, scripts/stage-artifacts.sh), with a state folder of the box's own;
# - PAM as docs/INSTALL.md section 4 says, one service at a time: the shipped pam.d/login (its auth line and
#   `session optional pam_localauth.so`, which records each login session in the ledger) and pam.d/sudo, and
#   polkit-1 as polkitd ships it with the same auth line (variant (a)) first;
# - /etc/security/localauth.conf: the example with `debug` and the rules that would ask the passcode before the
#   finger (after a restart, an enrolment change, idle, age) turned off, as in the other end-to-end tests;
# - three users, each with a passcode and an enrolled right index finger: lbox-alice (group sudo: Debian's admin
#   identity for polkit too), lbox-bob (sudo through a sudoers drop-in, so that polkit offers only alice),
#   lbox-carol (no rights; the second person at seat0);
# - the suite's programs in /opt/localauth-box: session.sh (what runs in a session) and e2e-ptydrive.py.
# The box's /usr is the host's, read-only, but for the folders `make install` writes to (PAMDIR, /usr/sbin,
# /usr/share/pam-configs, /usr/share/polkit-1/actions), which check-box.sh has box.sh make writable copies of (BOX_USR_WRITABLE).
# Environment: LOCALAUTH_MODULE (required), PAMDIR (default: the Makefile's).
set -eu
R=${1:?setup.sh ROOT}
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
STAGE=$(dirname "${LOCALAUTH_MODULE:?LOCALAUTH_MODULE names the staged module}")
PAMDIR=${PAMDIR:-$(pkg-config --variable=libdir pam 2>/dev/null || echo /lib/x86_64-linux-gnu)/security}
LIB=/opt/localauth-box

# The built files, the way `make install` puts them (the host's own state and configuration, if any, are not the box's).
rm -rf "$R/var/lib/localauth" "$R/etc/security/localauth.conf"
(cd "$REPO" && DESTDIR=$R PAMDIR=$PAMDIR SBINDIR=/usr/sbin PAMCONFIGSDIR=/usr/share/pam-configs STATEDIR=/var/lib/localauth \
  scripts/install.sh install "$STAGE") >/dev/null
{
  echo
  echo "# The box (Tests/scripts/box/setup.sh): explain every decision; no passcode-first rules."
  echo "debug"
  printf '%s\n' "passcode_after_reboot = no" "passcode_after_enrollment_change = no" "idle_limit = 0" "passcode_max_age = 0"
} >>"$R/etc/security/localauth.conf"

# PAM, one service at a time (docs/INSTALL.md, section 4, variant (a) as shipped).
install -m 0644 "$REPO/pam.d/login" "$R/etc/pam.d/login"
install -m 0644 "$REPO/pam.d/sudo" "$R/etc/pam.d/sudo"
auth_line=$(grep '^auth .*pam_localauth\.so policy=deviceOwnerAuthentication ' "$REPO/pam.d/sudo" | sed 's/ parallel_passcode//; s/ \[reason=[^]]*\]//')
[ -n "$auth_line" ] || { echo "setup: no variant (a) line in pam.d/sudo" >&2; exit 1; }
{
  echo "#%PAM-1.0"
  echo "# polkit's agent helper (polkit-agent-helper-1) with pam_localauth first, as for sudo (the box's setup.sh)."
  echo "$auth_line"
  grep -v '^#%PAM' /usr/lib/pam.d/polkit-1
} >"$R/etc/pam.d/polkit-1"
chmod 0644 "$R/etc/pam.d/polkit-1"

# Users, their passcodes and fingers.
add_user() { # add_user NAME PASSCODE [useradd options]
  local name=$1 passcode=$2; shift 2
  chroot "$R" /usr/sbin/useradd -m -s /bin/bash "$@" "$name"
  echo "$name:unix-$passcode" | chroot "$R" /usr/sbin/chpasswd
  chroot "$R" /usr/sbin/localauthctl enroll "$name" right-index >/dev/null
  echo "$passcode" | chroot "$R" /usr/sbin/localauthctl passcode set "$name" >/dev/null
}
add_user lbox-alice 2468 -G sudo
add_user lbox-bob 1357
add_user lbox-carol 9753
echo "lbox-bob ALL=(ALL:ALL) ALL" >"$R/etc/sudoers.d/localauth-box"
chmod 0440 "$R/etc/sudoers.d/localauth-box"

# sshd on the box's loopback (its own configuration and keys; Debian's /etc/pam.d/sshd, whose common-session runs
# pam_systemd, so an SSH login is a remote logind session): lbox-alice logs in with a key only.
S=$R/etc/lbox-ssh
install -d -m 0755 "$S"
ssh-keygen -q -t ed25519 -N '' -f "$S/hostkey"
ssh-keygen -q -t ed25519 -N '' -f "$S/userkey"
install -m 0644 "$S/userkey.pub" "$S/authorized_keys"
cat >"$S/sshd_config" <<CONFIG
ListenAddress 127.0.0.1
Port 2222
HostKey /etc/lbox-ssh/hostkey
AuthorizedKeysFile /etc/lbox-ssh/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM yes
StrictModes no
PidFile /run/lbox-sshd.pid
CONFIG

install -d -m 0755 "$R$LIB"
install -m 0755 "$HERE/session.sh" "$REPO/Tests/scripts/e2e-ptydrive.py" "$R$LIB/"
# la-app: an app as a Swift developer writes one (Tests/Fixtures/AppClient), for data protection's flow.
install -m 0755 "${LOCALAUTH_APP:?LOCALAUTH_APP names the staged la-app}" "$R$LIB/la-app"
