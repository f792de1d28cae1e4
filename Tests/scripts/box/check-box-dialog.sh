# check-box-dialog.sh: case 8 of check-box.sh, which sources it (its flow, check, inbox, wait_for, pace, module_log
# and the rest come from there): an app without a terminal gets the desktop's dialog through polkit (issue 39).
# la-app starts with no terminal (setsid, its standard streams on a file, as a menu starts an app) as lbox-alice in
# her active seat0 session; localauth-helper asks polkitd (CheckAuthorization, action org.localauth.evaluate or
# org.localauth.evaluate.biometrics, the dialog's text "“la-app” is trying to <reason>.") and the agent registered for
# the app draws the dialog, whose PAM service polkit-1 runs pam_localauth first.
#
# What polkitd 122 answers (probed in this box): a touch in the dialog → authorized; no agent → a challenge never
# made (is_challenge); a dismissed dialog → polkit.dismissed, which only GNOME's kind of agent reports (GNOME Shell,
# polkit-gnome): pkttyagent cannot be dismissed (Ctrl-C ends it, EOF aborts it) and lxpolkit's Cancel is a failure;
# an inactive or remote session → not authorized, with no dialog. The helper answers userCancel for all three kinds
# of Cancel (for pkttyagent's and lxpolkit's, from how the module's run in polkit-1 ended).
#
# Flows: pkttyagent registered for the app (`pkttyagent --process`) on the session's terminal: a touch, the agent
# ended, no agent, the biometrics policy answered with the passcode, a .biometryCurrentSet keychain item; under Xvfb:
# lxpolkit (the app in the session, as LXDE starts apps; a touch, Cancel) and polkit-gnome (the app a unit of the
# user manager, as GNOME starts apps; a touch, Escape),
# each dialog pictured in $LOGS/NAME.png (docs/images/polkit-dialog.png is one of them, committed once).

MESSAGE='“la-app” is trying to open the notes vault\.'
FINGER_PKTTY='Info: Place your finger on the sensor to approve the request pkttyagent shows \(polkit-1\)\.'
# helper_said REGEX: a line of localauth-helper's in the box's journal since the flow began matches.
helper_said() { inbox journalctl -q --no-pager --after-cursor="$CURSOR" | grep 'localauth-helper' | grep -Eqi -- "$1"; }

# ---- 8a. pkttyagent registered for the app ------------------------------------------------------------------------
before=$FAILS
flow app-dialog "8. An app without a terminal, pkttyagent registered for it: the dialog names the app, a touch" \
  lbox-alice seat0 "app pkttyagent evaluate owner" \
  "expect:Place your finger" "$(touch_step lbox-alice)" "expect:APP-OUT" "eof"
check "the session is on seat0 and active" has 'SESSION id=[0-9]+ seat=seat0 active=yes'
check "the app has no terminal" has '^APP-PID [0-9]+ tty=\?$'
check "pkttyagent is asked for org.localauth.evaluate" has '==== AUTHENTICATING FOR org\.localauth\.evaluate ===='
check "the dialog names the app and its reason (polkit.message)" has "$MESSAGE\$"
check "the module's finger prompt shows in the dialog" has "^$FINGER_PKTTY\$"
check "a touch: the app's evaluation succeeds, no passcode asked" has_but_not '^APP-OUT evaluate success' 'Enter Passcode'
end_flow "$before"

# pkttyagent cannot be dismissed: the user ends it (Ctrl-C, here SIGINT to the agent alone) while the finger waits;
# polkitd reports no dismissal, the module's run ended with the agent's conversation gone.
before=$FAILS
flow app-agent-gone "8. An app without a terminal: pkttyagent ended (SIGINT) while the finger waits: userCancel" \
  lbox-alice seat0 "app pkttyagent evaluate owner" \
  "expect:Place your finger" "sleep:0.3" 'run:kill -INT "$(cat /home/lbox-alice/agent.pid)"' "expect:APP-OUT" "eof"
check "pkttyagent showed the finger prompt, then ended" has_all "$FINGER_PKTTY" '^AGENT-EXIT=[1-9]'
check "the agent gone: evaluate error -2 (userCancel)" has '^APP-OUT evaluate error -2 '
end_flow "$before"

before=$FAILS
flow app-noagent "8. An app without a terminal and no agent registered: notInteractive" \
  lbox-alice seat0 "app none evaluate owner" "expect:APP-OUT" "eof"
check "the app has no terminal" has '^APP-PID [0-9]+ tty=\?$'
check "no agent: evaluate error -1004 (notInteractive)" has '^APP-OUT evaluate error -1004 '
check "the helper's log line says there is no agent" helper_said 'agent'
end_flow "$before"

