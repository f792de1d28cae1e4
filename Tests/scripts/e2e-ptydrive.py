#!/usr/bin/env python3
"""e2e-ptydrive.py: runs a command on a pseudo-terminal and follows a script of expect/send steps.

Usage: e2e-ptydrive.py [--bind SRC:DST]... [--replace SRC:DST]... [--as UID:GID] [--timeout S] [--exec] STEP... -- COMMAND...
Steps: expect:REGEX  send:TEXT (a newline is added)  type:TEXT (no newline; \\x03 and the like are decoded)  eof  kill
       run:SHELL-COMMAND (started in the background as the driver's user, root; waited for when the driver ends)
       stop / cont (SIGSTOP / SIGCONT to the command's process group)  sleep:SECONDS
The command runs below /bin/sh on the terminal, in its foreground process group, as a program a user starts
from a shell: its parent has the same controlling terminal (docs/RULES.md, "Intent"). kill, stop and cont
signal that process group (the shell and the command). With --exec the command replaces that shell and so leads
the terminal's session, as a login shell does (an interactive shell the tests drive as the user's console).
--bind mounts SRC over DST (run it inside `unshare --mount`); --replace swaps DST's content for SRC's and
puts the original back when the driver ends, also on SIGINT, SIGTERM or SIGHUP; a DST that did not exist is
created with SRC's mode and removed at the end.
Prints the transcript, then "STEPS-OK" or "STEP-FAILED <step>", then "EXIT <status>".
"""
import os, pty, re, select, shutil, signal, subprocess, sys, time

binds, replaces, steps, command = [], [], [], []
drop, timeout, replace_shell = None, 20.0, False
args = sys.argv[1:]
while args:
    a = args.pop(0)
    if a == "--":
        command = args
        break
    elif a == "--bind":
        binds.append(args.pop(0).split(":", 1))
    elif a == "--replace":
        replaces.append(args.pop(0).split(":", 1))
    elif a == "--as":
        drop = [int(x) for x in args.pop(0).split(":")]
    elif a == "--timeout":
        timeout = float(args.pop(0))
    elif a == "--exec":
        replace_shell = True
    else:
        steps.append(a)

restored = []


def restore():
    while replaces and restored:
        dst, backup = restored.pop()
        if backup:
            os.replace(backup, dst)
        elif os.path.lexists(dst):
            os.remove(dst)


def on_signal(number, frame):
    raise SystemExit(128 + number)


for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, on_signal)

transcript = b""
background = []
status = None
failed = None
pid = None
try:
    for src, dst in binds:
        subprocess.run(["mount", "--bind", src, dst], check=True)
    for src, dst in replaces:
        mode = 0o644
        if os.path.lexists(dst):
            backup = dst + ".localauth-test-backup"
            shutil.copy2(dst, backup)
            restored.append((dst, backup))
        else:
            mode = os.stat(src).st_mode & 0o777
            restored.append((dst, None))
        temporary = dst + ".localauth-test-new"
        shutil.copyfile(src, temporary)
        os.chmod(temporary, mode)
        os.replace(temporary, dst)

    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update({"TERM": "dumb", "LANG": "C", "LC_ALL": "C"})
        if drop:
            os.setgroups([])
            os.setgid(drop[1])
            os.setuid(drop[0])
            os.environ.update({"HOME": "/", "USER": str(drop[0])})
        # Not `exec "$@"` (unless --exec): the shell stays the command's parent on the terminal.
        os.execv("/bin/sh", ["/bin/sh", "-c", 'exec "$@"' if replace_shell else '"$@"; exit $?', "sh"] + command)

    position = 0

    def read_more(deadline):
        """Reads what the terminal has within the deadline; False at end of file."""
        global transcript
        left = deadline - time.monotonic()
        if left <= 0:
            return True
        ready, _, _ = select.select([fd], [], [], min(left, 0.2))
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return False
            if not chunk:
                return False
            transcript += chunk
        return True

    for step in steps:
        deadline = time.monotonic() + timeout
        kind, _, value = step.partition(":")
        if kind == "expect":
            pattern = re.compile(value.encode(), re.MULTILINE)
            while True:
                found = pattern.search(transcript, position)
                if found:
                    position = found.end()
                    break
                if time.monotonic() >= deadline or not read_more(deadline):
                    failed = step
                    break
        elif kind == "send":
            time.sleep(0.1)
            os.write(fd, value.encode() + b"\n")
        elif kind == "type":
            time.sleep(0.1)
            os.write(fd, value.encode().decode("unicode_escape").encode("latin-1"))
        elif kind == "eof":
            while time.monotonic() < deadline and read_more(deadline):
                pass
            if time.monotonic() >= deadline:
                failed = step
        elif kind == "kill":
            os.killpg(pid, signal.SIGKILL)
        elif kind == "run":
            background.append(subprocess.Popen(["/bin/sh", "-c", value], stdin=subprocess.DEVNULL, stdout=sys.stderr))
        elif kind == "sleep":
            time.sleep(float(value))
        elif kind == "stop":
            os.killpg(pid, signal.SIGSTOP)
        elif kind == "cont":
            os.killpg(pid, signal.SIGCONT)
        if failed:
            break
    if failed:
        os.killpg(pid, signal.SIGKILL)
    _, raw = os.waitpid(pid, 0)
    pid = None
    status = os.waitstatus_to_exitcode(raw)
finally:
    if pid:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    for job in background:
        try:
            job.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            job.kill()
            job.wait()
    restore()

sys.stdout.write(transcript.decode("utf-8", "replace").replace("\r", ""))
sys.stdout.write("\n" + ("STEP-FAILED " + failed if failed else "STEPS-OK") + "\n")
sys.stdout.write("EXIT %s\n" % status)
