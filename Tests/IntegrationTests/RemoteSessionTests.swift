import Foundation
import LocalAuthTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What RemoteSessionTests needs besides SudoTests' root, setuid sudo and python3.
enum RemoteSessionEnvironment {
  static let sshd = "/usr/sbin/sshd"
  static let ssh = "/usr/bin/ssh"
  static let keygen = "/usr/bin/ssh-keygen"

  /// OpenSSH's server and client, su, and a private mount namespace for sshd's stacks.
  static var capable: Bool {
    SudoEnvironment.capable && LoginSuEnvironment.namespaces && access("/usr/bin/su", X_OK) == 0
      && [sshd, ssh, keygen].allSatisfy { (path: String) in access(path, X_OK) == 0 }
  }
}

/// End to end: a real OpenSSH server on the loopback address, a key-based login of a test user, and sudo(8) and
/// su(1) run through that connection. sshd runs inside a private mount namespace in which the test stacks cover
/// /etc/pam.d/sudo and /etc/pam.d/su and the test's sudoers folder covers /etc/sudoers.d, so the sessions it
/// starts use them while nothing under /etc changes on disk.
///
/// Every remote command first clears SSH_CONNECTION, SSH_CLIENT and SSH_TTY, as any caller may, and sudo sets no
/// PAM_RHOST: only what the caller cannot change (here the sshd ancestor of the session) can tell the module
/// that the session is remote. A remote session never offers the finger and never reuses a match.
@Suite(
  .serialized,
  .builtModuleAndTool,
  .enabled(
    if: RemoteSessionEnvironment.capable,
    "Needs root, setuid sudo, su, python3, openssh-server and openssh-client, and mount namespaces."))
