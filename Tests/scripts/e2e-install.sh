#!/bin/bash
# make check-install: `make install DESTDIR=...` gives the right tree, and the pam-auth-update profile works the
# Debian way, checked on staged copies only: /etc, /var/lib/pam and the debconf database are never written.
#
# 1. install into a stage: the files, their modes, nothing else; a second install keeps an edited configuration;
#    uninstall removes the files and keeps the configuration and the state folder.
# 2. pam-auth-update --root STAGE --enable localauth with a private debconf database, on copies of the system's
#    profiles, common-* files and /var/lib/pam: the generated common-auth and common-session are checked line
#    by line, then --disable takes the lines out again.
# 3. The generated common-auth drives pamtester under pam_wrapper (module path made absolute): a finger logs
#    in; a wrong passcode fails without a Unix password prompt; a user without a passcode gets pam_unix.
#    Then the shipped pam.d/login and pam.d/sudo snippets, the same way.
# Needs root. Environment: LOCALAUTH_MODULE, LOCALAUTH_CTL (default build/), PAMDIR (as the Makefile's).

set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MODULE=${LOCALAUTH_MODULE:-$ROOT/build/pam_localauth.so}
CTL=${LOCALAUTH_CTL:-$ROOT/build/localauthctl}
USER_A=localauth-inst-a
USER_B=localauth-inst-b
COMMENT="pam_localauth install check"
PASSES=0
FAILS=0

