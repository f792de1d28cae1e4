#!/bin/bash
# make demo: walks through pam_localauth's main scenarios with pamtester, as root, with no change under /etc.
#
# The module runs under pam_wrapper (LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR=...),
# which makes libpam read service files from a private folder. A demo user gets an enrolled finger and a
# passcode in a private state folder (under /tmp, root 0700); `localauthctl touch --wait` presents what
# the simulated sensor reads to the prompt that waits, while pamtester runs. Every step prints a one-line explanation, pamtester's conversation, the module's
# log lines and the PAM result, and checks the result (pamtester's status and message, and the conversation's
# text; the log lines are shown, not checked): the script exits non-zero if any step does not show what it
# should. The demo user is removed at the end.
#
# Environment: LOCALAUTH_MODULE and LOCALAUTH_CTL override build/pam_localauth.so and build/localauthctl.

set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODULE=${LOCALAUTH_MODULE:-$ROOT/build/pam_localauth.so}
CTL=${LOCALAUTH_CTL:-$ROOT/build/localauthctl}
DEMO_USER=localauth-demo
PASSCODE=1234
# Under /tmp, not build/: the module refuses a state folder below a folder that is not root's (a clone in a
# home folder), and /tmp passes as a sticky root-owned folder.
WORK=$(mktemp -d /tmp/localauth-demo.XXXXXX) || { echo "demo: mktemp failed" >&2; exit 1; }
trap 'rm -rf "$WORK"' EXIT
STATE=$WORK/state
SERVICES=$WORK/pam.d
TIMEOUT=2

if [ -t 1 ]; then BOLD=$'\e[1m' GREEN=$'\e[32m' RED=$'\e[31m' DIM=$'\e[2m' PLAIN=$'\e[0m'
else BOLD='' GREEN='' RED='' DIM='' PLAIN=''; fi

