#!/usr/bin/env python3
"""Touch to success, measured the same way on two builds: the touch goes to a prompt that waits.

For each build, pamtester runs under pam_wrapper on a pseudo-terminal with a one-line service (the build's module,
a private state folder on the build disk, this build's prompts on tmpfs as
/run/localauth is once installed, a test user with one finger). As soon as "Place your finger on the sensor" is on the
screen, the script runs that build's `localauthctl touch USER right-index`, the way a person touches once the
prompt shows, and times from that moment to pamtester's end (the terminal closing). Builds alternate round by
round (ABBA), so drifts of the machine fall on both. Writes a Markdown table (default build/touch-latency.md).

    scripts/touch-latency.py --build build --reference /path/to/old/build [--rounds 30]

Needs root, pamtester and libpam_wrapper (make deps). The test user and the folders are removed at the end.
"""

import argparse
import os
import pty
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

PROMPT = b"Place your finger on the sensor"
RULES = "passcode_after_reboot = no\npasscode_after_enrollment_change = no\nidle_limit = 0\npasscode_max_age = 0\n"


class Side:
    """One build: its module and localauthctl, a state folder and a service folder of its own."""

    def __init__(self, label, build, work, user, runtime=None):
        self.label = label
        self.module = os.path.join(os.path.abspath(build), "pam_localauth.so")
        self.ctl = os.path.join(os.path.abspath(build), "localauthctl")
        for path in (self.module, self.ctl):
            if not os.path.exists(path):
                sys.exit(f"touch-latency: {path} is missing (make module tools)")
        self.state = os.path.join(work, label + "-state")
        # The folder options of this build's localauthctl: the state folder, and the runtime folder if it has one.
        self.folders = ["--state-dir", self.state] + (["--runtime-dir", runtime] if runtime else [])
        self.services = os.path.join(work, label + "-pam.d")
        os.mkdir(self.state, 0o700)
        os.mkdir(self.services, 0o755)
        conf = os.path.join(work, label + ".conf")
        with open(conf, "w") as f:
            f.write(RULES)
        os.chmod(conf, 0o600)
        with open(os.path.join(self.services, "touchlat"), "w") as f:
            runtime_arg = f" runtime_dir={runtime}" if runtime else ""
            f.write(f"auth required {self.module} state_dir={self.state}{runtime_arg} conf={conf} timeout=10 nodelay\n"
                    "account required pam_permit.so\n")
        with open(os.path.join(self.services, "other"), "w") as f:
            f.write("auth required pam_deny.so\n")
        self.user = user
        self.ctl_run(["enroll", user, "right-index"])
        self.ctl_run(["passcode", "set", user], stdin="2468\n")

    def ctl_run(self, arguments, stdin=None):
        run = subprocess.run([self.ctl] + arguments + self.folders, input=stdin, text=True,
                             capture_output=True)
        if run.returncode != 0:
            sys.exit(f"touch-latency: {self.label}: localauthctl {' '.join(arguments)} failed: {run.stderr.strip()}")

    def round(self):
        """One pamtester run; returns (touch to end, whole run) in seconds, or None when it did not succeed."""
        env = dict(os.environ, LD_PRELOAD="libpam_wrapper.so", PAM_WRAPPER="1", PAM_WRAPPER_SERVICE_DIR=self.services)
        start = time.monotonic()
        pid, fd = pty.fork()
        if pid == 0:
            try:
                os.execvpe("pamtester", ["pamtester", "touchlat", self.user, "authenticate"], env)
            finally:
                os._exit(127)
        seen, touched, toucher = b"", None, None
        deadline = start + 20
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if not ready:
                continue
            try:
                data = os.read(fd, 4096)
            except OSError:  # EIO: the terminal's last user is gone
                data = b""
            if not data:
                break
            seen += data
            if touched is None and PROMPT in seen:
                touched = time.monotonic()
                toucher = subprocess.Popen(
                    [self.ctl, "touch", self.user, "right-index", "--quality", "1"] + self.folders,
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic()
        os.close(fd)
        if time.monotonic() >= deadline:
            os.kill(pid, 9)
        _, status = os.waitpid(pid, 0)
        if toucher is not None:
            toucher.wait(timeout=30)
        if touched is None or status != 0 or b"successfully authenticated" not in seen:
            return None
        return end - touched, end - start


def describe(values):
    return f"{statistics.median(values) * 1e3:.1f} ms ({min(values) * 1e3:.1f}–{max(values) * 1e3:.1f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build", help="this build's folder (pam_localauth.so, localauthctl)")
    parser.add_argument("--reference", required=True, help="the reference build's folder")
    parser.add_argument("--label", default="this build")
    parser.add_argument("--reference-label", default="reference")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--out", default="build/touch-latency.md")
    parser.add_argument("--runtime", default="/dev/shm" if os.path.isdir("/dev/shm") else "",
                        help="a tmpfs folder for this build's runtime_dir= (as /run/localauth once installed); "
                             "empty keeps its prompts in the state folder")
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("touch-latency: run as root (it creates a test user)")
    if shutil.which("pamtester") is None:
        sys.exit("touch-latency: pamtester is missing (make deps)")

    # The state folders on the build disk, as /var/lib/localauth is on a disk; this build's prompts on tmpfs.
    os.makedirs(os.path.abspath(args.build), exist_ok=True)
    work = tempfile.mkdtemp(prefix="touch-latency.", dir=os.path.abspath(args.build))
    os.chmod(work, 0o755)
    runtime = tempfile.mkdtemp(prefix="localauth-touchlat.", dir=args.runtime) if args.runtime else None
    user = "latouch" + os.urandom(3).hex()
    subprocess.run(["useradd", "-M", "-N", "-s", "/usr/sbin/nologin", "-c", "pam_localauth touch latency", user],
                   check=True)
    try:
        sides = [Side("new", args.build, work, user, runtime), Side("ref", args.reference, work, user)]
        sides[0].label, sides[1].label = args.label, args.reference_label
        results = {0: [], 1: []}
        failures = {0: 0, 1: 0}
        for i in range(args.rounds + 2):
            order = (0, 1) if i % 2 == 0 else (1, 0)
            got = {k: sides[k].round() for k in order}
            if i < 2:
                continue  # warm-up: page cache, first prompt folders
            for k in (0, 1):
                if got[k] is None:
                    failures[k] += 1
            if got[0] is not None and got[1] is not None:
                results[0].append(got[0])
                results[1].append(got[1])
        if not results[0]:
            sys.exit(f"touch-latency: no round succeeded on both sides (failures: {failures}); see {work}")
        ratios = [a[0] / b[0] for a, b in zip(results[0], results[1])]
        lines = [
            f"Touch to success with the touch made once the prompt shows (scripts/touch-latency.py, "
            f"{len(results[0])} paired rounds, alternating; failed runs: {failures[0]} and {failures[1]}).",
            "",
            "| Build | Touch to success, median (min–max) | Whole pamtester run, median (min–max) |",
            "|---|---|---|",
        ]
        for k in (0, 1):
            lines.append(f"| {sides[k].label} | {describe([r[0] for r in results[k]])} | "
                         f"{describe([r[1] for r in results[k]])} |")
        lines += ["", f"Touch to success, pair by pair: {statistics.median(ratios):.2f}× of {sides[1].label} "
                      f"(median of the per-round ratios; quartiles {statistics.quantiles(ratios, n=4)[0]:.2f}–"
                      f"{statistics.quantiles(ratios, n=4)[2]:.2f})."]
        text = "\n".join(lines) + "\n"
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            f.write(text)
        print(text, end="")
    finally:
        subprocess.run(["userdel", user], stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)
        if runtime:
            shutil.rmtree(runtime, ignore_errors=True)


if __name__ == "__main__":
    main()
