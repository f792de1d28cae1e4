#!/bin/sh
# login-session.sh COMMAND...: runs COMMAND in a new login session of root's, as pam_loginuid starts one at a
# console login (the kernel's audit session, /proc/self/sessionid), and in a terminal session of its own, as a
# login shell is. pam_localauth takes a request from a process in no login session as local only when every
# ancestor is root's, so the tests that run su, sudo and the helper as test users run inside one, as they would on
# a machine someone logged in to. The new terminal session matters in containers: when the caller's session
# leader lives outside this pid namespace, getsid() answers 0, and the module (rightly) neither opens nor uses a
# reuse window for a session whose leader it cannot read. Without audit support (or CAP_AUDIT_CONTROL) it says
# so and runs COMMAND without a login session.
if ! { echo 0 > /proc/self/loginuid; } 2>/dev/null; then
  echo "login-session.sh: cannot start a login session (no audit support?); running without one" >&2
fi
exec setsid --wait "$@"
