import Foundation
import LocalAuthTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Issue 37's attacks as the user's own malware runs them: the programs each attack needs (a C library preloaded into
/// a system program, small Python daemons), written at run time into a folder of the test's and compiled there.
/// The folder is root's (0755) with a `user` subfolder the attacker may write (its logs and pid files); nothing
/// goes anywhere else. `remove()` ends what the attack left running and deletes the folder.
final class PresenceAttack {
  /// The folder (root, 0755).
  let folder: String
  /// The attacker's own writable subfolder.
  var scratch: String { folder + "/user" }
  /// The test user the attack runs as.
  let uid: uid_t

  /// Makes the folder, with `scratch` owned by `uid`:`gid`.
  init(uid: uid_t, gid: gid_t) throws {
    self.uid = uid
    folder = try TemporaryFolder.make("/tmp/localauth-attack.XXXXXX", mode: 0o755)
    guard mkdir(scratch, 0o755) == 0, chown(scratch, uid, gid) == 0 else {
      TemporaryFolder.remove(folder)
      throw SandboxError.setup("cannot make \(scratch) for uid \(uid)")
    }
  }

  /// Ends, by pid, every process the test user still runs (a fake server, a hidden sudo waiting for a passcode, a
  /// daemon, when a step failed half way: the test created the user, so each is the test's), then deletes the folder.
  func remove() {
    for _ in 0..<50 {
      let left = userProcesses()
      if left.isEmpty { break }
      for pid in left { kill(pid, SIGKILL) }
      usleep(100_000)
    }
    TemporaryFolder.remove(folder)
  }

  /// The live processes whose real uid is the test user's.
  private func userProcesses() -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { pid_t($0) }.filter { pid in
      guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
      let lines = status.split(separator: "\n")
      guard let ids = lines.first(where: { $0.hasPrefix("Uid:") }), let state = lines.first(where: { $0.hasPrefix("State:") })
      else { return false }
      return ids.split(separator: "\t").dropFirst().first == Substring("\(uid)") && !state.contains("Z")
    }
  }

  /// Writes `text` to `name` in the folder (0644) and returns its path.
  @discardableResult
  func write(_ name: String, _ text: String) throws -> String {
    let path = folder + "/" + name
    try TextFile.write(path, text, mode: 0o644)
    return path
  }

  /// Compiles C `source` into the shared library `name` (`cc -shared -fPIC`) and returns its path.
  func library(_ name: String, _ source: String) throws -> String {
    let file = try write(name + ".c", source)
    let path = folder + "/" + name
    let run = try Run.program("/usr/bin/cc", ["-shared", "-fPIC", "-O1", "-o", path, file])
    guard run.status == 0 else { throw SandboxError.setup("cc \(name) failed: \(run.stderr)") }
    chmod(path, 0o755)
    return path
  }

  /// The contents of a file in `scratch`, or "" when it is missing.
  func scratchFile(_ name: String) -> String {
    (try? String(contentsOfFile: scratch + "/" + name, encoding: .utf8))?.replacingOccurrences(of: "\r", with: "") ?? ""
  }

  /// True when `path` exists.
  static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}

extension PresenceAttack {
  /// T: a fake tmux server. Preloaded into /usr/bin/tmux (a root-owned system program), its constructor never lets
  /// tmux run: it takes a copy of the console terminal the user's real tmux client (FAKE_CLIENT, a pid) has open on
  /// its standard input (pidfd_getfd, which the kernel allows between one user's processes), opens one new
  /// pseudo-terminal whose slave runs FAKE_COMMAND under `sh -c` as its session leader, and copies what the slave
  /// shows to FAKE_LOG (FAKE_PIDFILE gets its pid). To the multiplexer rule it is a one-pane tmux server with a
  /// client's terminal open.
  static let fakeTmuxSource = #"""
    #define _GNU_SOURCE
    #include <fcntl.h>
    #include <signal.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <sys/syscall.h>
    #include <sys/wait.h>
    #include <unistd.h>

