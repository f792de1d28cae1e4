import Foundation
import LocalAuthCore
import LocalAuthTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// No lock held hostage (docs/RELIABILITY.md, "Locks: bounded waits"), end to end: user B runs the real `su A`
/// through the shipped pam.d/su stack, types a wrong passcode and su is stopped while yescrypt runs. A's lock must
/// be free meanwhile (reset and prompts go on), and the attempt must already be counted.
///
/// The fixture follows LoginSuTests (a private mount namespace with the stack bound over /etc/pam.d/su, the
/// pseudo-terminal driver, test users created and removed here, state in a temporary folder), with its own
/// user names so that the two suites never share a user.
@Suite(
  .serialized,
  .builtModuleAndTool,
  .enabled(if: LoginSuEnvironment.capable, "Needs root, /usr/bin/su and python3."),
  .enabled(if: LoginSuEnvironment.namespaces, "Needs a private mount namespace (unshare --mount)."))
struct LockHostageTests {
  static let target = "localauth-lh-target"
  static let caller = "localauth-lh-caller"
  static let passcode = "2468"
  static let wrong = "1357"

  @Test("su stopped mid-hash: A's lock is free, reset completes at once, the attempt is counted")
  func suStoppedMidHash() throws {
    let fixture = try Fixture()
    defer { fixture.tearDown() }
    let ctl = LoginSuEnvironment.ctl
    // While su is stopped mid-hash (one hash takes about 3 s at hash_cost 11): status, then a bounded reset.
    let background = """
      echo STATUS-BEGIN; \(ctl) status \(Self.target) --json --state-dir \(fixture.state); echo STATUS-END; \
      s=$(date +%s%N); timeout 4 \(ctl) reset \(Self.target) --state-dir \(fixture.state); r=$?; e=$(date +%s%N); \
      echo "RESET-EXIT=$r RESET-MS=$(( (e - s) / 1000000 ))"
      """
    let run = try fixture.drive([
      "expect:Enter Passcode: ", "send:" + Self.wrong, "sleep:1", "stop", "run:" + background, "sleep:6", "cont",
      "expect:Wrong passcode\\.", "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 1, "\(run.transcript)")
    #expect(run.transcript.contains("Authentication failure"), "\(run.transcript)")
    #expect(!run.transcript.contains(LoginSuTests.marker), "\(run.transcript)")

    // Counted before the hash: a check that wrote the attempt only after yescrypt would still show 0 here.
    let status = Self.between("STATUS-BEGIN", "STATUS-END", in: run.transcript)
    let json = try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any]
    #expect(json?["passcodeFailures"] as? Int == 1, "\(status)")
    // The stopped su holds no lock: were it held, `timeout` would end the reset (exit 124).
    let reset = run.transcript.split(separator: "\n").first { $0.hasPrefix("RESET-EXIT=") }.map(String.init) ?? ""
    #expect(reset.hasPrefix("RESET-EXIT=0 "), "\(run.transcript)")
    let millis = reset.split(separator: "=").last.flatMap { Int($0) } ?? .max
    #expect(millis < 2000, "reset took \(millis) ms")
    // After the reset and the resumed su, the wrong entry was recorded on top of cleared counters.
    let record = try FileStateStore(root: fixture.state).load(UserName(Self.target))
    #expect(record?.passcodeFailures == 0)
    #expect(record?.lastWrongPasscodeHash != nil)
  }

  /// The text between two marker lines of the driver's output.
  static func between(_ begin: String, _ end: String, in text: String) -> String {
    guard let start = text.range(of: begin + "\n"), let stop = text.range(of: end, range: start.upperBound..<text.endIndex)
    else { return "" }
    return String(text[start.upperBound..<stop.lowerBound])
  }
}

extension LockHostageTests {
  /// A private folder (state, slow-hash configuration, su stack), the two users, and the target's passcode.
  final class Fixture {
    let folder: String
    var state: String { folder + "/state" }
    var conf: String { folder + "/localauth.conf" }
    var stack: String { folder + "/su" }
    let original: Data
    private var createdUsers: [String] = []
    /// LockHostageTests and LockStopSweepTests share the users: one fixture at a time holds them.
    private var usersLock: Int32 = -1

