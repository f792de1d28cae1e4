#!/usr/bin/env python3
"""The SIGSTOP sweep of LockStopSweepTests (docs/RELIABILITY.md, "Locks: nobody but root stops a holder").

Run as root inside a private mount namespace (unshare --mount --propagation private): binds the su stack over
/etc/pam.d/su, then runs `su TARGET` again and again as the caller (--as UID:GID) on a pseudo-terminal, types a
wrong passcode, and while su checks it sends SIGSTOP to su from a process with the caller's uid, at random
offsets. After every stop that was delivered it checks, as root, that TARGET's lock is free (a non-blocking
flock), that `localauthctl reset TARGET` ends within 2 s, and now and then that TARGET's own authentication
(--own, a command that prints "result: PAM_SUCCESS") succeeds; then it resumes su. A stop refused with EPERM
(su holds the lock and cannot be stopped by the caller) counts as sent and refused.

Prints one line: SWEEP runs=R stops=N delivered=D refused=F held=H reset-failures=X own=O own-failures=Y,
and a HELD line for each stop that found the lock held.
"""
import argparse
import fcntl
import os
import pty
import random
import select
import signal
import subprocess
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--bind", required=True, help="SRC:DST, the su stack over /etc/pam.d/su")
parser.add_argument("--as", dest="caller", required=True, help="UID:GID of the user who runs su")
parser.add_argument("--target", required=True)
parser.add_argument("--state", required=True)
parser.add_argument("--ctl", required=True)
parser.add_argument("--wrong", required=True, help="a wrong passcode (a digit is appended per run)")
parser.add_argument("--stops", type=int, default=1000)
parser.add_argument("--per-run", type=int, default=8)
parser.add_argument("--own-every", type=int, default=50)
parser.add_argument("--seed", type=int, default=20)
parser.add_argument("own", nargs="*", help="after --: the command of TARGET's own authentication")
args = parser.parse_args()

source, destination = args.bind.split(":")
subprocess.run(["mount", "--bind", source, destination], check=True)
uid, gid = (int(part) for part in args.caller.split(":"))
lock_path = os.path.join(args.state, "locks", args.target)
random_offsets = random.Random(args.seed)
counts = dict(runs=0, stops=0, delivered=0, refused=0, held=0, resets=0, reset_failures=0, own=0, own_failures=0)


def kill_as_caller(pid, sig):
    """Sends sig from a child with the caller's uid: 0 sent, 1 EPERM, 2 no such process."""
    child = os.fork()
    if child == 0:
        code = 3
        try:
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            os.kill(pid, sig)
            code = 0
        except PermissionError:
            code = 1
        except ProcessLookupError:
            code = 2
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    return os.waitstatus_to_exitcode(status)


def state_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def lock_held():
    try:
        fd = os.open(lock_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def reset():
    """`localauthctl reset TARGET` as root: True when it ended with 0 within 2 s."""
    started = time.monotonic()
    try:
        done = subprocess.run([args.ctl, "reset", args.target, "--state-dir", args.state],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=3)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0 and time.monotonic() - started < 2


def own_authentication():
    try:
        done = subprocess.run(args.own, capture_output=True, text=True, timeout=8)
    except subprocess.TimeoutExpired:
        return False
    return "result: PAM_SUCCESS" in done.stdout + done.stderr


def drain(fd, until=None, seconds=0.0):
    """Reads what su wrote; with `until`, waits (at most `seconds`) for that text."""
    seen = b""
    end = time.monotonic() + seconds
    while True:
        left = max(0.0, end - time.monotonic())
        ready, _, _ = select.select([fd], [], [], left if until else 0)
        if not ready:
            return seen if until is None else None
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return seen if until is None else None
        if not chunk:
            return seen if until is None else None
        seen += chunk
        if until is not None and until in seen:
            return seen


def one_run(number):
    if not reset():
        counts["reset_failures"] += 1
    pid, fd = pty.fork()
    if pid == 0:
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
        os.execv("/usr/bin/env", ["env", "-u", "SSH_CONNECTION", "-u", "SSH_CLIENT", "-u", "SSH_TTY",
                                  "/usr/bin/su", args.target, "-c", "true"])
    try:
        if drain(fd, until=b"Enter Passcode: ", seconds=10) is None:
            print(f"RUN {number}: no passcode prompt", flush=True)
            return
        os.write(fd, (args.wrong + str(number % 10) + "\n").encode())
        offset = random_offsets.uniform(0, 0.06)
        for _ in range(args.per_run):
            if counts["stops"] >= args.stops:
                return
            time.sleep(offset)
            offset = random_offsets.uniform(0, 0.008)
            sent = kill_as_caller(pid, signal.SIGSTOP)
            if sent == 2 or state_of(pid) in ("gone", "Z"):
                return
            counts["stops"] += 1
            if sent == 1:
                counts["refused"] += 1
                continue
            counts["delivered"] += 1
            waited = time.monotonic() + 0.5
            while state_of(pid) not in ("T", "t", "Z", "gone") and time.monotonic() < waited:
                time.sleep(0.0005)
            if lock_held():
                counts["held"] += 1
                print(f"HELD run {number} stop {counts['stops']}: {args.target}'s lock is held by stopped su {pid}",
                      flush=True)
            if counts["held"] <= 3 or not lock_held():
                counts["resets"] += 1
                if not reset():
                    counts["reset_failures"] += 1
            if args.own and counts["delivered"] % args.own_every == 0 and (counts["held"] <= 3 or not lock_held()):
                counts["own"] += 1
                if not own_authentication():
                    counts["own_failures"] += 1
            os.kill(pid, signal.SIGCONT)
            drain(fd)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


number = 0
while counts["stops"] < args.stops and number < args.stops:
    one_run(number)
    number += 1
    counts["runs"] = number
print("SWEEP runs={runs} stops={stops} delivered={delivered} refused={refused} held={held} resets={resets} "
      "reset-failures={reset_failures} own={own} own-failures={own_failures}".format(**counts), flush=True)
sys.exit(0)
