#!/bin/sh
# session.sh STEP: what the box suite (check-box.sh) runs as a user inside the box, in a logind session or under the
# user's service manager, on the terminal the suite drives. Each step first prints the facts it runs with:
#   SESSION id=N seat=SEAT active=yes|no remote=yes|no type=TYPE class=CLASS   (logind's view of $XDG_SESSION_ID)
#   SESSION none cgroup=...                                                    (no logind session: the user manager)
# Steps:
#   sudo           sudo -k /usr/bin/id -u, then SUDO-EXIT=status
#   sudo-inactive  prints WAITING, waits (up to 15 s) until its session is no longer the active one, then as sudo
#   user-pty       the sudo step in a unit of the user's service manager, on a pseudo-terminal whose master this
#                  session's `systemd-run --user --pty` holds
#   pkexec         pkexec /usr/bin/id -u with `pkttyagent --process` registered for pkexec's parent (polkit 122's
#                  own text agent fails with "No session for cookie"); prints PKEXEC-OUT ... PKEXEC-EXIT=status
#   agent-helper   polkit-agent-helper-1 started by hand, with no agent and no terminal (`echo x | setsid ...`);
#                  prints its output between HELPER-BEGIN and HELPER-END
#   keychain       la-app adds a WhenUnlocked and an AfterFirstUnlock item and reads them while the session is
#                  unlocked, with its LockedHint set (as a screen locker sets it through logind) and cleared again;
#                  prints UNLOCKED-WU, LOCKED-WU, LOCKED-AFU and AGAIN-WU, each followed by la-app's answer
LIB=/opt/localauth-box

facts() {
  if [ -n "${XDG_SESSION_ID:-}" ]; then
    loginctl show-session "$XDG_SESSION_ID" -p Id -p Seat -p Active -p Remote -p Type -p Class 2>&1 |
      awk -F= '{v[$1]=$2} END {printf "SESSION id=%s seat=%s active=%s remote=%s type=%s class=%s\n", v["Id"], v["Seat"], v["Active"], v["Remote"], v["Type"], v["Class"]}'
  else
    echo "SESSION none cgroup=$(sed -n 's/^0:://p' /proc/self/cgroup)"
  fi
}

run_sudo() {
  sudo -k /usr/bin/id -u
  echo "SUDO-EXIT=$?"
}

case ${1:-} in
  sudo)
    facts
    run_sudo
    ;;
  sudo-inactive)
    facts
    echo WAITING
    n=0
    while [ "$(loginctl show-session "$XDG_SESSION_ID" -p Active --value)" = yes ] && [ $n -lt 150 ]; do
      sleep 0.1
      n=$((n + 1))
    done
    facts
    run_sudo
    ;;
  user-pty)
    facts
    systemd-run --user --quiet --pty --collect --service-type=exec -- "$LIB/session.sh" sudo
    ;;
  pkexec)
    facts
    out=$HOME/pkexec.out pidfile=$HOME/agent.pid
    rm -f "$out" "$pidfile"
    (
      sleep 1
      pkexec /usr/bin/id -u </dev/null >"$out" 2>&1
      echo "PKEXEC-EXIT=$?" >>"$out"
      kill "$(cat "$pidfile")" 2>/dev/null
    ) &
    sh -c 'echo $$ >"$1"; exec pkttyagent --process "$2"' agent "$pidfile" $!
    wait
    echo "PKEXEC-OUT $(tr '\n' ' ' <"$out")"
    ;;
  agent-helper)
    facts
    echo x | setsid /usr/lib/polkit-1/polkit-agent-helper-1 "$(id -un)" >"$HOME/helper.out" 2>&1
    echo "HELPER-EXIT=$?"
    echo HELPER-BEGIN
    cat "$HOME/helper.out"
    echo HELPER-END
    ;;
  keychain)
    facts
    app=$LIB/la-app
    hint() { busctl call org.freedesktop.login1 /org/freedesktop/login1/session/auto org.freedesktop.login1.Session SetLockedHint b "$1"; }
    "$app" delete lbox wu >/dev/null 2>&1; "$app" delete lbox afu >/dev/null 2>&1
    echo "ADD $("$app" add lbox wu secret-wu none | tr '\n' ' ')$("$app" add lbox afu secret-afu afterFirstUnlock | tr '\n' ' ')"
    echo "UNLOCKED-WU $("$app" read lbox wu | tr '\n' ' ')"
    hint true && echo "HINT $(loginctl show-session "$XDG_SESSION_ID" -p LockedHint)"
    echo "LOCKED-WU $("$app" read lbox wu | tr '\n' ' ')"
    echo "LOCKED-AFU $("$app" read lbox afu | tr '\n' ' ')"
    hint false && echo "HINT $(loginctl show-session "$XDG_SESSION_ID" -p LockedHint)"
    echo "AGAIN-WU $("$app" read lbox wu | tr '\n' ' ')"
    ;;
  *) sed -n '2,20p' "$0" >&2; exit 2 ;;
esac