    /// `hashCost` is the yescrypt cost of the passcode and of every check (11, the largest, takes seconds).
    init(hashCost: Int = 11) throws {
      folder = try TemporaryFolder.make("/tmp/localauth-lh.XXXXXX")
      original = try Data(contentsOf: URL(fileURLWithPath: "/etc/pam.d/su"))
      do { usersLock = try SharedTestUsers.lock("localauth-lh-users") } catch {
        TemporaryFolder.remove(folder)
        throw error
      }
      do {
        try FileManager.default.createDirectory(
          atPath: state, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FixedWorld.write(stateDir: state, owner: LockHostageTests.target, impostors: ["someone-else"])
        // hash_cost 11 (the largest): one yescrypt takes seconds, so su can be stopped in the middle of it.
        try write("hash_cost = \(hashCost)\n", to: conf, mode: 0o600)
        try write(
          LoginSuTests.Fixture.stack(for: .su, variant: .passcodeFallback, state: state, conf: conf), to: stack, mode: 0o644)
        try addUser(LockHostageTests.target)
        try addUser(LockHostageTests.caller)
        try LoginSuTests.Command.check(
          LoginSuEnvironment.ctl, ["passcode", "set", LockHostageTests.target, "--state-dir", state, "--conf", conf],
          input: LockHostageTests.passcode + "\n")
      } catch {
        tearDown()
        throw error
      }
    }

    /// Runs `su target` as the caller on a pseudo-terminal, in a private mount namespace with the stack bound
    /// over /etc/pam.d/su.
    func drive(_ steps: [String]) throws -> LoginSuTests.DriveResult {
      guard let entry = getpwnam(LockHostageTests.caller) else { throw LoginSuTests.SetupError.command("getpwnam", 0, "") }
      let driver = LoginSuEnvironment.repositoryRoot.appendingPathComponent("Tests/scripts/e2e-ptydrive.py").path
      var arguments = ["--mount", "--propagation", "private", LoginSuEnvironment.python, driver, "--timeout", "20"]
      arguments += ["--bind", stack + ":/etc/pam.d/su", "--as", "\(entry.pointee.pw_uid):\(entry.pointee.pw_gid)"]
      arguments += steps + ["--"] + LoginSuTests.localSession
      arguments += ["/usr/bin/su", LockHostageTests.target, "-c", "printf 'LOCALAUTH-%s-%s\\n' OK \"$(id -un)\""]
      return LoginSuTests.DriveResult(try LoginSuTests.Command.run("/usr/bin/unshare", arguments).output)
    }

    /// Removes the users and the folder, and checks that /etc/pam.d/su is the original.
    func tearDown() {
      for user in createdUsers.reversed() { try? LoginSuTests.Command.check("/usr/sbin/userdel", [user]) }
      createdUsers = []
      if usersLock >= 0 { close(usersLock) }
      usersLock = -1
      TemporaryFolder.remove(folder)
      if (try? Data(contentsOf: URL(fileURLWithPath: "/etc/pam.d/su"))) != original {
        Issue.record("/etc/pam.d/su changed although the stack was only bound in a private namespace.")
      }
    }

    private func addUser(_ name: String) throws {
      _ = try LoginSuTests.addTestUser(name)
      createdUsers.append(name)
    }

    private func write(_ text: String, to path: String, mode: Int) throws {
      guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: mode]) else {
        throw LoginSuTests.SetupError.command("write \(path)", errno, "")
      }
    }
  }
}

extension RealPAM {
  /// A lock held by a stopped process makes the module fail closed within the bound, and say who holds it.
  @Suite("Lock wait bound")
  struct LockWaitBoundTests {
    @Test(
      "pamtester: a stopped lock holder gives PAM_SYSTEM_ERR after 5 s, with the holder in the log",
      .enabled(if: Artifacts.pamtesterAvailable, "pamtester or libpam-wrapper missing"),
      .enabled(if: access("/usr/bin/flock", X_OK) == 0, "util-linux flock(1) missing"))
    func stoppedHolderFailsClosed() throws {
      try withSandbox { sandbox in
        try sandbox.setPasscode()
        try sandbox.writeService([sandbox.moduleLine(["policy=deviceOwnerAuthentication"])])
        let lockPath = sandbox.stateDir + "/locks/" + sandbox.user
        // flock -F takes the lock and execs sleep in the same process, which is then stopped, as a stopped su.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        holder.arguments = ["-F", lockPath, "/bin/sleep", "60"]
        try holder.run()
        defer {
          kill(holder.processIdentifier, SIGKILL)
          holder.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(5)
        while LockHolder.find(forLockAt: lockPath) == nil && Date() < deadline { usleep(10_000) }
        kill(holder.processIdentifier, SIGSTOP)
        #expect(LockHolder.find(forLockAt: lockPath)?.pid == holder.processIdentifier)

        let started = Date()
        // The wait is bounded by the module; `timeout:` ends pamtester and throws rather than hang the suite if not.
        let run = try sandbox.pamtester(["authenticate"], stdin: "1234\n")
        let waited = Date().timeIntervalSince(started)
        #expect(run.verdict == PAMText.verdict("PAM_SYSTEM_ERR"), "\(run.run.stderr)")
        #expect(run.status != 0)
        #expect(waited >= 4.9 && waited < 15, "pamtester took \(waited) s")
        let sentence =
          "Timed out after 5 seconds waiting for the state lock of user \(sandbox.user) held by pid "
          + "\(holder.processIdentifier) (sleep)."
        #expect(run.syslog.contains { $0.contains(sentence) }, "no log line with \(sentence) in \(run.syslog)")
        #expect(!run.syslog.contains { $0.contains("1234") }, "the passcode was logged")

        // localauthctl names the same holder, and its reset fails (exit 1) instead of hanging.
        let status = try Run.program(Artifacts.ctl, ["status", sandbox.user, "--state-dir", sandbox.stateDir])
        #expect(status.stdout.contains("The state lock is held by pid \(holder.processIdentifier) (sleep)."), "\(status.stdout)")
        let reset = try Run.program(Artifacts.ctl, ["reset", sandbox.user, "--state-dir", sandbox.stateDir], timeout: 20)
        #expect(reset.status == 1)
        #expect(reset.stderr.contains(sentence), "\(reset.stderr)")
      }
    }
  }
}
