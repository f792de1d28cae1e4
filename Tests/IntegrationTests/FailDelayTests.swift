import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealPAM {
  /// The pause after a failure: the module asks libpam for pam_unix's 2 s `pam_fail_delay` unless `nodelay` is
  /// given, and libpam waits only when the stack fails. libpam randomises the pause between 0.5 and 1.5 times the
  /// request (pam_delay.c), so a failure takes at least 1 s; only lower bounds are asserted on it.
  @Suite("Failure delay", .enabled(if: Artifacts.pamtesterAvailable, "pamtester or libpam-wrapper missing"))
  struct FailDelayTests {
    /// The shortest pause libpam can draw for a 2 s request.
    static let shortestPause = 1.0
    /// A run without any pause stays well under it: a cost-1 hash, one record write, pamtester's start.
    static let noPause = 0.9

    /// The sandbox with the passcode 1234 hashed at cost 1, and its service `name` written with `extra`
    /// arguments but without the sandbox's `nodelay`.
    static func prepare(_ sandbox: Sandbox, _ extra: [String]) throws {
      let cheap = sandbox.root + "/cost.conf"
      try "hash_cost=1\n".write(toFile: cheap, atomically: true, encoding: .utf8)
      try Run.checked(
        Artifacts.ctl, ["passcode", "set", sandbox.user, "--state-dir", sandbox.stateDir, "--conf", cheap], stdin: "1234\n")
      let line = ["auth", "required", Artifacts.module, "state_dir=" + sandbox.stateDir, "conf=" + sandbox.configFile, "sensor=none"]
      try sandbox.writeService([(line + extra).joined(separator: " ")])
    }

    /// Seconds pamtester takes to authenticate with `typed`, and its verdict.
    static func timed(_ sandbox: Sandbox, typing typed: String) throws -> (seconds: Double, run: PamtesterRun) {
      let start = Date()
      let run = try sandbox.pamtester(stdin: typed + "\n")
      return (Date().timeIntervalSince(start), run)
    }

    @Test("a wrong passcode costs libpam's pause of at least 1 s; a right one costs none")
    func wrongPasscodeIsDelayed() throws {
      try withSandbox { sandbox in
        try Self.prepare(sandbox, [])
        let wrong = try Self.timed(sandbox, typing: "9999")
        #expect(wrong.run.verdict == PAMText.verdict("PAM_AUTH_ERR"), "\(wrong.run.run.stderr)")
        #expect(wrong.seconds >= Self.shortestPause, "a wrong passcode answered after \(wrong.seconds) s")
        let right = try Self.timed(sandbox, typing: "1234")
        #expect(right.run.verdict == PAMText.verdict("PAM_SUCCESS"), "\(right.run.run.stderr)")
        #expect(right.seconds < Self.noPause, "a right passcode answered after \(right.seconds) s")
      }
    }

    @Test("nodelay: a wrong passcode answers without the pause, and the option is not reported as unknown")
    func nodelayLeavesThePauseOut() throws {
      try withSandbox { sandbox in
        try Self.prepare(sandbox, ["nodelay"])
        let wrong = try Self.timed(sandbox, typing: "9999")
        #expect(wrong.run.verdict == PAMText.verdict("PAM_AUTH_ERR"), "\(wrong.run.run.stderr)")
        #expect(wrong.seconds < Self.noPause, "a wrong passcode answered after \(wrong.seconds) s")
        #expect(!wrong.run.syslog.contains { $0.contains("Unrecognized option") }, "\(wrong.run.syslog)")
      }
    }
  }
}