before=$FAILS
flow app-bio-passcode "8. The biometrics policy, three wrong fingers then the passcode in the dialog: refused" \
  lbox-alice seat0 "app pkttyagent evaluate biometrics" \
  "expect:Place your finger" "$(touch_step lbox-alice 3 someone-else)" "expect:Enter Passcode: " "sleep:0.5" \
  "send:2468" "expect:APP-OUT" "eof"
check "pkttyagent is asked for org.localauth.evaluate.biometrics" \
  has '==== AUTHENTICATING FOR org\.localauth\.evaluate\.biometrics ===='
check "three wrong fingers: the passcode prompt in the dialog" has 'Enter Passcode: '
check "the passcode is not biometry: evaluate error -1 (authenticationFailed)" has '^APP-OUT evaluate error -1 '
end_flow "$before"

# A .biometryCurrentSet item: added with no prompt, read after a touch in the dialog, not after the passcode.
before=$FAILS
flow app-item-add "8. A keychain item gated by .biometryCurrentSet, added by an app without a terminal" \
  lbox-alice seat0 "app none add lbox vault secret-vault biometryCurrentSet" "expect:APP-OUT" "eof"
check "the item is added" has '^APP-OUT status 0 '
end_flow "$before"
before=$FAILS
flow app-item-touch "8. The .biometryCurrentSet item read by an app without a terminal: a touch in the dialog" \
  lbox-alice seat0 "app pkttyagent read lbox vault" \
  "expect:Place your finger" "$(touch_step lbox-alice)" "expect:APP-OUT" "eof"
check "the dialog names the app and the read's reason" has '“la-app” is trying to read your lbox password\.$'
check "a touch: the item is read" has '^APP-OUT status 0 data secret-vault '
end_flow "$before"
before=$FAILS
flow app-item-passcode "8. The .biometryCurrentSet item: three wrong fingers then the passcode in the dialog" \
  lbox-alice seat0 "app pkttyagent read lbox vault" \
  "expect:Place your finger" "$(touch_step lbox-alice 3 someone-else)" "expect:Enter Passcode: " "sleep:0.5" \
  "send:2468" "expect:APP-OUT" "eof"
check "three wrong fingers: the passcode prompt in the dialog" has 'Enter Passcode: '
check "the passcode does not open the item: an error status, no data" has_but_not '^APP-OUT status -[0-9]+ ' 'secret-vault'
end_flow "$before"

# ---- 8b. Graphical agents under Xvfb ------------------------------------------------------------------------------
# desk_flow NAME TITLE AGENT WHERE SCENARIO...: lbox-alice's display session (seat0, x11, active) runs Xvfb :8, the
# agent and then la-app (session.sh desktop); returns once polkitd logged the agent's registration and the app started.
DESK=/home/lbox-alice/desk.out
desk_flow() {
  local name=$1 title=$2; shift 2
  CASE=$name OUT=$LOGS/$name.txt
  echo "$title"
  : >"$OUT"
  pace
  mark_journal
  inbox systemd-run --quiet --collect --unit=lbox-desk -p PAMName=login -p User=lbox-alice -E XDG_SEAT=seat0 \
    -E XDG_SESSION_TYPE=x11 -p WorkingDirectory=/home/lbox-alice -- "$LIB/session.sh" desktop "$@"
  wait_for 15 sh -c "journalctl -q -u polkit --after-cursor='$CURSOR' | grep -q 'Registered Authentication Agent for unix-session'"
  inbox touch /home/lbox-alice/desk.go
}
# window ID TITLE-REGEX: waits (10 s) for a window on :8, prints its id.
window() { wait_for 10 env DISPLAY=:8 xdotool search --name "$1" && inbox env DISPLAY=:8 xdotool search --name "$1" | head -n 1; }
# picture NAME SEEN [WINDOW]: if SEEN (a window id) is not empty, the screen cut to its windows, or WINDOW alone, as
# $LOGS/NAME.png.
picture() {
  rm -f "$LOGS/$1.png"
  [ -n "$2" ] || return 0
  if [ -n "${3:-}" ]; then inbox env DISPLAY=:8 import -window "$3" png:- >"$LOGS/$1.png" 2>/dev/null
  else inbox env DISPLAY=:8 import -window root -trim +repage png:- >"$LOGS/$1.png" 2>/dev/null; fi
}
# end_desk: the app's answer joins the transcript; the display session ends, its programs with it (logind keeps a
# session's processes when its unit stops).
end_desk() {
  local id
  wait_for 15 grep -q '^APP-OUT' "$DESK"
  LAST_END=$(date +%s%N)
  inbox cat "$DESK" >>"$OUT" 2>&1
  id=$(sed -n 's/^SESSION id=\([0-9]*\).*/\1/p' "$OUT" | head -n 1)
  [ -z "$id" ] || inbox loginctl terminate-session "$id" >/dev/null 2>&1
  inbox systemctl stop lbox-desk.service >/dev/null 2>&1
  wait_for 10 sh -c '! test -e /tmp/.X11-unix/X8'
}

