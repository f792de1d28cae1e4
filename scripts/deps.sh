#!/bin/sh
# make deps: installs the Debian packages the build and the tests need, those that are missing (as root, online);
# with arguments, those packages instead. Installs nothing when all are there.
#
# The build (BUILD): the PAM, libxcrypt, OpenSSL and tpm2-tss headers, pkg-config for CPAM, strip/nm/readelf;
# libcrypto and tpm2-tss are still opened on first use, their headers only type the calls.
# The tests and the demo (TEST): debhelper and lintian for make deb and check-deb; pamtester under pam_wrapper;
# OpenSSH for the remote-session tests; python3, login and sudo for the pseudo-terminal tests of login(1), su(1)
# and sudo(8), which a minimal Debian lacks. The keychain tests need swtpm and tpm2-tss's libraries, the P-256 tests
# the openssl command; the keyring tests need gnome-keyring, secret-tool (libsecret-tools) and libpam-gnome-keyring
# (whose package, as on any Debian desktop, enables Debian's optional pam_gnome_keyring password line in
# common-password through pam-auth-update). The attack tests of issue 37 run Debian's i3lock and polkitd's
# polkit-agent-helper-1 as the programs a user's malware disguises itself as or starts. The real-desktop tests (issue
# 38) boot systemd in a throw-away container (Tests/scripts/box/: systemd-container's nsenter comes with util-linux)
# with pkexec and pkttyagent, and drive i3lock and xterm under Xvfb with xdotool; an app's dialog (issue 39) is drawn
# by graphical polkit agents, lxpolkit (LXDE's) and polkit-gnome (policykit-1-gnome: GNOME's kind, the one that reports
# a dismissed dialog to polkitd), pictured with ImageMagick's import. valgrind and time are installed by `make valgrind`
# and `make bench` when they run.
set -eu

BUILD="libpam0g-dev libcrypt-dev libssl-dev libtss2-dev pkg-config binutils"
TEST="pamtester libpam-wrapper openssh-server openssh-client python3 login sudo vlock tmux
      fprintd libfprint-2-2 python3-dbusmock libpam-fprintd dbus libglib2.0-bin
      swtpm libtss2-esys-3.0.2-0 libtss2-mu0 libtss2-tctildr0 libtss2-tcti-swtpm0 libtss2-tcti-device0
      gnome-keyring libpam-gnome-keyring libsecret-tools debhelper lintian openssl i3lock polkitd
      pkexec xvfb xdotool xterm systemd libpam-systemd lxpolkit policykit-1-gnome imagemagick"
[ $# -gt 0 ] || set -- $BUILD $TEST

missing=""
for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  echo "Installing:$missing"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
