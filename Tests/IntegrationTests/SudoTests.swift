import Foundation
import LocalAuthTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What SudoTests needs besides LoginSuEnvironment's module, localauthctl and python3.
enum SudoEnvironment {
  static let sudo = "/usr/bin/sudo"

  /// Root, a setuid sudo, and the sudoers include folder the drop-in is mounted over (or added to).
  static var capable: Bool {
    var info = stat()
    guard getuid() == 0, !LoginSuEnvironment.python.isEmpty, stat(sudo, &info) == 0 else { return false }
    return info.st_uid == 0 && info.st_mode & mode_t(S_ISUID) != 0 && access(SudoTests.sudoersFolder, F_OK) == 0
  }
}

/// End to end: the real sudo(8), run on a pseudo-terminal by an unprivileged test user, authenticates that user
/// through the shipped pam.d/sudo stack holding the built pam_localauth.so.
///
/// sudo is setuid and reads /etc/pam.d/sudo and /etc/sudoers.d, so pam_wrapper cannot redirect it. Inside a
/// private mount namespace the test stack is bind-mounted over /etc/pam.d/sudo and a private folder holding the
/// test's sudoers drop-in over /etc/sudoers.d: nothing on disk changes and both mounts end with the namespace.
/// Where namespaces are not allowed, the driver swaps /etc/pam.d/sudo and adds the drop-in, and puts both back
/// when it ends; each test then checks that the system files are as they were.
///
/// Every run is `sudo -k COMMAND`: sudo ignores its cached credentials (so PAM is always asked) and does not
/// record new ones; the drop-in also sets timestamp_timeout=0 for the test user.
///
/// sudo calls pam_authenticate with PAM_SILENT, so the module's informational lines (the restart line) do not
/// appear; the finger request (the biometric step's prompt), prompts and error lines do, asserted line by line.
@Suite(
  .serialized,
  .builtModuleAndTool,
  .enabled(if: SudoEnvironment.capable, "Needs root, a setuid /usr/bin/sudo, /etc/sudoers.d and python3."))
struct SudoTests {
  @Test("sudo: a touch presented to the waiting prompt authenticates the invoking user; the command runs as root")
  func sudoByQueuedTouch() throws {
    let fixture = try Fixture(passcodeFirst: false)
    defer { fixture.tearDown() }
    let run = try fixture.drive([fixture.touchStep(finger: "right-index"), "expect:" + SudoTests.rootMarker, "eof"])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(!run.transcript.contains("Enter Passcode"), "\(run.transcript)")
    // sudo calls pam_authenticate with PAM_SILENT; the finger request is the biometric step's prompt and shows.
    #expect(run.transcript.contains("Place your finger on the sensor to "), "\(run.transcript)")
    #expect(!run.transcript.contains("password for"), "\(run.transcript)")
    #expect(!run.transcript.contains(SudoTests.userMarker(fixture.uid)), "\(run.transcript)")
  }