    __attribute__((constructor)) static void fake_server(void) {
      const char *client = getenv("FAKE_CLIENT"), *command = getenv("FAKE_COMMAND");
      const char *log = getenv("FAKE_LOG"), *pidfile = getenv("FAKE_PIDFILE");
      if (!client || !command || !log || !pidfile) return;
      int pidfd = (int)syscall(SYS_pidfd_open, atoi(client), 0);
      int console = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, 0, 0);
      if (pidfd >= 0) close(pidfd);
      int out = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (out < 0) _exit(3);
      if (console < 0) { dprintf(out, "FAKE: no console terminal\n"); _exit(3); }
      int master = posix_openpt(O_RDWR | O_NOCTTY);
      if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) { dprintf(out, "FAKE: no pty\n"); _exit(3); }
      char slave[64];
      if (ptsname_r(master, slave, sizeof slave) != 0) _exit(3);
      FILE *p = fopen(pidfile, "w");
      if (p) { fprintf(p, "%d\n", (int)getpid()); fclose(p); }
      dprintf(out, "FAKE: holds %s and the console; runs the command on %s\n", "one master", slave);
      pid_t child = fork();
      if (child == 0) {
        setsid();
        int s = open(slave, O_RDWR);
        if (s < 0) _exit(126);
        dup2(s, 0); dup2(s, 1); dup2(s, 2);
        if (s > 2) close(s);
        close(master); close(console); close(out);
        unsetenv("LD_PRELOAD"); unsetenv("FAKE_CLIENT"); unsetenv("FAKE_COMMAND"); unsetenv("FAKE_LOG"); unsetenv("FAKE_PIDFILE");
        execl("/bin/sh", "sh", "-c", command, (char *)0);
        _exit(127);
      }
      char buffer[4096];
      ssize_t n;
      while ((n = read(master, buffer, sizeof buffer)) > 0) write(out, buffer, (size_t)n);
      waitpid(child, 0, 0);
      dprintf(out, "\nFAKE: done\n");
      _exit(0);
    }
    """#

  /// P: run with `setsid -f` by the user's interactive shell, which holds a /dev/ptmx master on descriptor 9 (its
  /// rc file did `exec 9<>/dev/ptmx`): unlocks that pseudo-terminal, closes its own copy of the master, makes the
  /// slave its controlling terminal and runs argv[1] there under `sh -c`. argv[2] gets the terminal's name.
  static let inheritedMasterDaemon = #"""
    import fcntl, os, struct, sys
    command, note = sys.argv[1], sys.argv[2]
    TIOCSPTLCK, TIOCGPTN = 0x40045431, 0x80045430
    fcntl.ioctl(9, TIOCSPTLCK, struct.pack("i", 0))
    index = struct.unpack("i", fcntl.ioctl(9, TIOCGPTN, b"\0\0\0\0"))[0]
    os.close(9)
    slave = os.open("/dev/pts/%d" % index, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.close(slave)
    with open(note, "w") as f:
        f.write("pts/%d\n" % index)
    os.execv("/bin/sh", ["sh", "-c", command])
    """#

  /// W: a background job of the user's interactive shell that ignores SIGTTOU, makes its own process group the
  /// console's foreground, starts `script -qfc argv[1] /dev/null` (output to /dev/null; input a pipe nobody writes,
/// so script neither changes the console's modes nor sends an end of file), gives the foreground back
  /// after 1.5 s and prints FG-RETURNED; then waits argv[2] seconds, ends script by its pid (its command gets
  /// SIGHUP) and prints W-DONE.
  static let borrowedForeground = #"""
    import os, signal, subprocess, sys, time
    command, linger = sys.argv[1], float(sys.argv[2])
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    tty = os.open("/dev/tty", os.O_RDWR)
    shell = os.tcgetpgrp(tty)
    os.tcsetpgrp(tty, os.getpgrp())
    relay = subprocess.Popen(["/usr/bin/script", "-qfc", command, "/dev/null"], stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    os.tcsetpgrp(tty, shell)
    print("FG-RETURNED", flush=True)
    time.sleep(linger)
    relay.kill()
    relay.wait()
    print("W-DONE", flush=True)
    """#

  /// R: the same borrowing for a command run directly (la-app): the job takes the foreground, runs argv[1:] in it,
  /// prints its output, gives the foreground back and prints BORROW-DONE.
  static let borrowedForegroundRun = #"""
    import os, signal, subprocess, sys
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    tty = os.open("/dev/tty", os.O_RDWR)
    shell = os.tcgetpgrp(tty)
    os.tcsetpgrp(tty, os.getpgrp())
    try:
        run = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, capture_output=True, timeout=40)
        out = (run.stdout + run.stderr).decode(errors="replace")
    except subprocess.TimeoutExpired:
        out = "TIMED-OUT"
    os.tcsetpgrp(tty, shell)
    print("BORROWED-BEGIN\n" + out + "\nBORROWED-END", flush=True)
    """#
}

extension PresenceAttack {
  /// Q: a fake screen locker. Preloaded into /usr/bin/i3lock (a root-owned system program named in gui_services),
  /// its constructor first hides the preload from /proc/PID/environ (the loader has read LD_PRELOAD; the strings
  /// /proc shows are the process's own memory, so "LD_PRELOAD=" becomes "XD_PRELOAD="), then never lets i3lock run:
  /// it starts FAKE_HELPER (the setuid localauth-helper, whose parent it is) on a socket pair and hands the other end
  /// to FAKE_DRIVER (`lockerDriver`, descriptor 3) for FAKE_USER; both write to FAKE_LOG, and the locker adds
  /// "FAKE-LOCKER: helper exit N" when the helper is done.
  static let fakeLockerSource = #"""
    #define _GNU_SOURCE
    #include <fcntl.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <sys/socket.h>
    #include <sys/wait.h>
    #include <unistd.h>

    extern char **environ;

    __attribute__((constructor)) static void fake_locker(void) {
      const char *helper = getenv("FAKE_HELPER"), *driver = getenv("FAKE_DRIVER");
      const char *user = getenv("FAKE_USER"), *log = getenv("FAKE_LOG");
      if (!helper || !driver || !user || !log) return;
      for (char **e = environ; *e; e++)
        if (strncmp(*e, "LD_PRELOAD=", 11) == 0) (*e)[0] = 'X';
      int out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (out < 0) _exit(3);
      char seen[65536];
      int env = open("/proc/self/environ", O_RDONLY);
      ssize_t n = env < 0 ? -1 : read(env, seen, sizeof seen - 1);
      if (env >= 0) close(env);
      int clean = n > 0 && !memmem(seen, (size_t)n, "LD_PRELOAD=", 11) && memmem(seen, (size_t)n, "XD_PRELOAD=", 11);
      dprintf(out, "FAKE-LOCKER: /proc/self/environ %s\n", clean ? "clean" : "still shows LD_PRELOAD");
      int pair[2];
      if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) { dprintf(out, "FAKE-LOCKER: no socket pair\n"); _exit(3); }
      dprintf(out, "FAKE-LOCKER: pid %d\n", (int)getpid());
      pid_t h = fork();
      if (h == 0) {
        dup2(out, 1); dup2(out, 2); dup2(pair[1], 0);
        execl(helper, helper, (char *)0);
        _exit(127);
      }
      close(pair[1]);
      pid_t d = fork();
      if (d == 0) {
        dup2(out, 1); dup2(out, 2); dup2(pair[0], 3);
        execl("/usr/bin/python3", "python3", driver, "3", user, (char *)0);
        _exit(127);
      }
      close(pair[0]);
      int status = 0;
      waitpid(d, 0, 0);
      waitpid(h, &status, 0);
      dprintf(out, "FAKE-LOCKER: helper exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
      _exit(0);
    }
    """#

  /// The fake locker's side of the helper's PAM-mode protocol on descriptor argv[1]: a hello for argv[2] naming
  /// i3lock, then every message printed as `msg TAG HEX` (HelperHostileTests.texts reads them); at a passcode
  /// prompt it hangs up (it knows no passcode).
  static let lockerDriver = #"""
    import socket, sys
    s = socket.socket(fileno=int(sys.argv[1]))
    def frame(tag, payload): return bytes([tag, len(payload) >> 8, len(payload) & 255]) + payload
    s.sendall(frame(1, bytes([0, 3]) + b"\0".join([sys.argv[2].encode(), b"i3lock", b"", b""])))  # HelperWire.version
    def exactly(n):
        data = b""
        while len(data) < n:
            chunk = s.recv(n - len(data))
            if not chunk: return None
            data += chunk
        return data
    s.settimeout(40)
    while True:
        try:
            header = exactly(3)
        except OSError:
            break
        if header is None: break
        body = exactly(header[1] << 8 | header[2]) or b""
        print("msg %02x %s" % (header[0], body.hex()), flush=True)
        if header[0] == 0x14:
            s.shutdown(socket.SHUT_WR)
    print("DRIVER-END", flush=True)
    """#
}

extension PresenceAttack {
  /// T's scripts, the fake server compiled and `hiddenCommand` stored; returns the console script, run by the user on
  /// the console as `sh CONSOLE FOLDER VISIBLE-COMMAND…`. It starts the user's real tmux, whose only pane starts the
  /// fake server with `setsid -f` (naming that client), waits until the hidden terminal shows a prompt, prints
  /// HIDDEN-ASKED and waits 8 s; when the session has ended it prints TMUX-DONE, runs the user's own VISIBLE-COMMAND
  /// on the console and prints VISIBLE-EXIT=N, ends the fake server (its sudo gets SIGHUP) and prints what the
  /// hidden terminal showed between HIDDEN-LOG-BEGIN and HIDDEN-LOG-END.
  func prepareFakeTmux(hiddenCommand: String) throws -> String {
    _ = try library("fake-tmux.so", Self.fakeTmuxSource)
    try write("hidden-command", hiddenCommand)
    try write("t-pane.sh", #"""
      a=$1
      client=$(tmux -S "$(echo "$TMUX" | cut -d, -f1)" list-clients -F '#{client_pid}' | head -n 1)
      FAKE_CLIENT=$client FAKE_LOG=$a/user/t.log FAKE_PIDFILE=$a/user/t.pid FAKE_COMMAND="$(cat "$a/hidden-command")" \
        setsid -f /usr/bin/env LD_PRELOAD=$a/fake-tmux.so /usr/bin/tmux </dev/null >/dev/null 2>&1
      i=0
      while [ $i -lt 150 ] && ! grep -q -e 'Place your finger' -e 'Enter Passcode' -e 'Swipe' -e 'FAKE: no' -e 'FAKE: done' "$a/user/t.log" 2>/dev/null; do
        sleep 0.1; i=$((i+1))
      done
      echo HIDDEN-ASKED
      sleep 8
      """#)
    return try write("t-console.sh", #"""
      a=$1; shift
      d=$(mktemp -d) || exit 1
      TERM=xterm tmux -f /dev/null -S "$d/s" new-session -s main "sh $a/t-pane.sh $a"
      rm -rf "$d"
      echo TMUX-DONE
      "$@"
      echo VISIBLE-EXIT=$?
      [ -s "$a/user/t.pid" ] && kill "$(cat "$a/user/t.pid")" 2>/dev/null
      i=0; while [ $i -lt 100 ] && pgrep -U "$(id -u)" -x sudo >/dev/null; do sleep 0.1; i=$((i+1)); done
      echo HIDDEN-LOG-BEGIN; cat "$a/user/t.log"; echo; echo HIDDEN-LOG-END
      """#)
  }
}
