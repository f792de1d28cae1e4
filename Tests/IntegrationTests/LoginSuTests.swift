import Foundation
import LocalAuthTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What the environment provides to LoginSuTests.
enum LoginSuEnvironment {
  static let module = ProcessInfo.processInfo.environment["LOCALAUTH_MODULE"] ?? ""
  static let ctl = ProcessInfo.processInfo.environment["LOCALAUTH_CTL"] ?? ""
  static let python: String = ["/usr/bin/python3", "/usr/local/bin/python3"].first { (path: String) in access(path, X_OK) == 0 } ?? ""

  static var configured: Bool {
    module.hasPrefix("/") && ctl.hasPrefix("/") && access(module, R_OK) == 0 && access(ctl, X_OK) == 0
  }

  static var capable: Bool {
    getuid() == 0 && access("/usr/bin/login", X_OK) == 0 && access("/usr/bin/su", X_OK) == 0 && !python.isEmpty
  }

  /// True when a private mount namespace can be made here (containers may forbid it);
  /// LOCALAUTH_E2E_NO_NAMESPACE=1 forces the swap-and-restore path.
  static let namespaces: Bool = {
    guard ProcessInfo.processInfo.environment["LOCALAUTH_E2E_NO_NAMESPACE"] == nil else { return false }
    let probe = try? LoginSuTests.Command.run("/usr/bin/unshare", ["--mount", "--propagation", "private", "true"])
    return probe?.status == 0
  }()

  /// The repository's root, for the shipped pam.d files.
  static var repositoryRoot: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  }
}

/// End to end: the real login(1), run by root, and su(1), run by an unprivileged user, authenticate a test user
/// through the shipped pam.d/login and pam.d/su stacks holding the built pam_localauth.so, on a pseudo-terminal.
///
/// login and su read /etc/pam.d/login and /etc/pam.d/su, and su is setuid, so pam_wrapper cannot redirect them.
/// The stack is bind-mounted over the system file inside a private mount namespace (`unshare --mount`): the file
/// on disk never changes and the mount disappears with the namespace, whatever happens to the test. Where
/// namespaces are not allowed, the driver swaps the file and restores it when it ends (also on SIGINT, SIGTERM,
/// SIGHUP), and each test checks afterwards that the system file is byte-for-byte the original.
@Suite(
  .serialized,
  .builtModuleAndTool,
  .enabled(if: LoginSuEnvironment.capable, "Needs root, /usr/bin/login, /usr/bin/su and python3."))
