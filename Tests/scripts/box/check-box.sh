#!/bin/bash
# make check-box: pam_localauth end to end on a real Linux desktop's system layer (issue 38): systemd, logind's
# sessions and seats, users' service managers, polkitd, sudo, pkexec and pkttyagent, xterm under Xvfb, in a box
# (Tests/scripts/box/box.sh: systemd as PID 1 of a throw-away container over an overlay of /; nothing on the host
# changes). The built files are installed in the box and PAM wired as docs/INSTALL.md says (setup.sh); each flow runs
# as a box user in a logind session made by `systemd-run -p PAMName=login` (run0's path), on a pseudo-terminal
# whose master root's systemd-run holds, driven by Tests/scripts/e2e-ptydrive.py; `localauthctl touch --wait`
# presents the finger to the prompt that waits. Prints "ok"/"FAILED" per check, the module's log lines of each flow
# (from the box's journal), and "N passed, N failed"; exits 1 if any check failed.
#
#  1. sudo in a seat0 session: the finger is offered and a touch runs the command; three wrong fingers, the passcode.
#  2. sudo in a session with no seat: the passcode, never the finger.
#  3. sudo in a seat0 session that is no longer the active one (another seat0 session opened since): the passcode.
#  4. The user manager: an xterm it started under Xvfb, running sudo while the user's display session (seat0) is
#     active: the finger, and the same for an xterm an SSH login of the user opens on that display through the user
#     manager (seen on the screen); `systemd-run --user --pty` sudo from a session with no seat, for a user with no other
#     session (as over SSH), and for a user whose display session is active: the passcode.
#  5. polkit: pkexec with pkttyagent in a seat0 session: the finger, a touch runs the command as root; three wrong
#     fingers, the passcode; pkexec from a session with no seat: the passcode; polkit-agent-helper-1 started by
#     hand with no agent: no finger prompt, no touch accepted.
#  6. An SSH login on the box's loopback (a remote logind session): sudo and pkexec get the passcode.
#  7. Data protection: an app's WhenUnlocked item reads while the user's seat0 session is unlocked, not while logind's
#     LockedHint is set; an AfterFirstUnlock item reads in both.
#  8. An app without a terminal gets the desktop's dialog (polkit; check-box-dialog.sh): pkttyagent names the app and
#     its reason, a touch succeeds, the agent ended: -2; no agent: -1004; the biometrics policy answered with the
#     passcode: -1; a .biometryCurrentSet item reads after a touch, not after the passcode; lxpolkit and polkit-gnome
#     under Xvfb: a touch succeeds (pictured), Cancel (lxpolkit) and Escape (polkit-gnome): -2.
#
# Needs root. Environment: LOCALAUTH_MODULE (the Makefile's STAGED folder), PAMDIR; BOX_LOGS=DIR keeps each
# flow's transcript and the box's journal there.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BOX=$HERE/box.sh
LIB=/opt/localauth-box
PAMDIR=${PAMDIR:-$(pkg-config --variable=libdir pam 2>/dev/null || echo /lib/x86_64-linux-gnu)/security}
export PAMDIR
# What `make install` writes to under /usr, which is otherwise the host's, read-only, in the box (box.sh); polkitd
# reads actions only from /usr/share/polkit-1/actions.
export BOX_USR_WRITABLE="$PAMDIR /usr/sbin /usr/share/pam-configs /usr/share/polkit-1/actions"
PASSES=0
FAILS=0