  @Test("sudo: three wrong fingers, then the passcode runs the command as root")
  func sudoByPasscodeAfterWrongFingers() throws {
    let fixture = try Fixture(passcodeFirst: false)
    defer { fixture.tearDown() }
    let run = try fixture.drive([
      fixture.touchStep(finger: "right-index", from: "someone-else", count: 3),
      "expect:^Try again\\.\\r?$", "expect:^Try again\\.\\r?$", "expect:^Enter Passcode: ", "send:" + SudoTests.passcode,
      "expect:^" + SudoTests.rootMarker + "\\r?$", "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(!run.transcript.contains("password for"), "\(run.transcript)")
    #expect(!run.transcript.contains("Sorry, try again"), "\(run.transcript)")
  }

  @Test("sudo: a wrong passcode fails each of sudo's three tries; the command does not run")
  func sudoWrongPasscode() throws {
    let fixture = try Fixture(passcodeFirst: true)
    defer { fixture.tearDown() }
    let run = try fixture.drive([
      "expect:^Enter Passcode: ", "send:1357", "expect:^Wrong passcode\\.\\r?$", "expect:^Sorry, try again\\.\\r?$",
      "expect:^Enter Passcode: ", "send:9753", "expect:^Wrong passcode\\.\\r?$", "expect:^Sorry, try again\\.\\r?$",
      "expect:^Enter Passcode: ", "send:8642", "expect:^Wrong passcode\\.\\r?$",
      "expect:^sudo: 3 incorrect password attempts\\r?$", "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 1, "\(run.transcript)")
    #expect(!run.transcript.contains("LOCALAUTH-OK"), "\(run.transcript)")
    #expect(!run.transcript.contains("password for"), "\(run.transcript)")
    // The restart line is informational too: hidden under sudo's PAM_SILENT, unlike the prompt and the errors.
    #expect(!run.transcript.contains("required after a restart"), "\(run.transcript)")
  }

  @Test("sudo with the biometrics-only variant: three wrong fingers, then pam_unix takes the Unix password")
  func sudoBiometricsOnlyThenUnixPassword() throws {
    let fixture = try Fixture(passcodeFirst: false, variant: .biometricsOnly)
    defer { fixture.tearDown() }
    try fixture.setUnixPassword(SudoTests.unixPassword)
    let run = try fixture.drive([
      fixture.touchStep(finger: "right-index", from: "someone-else", count: 3),
      "expect:^Try again\\.\\r?$", "expect:^Try again\\.\\r?$", "expect:^\\[sudo\\] password for \(SudoTests.userName): ",
      "send:" + SudoTests.unixPassword, "expect:^" + SudoTests.rootMarker + "\\r?$", "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(!run.transcript.contains("Enter Passcode"), "\(run.transcript)")
  }
}

extension SudoTests {
  /// The test user: runs sudo and authenticates as themself.
  static let userName = "localauth-e2e-sudoer"
  static let passcode = "2468"
  static let unixPassword = "unix-e2e-pw-8642"
  static let sudoersFolder = "/etc/sudoers.d"
  static let pamFile = "/etc/pam.d/sudo"
  /// The drop-in's name: no dot and no trailing "~", or sudo skips it.
  static let dropInName = "localauth-e2e-sudo"
  /// What the command prints when it runs as root. The command line does not contain it, so nothing echoed
  /// can fake it.
  static let rootMarker = userMarker(0)
  static let command = "printf 'LOCALAUTH-%s-uid%s\\n' OK \"$(id -u)\""

  static func userMarker(_ uid: uid_t) -> String { "LOCALAUTH-OK-uid\(uid)" }

  /// The sudoers drop-in: the test user may run anything, is not lectured, no mail is sent on a wrong
  /// passcode, and sudo keeps no reuse window of its own.
  static var dropIn: String {
    """
    # pam_localauth SudoTests: exists only while a test runs.
    Defaults:\(userName) !lecture, !mail_badpass, timestamp_timeout=0, passwd_tries=3
    \(userName) ALL=(ALL:ALL) ALL

    """
  }

  /// One test's world: a private folder (state, configuration, stack, sudoers folder), the test user with a
  /// finger and the passcode, and the system files' original contents, checked by `tearDown`.
  final class Fixture {
    let folder: String
    var state: String { folder + "/state" }
    var stack: String { folder + "/sudo" }
    var sudoers: String { folder + "/sudoers.d" }
    var dropIn: String { sudoers + "/" + SudoTests.dropInName }
    var driver: String { LoginSuEnvironment.repositoryRoot.appendingPathComponent("Tests/scripts/e2e-ptydrive.py").path }
    let originalStack: Data
    let originalSudoers: [String]
    private(set) var uid: uid_t = 0
    private var gid: gid_t = 0
    private var created = false
    /// SudoTests and IntentE2ETests share the user: one fixture at a time holds it.
    private var usersLock: Int32 = -1

    /// Sets up the folder, the user and the stack. `passcodeFirst: false` turns the rules that ask the
    /// passcode before biometry (restart, enrollment change, idle, age) off through `conf=`.
    init(passcodeFirst: Bool, variant: LoginSuTests.Variant = .passcodeFallback) throws {
      folder = try TemporaryFolder.make("/tmp/localauth-e2e-sudo.XXXXXX")
      originalStack = try Data(contentsOf: URL(fileURLWithPath: SudoTests.pamFile))
      originalSudoers = try FileManager.default.contentsOfDirectory(atPath: SudoTests.sudoersFolder).sorted()
      do { usersLock = try SharedTestUsers.lock("localauth-sudo-users") } catch {
        TemporaryFolder.remove(folder)
        throw error
      }
      do {
        let manager = FileManager.default
        try manager.createDirectory(atPath: state, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FixedWorld.write(stateDir: state, owner: SudoTests.userName, impostors: ["someone-else"])
        try manager.createDirectory(atPath: sudoers, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o750])
        try write(SudoTests.dropIn, to: dropIn, mode: 0o440)
        let conf = folder + "/localauth.conf"
        let rules = ["passcode_after_reboot = no", "passcode_after_enrollment_change = no", "idle_limit = 0", "passcode_max_age = 0"]
          .map { $0 + "\n" }.joined()
        try write(passcodeFirst ? "" : rules, to: conf, mode: 0o600)
        try write(Self.stack(variant: variant, state: state, conf: conf), to: stack, mode: 0o644)
        try addUser()
        try ctl(["enroll", SudoTests.userName, "right-index"])
        try ctl(["passcode", "set", SudoTests.userName], input: SudoTests.passcode + "\n")
      } catch {
        tearDown()
        throw error
      }
    }

    /// The shipped pam.d/sudo with the module's absolute path, the private state and configuration, a short
    /// sensor timeout, and the chosen variant's line active.
    static func stack(variant: LoginSuTests.Variant, state: String, conf: String) throws -> String {
      let shipped = LoginSuEnvironment.repositoryRoot.appendingPathComponent("pam.d/sudo")
      let text = try String(contentsOf: shipped, encoding: .utf8)
      var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      if variant == .biometricsOnly {
        guard let a = lines.firstIndex(where: { $0.hasPrefix("auth [success=done authinfo_unavail=ignore") }),
          let b = lines.firstIndex(where: { $0.hasPrefix("#auth [success=done default=ignore] pam_localauth.so") })
        else { throw LoginSuTests.SetupError.snippet("variant (a) active and variant (b) commented in \(shipped.path)") }
        lines[a] = "#" + lines[a]
        lines[b].removeFirst()
      }
      let arguments = "\(LoginSuEnvironment.module) state_dir=\(state) conf=\(conf) timeout=5"
      let active = lines.map { $0.hasPrefix("#") ? $0 : $0.replacingOccurrences(of: "pam_localauth.so", with: arguments) }
      guard active.filter({ $0.hasPrefix("auth") && $0.contains(LoginSuEnvironment.module) }).count == 1 else {
        throw LoginSuTests.SetupError.snippet("exactly one active pam_localauth auth line in \(shipped.path)")
      }
      return active.joined(separator: "\n")
    }

    /// A driver step that presents `from`'s finger (default: the user's own) at the best quality to the user's
    /// prompt, `count` times, each when a prompt waits (`touch --wait`), in the background.
    func touchStep(finger: String, from: String? = nil, count: Int = 1) -> String {
      let touch = [LoginSuEnvironment.ctl, "touch", SudoTests.userName, finger, "--quality", "1", "--wait", "10", "--state-dir", state]
        + (from.map { ["--from", $0] } ?? [])
      return "run:" + Array(repeating: touch.joined(separator: " "), count: count).joined(separator: "; ")
    }

    /// Gives the user a Unix password (for the pam_unix line after the biometrics-only variant).
    func setUnixPassword(_ password: String) throws {
      try LoginSuTests.Command.check("/usr/sbin/chpasswd", [], input: "\(SudoTests.userName):\(password)\n")
    }

    /// Runs `sudo -k COMMAND` as the user on a pseudo-terminal through `steps`, with the stack and the
    /// drop-in in place. SSH_* variables of the developer's session are removed: they would make the module
    /// treat the run as remote. `command` replaces `sudo -k /bin/sh -c COMMAND` (IntentTests).
    func drive(_ steps: [String], command: [String]? = nil) throws -> LoginSuTests.DriveResult {
      var arguments = [driver, "--timeout", "15"]
      let executable: String
      if LoginSuEnvironment.namespaces {
        executable = "/usr/bin/unshare"
        arguments = ["--mount", "--propagation", "private", LoginSuEnvironment.python] + arguments
        arguments += ["--bind", stack + ":" + SudoTests.pamFile, "--bind", sudoers + ":" + SudoTests.sudoersFolder]
      } else {
        executable = LoginSuEnvironment.python
        arguments += ["--replace", stack + ":" + SudoTests.pamFile]
        arguments += ["--replace", dropIn + ":" + SudoTests.sudoersFolder + "/" + SudoTests.dropInName]
      }
      arguments += ["--as", "\(uid):\(gid)"] + steps
      arguments += ["--", "/usr/bin/env", "-u", "SSH_CONNECTION", "-u", "SSH_CLIENT", "-u", "SSH_TTY"]
      arguments += command ?? [SudoEnvironment.sudo, "-k", "/bin/sh", "-c", SudoTests.command]
      return LoginSuTests.DriveResult(try LoginSuTests.Command.run(executable, arguments).output)
    }

    /// Removes the user, sudo's records about them and the folder, and checks that /etc/pam.d/sudo and
    /// /etc/sudoers.d are as they were.
    func tearDown() {
      if created {
        try? LoginSuTests.Command.check("/usr/sbin/userdel", [SudoTests.userName])
        for record in ["/run/sudo/ts/", "/var/lib/sudo/lectured/"] { unlink(record + SudoTests.userName) }
        created = false
      }
      if usersLock >= 0 { close(usersLock) }
      usersLock = -1
      TemporaryFolder.remove(folder)
      let stackNow = try? Data(contentsOf: URL(fileURLWithPath: SudoTests.pamFile))
      if stackNow != originalStack {
        try? originalStack.write(to: URL(fileURLWithPath: SudoTests.pamFile))
        Issue.record("\(SudoTests.pamFile) was not restored by the driver; the test put the original back.")
      }
      let sudoersNow = (try? FileManager.default.contentsOfDirectory(atPath: SudoTests.sudoersFolder).sorted()) ?? []
      if sudoersNow != originalSudoers {
        unlink(SudoTests.sudoersFolder + "/" + SudoTests.dropInName)
        Issue.record("\(SudoTests.sudoersFolder) changed during the test: \(sudoersNow) instead of \(originalSudoers).")
      }
    }

    private func addUser() throws {
      (uid, gid) = try LoginSuTests.addTestUser(SudoTests.userName)
      created = true
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
