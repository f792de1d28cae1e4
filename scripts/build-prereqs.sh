#!/bin/sh
# make build-prereqs: checks, without installing anything, that the build packages are there; a missing one stops
# the build with a one-line hint (packagers build as non-root and offline; `make deps` installs them as root).
hint() { echo "$1 is missing: run make deps (as root), or install it"; exit 1; }
test -e /usr/include/security/pam_appl.h || hint libpam0g-dev
test -e /usr/include/crypt.h || hint libcrypt-dev
test -e /usr/include/openssl/evp.h || hint libssl-dev
test -e /usr/include/tss2/tss2_esys.h || hint libtss2-dev
command -v pkg-config >/dev/null || hint pkg-config
command -v strip >/dev/null || hint binutils