struct RemoteSessionTests {
  @Test("sudo over SSH with SSH_* cleared asks for the passcode, never the finger, and runs the command as root")
  func sudoOverSSH() throws {
    let fixture = try Fixture()
    defer { fixture.tearDown() }
    let run = try fixture.ssh(fixture.sudoCommand, [
      "expect:^Enter Passcode: ", "send:" + Self.passcode, "expect:^" + SudoTests.rootMarker + "\\r?$", "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(!run.transcript.contains("Place your finger"), "\(run.transcript)")
    #expect(!run.transcript.contains("password for"), "\(run.transcript)")
  }

  @Test("su to a second user over SSH with SSH_* cleared asks for that user's passcode, never the finger")
  func suOverSSH() throws {
    let fixture = try Fixture()
    defer { fixture.tearDown() }
    let marker = SudoTests.userMarker(fixture.targetUID)
    let run = try fixture.ssh(fixture.suCommand, [
      "expect:^Enter Passcode: ", "send:" + Self.passcode, "expect:^" + marker + "\\r?$", "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(!run.transcript.contains("Place your finger"), "\(run.transcript)")
    #expect(!run.transcript.contains("Password:"), "\(run.transcript)")
  }

  @Test("no reuse window over SSH: after a local sudo by finger (reuse_duration=300), sudo over SSH asks the passcode")
  func noReuseOverSSH() throws {
    let fixture = try Fixture(reuse: 300)
    defer { fixture.tearDown() }
    let touch = [LoginSuEnvironment.ctl, "touch", Self.userName, "right-index", "--quality", "1", "--state-dir", fixture.state]
    let local = try fixture.localSudo([
      "expect:Place your finger on the sensor to ", "run:" + touch.joined(separator: " "),
      "expect:^" + SudoTests.rootMarker + "\\r?$", "eof",
    ])
    #expect(local.stepsCompleted, "local sudo by finger: \(local.transcript)")
    #expect(local.exitStatus == 0, "local sudo by finger: \(local.transcript)")
    #expect(!local.transcript.contains("Enter Passcode"), "local sudo by finger: \(local.transcript)")
    let remote = try fixture.ssh(fixture.sudoCommand, [
      "expect:^Enter Passcode: ", "send:" + Self.passcode, "expect:^" + SudoTests.rootMarker + "\\r?$", "eof",
    ])
    #expect(remote.stepsCompleted, "\(remote.transcript)")
    #expect(remote.exitStatus == 0, "\(remote.transcript)")
    #expect(!remote.transcript.contains("Place your finger"), "\(remote.transcript)")
  }
}

extension RemoteSessionTests {
  /// Logs in over SSH and runs sudo; also a local sudo in test (c).
  static let userName = "localauth-e2e-ssh"
  /// su's target in test (b).
  static let targetName = "localauth-e2e-ssh-target"
  static let passcode = "2468"
  static let clearSSH = "env -u SSH_CONNECTION -u SSH_CLIENT -u SSH_TTY"

  /// The sudoers drop-in: the SSH user may run anything; sudo keeps no window of its own.
  static var dropIn: String {
    """
    # pam_localauth RemoteSessionTests: exists only while a test runs.
    Defaults:\(userName) !lecture, !mail_badpass, timestamp_timeout=0, passwd_tries=3
    \(userName) ALL=(ALL:ALL) ALL

    """
  }

  /// One test's world: the folder (state, stacks, sudoers folder, keys, sshd configuration and log), two users
  /// with a finger and the passcode, and an sshd child listening on 127.0.0.1, stopped by `tearDown`.
  final class Fixture {
    let folder: String
    var state: String { folder + "/state" }
    var sudoers: String { folder + "/sudoers.d" }
    var userKey: String { folder + "/userkey" }
    var sshdLog: String { folder + "/sshd.log" }
    /// The command the remote and local sudo runs: prints the root marker (SudoTests.command).
    var markerScript: String { folder + "/marker.sh" }
    /// The module's configuration (the passcode-first rules off).
    var conf: String { folder + "/localauth.conf" }
    /// A folder the SSH user may write (the escapes' typescripts).
    var output: String { folder + "/out" }
    var sudoCommand: String { "\(RemoteSessionTests.clearSSH) /usr/bin/sudo -k /bin/sh \(markerScript)" }
    var suCommand: String { "\(RemoteSessionTests.clearSSH) /usr/bin/su \(RemoteSessionTests.targetName) -c '/bin/sh \(markerScript)'" }
    var driver: String { LoginSuEnvironment.repositoryRoot.appendingPathComponent("Tests/scripts/e2e-ptydrive.py").path }
    var reaper: String { LoginSuEnvironment.repositoryRoot.appendingPathComponent("Tests/scripts/subreaper.py").path }
    private(set) var uid: uid_t = 0
    private(set) var gid: gid_t = 0
    private(set) var targetUID: uid_t = 0
    private var createdUsers: [String] = []
    private var port = 0
    /// sshd's pid: spawned directly, as Foundation's Process takes sshd's closing of inherited descriptors for
    /// its exit and then blocks in waitpid, which stalls every other Process of the test run.
    private var sshd: pid_t?
    private let devLog: SyslogSocket?

    /// Sets up everything and starts sshd; `reuse` is the module's reuse_duration (0: none). `ledger: false` is
    /// the "one service at a time" install: sshd's stack is Debian's and su's has no session line of ours.
    /// `devLog` is put over /dev in sshd's namespace (with the terminals), so what its sessions log reaches the test.
    init(reuse: Int = 0, ledger: Bool = true, devLog: SyslogSocket? = nil) throws {
      self.devLog = devLog
      // sshd reads the authorized keys as the user, and the users run the marker script from here.
      folder = try TemporaryFolder.make("/tmp/localauth-e2e-ssh.XXXXXX", mode: 0o755)
      do {
        let manager = FileManager.default
        try manager.createDirectory(atPath: state, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FixedWorld.write(stateDir: state, owner: RemoteSessionTests.userName, impostors: ["someone-else"])
        try manager.createDirectory(atPath: sudoers, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o750])
        try write(RemoteSessionTests.dropIn, to: sudoers + "/localauth-e2e-ssh", mode: 0o440)
        try write(SudoTests.command + "\n", to: markerScript, mode: 0o755)
        // Biometry is offered at once on a local session (restart, enrollment and age rules off).
        let rules = ["passcode_after_reboot = no", "passcode_after_enrollment_change = no", "idle_limit = 0", "passcode_max_age = 0"]
        try write(rules.map { $0 + "\n" }.joined(), to: conf, mode: 0o600)
        let extra = reuse > 0 ? " reuse_duration=\(reuse)" : ""
        let sudo = try SudoTests.Fixture.stack(variant: .passcodeFallback, state: state, conf: conf)
        let su = try LoginSuTests.Fixture.stack(for: .su, variant: .passcodeFallback, state: state, conf: conf)
        try write(sudo.replacingOccurrences(of: " timeout=5", with: " timeout=5" + extra), to: folder + "/sudo", mode: 0o644)
        let suLines = su.replacingOccurrences(of: " timeout=5", with: " timeout=5" + extra).split(separator: "\n", omittingEmptySubsequences: false)
        let suStack = suLines.filter { ledger || !($0.hasPrefix("session") && $0.contains(LoginSuEnvironment.module)) }
        try write(suStack.joined(separator: "\n"), to: folder + "/su", mode: 0o644)
        (uid, gid) = try addUser(RemoteSessionTests.userName)
        (targetUID, _) = try addUser(RemoteSessionTests.targetName)
        try manager.createDirectory(atPath: output, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        guard chown(output, uid, gid) == 0 else { throw LoginSuTests.SetupError.command("chown \(output)", errno, "") }
        let sshdStack = ledger ? try Self.sessionStack(module: LoginSuEnvironment.module, state: state, conf: conf)
          : try String(contentsOfFile: "/etc/pam.d/sshd", encoding: .utf8)
        try write(sshdStack, to: folder + "/sshd-pam", mode: 0o644)
        let login = try LoginSuTests.Fixture.stack(for: .login, variant: .passcodeFallback, state: state, conf: conf)
        try write(login.replacingOccurrences(of: " timeout=5", with: " timeout=5" + extra), to: folder + "/login", mode: 0o644)
        for user in [RemoteSessionTests.userName, RemoteSessionTests.targetName] {
          try ctl(["enroll", user, "right-index"])
          try ctl(["passcode", "set", user], input: RemoteSessionTests.passcode + "\n")
        }
        try startServer()
      } catch {
        tearDown()
        throw error
      }
    }

    /// Runs `command` over `ssh -tt` to the test user on a pseudo-terminal through `steps`.
    func ssh(_ command: String, _ steps: [String]) throws -> LoginSuTests.DriveResult {
      let client = [
        RemoteSessionEnvironment.ssh, "-tt", "-F", "/dev/null", "-i", userKey, "-p", String(port),
        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes",
        "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=10", "\(RemoteSessionTests.userName)@127.0.0.1", command,
      ]
      let arguments = [driver, "--timeout", "15"] + steps + ["--"] + client
      return LoginSuTests.DriveResult(try LoginSuTests.Command.run(LoginSuEnvironment.python, arguments).output)
    }

    /// Runs `sudo -k` as the test user on a local pseudo-terminal (no SSH anywhere), with the same stack and
    /// sudoers folder mounted in a private namespace of its own.
    func localSudo(_ steps: [String]) throws -> LoginSuTests.DriveResult {
      var arguments = ["--mount", "--propagation", "private", LoginSuEnvironment.python, driver, "--timeout", "15"]
      arguments += ["--bind", folder + "/sudo:" + SudoTests.pamFile, "--bind", sudoers + ":" + SudoTests.sudoersFolder]
      arguments += ["--as", "\(uid):\(gid)"] + steps + ["--"] + LoginSuTests.localSession
      arguments += [SudoEnvironment.sudo, "-k", "/bin/sh", markerScript]
      return LoginSuTests.DriveResult(try LoginSuTests.Command.run("/usr/bin/unshare", arguments).output)
    }

    /// Ends what the escapes left running (script, tmux, a waiting sudo: processes whose real or effective uid is
    /// a test user), stops sshd (by its pid, waiting a bounded time), removes the users, sudo's records and the folder.
    func tearDown() {
      for user in createdUsers {
        for selector in ["-U", "-u"] { _ = try? LoginSuTests.Command.run("/usr/bin/pkill", ["-KILL", selector, user]) }
      }
      if let sshd {
        // sshd runs under Tests/scripts/subreaper.py (which reaps what the escapes leave); its own pid is in its pid file.
        let listener = (try? String(contentsOfFile: folder + "/sshd.pid", encoding: .utf8)).flatMap {
          pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        Self.waitForSessions(of: listener ?? sshd, seconds: 5)
        kill(sshd, SIGTERM)
        if !Self.reap(sshd, seconds: 5) {
          kill(sshd, SIGKILL)
          _ = Self.reap(sshd, seconds: 5)
        }
        self.sshd = nil
      }
      for user in createdUsers.reversed() {
        try? LoginSuTests.Command.check("/usr/sbin/userdel", [user])
        for record in ["/run/sudo/ts/", "/var/lib/sudo/lectured/"] { unlink(record + user) }
      }
      createdUsers = []
      TemporaryFolder.remove(folder)
    }

    /// Generates the keys and the configuration, and starts sshd in its namespace; returns once it listens.
    private func startServer() throws {
      for key in ["hostkey", "userkey"] {
        try LoginSuTests.Command.check(RemoteSessionEnvironment.keygen, ["-q", "-t", "ed25519", "-N", "", "-f", folder + "/" + key])
      }
      let keys = try String(contentsOfFile: userKey + ".pub", encoding: .utf8)
      try write(keys, to: folder + "/authorized_keys", mode: 0o644)
      port = try Self.freePort()
      let config = [
        "ListenAddress 127.0.0.1", "Port \(port)", "HostKey \(folder)/hostkey", "AuthorizedKeysFile \(folder)/authorized_keys",
        "UsePAM yes", "PidFile \(folder)/sshd.pid", "StrictModes no", "PasswordAuthentication no",
        "KbdInteractiveAuthentication no", "AllowUsers \(RemoteSessionTests.userName)", "UseDNS no", "PrintMotd no",
        "PrintLastLog no",
      ]
      try write(config.map { $0 + "\n" }.joined(), to: folder + "/sshd_config", mode: 0o600)
      // sshd's privilege separation folder; systemd's tmpfiles would make it on a booted system.
      try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
      let mounts = [
        (folder + "/sudo", SudoTests.pamFile), (folder + "/su", "/etc/pam.d/su"), (sudoers, SudoTests.sudoersFolder),
        (folder + "/sshd-pam", "/etc/pam.d/sshd"),
      ]
      // sshd starts as init starts it, in no login session: pam_loginuid gives each SSH login its own.
      let devMounts = devLog.map {
        // A private devpts instance: a bound /dev/ptmx cannot find its /dev/pts.
        "mkdir -p '\($0.devFolder)/pts' && mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts '\($0.devFolder)/pts' && "
          + "ln -sfn pts/ptmx '\($0.devFolder)/ptmx' && " + $0.mountCommands + " && "
      }
      let script = "echo 4294967295 > /proc/self/loginuid && " + (devMounts ?? "")
        + mounts.map { "mount --bind '\($0.0)' '\($0.1)'" }.joined(separator: " && ")
        + " && exec \(LoginSuEnvironment.python) '\(reaper)' \(RemoteSessionEnvironment.sshd) -D -f '\(folder)/sshd_config' -E '\(sshdLog)'"
      let pid = try Self.spawn(["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script])
      sshd = pid
      let deadline = Date().addingTimeInterval(10)
      var exited = false
      while Date() < deadline && !exited {
        let log = (try? String(contentsOfFile: sshdLog, encoding: .utf8)) ?? ""
        if log.contains("Server listening on 127.0.0.1 port \(port)") { return }
        exited = Self.reap(pid, seconds: 0)
        usleep(50_000)
      }
      if exited { sshd = nil }
      let log = (try? String(contentsOfFile: sshdLog, encoding: .utf8)) ?? ""
      throw LoginSuTests.SetupError.command("sshd on 127.0.0.1 port \(port)", exited ? 1 : -1, log)
    }

    /// Starts `arguments` as a child with /dev/null for standard input, output and error, so that the daemon does
    /// not hold the test run's output open (sshd closes every other inherited descriptor when it starts).
    private static func spawn(_ arguments: [String]) throws -> pid_t {
      var actions = posix_spawn_file_actions_t()
      posix_spawn_file_actions_init(&actions)
      defer { posix_spawn_file_actions_destroy(&actions) }
      for descriptor: Int32 in [0, 1, 2] {
        posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
      }
      let argv = arguments.map { strdup($0) }
      defer { argv.forEach { free($0) } }
      var pid: pid_t = 0
      let status = (argv + [nil]).withUnsafeBufferPointer { posix_spawn(&pid, arguments[0], &actions, nil, $0.baseAddress!, environ) }
      guard status == 0 else { throw LoginSuTests.SetupError.command("posix_spawn \(arguments[0])", status, "") }
      return pid
    }

    /// Waits up to `seconds` until the sshd listener `pid` has no session process left, so that none outlives it.
    private static func waitForSessions(of pid: pid_t, seconds: Double) {
      let deadline = Date().addingTimeInterval(seconds)
      while Date() < deadline {
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        let children = processes.filter { name in
          guard Int32(name) != nil, let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
          else { return false }
          return stat[stat.index(after: close)...].split(separator: " ").dropFirst().first == Substring(String(pid))
        }
        if children.isEmpty { return }
        usleep(20_000)
      }
    }

    /// Waits up to `seconds` for the child `pid` to end and collects it; true once it has ended.
    private static func reap(_ pid: pid_t, seconds: Double) -> Bool {
      let deadline = Date().addingTimeInterval(seconds)
      while true {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid || (result == -1 && errno == ECHILD) { return true }
        if Date() >= deadline { return false }
        usleep(20_000)
      }
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's choice for a bind to port 0).
    private static func freePort() throws -> Int {
      let probe = "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"
      let result = try LoginSuTests.Command.run(LoginSuEnvironment.python, ["-c", probe])
      guard result.status == 0, let port = Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw LoginSuTests.SetupError.command("python3 -c <free port>", result.status, result.output)
      }
      return port
    }

    private func addUser(_ name: String) throws -> (uid_t, gid_t) {
      let ids = try LoginSuTests.addTestUser(name)
      createdUsers.append(name)
      return ids
    }

    private func ctl(_ arguments: [String], input: String? = nil) throws {
      try LoginSuTests.Command.check(LoginSuEnvironment.ctl, arguments + ["--state-dir", state], input: input)
    }

    private func write(_ text: String, to path: String, mode: Int) throws {
      guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode]) else {
        throw LoginSuTests.SetupError.command("write \(path)", errno, "")
      }
    }
  }
}
