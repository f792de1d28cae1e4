#!/usr/bin/env python3
"""subreaper.py COMMAND...: runs COMMAND as a child subreaper's child and reaps every orphan below it.

A test daemon (sshd) whose sessions leave processes behind (setsid, tmux, nohup) would hand them to pid 1 when
they end; where pid 1 does not reap (a container's or a VM's own init), they stay zombies and userdel refuses
the test user. Here they come back to this process, which reaps them. SIGTERM and SIGINT are passed to COMMAND;
it exits with COMMAND's status once no child is left.
"""
import ctypes, os, signal, sys

PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit("subreaper.py: prctl(PR_SET_CHILD_SUBREAPER) failed")
child = os.fork()
if child == 0:
    os.execv(sys.argv[1], sys.argv[1:])
for number in (signal.SIGTERM, signal.SIGINT):
    signal.signal(number, lambda n, _: os.kill(child, n))
status = 1
while True:
    try:
        pid, raw = os.wait()
    except ChildProcessError:
        break
    except InterruptedError:
        continue
    if pid == child:
        status = os.waitstatus_to_exitcode(raw)
sys.exit(status)