die() { echo "check-install: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root"
[ -f "$MODULE" ] && [ -x "$CTL" ] || die "build first: make module tools"

WORK=$(mktemp -d /tmp/localauth-install.XXXXXX) || die "mktemp failed"
CREATED=()
cleanup() {
  local u
  for u in "${CREATED[@]}"; do userdel "$u" >/dev/null 2>&1; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

check() { # check DESCRIPTION COMMAND...: runs the command quietly; counts and reports the result
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then PASSES=$((PASSES + 1)); echo "  ok    $what"
  else FAILS=$((FAILS + 1)); echo "  FAIL  $what"; fi
}
mode_is() { [ "$(stat -c %a "$2")" = "$1" ]; }

# The system state this script must not change.
SYSTEM_FILES=(/etc/pam.d/common-* /var/lib/pam/* /var/cache/debconf/config.dat)
md5sum "${SYSTEM_FILES[@]}" >"$WORK/system.md5" 2>/dev/null

# ---- 1. The installed tree -------------------------------------------------------------------------------
echo "1. make install DESTDIR=<stage>"
STAGE=$WORK/stage
make -s -C "$ROOT" install DESTDIR="$STAGE" >"$WORK/install.log" 2>&1 || { cat "$WORK/install.log"; die "make install failed"; }
PAMDIR=${PAMDIR:-$(pkg-config --variable=libdir pam 2>/dev/null || echo /lib/x86_64-linux-gnu)/security}
check "module in $PAMDIR, mode 0644" mode_is 644 "$STAGE$PAMDIR/pam_localauth.so"
check "its library in $PAMDIR/pam_localauth, mode 0644" mode_is 644 "$STAGE$PAMDIR/pam_localauth/extra.so"
check "localauthctl in /usr/sbin, mode 0755" mode_is 755 "$STAGE/usr/sbin/localauthctl"
check "localauthctl needs no Swift runtime library (it runs without the toolchain)" \
  sh -c "ldd '$STAGE/usr/sbin/localauthctl' | grep -q libc.so && ! ldd '$STAGE/usr/sbin/localauthctl' | grep -q libswift"
check "localauth-helper in /usr/sbin, setuid root, mode 4755" mode_is 4755 "$STAGE/usr/sbin/localauth-helper"
check "localauth-helper owned by root" test "$(stat -c %u "$STAGE/usr/sbin/localauth-helper")" -eq 0
check "example configuration, mode 0644" mode_is 644 "$STAGE/etc/security/localauth.conf"
check "pam-auth-update profile, mode 0644" mode_is 644 "$STAGE/usr/share/pam-configs/localauth"
check "the keyring profile, mode 0644" mode_is 644 "$STAGE/usr/share/pam-configs/localauth-keyring"
check "polkit's action file in /usr/share/polkit-1/actions, mode 0644" mode_is 644 "$STAGE/usr/share/polkit-1/actions/org.localauth.policy"
check "state folder, mode 0700" mode_is 700 "$STAGE/var/lib/localauth"
check "nothing else installed" test "$(find "$STAGE" -type f | wc -l)" -eq 8
check "installed module is the built one" cmp "$MODULE" "$STAGE$PAMDIR/pam_localauth.so"
check "installed library is the built one" cmp "$(dirname "$MODULE")/pam_localauth/extra.so" "$STAGE$PAMDIR/pam_localauth/extra.so"
check "every configuration line is a comment or blank" test -z "$(grep -v '^[[:space:]]*\(#.*\)\?$' "$STAGE/etc/security/localauth.conf")"
echo "# edited" >>"$STAGE/etc/security/localauth.conf"
make -s -C "$ROOT" install DESTDIR="$STAGE" >/dev/null 2>&1
check "a second install keeps an edited configuration" grep -q '^# edited$' "$STAGE/etc/security/localauth.conf"
make -s -C "$ROOT" uninstall DESTDIR="$STAGE" >/dev/null 2>&1
check "uninstall removes the module, the tool, the helper, the profiles and the action file" \
  test ! -e "$STAGE$PAMDIR/pam_localauth.so" -a ! -e "$STAGE$PAMDIR/pam_localauth" -a ! -e "$STAGE/usr/sbin/localauthctl" -a ! -e "$STAGE/usr/sbin/localauth-helper" \
    -a ! -e "$STAGE/usr/share/pam-configs/localauth" -a ! -e "$STAGE/usr/share/pam-configs/localauth-keyring" \
    -a ! -e "$STAGE/usr/share/polkit-1/actions/org.localauth.policy"
check "uninstall keeps the configuration and the state folder" test -f "$STAGE/etc/security/localauth.conf" -a -d "$STAGE/var/lib/localauth"

# ---- 2. pam-auth-update on a staged root -----------------------------------------------------------------
echo "2. pam-auth-update --root <stage> --enable localauth"
if ! command -v pam-auth-update >/dev/null; then
  echo "  skip  pam-auth-update is not installed (Debian's libpam-runtime)"
else
  R=$WORK/root
  mkdir -p "$R/usr/share/pam-configs" "$R/etc/pam.d" "$R/var/lib/pam" "$R/debconf"
  cp -a /usr/share/pam-configs/. "$R/usr/share/pam-configs/"
  cp "$ROOT/pam.d/pam-configs/localauth" "$ROOT/pam.d/pam-configs/localauth-keyring" "$R/usr/share/pam-configs/"
  cp -a /etc/pam.d/common-* "$R/etc/pam.d/"
  cp -a /var/lib/pam/. "$R/var/lib/pam/"
  printf '%s\n' "Config: configdb" "Templates: templatedb" "" "Name: configdb" "Driver: File" \
    "Filename: $R/debconf/config.dat" "" "Name: templatedb" "Driver: File" "Mode: 644" \
    "Filename: $R/debconf/templates.dat" >"$R/debconf.conf"
  pau() { DEBCONF_SYSTEMRC="$R/debconf.conf" DEBIAN_FRONTEND=noninteractive pam-auth-update --root "$R" "$@"; }
  check "pam-auth-update --enable localauth succeeds" pau --enable localauth
  AUTH=$(grep -v '^#' "$R/etc/pam.d/common-auth" | grep .)
  printf '%s\n' "$AUTH" | sed 's/^/        /'
  first=$(printf '%s\n' "$AUTH" | head -1)
  check "common-auth starts by skipping pam_localauth for sshd" grep -q 'success=1 .*pam_succeed_if\.so quiet service = sshd' <<<"$first"
  line=$(printf '%s\n' "$AUTH" | grep -n 'pam_localauth\.so' | cut -d: -f1)
  ours=$(printf '%s\n' "$AUTH" | sed -n "${line:-0}p")
  check "pam_localauth comes next, before pam_unix" test "${line:-0}" -eq 2
  # success=N must land on the pam_permit line after pam_deny, as pam_unix's own jump does.
  jump=$(sed -n 's/.*\[success=\([0-9]*\) .*/\1/p' <<<"$ours")
  target=$(printf '%s\n' "$AUTH" | sed -n "$((${line:-0} + ${jump:-0} + 1))p")
  check "its success jump (success=$jump) lands on pam_permit, past pam_deny" grep -q 'required[[:space:]]*pam_permit\.so' <<<"$target"
  check "auth_err, maxtries and user_unknown end the stack (die); the rest is ignored" \
    grep -q 'authinfo_unavail=ignore ignore=ignore auth_err=die maxtries=die user_unknown=die default=ignore' <<<"$ours"
  check "pam_unix still follows" grep -q 'pam_unix\.so' <<<"$(printf '%s\n' "$AUTH" | sed -n "$((${line:-0} + 1))p")"
  check "common-session ends the reuse window at logout" grep -q 'optional[[:space:]]*pam_localauth\.so' "$R/etc/pam.d/common-session"
  check "common-session-noninteractive does not (cron must not end it)" \
    sh -c "! grep -q pam_localauth '$R/etc/pam.d/common-session-noninteractive'"
  check "the primary line releases the login secret (release_authtok)" grep -q 'pam_localauth\.so release_authtok' <<<"$ours"
  check "pam-auth-update --enable localauth-keyring succeeds" pau --enable localauth-keyring
  KEYRING_AUTH=$(grep -v '^#' "$R/etc/pam.d/common-auth" | grep .)
  permit=$(printf '%s\n' "$KEYRING_AUTH" | grep -n 'required[[:space:]]*pam_permit\.so' | cut -d: -f1)
  capture=$(printf '%s\n' "$KEYRING_AUTH" | grep -n 'pam_localauth\.so capture_authtok' | cut -d: -f1)
  check "common-auth captures the login secret after the primary block (past pam_permit)" test "${capture:-0}" -gt "${permit:-99}"
  check "common-password keeps it in step after pam_unix" \
    sh -c "grep -v '^#' '$R/etc/pam.d/common-password' | grep -A9 pam_unix | grep -q 'pam_localauth\.so capture_authtok'"
  check "pam-auth-update --disable localauth-keyring takes the lines out again" pau --disable localauth-keyring
  check "common-auth has no capture line after --disable" sh -c "! grep -q capture_authtok '$R/etc/pam.d/common-auth'"
  cp "$R/etc/pam.d/common-auth" "$WORK/common-auth.enabled"

  # ---- 3. The generated stack, through pamtester -------------------------------------------------------
  echo "3. pamtester through the generated common-auth (pam_wrapper)"
  if ! command -v pamtester >/dev/null || ! ldconfig -p | grep -q 'libpam_wrapper\.so '; then
    echo "  skip  pamtester or libpam_wrapper is missing (make deps)"
  else
    STATE=$WORK/state SERVICES=$WORK/services
    install -d -m 0700 "$STATE" "$SERVICES"
    : >"$WORK/empty.conf"; chmod 600 "$WORK/empty.conf"
    RULES=$WORK/rules.conf
    printf '%s\n' "passcode_after_reboot = no" "passcode_after_enrollment_change = no" "idle_limit = 0" \
      "passcode_max_age = 0" >"$RULES"; chmod 600 "$RULES"
    # pamtester answers through pipes, with no terminal: its scripted conversation is this check's UI, so the services
    # it runs are named in gui_services= (docs/INSTALL.md, "Intent"), as a display manager's would be.
    GUI="gui_services=login-check,sshd,login,sudo"
    sed "s#pam_localauth\.so#$MODULE state_dir=$STATE conf=$RULES timeout=2 $GUI#" "$WORK/common-auth.enabled" >"$SERVICES/common-auth"
    # libpam resolves a relative @include in /etc/pam.d even under pam_wrapper; an absolute one is read as is.
    printf '%s\n' "@include $SERVICES/common-auth" "account required pam_permit.so" >"$SERVICES/login-check"
    printf '%s\n' "auth required pam_deny.so" >"$SERVICES/other"
    cp "$SERVICES/login-check" "$SERVICES/sshd"
    for u in "$USER_A" "$USER_B"; do
      if getent passwd "$u" | grep -q "$COMMENT"; then userdel "$u"; fi
      useradd -M -s /usr/sbin/nologin -c "$COMMENT" "$u" || die "useradd $u failed"
      CREATED+=("$u")
    done
    printf '%s\n' "$USER_A:unix-a-1357" "$USER_B:unix-b-2468" | chpasswd || die "chpasswd failed"
    "$CTL" enroll "$USER_A" right-index --state-dir "$STATE" >/dev/null || die "enroll failed"
    echo 2468 | "$CTL" passcode set "$USER_A" --state-dir "$STATE" >/dev/null || die "passcode set failed"
    TOUCHES=()
    touch_next() { # touch_next TOUCH-ARGUMENTS: presented, in order, to the prompts of the next pt run
      TOUCHES+=("$*")
    }
    pt() { # pt USER [TYPED [SERVICE]]: sets OUT and RC; the pending touches go to the prompts as they wait
      local input='' toucher=''
      [ -z "${2-}" ] || input=$2$'\n'
      if [ ${#TOUCHES[@]} -gt 0 ]; then
        local pending=("${TOUCHES[@]}")
        TOUCHES=()
        (
          for t in "${pending[@]}"; do
            # shellcheck disable=SC2086 # each entry is a touch's arguments, split on purpose
            "$CTL" touch "$USER_A" $t --wait 10 --state-dir "$STATE" >/dev/null 2>&1
          done
        ) &
        toucher=$!
      fi
      printf '%s' "$input" | env LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$SERVICES" \
        pamtester "${3:-login-check}" "$1" authenticate >"$WORK/pamtester.out" 2>&1
      RC=$?
      if [ -n "$toucher" ]; then
        pkill -P "$toucher" 2>/dev/null
        kill "$toucher" 2>/dev/null
        wait "$toucher" 2>/dev/null
      fi
      OUT=$(grep -v '^PWRAP_' "$WORK/pamtester.out")
    }
    touch_next right-index --quality 1
    pt "$USER_A"
    check "enrolled user: a finger authenticates, no prompt for a secret" \
      test "$RC" -eq 0 -a -z "$(grep -e 'Passcode:' -e 'Password:' <<<"$OUT")"
    for _ in 1 2 3; do touch_next right-index --from someone-else --quality 1; done
    pt "$USER_A" 9999
    check "enrolled user: three wrong fingers, a wrong passcode: refused, no Unix password prompt" \
      test "$RC" -ne 0 -a -n "$(grep 'Wrong passcode' <<<"$OUT")" -a -z "$(grep 'Password:' <<<"$OUT")"
    touch_next right-index --from someone-else --quality 1
    touch_next --fallback
    pt "$USER_A" 2468
    check "enrolled user: a wrong finger, the fallback button, the passcode: authenticated" \
      test "$RC" -eq 0 -a -n "$(grep 'Enter Passcode:' <<<"$OUT")" -a -z "$(grep 'Password:' <<<"$OUT")"
    pt "$USER_B" unix-b-2468
    check "user without a passcode: pam_unix asks the Unix password, which authenticates" \
      test "$RC" -eq 0 -a -n "$(grep 'Password:' <<<"$OUT")"
    pt "$USER_A" unix-a-1357 sshd
    check "service sshd: pam_localauth is skipped (sshd would answer a passcode prompt with the password)" \
      test "$RC" -eq 0 -a -n "$(grep 'Password:' <<<"$OUT")" -a -z "$(grep -e 'Passcode' -e 'finger' <<<"$OUT")"
    pt localauth-inst-nobody 2468
    check "unknown user: pam_localauth asks nothing, as for a user without a passcode; pam_unix asks and refuses" \
      test "$RC" -ne 0 -a -z "$(grep -e 'Passcode' -e 'finger' <<<"$OUT")" -a -n "$(grep 'Password:' <<<"$OUT")"
    pt "$USER_B" wrong-password
    check "user without a passcode: a wrong Unix password fails" test "$RC" -ne 0

    # The shipped per-service snippets load and work (their @include common-auth is the system's, read only).
    # pam.d/su starts with pam_rootok, which lets root in at once: LoginSuTests runs su as an unprivileged user.
    for service in login sudo; do
      sed "s#pam_localauth\.so#$MODULE state_dir=$STATE conf=$RULES timeout=2 $GUI#" "$ROOT/pam.d/$service" >"$SERVICES/$service"
      # docs/RULES.md, "One finger request at a time": another program's prompt that ended within two seconds makes
      # this one fall back to the passcode, so each pamtester waits that out.
      sleep 2.1
      touch_next right-index --quality 1
      pt "$USER_A" "" "$service"
      reason=$(sed -n 's/^auth .*pam_localauth\.so.*\[reason=\([^]]*\)\].*/\1/p' "$ROOT/pam.d/$service")
      check "pam.d/$service: a finger authenticates; the prompt says \"to $reason\"" \
        test "$RC" -eq 0 -a -n "$(grep -F "sensor to $reason." <<<"$OUT")"
    done
  fi

  check "pam-auth-update --disable localauth succeeds" pau --disable localauth
  check "the pam_localauth lines are gone" sh -c "! grep -q pam_localauth '$R'/etc/pam.d/common-*"
fi

check "the system's common-* files, /var/lib/pam and debconf are unchanged" md5sum -c --quiet "$WORK/system.md5"

echo
if [ "$FAILS" -eq 0 ]; then echo "check-install: all $PASSES checks passed."; else echo "check-install: $FAILS of $((PASSES + FAILS)) checks FAILED."; exit 1; fi