die() { echo "check-box: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root"
[ -f "${LOCALAUTH_MODULE:-}" ] || die "LOCALAUTH_MODULE must name the staged module (make check-box)"
[ -x "${LOCALAUTH_APP:-}" ] || die "LOCALAUTH_APP must name the staged la-app (make check-box)"
for tool in systemd-run nsenter unshare python3 sudo pkexec pkttyagent Xvfb xterm xdotool lxpolkit import; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || die "$tool is missing (make deps)"
done
[ -x /lib/systemd/systemd ] || die "systemd is missing (make deps)"
[ -x /usr/lib/polkit-1/polkit-agent-helper-1 ] || die "polkitd is missing (make deps)"
[ -x /usr/lib/policykit-1-gnome/polkit-gnome-authentication-agent-1 ] || die "polkit-gnome is missing (make deps)"

WORK=$(mktemp -d /tmp/localauth-box.XXXXXX) || die "mktemp failed"
LOGS=${BOX_LOGS:-$WORK/logs}
mkdir -p "$LOGS" && rm -f "$LOGS"/*.txt "$LOGS"/*.log
cleanup() {
  if [ -d "$WORK/box" ]; then
    "$BOX" ns "$WORK/box" journalctl -b -q --no-pager >"$LOGS/journal.txt" 2>&1
    "$BOX" stop "$WORK/box" || echo "check-box: the box did not stop cleanly" >&2
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

inbox() { "$BOX" ns "$WORK/box" "$@"; }
t_start=$(date +%s%N)
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
wait_for() { # wait_for SECONDS COMMAND...: true once the command succeeds in the box
  local n=$(($1 * 10)); shift
  while [ "$n" -gt 0 ]; do inbox "$@" >/dev/null 2>&1 && return 0; sleep 0.1; n=$((n - 1)); done
  return 1
}

# ---- Checks and the module's log ----------------------------------------------------------------------------------
CASE="" OUT="" CURSOR=""
check() { # check DESCRIPTION COMMAND...: runs the command quietly; counts and reports the result
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then PASSES=$((PASSES + 1)); echo "  ok      $what"
  else FAILS=$((FAILS + 1)); echo "  FAILED  $what"; fi
}
has() { grep -Eq -- "$1" "$OUT"; }
lacks() { ! grep -Eq -- "$1" "$OUT"; }
has_all() { local re; for re in "$@"; do has "$re" || return 1; done; }
has_but_not() { has "$1" && lacks "$2"; }
helper_lacks() { ! sed -n '/^HELPER-BEGIN/,/^HELPER-END/p' "$OUT" | grep -Eq -- "$1"; }
mark_journal() { CURSOR=$(inbox journalctl -q -n 0 --show-cursor | sed -n 's/^-- cursor: //p'); }
# The module's and the helper's lines since the flow began, into $LOGS/CASE.log, shown indented.
module_log() {
  inbox journalctl -q --no-pager -o short-monotonic ${CURSOR:+--after-cursor="$CURSOR"} |
    grep -E 'pam_localauth|localauth-helper' >"$LOGS/$CASE.log"
  sed -E 's/^\[ *[0-9.]+\] localauth-box //; s/^/      log: /' "$LOGS/$CASE.log" | cut -c1-400
}
# On a failed check, the flow's transcript follows its log lines.
show_transcript() { sed 's/^/      | /' "$OUT" | tail -n 25; }

# docs/RULES.md, "One finger request at a time": a prompt within two seconds of another program's falls back to the
# passcode, so each flow starts 2.1 s after the previous one ended.
LAST_END=0
pace() {
  local wait_ns=$((LAST_END + 2100000000 - $(date +%s%N)))
  [ "$wait_ns" -le 0 ] || sleep "$(printf '%d.%09d' $((wait_ns / 1000000000)) $((wait_ns % 1000000000)))"
}

# flow NAME TITLE USER SEAT|noseat SESSION-STEP DRIVER-STEP...: runs session.sh SESSION-STEP as USER in a new logind
# session (on seat0 or none) on a pseudo-terminal, driven by the steps; the transcript goes to $LOGS/NAME.txt (OUT).
# SESSION-STEP may carry arguments, separated by spaces ("app pkttyagent evaluate owner").
flow() {
  local name=$1 title=$2 user=$3 seat=$4 step=$5; shift 5
  local where=()
  [ "$seat" = noseat ] || where=(-E XDG_SEAT=seat0)
  CASE=$name OUT=$LOGS/$name.txt
  echo "$title"
  pace
  mark_journal
  inbox python3 "$LIB/e2e-ptydrive.py" --timeout 10 "$@" -- \
    systemd-run --quiet --pty --collect --service-type=exec -p PAMName=login -p User="$user" "${where[@]}" \
    -p WorkingDirectory=/home/"$user" -- "$LIB/session.sh" $step >"$OUT" 2>&1
  LAST_END=$(date +%s%N)
  sed -i 's/\r//g' "$OUT"
}
touch_step() { # touch_step USER [COUNT [FROM]]: a driver step presenting USER's finger (or FROM's) COUNT times
  local user=$1 count=${2:-1} from=${3:-} one
  one="localauthctl touch $user right-index --quality 1 --wait 8${from:+ --from $from}"
  local all=$one i
  for ((i = 1; i < count; i++)); do all="$all; $one"; done
  echo "run:$all"
}
# The end of a flow: the module's log, and the transcript if a check of the flow failed.
end_flow() { local before=$1; module_log; [ "$FAILS" -eq "$before" ] || show_transcript; }

# ---- The box -------------------------------------------------------------------------------------------------------
echo "Booting the box (systemd $(/lib/systemd/systemd --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p'), polkit $(dpkg-query -W -f '${Version}' polkitd 2>/dev/null))"
if ! "$BOX" start "$WORK/box" "$HERE/setup.sh" >"$LOGS/boot.txt" 2>&1; then
  cat "$LOGS/boot.txt"
  die "the box did not boot"
fi
sed 's/^/  /' "$LOGS/boot.txt"
inbox sh -c 'for u in dbus systemd-logind; do echo "$u=$(systemctl is-active $u)"; done; loginctl list-seats --no-legend' >"$WORK/sys" 2>&1
OUT=$WORK/sys
check "the box runs dbus and systemd-logind, with seat0" has_all '^dbus=active' '^systemd-logind=active' '^seat0'
check "the module, its library and the setuid helper are installed in the box" \
  inbox sh -c "test -f '$PAMDIR/pam_localauth.so' -a -f '$PAMDIR/pam_localauth/extra.so' -a -u /usr/sbin/localauth-helper -a -x /usr/sbin/localauthctl"

# ---- sshd ---------------------------------------------------------------------------------------------------------
# sshd on the box's loopback, started as a unit; ssh -tt on the pseudo-terminal the driver holds, as root's client.
inbox sh -c 'mkdir -p /run/sshd && chmod 0755 /run/sshd'
inbox systemd-run --quiet --unit=lbox-sshd -- /usr/sbin/sshd -D -f /etc/lbox-ssh/sshd_config -E /run/lbox-sshd.log
wait_for 10 sh -c 'ss -ltn | grep -q "127.0.0.1:2222"'
SSH=(ssh -tt -i /etc/lbox-ssh/userkey -p 2222 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes
  -o LogLevel=ERROR lbox-alice@127.0.0.1)
ssh_flow() { # ssh_flow NAME TITLE SESSION-STEP DRIVER-STEP...: session.sh SESSION-STEP over SSH as lbox-alice
  local name=$1 title=$2 step=$3; shift 3
  CASE=$name OUT=$LOGS/$name.txt
  echo "$title"
  pace
  mark_journal
  inbox python3 "$LIB/e2e-ptydrive.py" --timeout 10 "$@" -- "${SSH[@]}" "$LIB/session.sh" "$step" >"$OUT" 2>&1
  LAST_END=$(date +%s%N)
  sed -i 's/\r//g' "$OUT"
}

# ---- 1. sudo in a seat0 session ------------------------------------------------------------------------------------
before=$FAILS
flow sudo-seat "1. sudo in a seat0 session (the active one): the finger" lbox-alice seat0 sudo \
  "expect:Place your finger" "$(touch_step lbox-alice)" 'expect:^0\r?$' "expect:SUDO-EXIT=" "eof"
check "the session is on seat0 and active" has 'SESSION id=[0-9]+ seat=seat0 active=yes remote=no type=tty class=user'
check "the finger is offered, naming the command" has 'Place your finger on the sensor to run `/usr/bin/id -u` as root \(sudo\)'
check "a touch runs the command as root, with no passcode asked" has_but_not '^SUDO-EXIT=0' 'Enter Passcode'
end_flow "$before"

before=$FAILS
flow sudo-seat-wrong "1. sudo in a seat0 session: three wrong fingers, then the passcode" lbox-alice seat0 sudo \
  "expect:Place your finger" "$(touch_step lbox-alice 3 someone-else)" "expect:Try again\\." "expect:Try again\\." \
  "expect:Enter Passcode: " "sleep:0.3" "send:2468" 'expect:^0\r?$' "expect:SUDO-EXIT=" "eof"
check "three wrong fingers: \"Try again.\" twice, then the passcode prompt" has 'Enter Passcode: '
check "the passcode runs the command as root" has '^SUDO-EXIT=0'
end_flow "$before"

# ---- 2. sudo in a session with no seat -----------------------------------------------------------------------------
# Either prompt takes the passcode (the finger's is "Place your finger or enter your passcode"), so the flow ends
# quickly whatever the module decides; the checks say what it decided.
passcode_steps() { echo "expect:Enter Passcode: |Place your finger"; echo "sleep:0.3"; echo "send:$1"; echo 'expect:^0\r?$'; echo "expect:SUDO-EXIT="; echo "eof"; }
mapfile -t ALICE_PASSCODE < <(passcode_steps 2468)
mapfile -t BOB_PASSCODE < <(passcode_steps 1357)
before=$FAILS
flow sudo-noseat "2. sudo in a session with no seat: the passcode" lbox-alice noseat sudo "${ALICE_PASSCODE[@]}"
check "the session has no seat" has 'SESSION id=[0-9]+ seat= active=yes remote=no type=tty class=user'
check "no finger is offered" lacks 'Place your finger'
check "the passcode is asked and runs the command as root" has_all 'Enter Passcode: ' '^SUDO-EXIT=0'
end_flow "$before"

# ---- 3. sudo in a seat0 session that is no longer the active one ---------------------------------------------------
# The session waits until it is switched away from: lbox-carol's seat0 session, opened after it, becomes the active one.
before=$FAILS
flow sudo-inactive "3. sudo in a seat0 session that another seat0 session replaced as the active one: the passcode" \
  lbox-alice seat0 sudo-inactive "expect:WAITING" \
  "run:systemd-run --quiet --unit=lbox-switch -p PAMName=login -p User=lbox-carol -E XDG_SEAT=seat0 -E XDG_SESSION_TYPE=x11 sleep 120" \
  "${ALICE_PASSCODE[@]}"
inbox systemctl stop lbox-switch.service >/dev/null 2>&1
check "the session is on seat0, no longer active" has 'SESSION id=[0-9]+ seat=seat0 active=no remote=no type=tty class=user'
check "no finger is offered" lacks 'Place your finger'
check "the passcode is asked and runs the command as root" has_all 'Enter Passcode: ' '^SUDO-EXIT=0'
end_flow "$before"

# ---- 4. The user manager -------------------------------------------------------------------------------------------
# lbox-alice sits at seat0: a display session (type x11, on seat0, active), Xvfb and an xterm started by her service
# manager (as D-Bus starts GNOME Terminal's server), running sudo; xterm logs what it shows (-lf).
# um USER ARGS...: `systemd-run --user ARGS` as USER, talking to USER's manager on its bus; through setpriv, not PAM
# (`-M USER@` would open a logind session of its own for its bus bridge).
um() {
  local user=$1 uid; shift
  uid=$(inbox id -u "$user")
  inbox setpriv --reuid="$user" --regid="$user" --init-groups env XDG_RUNTIME_DIR=/run/user/"$uid" \
    systemd-run --user --quiet "$@"
}
# answer_xterm LOG: lbox-alice's sudo in an xterm on display :7 that logs what it shows to LOG: a touch for the
# finger's prompt, else the passcode typed into the window; then LOG joins the flow's transcript.
answer_xterm() {
  local log=$1
  if wait_for 10 grep -Eq 'Place your finger|Enter Passcode: ' "$log"; then
    if inbox grep -q 'Place your finger' "$log"; then
      inbox localauthctl touch lbox-alice right-index --quality 1 --wait 8 >/dev/null 2>&1
    else # the passcode, typed into the xterm, ends the flow
      inbox env DISPLAY=:7 sh -c 'xdotool mousemove 5 5 && sleep 0.3 && xdotool type 2468 && xdotool key Return' >/dev/null 2>&1
    fi
  fi
  wait_for 10 grep -q 'SUDO-EXIT=' "$log"
  LAST_END=$(date +%s%N)
  inbox cat "$log" >>"$OUT" 2>&1
  sed -i 's/\r//g' "$OUT"
}
before=$FAILS
CASE=usermgr-xterm OUT=$LOGS/usermgr-xterm.txt
echo "4. An xterm started by the user manager under Xvfb, while the user's display session is active: the finger"
pace
mark_journal
inbox systemd-run --quiet --unit=lbox-display -p PAMName=login -p User=lbox-alice -E XDG_SEAT=seat0 \
  -E XDG_SESSION_TYPE=x11 -- sleep 300
wait_for 10 sh -c 'd=$(loginctl show-user lbox-alice -p Display --value) && [ -n "$d" ] && [ "$(loginctl show-session "$d" -p Active --value)" = yes ]'
inbox sh -c 'd=$(loginctl show-user lbox-alice -p Display --value); echo "DISPLAY-SESSION $(loginctl show-session "$d" -p Id -p Seat -p Type -p Active | tr "\n" " ")"' >"$OUT" 2>&1
um lbox-alice --unit=lbox-xvfb -- Xvfb :7 -nolisten tcp -ac
wait_for 10 test -S /tmp/.X11-unix/X7
um lbox-alice --unit=lbox-xterm -E DISPLAY=:7 -- xterm -l -lf /tmp/lbox-xterm.log -e "$LIB/session.sh" sudo
answer_xterm /tmp/lbox-xterm.log
check "the display session is lbox-alice's, on seat0, active" has 'DISPLAY-SESSION Id=[0-9]+ Seat=seat0 Type=x11 Active=yes'
check "sudo runs in the user manager, in no logind session" has 'SESSION none cgroup=/user.slice/user-[0-9]+.slice/user@[0-9]+.service/'
check "the finger is offered in the xterm" has 'Place your finger'
check "a touch runs the command as root, with no passcode asked" has_but_not '^SUDO-EXIT=0' 'Enter Passcode'
end_flow "$before"

# The same user from a session with no seat, while her display session is active: a pseudo-terminal of her user
# manager that this session's systemd-run holds shows nothing on the display.
before=$FAILS
flow usermgr-away "4. systemd-run --user --pty sudo from a session with no seat while the display session is active: the passcode" \
  lbox-alice noseat user-pty "${ALICE_PASSCODE[@]}"
check "the caller's session has no seat; sudo runs in the user manager" \
  has_all 'SESSION id=[0-9]+ seat= ' 'SESSION none cgroup=/user.slice/user-[0-9]+.slice/user@[0-9]+.service/'
check "no finger is offered" lacks 'Place your finger'
check "the passcode is asked and runs the command as root" has_all 'Enter Passcode: ' '^SUDO-EXIT=0'
end_flow "$before"

# An SSH login of the same user, while she sits at the display, opens a terminal window there through the shared
# user manager: the window is on her screen, its prompt names the command, so a touch approves what it shows.
before=$FAILS
CASE=ssh-xterm OUT=$LOGS/ssh-xterm.txt
echo "4. An SSH login opens an xterm on the user's display through the user manager: the finger, in that window"
pace
mark_journal
inbox "${SSH[@]}" systemd-run --user --quiet --unit=lbox-xterm2 -E DISPLAY=:7 -- \
  xterm -l -lf /tmp/lbox-xterm2.log -e "$LIB/session.sh" sudo >"$OUT" 2>&1
answer_xterm /tmp/lbox-xterm2.log
check "sudo runs in the user manager, in no logind session" has 'SESSION none cgroup=/user.slice/user-[0-9]+.slice/user@[0-9]+.service/'
check "the finger is offered in the window, naming the command" has 'Place your finger on the sensor to run `/usr/bin/id -u` as root \(sudo\)'
check "a touch runs the command as root, with no passcode asked" has_but_not '^SUDO-EXIT=0' 'Enter Passcode'
end_flow "$before"

inbox setpriv --reuid=lbox-alice --regid=lbox-alice --init-groups env XDG_RUNTIME_DIR=/run/user/"$(inbox id -u lbox-alice)" \
  systemctl --user stop lbox-xterm.service lbox-xterm2.service lbox-xvfb.service >/dev/null 2>&1
inbox systemctl stop lbox-display.service >/dev/null 2>&1

# A user whose only session has no seat (as an SSH login's): the same through the user manager.
before=$FAILS
flow usermgr-ssh "4. systemd-run --user --pty sudo, the user's only session having no seat: the passcode" \
  lbox-bob noseat user-pty "${BOB_PASSCODE[@]}"
check "the caller's session has no seat; sudo runs in the user manager" \
  has_all 'SESSION id=[0-9]+ seat= ' 'SESSION none cgroup=/user.slice/user-[0-9]+.slice/user@[0-9]+.service/'
check "no finger is offered" lacks 'Place your finger'
check "the passcode is asked and runs the command as root" has_all 'Enter Passcode: ' '^SUDO-EXIT=0'
end_flow "$before"

# ---- 5. polkit -----------------------------------------------------------------------------------------------------
before=$FAILS
flow pkexec-seat "5. pkexec with pkttyagent in a seat0 session: the finger" lbox-alice seat0 pkexec \
  "expect:Place your finger" "$(touch_step lbox-alice)" "expect:AUTHENTICATION COMPLETE" "expect:PKEXEC-OUT" "eof"
check "the session is on seat0 and active" has 'SESSION id=[0-9]+ seat=seat0 active=yes'
check "pkttyagent shows the finger prompt, pointing at the request the agent shows" \
  has 'Place your finger on the sensor to approve the request pkttyagent shows \(polkit-1\)'
check "a touch runs the command as root, with no passcode asked" has_but_not 'PKEXEC-OUT 0 PKEXEC-EXIT=0' 'Enter Passcode'
end_flow "$before"

before=$FAILS
flow pkexec-seat-wrong "5. pkexec with pkttyagent in a seat0 session: three wrong fingers, then the passcode" lbox-alice seat0 pkexec \
  "expect:Place your finger" "$(touch_step lbox-alice 3 someone-else)" "expect:Enter Passcode: " "sleep:0.5" "send:2468" \
  "expect:AUTHENTICATION COMPLETE" "expect:PKEXEC-OUT" "eof"
check "three wrong fingers: the passcode prompt" has 'Enter Passcode: '
check "the passcode runs the command as root" has 'PKEXEC-OUT 0 PKEXEC-EXIT=0'
end_flow "$before"

before=$FAILS
flow pkexec-noseat "5. pkexec with pkttyagent in a session with no seat: the passcode" lbox-alice noseat pkexec \
  "expect:Enter Passcode: |Place your finger" "sleep:0.5" "send:2468" "expect:PKEXEC-OUT" "eof"
check "the session has no seat" has 'SESSION id=[0-9]+ seat= active=yes'
check "no finger is offered" lacks 'Place your finger'
check "the passcode is asked and runs the command as root" has_all 'Enter Passcode: ' 'PKEXEC-OUT 0 PKEXEC-EXIT=0'
end_flow "$before"

before=$FAILS
flow agent-helper "5. polkit-agent-helper-1 started by hand in a seat0 session, with no agent: no finger" lbox-alice seat0 agent-helper \
  "run:localauthctl touch lbox-alice right-index --quality 1 --wait 4 >/dev/null 2>&1; echo TOUCH-EXIT=\$? >/run/lbox-touch" \
  "expect:HELPER-END" "eof"
sleep 0.2
inbox cat /run/lbox-touch >>"$OUT" 2>&1
check "the helper ran PAM and failed (no agent, no cookie)" has_all '^HELPER-EXIT=[1-9]' '^HELPER-END'
check "no finger prompt" helper_lacks 'Place your finger'
check "no touch was taken (no prompt waited for one)" has '^TOUCH-EXIT=[1-9]'
end_flow "$before"

# ---- 6. An SSH login (remote): sudo and pkexec get the passcode ---------------------------------------------------
before=$FAILS
ssh_flow ssh-sudo "6. sudo in an SSH login: the passcode" sudo "${ALICE_PASSCODE[@]}"
check "the SSH login is a remote logind session" has 'SESSION id=[0-9]+ seat= active=yes remote=yes'
check "no finger is offered" lacks 'Place your finger'
check "the passcode is asked and runs the command as root" has_all 'Enter Passcode: ' '^SUDO-EXIT=0'
end_flow "$before"
before=$FAILS
ssh_flow ssh-pkexec "6. pkexec with pkttyagent in an SSH login: the passcode" pkexec \
  "expect:Enter Passcode: |Place your finger" "sleep:0.5" "send:2468" "expect:PKEXEC-OUT" "eof"
check "no finger is offered" lacks 'Place your finger'
check "the passcode is asked and runs the command as root" has_all 'Enter Passcode: ' 'PKEXEC-OUT 0 PKEXEC-EXIT=0'
end_flow "$before"
inbox systemctl stop lbox-sshd.service >/dev/null 2>&1

# ---- 7. Data protection follows the desktop's lock -----------------------------------------------------------------
# lbox-alice's passcode was accepted in this boot (case 1): her WhenUnlocked item reads while her seat0 session is
# unlocked, not while its LockedHint is set (as GNOME Shell, KDE's locker or xss-lock set it); AfterFirstUnlock does.
before=$FAILS
flow keychain-lock "7. Data protection: a WhenUnlocked item while the session is unlocked, locked (LockedHint), unlocked again" \
  lbox-alice seat0 keychain "expect:AGAIN-WU" "eof"
check "the session is on seat0 and active" has 'SESSION id=[0-9]+ seat=seat0 active=yes'
check "both items are added" has '^ADD status 0 status 0'
check "unlocked: the WhenUnlocked item is read" has '^UNLOCKED-WU status 0 data secret-wu'
check "logind records the lock" has '^HINT LockedHint=yes'
check "locked: the WhenUnlocked item is errSecInteractionNotAllowed (-25308)" has '^LOCKED-WU status -25308'
check "locked: the AfterFirstUnlock item is still read" has '^LOCKED-AFU status 0 data secret-afu'
check "unlocked again: the WhenUnlocked item is read" has '^AGAIN-WU status 0 data secret-wu'
end_flow "$before"

# ---- 8. An app without a terminal gets the desktop's dialog (polkit) ------------------------------------------------
# shellcheck source=Tests/scripts/box/check-box-dialog.sh
. "$HERE/check-box-dialog.sh"

# ---- Teardown ------------------------------------------------------------------------------------------------------
echo "Stopping the box"
inbox journalctl -b -q --no-pager >"$LOGS/journal.txt" 2>&1
cg=$("$BOX" cgroup "$WORK/box")
"$BOX" stop "$WORK/box" | sed 's/^/  /'
check "the box stopped and its cgroup is gone" test ! -e "$cg"
rm -rf "$WORK/box"
echo
echo "check-box: $PASSES passed, $FAILS failed ($(( $(ms_since "$t_start") / 1000 )) s; logs in $LOGS)"
[ "$FAILS" -eq 0 ]
