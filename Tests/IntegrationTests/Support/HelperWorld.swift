import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What an unprivileged caller needs around a sandbox: a setuid-root copy of localauth-helper, and a copy of
/// /etc/security whose localauth.conf names the sandbox's state folder. The helper reads only the system's
/// /etc/security/localauth.conf, so every run goes through `asUser`, which binds that copy over /etc/security in
/// a private mount namespace (`unshare --mount`): the system's folder never changes, and the mount goes with
/// the namespace whatever happens to the test.
struct HelperWorld {
  /// The sandbox it belongs to.
  let sandbox: Sandbox
  /// The setuid copy of the helper.
  let helper: String
  /// The folder bound over /etc/security.
  let etcSecurity: String

  /// Installs the helper (mode 4755, or 0755 when `setuid` is false) and writes the configuration the helper
  /// will read: the sandbox's state folder, a 1 s sensor timeout and `extraConfig`. Its `gui_services=` names the
  /// sandbox's service, which no helper caller can claim (the helper names its caller from the kernel): a visible
  /// request runs in a terminal (`inRootTerminal`, vlock in tmux), as for real (docs/RULES.md, "Intent").
  /// AppDriver's pseudo-terminal driver (Debian's python3, run as the user with no terminal) holds the master of
  /// the app's terminal and is this test's terminal emulator, so `terminal_programs=` names it.
  init(_ sandbox: Sandbox, setuid: Bool = true, extraConfig: [String] = []) throws {
    self.sandbox = sandbox
    let bin = sandbox.root + "/bin"
    helper = bin + "/localauth-helper"
    etcSecurity = sandbox.root + "/etc-security"
    try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    chmod(bin, 0o755)
    try Run.checked("/usr/bin/install", ["-o", "root", "-g", "root", "-m", setuid ? "4755" : "0755", Artifacts.helper, helper])
    try Run.checked("/bin/cp", ["-a", "/etc/security", etcSecurity])
    let config = (["state_dir=" + sandbox.stateDir, "timeout=1", "gui_services=" + sandbox.service,
      "terminal_programs=" + Self.ptyDriverProgram] + extraConfig).joined(separator: "\n") + "\n"
    try config.write(toFile: etcSecurity + "/localauth.conf", atomically: true, encoding: .utf8)
    chmod(etcSecurity + "/localauth.conf", 0o644)
  }

  /// The file name of the program /usr/bin/python3 runs, as /proc/PID/exe names it ("python3.11").
  static var ptyDriverProgram: String {
    guard let resolved = realpath("/usr/bin/python3", nil) else { return "python3" }
    defer { free(resolved) }
    return String(cString: resolved).split(separator: "/").last.map(String.init) ?? "python3"
  }

  /// The module's line for an unprivileged caller: the sandbox's arguments and this helper.
  func moduleLine(_ arguments: [String] = [], control: String = "required") -> String {
    sandbox.moduleLine(["helper=" + helper] + arguments, control: control)
  }

  /// The test user's primary group.
  var gid: UInt32 { getpwnam(sandbox.user).map { $0.pointee.pw_gid } ?? 65534 }

  /// Runs `program` as the test user (real and effective uid and gid, no supplementary groups) with
  /// /etc/security bound to `etcSecurity`, presenting the sandbox's pending touches meanwhile. `setpriv` adds
  /// options to setpriv (`--bounding-set -sys_resource`: no setuid program of the run can raise a hard limit);
  /// `devLog` puts its folder over /dev, so that what the run sends to syslog reaches the test.
  func asUser(
    _ program: String, _ arguments: [String], stdin: String = "", environment: [String: String] = [:],
    timeout: Double = 60, setpriv: [String] = [], devLog: SyslogSocket? = nil, uid: UInt32? = nil
  ) throws -> ProcessRun {
    // `uid` runs it as another uid instead (gid the same number), such as one without a passwd entry.
    let (uid, gid) = uid.map { ($0, $0) } ?? (sandbox.uid, gid)
    let options = setpriv.map { "'\($0)' " }.joined()
    let command = "mount --bind \"$0\" /etc/security && " + (devLog.map { $0.mountCommands + " && " } ?? "")
      + "uid=\"$1\" gid=\"$2\" && shift 2 && "
      + "exec /usr/bin/setpriv \(options)--reuid \"$uid\" --regid \"$gid\" --clear-groups \"$@\""
    return try sandbox.presentingTouches {
      try Run.program(
        "/usr/bin/unshare",
        ["--mount", "--propagation", "private", "/bin/sh", "-c", command, etcSecurity, "\(uid)", "\(gid)", program]
          + arguments, stdin: stdin, environment: environment, timeout: timeout)
    }
  }

  /// pamtester as the test user through pam_wrapper on the sandbox's service folder.
  func pamtester(
    user: String? = nil, stdin: String = "", options: [String] = [], _ operations: [String] = ["authenticate"]
  ) throws -> PamtesterRun {
    let environment = sandbox.pamtesterEnvironment()
    return PamtesterRun(
      run: try asUser(
        Artifacts.pamtester, options + [sandbox.service, user ?? sandbox.user] + operations, stdin: stdin,
        environment: environment))
  }
}