struct LoginSuTests {
  @Test("login: a touch presented to the waiting prompt logs the user in; no passcode is asked")
  func loginByQueuedTouch() throws {
    let fixture = try Fixture(program: .login, passcodeFirst: false)
    defer { fixture.tearDown() }
    let run = try fixture.drive([
      fixture.touchStep(LoginSuTests.userName, finger: "right-index"),
      "expect:Place your finger on the sensor to log in\\.", "expect:[$#] $", "send:" + LoginSuTests.markerCommand,
      "expect:" + LoginSuTests.marker, "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(run.transcript.contains(LoginSuTests.marker), "\(run.transcript)")
    #expect(!run.transcript.contains("Enter Passcode"), "\(run.transcript)")
    #expect(!run.transcript.contains("Password:"), "\(run.transcript)")
  }

  @Test("login: after a restart the passcode logs the user in, and biometry is not offered")
  func loginByPasscode() throws {
    let fixture = try Fixture(program: .login, passcodeFirst: true)
    defer { fixture.tearDown() }
    let run = try fixture.drive([
      "expect:required after a restart", "expect:Enter Passcode: ", "send:" + LoginSuTests.passcode, "expect:[$#] $",
      "send:" + LoginSuTests.markerCommand, "expect:" + LoginSuTests.marker, "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(run.transcript.contains(LoginSuTests.marker), "\(run.transcript)")
    #expect(!run.transcript.contains("Place your finger"), "\(run.transcript)")
  }

  @Test("login: a wrong passcode is refused at once, with no Unix password prompt (auth_err=die)")
  func loginWrongPasscode() throws {
    let fixture = try Fixture(program: .login, passcodeFirst: true)
    defer { fixture.tearDown() }
    let run = try fixture.drive([
      "expect:Enter Passcode: ", "send:1357", "expect:Wrong passcode\\.", "expect:Login incorrect", "kill",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(!run.transcript.contains(LoginSuTests.marker), "\(run.transcript)")
    #expect(!run.transcript.contains("Password:"), "\(run.transcript)")
  }

  @Test("su by an unprivileged user: a touch of the target user's finger presented to su's prompt")
  func suByQueuedTouch() throws {
    let fixture = try Fixture(program: .su, passcodeFirst: false)
    defer { fixture.tearDown() }
    let run = try fixture.drive([
      fixture.touchStep(LoginSuTests.userName, finger: "right-index"),
      "expect:" + LoginSuTests.suFingerPrompt, "expect:" + LoginSuTests.marker, "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(!run.transcript.contains("Enter Passcode"), "\(run.transcript)")
    #expect(!run.transcript.contains("Password:"), "\(run.transcript)")
  }

  @Test("su by an unprivileged user: the target user's passcode after a restart")
  func suByPasscode() throws {
    let fixture = try Fixture(program: .su, passcodeFirst: true)
    defer { fixture.tearDown() }
    let run = try fixture.drive([
      "expect:required after a restart", "expect:Enter Passcode: ", "send:" + LoginSuTests.passcode,
      "expect:" + LoginSuTests.marker, "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(!run.transcript.contains("Place your finger"), "\(run.transcript)")
  }

  @Test("su: three wrong fingers then a wrong passcode fail, with no Unix password prompt")
  func suWrongFingersThenWrongPasscode() throws {
    let fixture = try Fixture(program: .su, passcodeFirst: false)
    defer { fixture.tearDown() }
    let run = try fixture.drive([
      fixture.touchStep(LoginSuTests.userName, finger: "right-index", from: "someone-else", count: 3),
      "expect:Try again\\.", "expect:Enter Passcode: ", "send:1357", "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 1, "\(run.transcript)")
    #expect(run.transcript.contains("Authentication failure"), "\(run.transcript)")
    #expect(!run.transcript.contains(LoginSuTests.marker), "\(run.transcript)")
    #expect(!run.transcript.contains("Password:"), "\(run.transcript)")
  }

  @Test("su with the biometrics-only variant: three wrong fingers, then pam_unix takes the Unix password")
  func suBiometricsOnlyThenUnixPassword() throws {
    let fixture = try Fixture(program: .su, passcodeFirst: false, variant: .biometricsOnly)
    defer { fixture.tearDown() }
    try fixture.setUnixPassword(LoginSuTests.userName, LoginSuTests.unixPassword)
    let run = try fixture.drive([
      fixture.touchStep(LoginSuTests.userName, finger: "right-index", from: "someone-else", count: 3),
      "expect:Try again\\.", "expect:Password: ", "send:" + LoginSuTests.unixPassword, "expect:" + LoginSuTests.marker,
      "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(!run.transcript.contains("Enter Passcode"), "\(run.transcript)")
  }
}

extension LoginSuTests {
  /// The test user who authenticates (login's user, su's target).
  static let userName = "localauth-e2e-user"
  /// The unprivileged user who runs su.
  static let callerName = "localauth-e2e-caller"
  /// The comment that marks both users as this test's own.
  static let userComment = "pam_localauth e2e test"
  static let passcode = "2468"
  /// Runs the program without the developer's SSH_* variables, which would make the module see a remote session.
  static let localSession = ["/usr/bin/env", "-u", "SSH_CONNECTION", "-u", "SSH_CLIENT", "-u", "SSH_TTY"]
  static let unixPassword = "unix-e2e-pw-8642"
  /// Printed by the user's shell; the command that prints it does not contain it, so the terminal's echo of
  /// the typed command cannot fake it.
  static let marker = "LOCALAUTH-OK-" + userName
  static let markerCommand = "printf 'LOCALAUTH-%s-%s\\n' OK \"$(id -un)\"; exit"
  /// su's finger request names what it approves: the command and the target user (docs/RULES.md, "Intent").
  static let suFingerPrompt = "Place your finger on the sensor to run `'printf [^`\\n]*` as " + userName + " \\(su\\)\\."

  /// The program under test and its PAM service file.
  enum Program: String {
    case login
    case su

    var systemFile: String { "/etc/pam.d/" + rawValue }
  }

  /// Which pam_localauth line of the shipped snippet is active.
  enum Variant {
    /// (a) biometrics first, the passcode as fallback: the snippet as shipped.
    case passcodeFallback
    /// (b) biometrics only, then pam_unix: (a) commented out, (b) uncommented.
    case biometricsOnly
  }

  /// A failure of the test's own set-up.
  enum SetupError: Error, CustomStringConvertible {
    case command(String, Int32, String)
    case foreignUser(String)
    case snippet(String)

    var description: String {
      switch self {
      case .command(let line, let status, let output): "\(line) exited \(status): \(output)"
      case .foreignUser(let name): "User \(name) exists and is not this test's; remove it by hand."
      case .snippet(let why): "The shipped snippet does not have the expected shape: \(why)"
      }
    }
  }
}

extension LoginSuTests {
  /// Creates a test user with a login shell and no home folder (one left by an earlier run is replaced; anyone
  /// else's user of that name is refused), and returns its uid and gid.
  static func addTestUser(_ name: String) throws -> (uid: uid_t, gid: gid_t) {
    if let entry = getpwnam(name) {
      guard String(cString: entry.pointee.pw_gecos) == userComment else { throw SetupError.foreignUser(name) }
      try Command.check("/usr/sbin/userdel", [name])
    }
    try Command.check("/usr/sbin/useradd", ["-M", "-s", "/bin/sh", "-c", userComment, name])
    guard let entry = getpwnam(name) else { throw SetupError.command("getpwnam \(name)", 0, "") }
    return (entry.pointee.pw_uid, entry.pointee.pw_gid)
  }

  /// One test's world: a private folder (state, configuration, stack, driver), the two users, and the
  /// system PAM file's original bytes, checked and if need be put back by `tearDown`.
  final class Fixture {
    let program: Program
    let folder: String
    var state: String { folder + "/state" }
    var stack: String { folder + "/" + program.rawValue }
    /// The pseudo-terminal driver (python3's pty module): runs a command and follows expect/send steps.
    var driver: String { LoginSuEnvironment.repositoryRoot.appendingPathComponent("Tests/scripts/e2e-ptydrive.py").path }
    let original: Data
    private var createdUsers: [String] = []
    /// The flock that gives this fixture the shared test users (closed by `tearDown`).
    private var usersLock: Int32 = -1

    /// Sets up the folder, the users (the target with a finger and the passcode) and the stack.
    /// A fresh record needs the passcode before biometry (after a restart, after the enrollment, after 48 idle
    /// hours, when the passcode was not used lately); `passcodeFirst: false` turns those rules off through
    /// `conf=` so that biometry is offered at once (the demo and the harness tests cover the rules).
    /// `keyringLine: false` drops the shipped `-auth optional pam_gnome_keyring.so` line (ShippedStackTests).
    init(program: Program, passcodeFirst: Bool, variant: Variant = .passcodeFallback, keyringLine: Bool = true) throws {
      self.program = program
      folder = try TemporaryFolder.make("/tmp/localauth-e2e.XXXXXX")
      original = try Data(contentsOf: URL(fileURLWithPath: program.systemFile))
      // LoginSuTests, TouchDeliveryTests and ShippedStackTests share these users and run in parallel with each
      // other: one fixture at a time holds them.
      do { usersLock = try SharedTestUsers.lock() } catch {
        TemporaryFolder.remove(folder)
        throw error
      }
      do {
        try FileManager.default.createDirectory(
          atPath: state, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FixedWorld.write(stateDir: state, owner: LoginSuTests.userName, impostors: ["someone-else"])
        let conf = folder + "/localauth.conf"
        let rules = ["passcode_after_reboot = no", "passcode_after_enrollment_change = no", "idle_limit = 0", "passcode_max_age = 0"]
          .map { $0 + "\n" }.joined()
        try write(passcodeFirst ? "" : rules, to: conf, mode: 0o600)
        try write(
          Self.stack(for: program, variant: variant, state: state, conf: conf, keyringLine: keyringLine), to: stack, mode: 0o644)
        try addUser(LoginSuTests.userName)
        if program == .su { try addUser(LoginSuTests.callerName) }
        try ctl(["enroll", LoginSuTests.userName, "right-index"])
        try ctl(["passcode", "set", LoginSuTests.userName], input: LoginSuTests.passcode + "\n")
      } catch {
        tearDown()
        throw error
      }
    }

    /// The shipped snippet with the module's absolute path, the private state and configuration, a short
    /// sensor timeout, and the chosen variant's line active.
    static func stack(
      for program: Program, variant: Variant, state: String, conf: String, keyringLine: Bool = true
    ) throws -> String {
      let shipped = LoginSuEnvironment.repositoryRoot.appendingPathComponent("pam.d/" + program.rawValue)
      let text = try String(contentsOf: shipped, encoding: .utf8)
      var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      if variant == .biometricsOnly {
        guard let a = lines.firstIndex(where: { $0.hasPrefix("auth [success=1 authinfo_unavail=ignore") }),
          let b = lines.firstIndex(where: { $0.hasPrefix("#auth [success=1 default=ignore] pam_localauth.so") })
        else { throw SetupError.snippet("variant (a) active and variant (b) commented in \(shipped.path)") }
        lines[a] = "#" + lines[a]
        lines[b].removeFirst()
      }
      if !keyringLine {
        let kept = lines.filter { $0.hasPrefix("#") || !$0.contains("pam_gnome_keyring.so") }
        guard kept.count == lines.count - 1 else { throw SetupError.snippet("one active pam_gnome_keyring line in \(shipped.path)") }
        lines = kept
      }
      let arguments = "\(LoginSuEnvironment.module) state_dir=\(state) conf=\(conf) timeout=5"
      let active = lines.map { $0.hasPrefix("#") ? $0 : $0.replacingOccurrences(of: "pam_localauth.so", with: arguments) }
      guard active.filter({ $0.hasPrefix("auth") && $0.contains(LoginSuEnvironment.module) && !$0.contains("capture_authtok") }).count == 1 else {
        throw SetupError.snippet("exactly one active pam_localauth auth line in \(shipped.path)")
      }
      return active.joined(separator: "\n")
    }

    /// A driver step that presents `from`'s finger (default: the user's own) at the best quality to `user`'s
    /// prompt, `count` times, each when a prompt waits (`touch --wait`), in the background.
    /// su's prompt is asked for by the caller, not by `user`, so `touch --wait` alone does not reach it: the
    /// step waits for the prompt to be listed and names it with --prompt.
    func touchStep(_ user: String, finger: String, from: String? = nil, count: Int = 1) -> String {
      let ctl = LoginSuEnvironment.ctl
      var touch = [ctl, "touch", user, finger, "--quality", "1", "--wait", "10", "--state-dir", state]
        + (from.map { ["--from", $0] } ?? [])
      guard program == .su else { return "run:" + Array(repeating: touch.joined(separator: " "), count: count).joined(separator: "; ") }
      touch += ["--prompt", "$id"]
      let find = "id=; for i in $(seq 200); do id=$(\(ctl) prompts \(user) --json --state-dir \(state) | "
        + "sed -n 's/.*\"id\" *: *\"\\([0-9a-f]\\{8\\}\\)\".*/\\1/p' | head -n 1); [ -n \"$id\" ] && break; sleep 0.05; done"
      return "run:" + find + "; " + Array(repeating: touch.joined(separator: " "), count: count).joined(separator: "; ")
    }

    /// Gives `user` a Unix password (for the pam_unix line after the biometrics-only variant).
    func setUnixPassword(_ user: String, _ password: String) throws {
      try Command.check("/usr/sbin/chpasswd", [], input: "\(user):\(password)\n")
    }

    /// Runs the program on a pseudo-terminal through `steps` with the stack in place of the system file;
    /// `command` replaces su's command line (run as the caller; IntentTests).
    func drive(_ steps: [String], command replacement: [String]? = nil) throws -> DriveResult {
      var arguments = [driver, "--timeout", "15"]
      let executable: String
      if LoginSuEnvironment.namespaces {
        executable = "/usr/bin/unshare"
        arguments = ["--mount", "--propagation", "private", LoginSuEnvironment.python] + arguments
        arguments += ["--bind", stack + ":" + program.systemFile]
      } else {
        executable = LoginSuEnvironment.python
        arguments += ["--replace", stack + ":" + program.systemFile]
      }
      switch program {
      case .login:
        arguments += steps + ["--"] + LoginSuTests.localSession + ["/usr/bin/login", LoginSuTests.userName]
      case .su:
        guard let caller = getpwnam(LoginSuTests.callerName) else { throw SetupError.command("getpwnam", 0, "") }
        let command = "printf 'LOCALAUTH-%s-%s\\n' OK \"$(id -un)\""
        arguments += ["--as", "\(caller.pointee.pw_uid):\(caller.pointee.pw_gid)"] + steps
        arguments += ["--"] + LoginSuTests.localSession + (replacement ?? ["/usr/bin/su", LoginSuTests.userName, "-c", command])
      }
      return DriveResult(try Command.run(executable, arguments).output)
    }

    /// Removes the users and the folder, and checks that the system PAM file is the original.
    func tearDown() {
      for user in createdUsers.reversed() { try? Command.check("/usr/sbin/userdel", [user]) }
      createdUsers = []
      if usersLock >= 0 { close(usersLock) }
      usersLock = -1
      TemporaryFolder.remove(folder)
      let now = try? Data(contentsOf: URL(fileURLWithPath: program.systemFile))
      if now != original {
        try? original.write(to: URL(fileURLWithPath: program.systemFile))
        Issue.record("\(program.systemFile) was not restored by the driver; the test put the original back.")
      }
    }

    private func addUser(_ name: String) throws {
      _ = try LoginSuTests.addTestUser(name)
      createdUsers.append(name)
    }

    private func ctl(_ arguments: [String], input: String? = nil) throws {
      try Command.check(LoginSuEnvironment.ctl, arguments + ["--state-dir", state], input: input)
    }

    private func write(_ text: String, to path: String, mode: Int) throws {
      guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode]) else {
        throw SetupError.command("write \(path)", errno, "")
      }
    }
  }

  /// What the driver reports: the terminal's transcript, whether every step happened, the program's status.
  struct DriveResult {
    let transcript: String
    let stepsCompleted: Bool
    let exitStatus: Int?

    init(_ output: String) {
      let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
      stepsCompleted = lines.contains("STEPS-OK")
      exitStatus = lines.last(where: { $0.hasPrefix("EXIT ") }).flatMap { Int($0.dropFirst(5)) }
      transcript = output
    }
  }

  /// Runs a program to completion with its output (standard output and error together).
  enum Command {
    static func run(_ path: String, _ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: path)
      process.arguments = arguments
      let output = Pipe()
      process.standardOutput = output
      process.standardError = output
      let stdin = Pipe()
      process.standardInput = stdin
      try process.run()
      if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
      try stdin.fileHandleForWriting.close()
      let data = output.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs and requires exit status 0. useradd, userdel and chpasswd fail while another process holds the
    /// /etc/passwd lock (other suites may add users at the same time), so those are tried a few times.
    static func check(_ path: String, _ arguments: [String], input: String? = nil) throws {
      let attempts = path.hasPrefix("/usr/sbin/") ? 5 : 1
      var result = try run(path, arguments, input: input)
      for _ in 1..<attempts where result.status != 0 && result.output.contains("lock") {
        usleep(200_000)
        result = try run(path, arguments, input: input)
      }
      guard result.status == 0 else {
        throw SetupError.command(([path] + arguments).joined(separator: " "), result.status, result.output)
      }
    }
  }
}

