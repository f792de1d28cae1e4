import Foundation
import LocalAuthTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One ParallelPasscodeE2ETests run: the shipped pam.d/login, su or sudo (with `parallel_passcode` as shipped)
/// bound over the system file in a private mount namespace, this suite's own users (localauth-par-*), a finger
/// and the passcode, and the program on a pseudo-terminal through Tests/scripts/e2e-ptydrive.py.
final class ParallelWorld {
  /// The user who authenticates: login's user, su's target, sudo's invoker.
  static let userName = "localauth-par-user"
  /// The unprivileged user who runs su.
  static let callerName = "localauth-par-caller"
  static let passcode = "2468"
  /// The sudoers drop-in's name (no dot, or sudo skips it).
  static let dropInName = "localauth-par-sudo"
  /// The parallel prompt's line.
  static let prompt = "Place your finger or enter your passcode: "

  enum Program: String {
    case login, su, sudo
    var systemFile: String { "/etc/pam.d/" + rawValue }
  }

  let program: Program
  let folder: String
  var state: String { folder + "/state" }
  var stack: String { folder + "/" + program.rawValue }
  var sudoers: String { folder + "/sudoers.d" }
  private var createdUsers: [String] = []

  /// Sets up the folder, the users and the stack; the rules that ask the passcode before biometry are off.
  init(_ program: Program) throws {
    self.program = program
    folder = try TemporaryFolder.make("/tmp/localauth-par.XXXXXX")
    do {
      let manager = FileManager.default
      try manager.createDirectory(atPath: state, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
      try FixedWorld.write(stateDir: state, owner: Self.userName, impostors: ["someone-else"])
      let conf = folder + "/localauth.conf"
      let rules = ["passcode_after_reboot = no", "passcode_after_enrollment_change = no", "idle_limit = 0", "passcode_max_age = 0"]
      try write(rules.map { $0 + "\n" }.joined(), to: conf, mode: 0o600)
      let text: String
      switch program {
      case .login, .su:
        let shipped = LoginSuTests.Program(rawValue: program.rawValue)!
        text = try LoginSuTests.Fixture.stack(for: shipped, variant: .passcodeFallback, state: state, conf: conf)
      case .sudo:
        text = try SudoTests.Fixture.stack(variant: .passcodeFallback, state: state, conf: conf)
        try manager.createDirectory(atPath: sudoers, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o750])
        let dropIn = "Defaults:\(Self.userName) !lecture, !mail_badpass, timestamp_timeout=0, passwd_tries=3\n"
          + "\(Self.userName) ALL=(ALL:ALL) ALL\n"
        try write(dropIn, to: sudoers + "/" + Self.dropInName, mode: 0o440)
      }
      guard text.contains("parallel_passcode") else {
        throw LoginSuTests.SetupError.snippet("pam.d/\(program.rawValue) does not turn parallel_passcode on")
      }
      try write(text, to: stack, mode: 0o644)
      try addUser(Self.userName)
      if program == .su { try addUser(Self.callerName) }
      try ctl(["enroll", Self.userName, "right-index"])
      try ctl(["passcode", "set", Self.userName], input: Self.passcode + "\n")
    } catch {
      tearDown()
      throw error
    }
  }

  /// A driver step presenting `from`'s finger (default: the user's own) `count` times to the waiting prompt.
  /// su's prompt is asked for by the caller, so the step finds it in `localauthctl prompts` and names it.
  func touchStep(from: String? = nil, count: Int = 1) -> String {
    let ctl = LoginSuEnvironment.ctl
    var touch = [ctl, "touch", Self.userName, "right-index", "--quality", "1", "--wait", "10", "--state-dir", state]
      + (from.map { ["--from", $0] } ?? [])
    let repeated = { (t: [String]) in Array(repeating: t.joined(separator: " "), count: count).joined(separator: "; ") }
    guard program == .su else { return "run:" + repeated(touch) }
    touch += ["--prompt", "$id"]
    let find = "id=; for i in $(seq 200); do id=$(\(ctl) prompts \(Self.userName) --json --state-dir \(state) | "
      + "sed -n 's/.*\"id\" *: *\"\\([0-9a-f]\\{8\\}\\)\".*/\\1/p' | head -n 1); [ -n \"$id\" ] && break; sleep 0.05; done"
    return "run:" + find + "; " + repeated(touch)
  }

  /// Runs the program on a pseudo-terminal through `steps`: `login USER`, `su USER -c COMMAND` as the caller,
  /// or `sudo -k sh -c COMMAND` as the user. Without the developer's SSH_* variables (they would mean remote).
  func drive(_ steps: [String], command: String = "printf 'LOCALAUTH-%s-%s\\n' OK \"$(id -un)\"") throws
    -> LoginSuTests.DriveResult
  {
    let driver = LoginSuEnvironment.repositoryRoot.appendingPathComponent("Tests/scripts/e2e-ptydrive.py").path
    var arguments = ["--mount", "--propagation", "private", LoginSuEnvironment.python, driver, "--timeout", "15"]
    arguments += ["--bind", stack + ":" + program.systemFile]
    let local = LoginSuTests.localSession
    switch program {
    case .login:
      arguments += steps + ["--"] + local + ["/usr/bin/login", Self.userName]
    case .su:
      guard let caller = getpwnam(Self.callerName) else { throw LoginSuTests.SetupError.command("getpwnam", 0, "") }
      arguments += ["--as", "\(caller.pointee.pw_uid):\(caller.pointee.pw_gid)"] + steps
      arguments += ["--"] + local + ["/usr/bin/su", Self.userName, "-c", command]
    case .sudo:
      guard let user = getpwnam(Self.userName) else { throw LoginSuTests.SetupError.command("getpwnam", 0, "") }
      arguments += ["--bind", sudoers + ":/etc/sudoers.d", "--as", "\(user.pointee.pw_uid):\(user.pointee.pw_gid)"] + steps
      arguments += ["--"] + local + ["/usr/bin/sudo", "-k", "/bin/sh", "-c", command]
    }
    return LoginSuTests.DriveResult(try LoginSuTests.Command.run("/usr/bin/unshare", arguments).output)
  }

  /// Removes the users (and sudo's records of them) and the folder.
  func tearDown() {
    for user in createdUsers.reversed() {
      try? LoginSuTests.Command.check("/usr/sbin/userdel", [user])
      for record in ["/run/sudo/ts/", "/var/lib/sudo/lectured/"] { unlink(record + user) }
    }
    createdUsers = []
    TemporaryFolder.remove(folder)
  }

  private func addUser(_ name: String) throws {
    _ = try LoginSuTests.addTestUser(name)
    createdUsers.append(name)
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
