import Foundation
import LocalAuthCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// No stopped process holds another user's lock (docs/RELIABILITY.md, "Locks: nobody but root stops a holder";
/// issue 20, finding 6): user B runs the real setuid `su A` through the shipped pam.d/su and types a wrong
/// passcode, and B's own processes send su SIGSTOP at random moments across the check and its two locked
/// writes. While su holds A's lock B's SIGSTOP must be refused (su runs with real and saved uid 0 then); every
/// stop that lands must find the lock free, `localauthctl reset A` must end within 2 s, and A's own
/// authentication must succeed. Tests/scripts/e2e-stopsweep.py does the sweep in a private mount namespace.
@Suite(
  .serialized,
  .builtModuleAndTool,
  .enabled(if: LoginSuEnvironment.capable, "Needs root, /usr/bin/su and python3."),
  .enabled(if: LoginSuEnvironment.namespaces, "Needs a private mount namespace (unshare --mount)."))
struct LockStopSweepTests {
  static let stops = 1000

  @Test("1,000 SIGSTOPs from the caller across `su A` with a wrong passcode: A's lock is never held by a stopped su")
  func sweep() throws {
    // yescrypt cost 1: each su takes milliseconds, so the stops fall around the locked writes, not the hash.
    let fixture = try LockHostageTests.Fixture(hashCost: 1)
    defer { fixture.tearDown() }
    let harness = try #require(ProcessInfo.processInfo.environment["LOCALAUTH_HARNESS"], "LOCALAUTH_HARNESS is unset")
    let service = fixture.folder + "/pam.d"
    try FileManager.default.createDirectory(atPath: service, withIntermediateDirectories: false)
    try "auth required \(LoginSuEnvironment.module) state_dir=\(fixture.state) conf=\(fixture.conf) sensor=none\n"
      .write(toFile: service + "/localauth-own", atomically: true, encoding: .utf8)
    let own = [harness, "--confdir", service, "--service", "localauth-own", "--user", LockHostageTests.target,
      "--answer", LockHostageTests.passcode]
    guard let caller = getpwnam(LockHostageTests.caller) else { throw LoginSuTests.SetupError.command("getpwnam", 0, "") }

    let script = LoginSuEnvironment.repositoryRoot.appendingPathComponent("Tests/scripts/e2e-stopsweep.py").path
    var arguments = ["--mount", "--propagation", "private", LoginSuEnvironment.python, script]
    arguments += ["--bind", fixture.stack + ":/etc/pam.d/su", "--as", "\(caller.pointee.pw_uid):\(caller.pointee.pw_gid)"]
    arguments += ["--target", LockHostageTests.target, "--state", fixture.state, "--ctl", LoginSuEnvironment.ctl]
    arguments += ["--wrong", LockHostageTests.wrong, "--stops", String(Self.stops), "--per-run", "8", "--own-every", "25"]
    arguments += ["--"] + own
    let started = Date()
    let run = try LoginSuTests.Command.run("/usr/bin/unshare", arguments)
    let seconds = Date().timeIntervalSince(started)
    #expect(run.status == 0, "\(run.output)")
    let line = try #require(run.output.split(separator: "\n").last { $0.hasPrefix("SWEEP ") }, "\(run.output)")
    var figures: [String: Int] = [:]
    for field in line.split(separator: " ").dropFirst() {
      let parts = field.split(separator: "=")
      if parts.count == 2 { figures[String(parts[0])] = Int(parts[1]) }
    }
    #expect(figures["stops"] == Self.stops, "\(run.output)")
    #expect(figures["held"] == 0, "\(run.output)")
    #expect(figures["reset-failures"] == 0, "\(run.output)")
    #expect(figures["own-failures"] == 0, "\(run.output)")
    // The sweep reached both sides: stops that landed (outside the lock) and stops refused (inside it).
    #expect((figures["delivered"] ?? 0) > 0, "\(run.output)")
    #expect((figures["own"] ?? 0) > 0, "\(run.output)")
    // Nothing is left held once the sweep ends.
    #expect(LockHolder.find(forLockAt: fixture.state + "/locks/" + LockHostageTests.target) == nil)
    print(
      "RELIABILITY: lock stop sweep: \(figures["stops"] ?? 0) SIGSTOPs sent by the caller across \(figures["runs"] ?? 0) "
        + "`su A` runs with a wrong passcode (\(figures["delivered"] ?? 0) delivered, \(figures["refused"] ?? 0) refused "
        + "while su held A's lock): \(figures["held"] ?? 0) found the lock held, \(figures["reset-failures"] ?? 0) of "
        + "\(figures["resets"] ?? 0) resets and \(figures["own-failures"] ?? 0) of \(figures["own"] ?? 0) own "
        + "authentications failed, \(Int(seconds.rounded())) s")
  }
}
