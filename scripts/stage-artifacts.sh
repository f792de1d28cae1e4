#!/bin/sh
# stage-artifacts.sh BUILD: copies the built module, helper, localauthctl and PAMHarness (and, when built, the
# localauthctl make install installs) into a new folder under /tmp that every user can read, and prints its path.
# The tests run some of them as unprivileged users (a screen locker loads the module, the helper's callers run
# PAMHarness): from a clone in root's 0700 home folder, or from a path with spaces (which a PAM stack line cannot
# name), they could not load them from the clone itself. The caller removes the folder.
set -eu
build=$1
stage=$(mktemp -d /tmp/localauth-stage.XXXXXX)
chmod 0755 "$stage"
for file in pam_localauth.so localauth-helper localauthctl PAMHarness; do
  install -m 0755 "$build/$file" "$stage/$file"
done
chmod 0644 "$stage/pam_localauth.so"
# The module opens its rarely used parts from beside itself (docs/EMBEDDED.md).
install -d -m 0755 "$stage/pam_localauth"
install -m 0644 "$build/pam_localauth/extra.so" "$stage/pam_localauth/extra.so"
# localauthctl as make install puts it (make installed-ctl), which scripts/install.sh installs, when it was built.
if [ -f "$build/installed/localauthctl" ]; then
  install -d -m 0755 "$stage/installed"
  install -m 0755 "$build/installed/localauthctl" "$stage/installed/localauthctl"
fi
# la-app (make app-client) is staged when it was built.
if [ -f "$build/la-app" ]; then install -m 0755 "$build/la-app" "$stage/la-app"; fi
echo "$stage"