# The sessions earlier cases left to lbox-alice (their units stopped, their processes kept) end first, so that the
# display session polkitd judges the user manager's app by (logind's Display) is the one opened here.
inbox loginctl terminate-user lbox-alice >/dev/null 2>&1
wait_for 15 sh -c '! loginctl show-user lbox-alice >/dev/null 2>&1'

before=$FAILS
desk_flow desk-lxpolkit "8. lxpolkit under Xvfb, the app started in the display session: a touch" lxpolkit session evaluate owner
win=$(window '^Authentication$') info=$(window '^Information$')
sleep 0.5
picture desk-lxpolkit "$win"
echo "WINDOWS dialog=${win:-none} info=${info:-none}" >>"$OUT"
inbox localauthctl touch lbox-alice right-index --quality 1 --wait 8 >>"$OUT" 2>&1
# lxpolkit shows a PAM message in a modal window of its own, and answers polkitd once its OK is pressed.
if [ -n "$info" ]; then
  inbox env DISPLAY=:8 sh -c "eval \$(xdotool getwindowgeometry --shell $info); xdotool mousemove \$((X + WIDTH - 50)) \$((Y + HEIGHT - 25)) click 1"
fi
end_desk
check "the display session is on seat0, active" has 'SESSION id=[0-9]+ seat=seat0 active=yes remote=no type=x11'
check "lxpolkit's dialog and its message window (the module's finger prompt) are on the screen" has 'WINDOWS dialog=[0-9]+ info=[0-9]+'
check "the touch reaches the dialog's prompt" has "Presented lbox-alice's finger right-index to prompt [0-9a-f]+ \(lbox-alice asks for lbox-alice through polkit-1\)"
check "a touch: the app's evaluation succeeds" has '^APP-OUT evaluate success'
check "the dialog's picture is kept ($LOGS/desk-lxpolkit.png)" test -s "$LOGS/desk-lxpolkit.png"
end_flow "$before"

# lxpolkit's Cancel is no dismissal to polkitd either: the module's run ends in userCancel.
before=$FAILS
desk_flow desk-lxpolkit-cancel "8. lxpolkit under Xvfb: Cancel" lxpolkit session evaluate owner
win=$(window '^Authentication$') info=$(window '^Information$')
echo "WINDOWS dialog=${win:-none} info=${info:-none}" >>"$OUT"
sleep 0.5
# OK on the message window, then Cancel (left of OK at the dialog's bottom right).
for w in $info $win; do
  offset=50
  [ "$w" = "$win" ] && offset=150
  inbox env DISPLAY=:8 sh -c "eval \$(xdotool getwindowgeometry --shell $w); xdotool mousemove \$((X + WIDTH - $offset)) \$((Y + HEIGHT - 25)) click 1"
  sleep 0.5
done
end_desk
check "lxpolkit's dialog and its message window are on the screen" has 'WINDOWS dialog=[0-9]+ info=[0-9]+'
check "Cancel: evaluate error -2 (userCancel)" has '^APP-OUT evaluate error -2 '
end_flow "$before"

before=$FAILS
desk_flow desk-gnome "8. polkit-gnome under Xvfb, the app a unit of the user manager: a touch" polkit-gnome usermgr evaluate owner
win=$(window '^Authenticate$')
sleep 0.5
picture desk-gnome "$win" "$win"
echo "WINDOWS dialog=${win:-none}" >>"$OUT"
inbox localauthctl touch lbox-alice right-index --quality 1 --wait 8 >>"$OUT" 2>&1
end_desk
check "polkit-gnome's dialog is on the screen" has 'WINDOWS dialog=[0-9]+'
check "the touch reaches the dialog's prompt" has "Presented lbox-alice's finger right-index to prompt"
check "a touch: the app's evaluation succeeds" has '^APP-OUT evaluate success'
check "the dialog's picture is kept ($LOGS/desk-gnome.png)" test -s "$LOGS/desk-gnome.png"
end_flow "$before"

before=$FAILS
desk_flow desk-dismiss "8. polkit-gnome under Xvfb: the dialog dismissed (Escape)" polkit-gnome usermgr evaluate owner
win=$(window '^Authenticate$')
echo "WINDOWS dialog=${win:-none}" >>"$OUT"
sleep 0.5
inbox env DISPLAY=:8 xdotool key Escape
end_desk
check "polkit-gnome's dialog is on the screen" has 'WINDOWS dialog=[0-9]+'
check "dismissed: evaluate error -2 (userCancel)" has '^APP-OUT evaluate error -2 '
end_flow "$before"
