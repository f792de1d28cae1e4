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
#   app AGENT SCENARIO ARG...
#                  `la-app SCENARIO ARG...` (`evaluate POLICY` with the reason "open the notes vault") started with no
#                  terminal, as a menu starts an app (setsid, its standard streams on a file), a second late so that
#                  the agent is registered for it first: AGENT pkttyagent (`pkttyagent --process` on this terminal)
#                  or none; prints APP-PID (with the app's terminal: tty=?), AGENT-EXIT=status, APP-OUT ... APP-EXIT=status
#   desktop AGENT WHERE SCENARIO ARG...
#                  a display session's programs (run as its unit, no terminal): Xvfb :8 and the graphical polkit agent
#                  AGENT on it (lxpolkit or polkit-gnome; it registers for this session); once ~/desk.go appears (the
#                  suite makes it when polkitd logged the registration), la-app as for app, started in this session
#                  (WHERE session, as LXDE starts apps) or as a unit of the user's manager (WHERE usermgr, as GNOME
#                  does); writes the facts and APP-OUT ... APP-EXIT=status to ~/desk.out, then waits to be stopped
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
  app)
    facts
    agent=$2
    shift 2
    [ "$1" != evaluate ] || set -- "$@" "open the notes vault"
    out=$HOME/app.out pidfile=$HOME/app.pid agentpid=$HOME/agent.pid
    rm -f "$out" "$pidfile" "$agentpid"
    ( # exec keeps the pid and the start time the agent is registered for
      setsid sh -c 'echo $$ >"$1"; sleep 1; shift; exec "$@"' app "$pidfile" "$LIB/la-app" "$@" </dev/null >"$out" 2>&1
      echo "APP-EXIT=$?" >>"$out"
      [ ! -s "$agentpid" ] || kill "$(cat "$agentpid")" 2>/dev/null
    ) &
    while [ ! -s "$pidfile" ]; do sleep 0.05; done
    echo "APP-PID $(cat "$pidfile") tty=$(ps -o tty= -p "$(cat "$pidfile")" | tr -d ' ')"
    if [ "$agent" = pkttyagent ]; then
      sh -c 'echo $$ >"$1"; exec pkttyagent --process "$2"' agent "$agentpid" "$(cat "$pidfile")"
      echo "AGENT-EXIT=$?"
    fi
    wait
    echo "APP-OUT $(tr '\n' ' ' <"$out")"
    ;;
  desktop)
    out=$HOME/desk.out app_out=$HOME/desk.app
    facts >"$out"
    agent=$2 where=$3
    shift 3
    [ "$1" != evaluate ] || set -- "$@" "open the notes vault"
    rm -f "$HOME/desk.go" "$app_out"
    Xvfb :8 -nolisten tcp -ac >/dev/null 2>&1 &
    n=0
    while [ ! -S /tmp/.X11-unix/X8 ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
    case $agent in
      lxpolkit) DISPLAY=:8 lxpolkit >/dev/null 2>&1 & ;;
      polkit-gnome) DISPLAY=:8 /usr/lib/policykit-1-gnome/polkit-gnome-authentication-agent-1 >/dev/null 2>&1 & ;;
    esac
    n=0
    while [ ! -e "$HOME/desk.go" ] && [ $n -lt 150 ]; do sleep 0.1; n=$((n + 1)); done
    if [ "$where" = usermgr ]; then
      systemd-run --user --quiet --wait --collect --service-type=exec -p StandardOutput=file:"$app_out" \
        -p StandardError=file:"$app_out" -- "$LIB/la-app" "$@"
    else
      setsid "$LIB/la-app" "$@" </dev/null >"$app_out" 2>&1
    fi
    status=$?
    echo "APP-OUT $(tr '\n' ' ' <"$app_out")APP-EXIT=$status" >>"$out"
    sleep 120
    ;;
  *) sed -n '2,28p' "$0" >&2; exit 2 ;;
esac
