import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A request the person at the machine can see, made for real: the program runs as the test user in a
/// pseudo-terminal whose master root holds (as sshd or a terminal emulator's session would), under `sh -c` in a
/// new session whose controlling terminal is that pty, so the program and its shell are in its foreground
/// (docs/RULES.md, "Intent"). The helper believes only the kernel, so a configured service name no longer stands in.
extension HelperWorld {
  /// Root's side: forks a pty, drops to UID and GID in the child (setpriv), and prints the transcript, then "exit N".
  static let rootTerminalScript = #"""
    import os, pty, select, sys, time
    uid, gid, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execv("/usr/bin/setpriv", ["setpriv", "--reuid", uid, "--regid", gid, "--clear-groups", "/bin/sh", "-c",
                 '"$@"; status=$?; exit $status', "sh"] + argv)
    seen, deadline = b"", time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(seen.decode(errors="replace").replace("\r", ""))
    sys.stdout.write("\nexit %d\n" % os.waitstatus_to_exitcode(status))
    """#

  /// Runs `program` as the test user in a root-held pty (with /etc/security bound to `etcSecurity`), presenting
  /// the sandbox's pending touches meanwhile. The run's stdout is the terminal's transcript and "exit N".
  func inRootTerminal(
    _ program: String, _ arguments: [String], environment: [String: String] = [:], timeout: Double = 150
  ) throws -> ProcessRun {
    let script = sandbox.root + "/root-terminal.py"
    if !FileManager.default.fileExists(atPath: script) {
      try Self.rootTerminalScript.write(toFile: script, atomically: true, encoding: .utf8)
      chmod(script, 0o644)
    }
    let command = "mount --bind \"$0\" /etc/security && exec /usr/bin/python3 \"$@\""
    return try sandbox.presentingTouches {
      try Run.program(
        "/usr/bin/unshare",
        ["--mount", "--propagation", "private", "/bin/sh", "-c", command, etcSecurity, script, "\(sandbox.uid)", "\(gid)",
          program] + arguments, environment: environment, timeout: timeout)
    }
  }

  /// pamtester as the test user in a root-held pty, through pam_wrapper on the sandbox's service folder.
  func pamtesterInTerminal(options: [String] = [], _ operations: [String] = ["authenticate"]) throws -> PamtesterRun {
    let environment = sandbox.pamtesterEnvironment()
    return PamtesterRun(
      run: try inRootTerminal(
        Artifacts.pamtester, options + [sandbox.service, sandbox.user] + operations, environment: environment))
  }
}