die() { echo "demo: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (it creates a user and a root-only state folder): sudo make demo"
[ -f "$MODULE" ] || die "no module at $MODULE (run: make module)"
[ -x "$CTL" ] || die "no localauthctl at $CTL (run: make tools)"
command -v pamtester >/dev/null || die "pamtester is missing (run: make deps)"
WRAPPER=$(ldconfig -p | awk '/libpam_wrapper\.so / {print $NF; exit}')
[ -n "$WRAPPER" ] || die "libpam_wrapper.so is missing (run: make deps)"
case "$MODULE" in /*) ;; *) MODULE=$ROOT/$MODULE ;; esac

# ---- Set-up: user, state folder, service files; undone on exit whatever happens -------------------------

CREATED_USER=0
cleanup() {
  if [ "$CREATED_USER" -eq 1 ]; then userdel "$DEMO_USER" >/dev/null 2>&1 && echo "Removed the demo user $DEMO_USER."; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

if id "$DEMO_USER" >/dev/null 2>&1; then
  echo "Using the existing user $DEMO_USER (it will be kept)."
else
  useradd -M -s /usr/sbin/nologin -c "pam_localauth demo" "$DEMO_USER" || die "useradd $DEMO_USER failed"
  CREATED_USER=1
fi

rm -rf "$WORK"
install -d -m 0700 -o root -g root "$WORK" "$STATE" "$SERVICES"

ctl() { "$CTL" "$@" --state-dir "$STATE" >/dev/null || die "localauthctl $* failed"; }

# Each demo service is the shipped pam.d/localauth-demo with the module's absolute path, the private state
# folder, an empty private configuration (so an installed /etc/security/localauth.conf cannot change the
# demo), a short sensor timeout, `nodelay` (the demo fails on purpose; libpam's 2 s pause after each failure
# would only slow it down), gui_services= naming the service (pamtester has no terminal: the demo's scripted
# answers are its UI, docs/RULES.md "Intent") and the step's own arguments appended to every pam_localauth line.
: >"$WORK/localauth.conf"
chmod 0600 "$WORK/localauth.conf"
make_service() {
  local name=$1; shift
  sed -e "s#\(^[[:space:]]*[a-z]*[[:space:]].*\)pam_localauth\.so\(.*\)\$#\1$MODULE\2 state_dir=$STATE conf=$WORK/localauth.conf timeout=$TIMEOUT nodelay gui_services=$name $*#" \
    "$ROOT/pam.d/localauth-demo" >"$SERVICES/$name" || die "cannot write $SERVICES/$name"
  grep -q "$MODULE" "$SERVICES/$name" || die "pam.d/localauth-demo has no pam_localauth.so line"
}
make_service localauth-demo
make_service localauth-demo-bio policy=deviceOwnerAuthenticationWithBiometrics
make_service localauth-demo-reuse reuse_duration=60
make_service localauth-demo-nosensor sensor=none
# pam_wrapper warns when there is no "other" service; deny everything there.
printf '%s\n' "auth required pam_deny.so" "account required pam_deny.so" "password required pam_deny.so" \
  "session required pam_deny.so" >"$SERVICES/other"

ctl enroll "$DEMO_USER" right-index
printf '%s\n' "$PASSCODE" | "$CTL" passcode set "$DEMO_USER" --state-dir "$STATE" >/dev/null || die "passcode set failed"

# ---- Running pamtester and checking what it shows ------------------------------------------------------

FAILED=0
STEP=0
OUT=''
RC=0

step() {
  STEP=$((STEP + 1))
  printf '\n%s%d. %s%s\n' "$BOLD" "$STEP" "$*" "$PLAIN"
}

# A simulated sensor event for the next pamtester run: touch FINGER [localauthctl touch options]. Each is
# presented, in order, to the prompt that waits when its turn comes (`touch --wait`), as a person would.
TOUCHES=()
touch_sensor() {
  TOUCHES+=("$*")
  printf '%s$ localauthctl touch --wait 10 %s %s%s\n' "$DIM" "$DEMO_USER" "$*" "$PLAIN"
}

# Starts the pending touches in the background (TOUCHER), or nothing.
start_touches() {
  TOUCHER=
  [ ${#TOUCHES[@]} -gt 0 ] || return 0
  local pending=("${TOUCHES[@]}")
  TOUCHES=()
  (
    for t in "${pending[@]}"; do
      # shellcheck disable=SC2086 # each entry is a finger and its options, split on purpose
      "$CTL" touch "$DEMO_USER" $t --wait 10 --state-dir "$STATE" >/dev/null 2>&1
    done
  ) &
  TOUCHER=$!
}

# Ends what is left of the touches once pamtester returned: a touch with no prompt goes nowhere.
stop_touches() {
  [ -n "$TOUCHER" ] || return 0
  pkill -P "$TOUCHER" 2>/dev/null
  kill "$TOUCHER" 2>/dev/null
  wait "$TOUCHER" 2>/dev/null
  TOUCHER=
}

# docs/RULES.md, "One finger request at a time": a prompt that follows another program's within two seconds
# falls back to the passcode, so each pamtester run starts at least 2.1 s after the previous one ended.
LAST_END=0
pace() {
  local wait_ns=$((LAST_END + 2100000000 - $(date +%s%N)))
  [ "$wait_ns" -le 0 ] || sleep "$(printf '%d.%09d' $((wait_ns / 1000000000)) $((wait_ns % 1000000000)))"
}

# Runs pamtester: pam SERVICE OPERATION [TYPED-LINE]. Sets OUT (conversation and log lines) and RC.
pam() {
  local service=$1 operation=$2 typed=${3-} raw
  printf '%s$ pamtester %s %s %s%s%s\n' "$DIM" "$service" "$DEMO_USER" "$operation" \
    "${typed:+ (typing $typed)}" "$PLAIN"
  local input=''
  [ -z "$typed" ] || input=$typed$'\n'
  pace
  start_touches
  raw=$(printf '%s' "$input" | env LD_PRELOAD="$WRAPPER" PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$SERVICES" \
    PAM_WRAPPER_DEBUGLEVEL=2 stdbuf -o0 -e0 pamtester "$service" "$DEMO_USER" "$operation" 2>&1)
  RC=$?
  LAST_END=$(date +%s%N)
  stop_touches
  # Keep the conversation and the module's syslog lines; drop pam_wrapper's own debug lines. The passcode
  # prompt has no newline (the typed line is not echoed), so what follows it is moved to its own line.
  OUT=$(printf '%s\n' "$raw" | sed -e 's/\(Passcode: \)\(.\)/\1\n\2/' | sed \
    -e '/^PWRAP_[A-Z]*\[[^]]*\] - SYSLOG([0-9]*): /{s/^[^]]*\] - SYSLOG([0-9]*): /log: /;b' -e '}' \
    -e '/^PWRAP_/d' -e '/^[[:space:]]*$/d' | sed -e 's/^/  /')
  printf '%s\n' "$OUT"
}

# The text pamtester prints for each PAM code (pam_strerror of Linux-PAM).
pam_text() {
  case $1 in
    PAM_SUCCESS) echo "successfully" ;;
    PAM_AUTH_ERR) echo "Authentication failure" ;;
    PAM_MAXTRIES) echo "Have exhausted maximum number of retries for service" ;;
    PAM_AUTHINFO_UNAVAIL) echo "Authentication service cannot retrieve authentication info" ;;
    *) echo "unknown code $1" ;;
  esac
}

# expect CODE [+TEXT]... [-TEXT]...: the last pamtester run returned CODE, showed every +TEXT and no -TEXT.
expect() {
  local code=$1; shift
  local problems=()
  if [ "$code" = PAM_SUCCESS ]; then
    [ "$RC" -eq 0 ] || problems+=("pamtester exited $RC, expected 0")
  else
    [ "$RC" -ne 0 ] || problems+=("pamtester succeeded, expected $code")
  fi
  grep -qF -- "pamtester: $(pam_text "$code")" <<<"$OUT" || problems+=("no \"$(pam_text "$code")\" ($code)")
  local item
  for item in "$@"; do
    case $item in
      +*) grep -qF -- "${item#+}" <<<"$OUT" || problems+=("missing \"${item#+}\"") ;;
      -*) ! grep -qF -- "${item#-}" <<<"$OUT" || problems+=("unexpected \"${item#-}\"") ;;
    esac
  done
  if [ ${#problems[@]} -eq 0 ]; then
    printf '  %s=> %s, as expected%s\n' "$GREEN" "$code" "$PLAIN"
  else
    FAILED=$((FAILED + 1))
    printf '  %s=> NOT AS EXPECTED (wanted %s): %s%s\n' "$RED" "$code" "$(IFS=';'; echo "${problems[*]}")" "$PLAIN"
  fi
}

FINGER_PROMPT="Place your finger on the sensor"
PASSCODE_PROMPT="Enter Passcode:"

echo "${BOLD}pam_localauth demo${PLAIN}: user $DEMO_USER, finger right-index enrolled, passcode $PASSCODE."
echo "Module: $MODULE"
echo "Services: $SERVICES (pam_wrapper; nothing under /etc is read or changed)"

# ---- The scenarios ------------------------------------------------------------------------------------

step "After a restart the passcode comes first: biometry is not offered until the passcode was entered once."
pam localauth-demo authenticate "$PASSCODE"
expect PAM_SUCCESS "+required after a restart" "+$PASSCODE_PROMPT" "-$FINGER_PROMPT"

step "A touch with no prompt on screen does nothing: it is refused, not kept for a later prompt."
printf '%s$ localauthctl touch %s right-index%s\n' "$DIM" "$DEMO_USER" "$PLAIN"
early=$("$CTL" touch "$DEMO_USER" right-index --quality 1 --state-dir "$STATE" 2>&1)
early_rc=$?
printf '  %s\n' "$early"
if [ "$early_rc" -eq 1 ] && grep -qF "No prompt is waiting for $DEMO_USER." <<<"$early"; then
  printf '  %s=> refused, as expected%s\n' "$GREEN" "$PLAIN"
else
  FAILED=$((FAILED + 1)); printf '  %s=> NOT AS EXPECTED: touch exited %s%s\n' "$RED" "$early_rc" "$PLAIN"
fi

step "The enrolled finger, presented to the waiting prompt, is accepted; no passcode is asked."
touch_sensor right-index --quality 1
pam localauth-demo authenticate
expect PAM_SUCCESS "+$FINGER_PROMPT" "-$PASSCODE_PROMPT"

step "Someone else's finger three times ends the prompt; the passcode is asked instead (deviceOwnerAuthentication)."
for _ in 1 2 3; do touch_sensor right-index --from someone-else --quality 1; done
pam localauth-demo authenticate "$PASSCODE"
expect PAM_SUCCESS "+Try again." "+$PASSCODE_PROMPT"

step "Biometrics only (deviceOwnerAuthenticationWithBiometrics): three wrong fingers fail with no passcode."
for _ in 1 2 3; do touch_sensor right-index --from someone-else --quality 1; done
pam localauth-demo-bio authenticate
expect PAM_AUTH_ERR "+Try again." "-$PASSCODE_PROMPT"

step "Two more wrong fingers make five in a row: biometry locks; under biometrics only that is PAM_MAXTRIES."
for _ in 1 2; do touch_sensor right-index --from someone-else --quality 1; done
pam localauth-demo-bio authenticate
expect PAM_MAXTRIES "+locked" "-$PASSCODE_PROMPT"

step "While locked, biometrics-only refuses at once, without waiting for the sensor."
pam localauth-demo-bio authenticate
expect PAM_MAXTRIES "-$FINGER_PROMPT" "-$PASSCODE_PROMPT"

step "While locked, deviceOwnerAuthentication goes straight to the passcode, which unlocks biometry."
pam localauth-demo authenticate "$PASSCODE"
expect PAM_SUCCESS "+$PASSCODE_PROMPT" "-$FINGER_PROMPT"

step "Biometry works again after the passcode."
touch_sensor right-index --quality 1
pam localauth-demo authenticate
expect PAM_SUCCESS "+$FINGER_PROMPT" "-$PASSCODE_PROMPT"

step "A finger is enrolled (enrollment change): biometrics only now says why and gives up (pam_unix would run next)."
ctl enroll "$DEMO_USER" left-index
printf '%s$ localauthctl enroll %s left-index%s\n' "$DIM" "$DEMO_USER" "$PLAIN"
pam localauth-demo-bio authenticate
expect PAM_AUTHINFO_UNAVAIL "+enrolled identities changed" "-$FINGER_PROMPT" "-$PASSCODE_PROMPT"

step "After the enrollment change deviceOwnerAuthentication asks for the passcode, once."
pam localauth-demo authenticate "$PASSCODE"
expect PAM_SUCCESS "+enrolled identities changed" "+$PASSCODE_PROMPT" "-$FINGER_PROMPT"

step "Then the new finger is accepted (under the service with reuse_duration=60: a match serves its own service)."
touch_sensor left-index --quality 1
pam localauth-demo-reuse authenticate
expect PAM_SUCCESS "+$FINGER_PROMPT" "-$PASSCODE_PROMPT"

step "With reuse_duration=60 a match from the last minute is reused: no finger, no passcode."
pam localauth-demo-reuse authenticate
expect PAM_SUCCESS "-$FINGER_PROMPT" "-$PASSCODE_PROMPT"

step "Logout (pam_close_session) ends the reuse window."
pam localauth-demo-reuse close_session
if [ "$RC" -eq 0 ] && grep -qF "session has successfully been closed" <<<"$OUT"; then
  printf '  %s=> PAM_SUCCESS, as expected%s\n' "$GREEN" "$PLAIN"
else
  FAILED=$((FAILED + 1)); printf '  %s=> NOT AS EXPECTED: close_session exited %s%s\n' "$RED" "$RC" "$PLAIN"
fi

step "So the next authentication asks for the finger again (none is presented: it times out after $TIMEOUT s)."
pam localauth-demo-reuse authenticate
expect PAM_AUTHINFO_UNAVAIL "+$FINGER_PROMPT" "-Reused"

step "Passcode delays (a service with sensor=none): four wrong passcodes are just wrong..."
for wrong in 0000 1111 2222 3333; do
  pam localauth-demo-nosensor authenticate "$wrong"
  expect PAM_AUTH_ERR "+Wrong passcode." "-Try again in"
done

step "...the fifth wrong passcode disables entry for a minute..."
pam localauth-demo-nosensor authenticate 5555
expect PAM_AUTH_ERR "+Wrong passcode. Try again in 1 minute."

step "...and the next attempt, even with the right passcode, is refused at once: PAM_MAXTRIES."
pam localauth-demo-nosensor authenticate "$PASSCODE"
expect PAM_MAXTRIES "+Passcode entry is disabled after repeated failures. Try again in" "-$PASSCODE_PROMPT"

echo
if [ "$FAILED" -eq 0 ]; then
  echo "${GREEN}${BOLD}All $STEP steps showed the expected result.${PLAIN}"
else
  echo "${RED}${BOLD}$FAILED check(s) did not show the expected result.${PLAIN}"
  exit 1
fi
