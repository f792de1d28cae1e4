import Foundation
import LocalAuthCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What one scenario did under each module, for the side-by-side table (docs/FPRINTD.md).
final class FprintdComparison: @unchecked Sendable {
  static let shared = FprintdComparison()
  private let lock = NSLock()
  private var rows: [(String, String, String)] = []

  func record(_ scenario: String, ours: String, theirs: String) {
    lock.withLock { rows.append((scenario, ours, theirs)) }
    print("FPRINTD-TABLE: | \(scenario) | \(ours) | \(theirs) |")
  }
}

extension RealPAM {
  /// `sensor=fprintd`: Apple's rules over a real reader, here libfprint's virtual device behind a private fprintd
  /// (Support/FprintdWorld.swift), through pamtester; each scenario also runs pam_fprintd the same way.
  @Suite("Real readers through fprintd", .serialized, .enabled(if: FprintdWorld.pamtesterAvailable, "needs fprintd, python3-dbusmock and libpam-fprintd (make deps)"))
  struct FprintdTests {
    /// A sandbox user with passcode 1234 and print-A on the right index finger, and both services.
    struct Fixture {
      let sandbox: Sandbox
      let world: FprintdWorld

      init(_ s: Sandbox, policy: String = "deviceOwnerAuthentication") throws {
        sandbox = s
        world = try FprintdWorld(root: s.root + "/fprintd")
        try s.setPasscode()
        try world.enroll(user: s.user)
        try writeServices(policy: policy)
      }

      func writeServices(policy: String) throws {
        try sandbox.writeService([
          sandbox.moduleLine(["sensor=fprintd", "fprint_dir=" + world.stateDir, "timeout=10", "policy=" + policy])
        ])
        try sandbox.writeService(
          ["auth required pam_fprintd.so max-tries=3 timeout=10"], name: "fprintd-peer")
      }

      /// pamtester through our module, the virtual finger doing `scans` on the reader meanwhile.
      func ours(_ scans: [String] = [], stdin: String = "") throws -> PamtesterRun {
        let feeder = scans.isEmpty ? nil : try world.feed(scans)
        defer { feeder?.stop() }
        return try world.pamtester(service: sandbox.service, user: sandbox.user, serviceDir: sandbox.serviceDir, stdin: stdin)
      }

      /// The same through pam_fprintd.
      func theirs(_ scans: [String] = []) throws -> PamtesterRun {
        let feeder = scans.isEmpty ? nil : try world.feed(scans)
        defer { feeder?.stop() }
        return try world.pamtester(service: "fprintd-peer", user: sandbox.user, serviceDir: sandbox.serviceDir)
      }

      /// The first authentication with a reader: its prints are new to the module, so the passcode is asked once.
      func acknowledge() throws {
        let first = try ours(stdin: "1234\n")
        #expect(first.verdict == PAMText.verdict("PAM_SUCCESS"), "\(first.run.stderr)")
        #expect(first.conversation.contains("Enter Passcode: "))
      }

      func stop() { world.stop() }
    }

    static func name(_ run: PamtesterRun) -> String {
      PAMText.strerror.first(where: { run.verdict == PAMText.verdict($0.key) })?.key ?? run.verdict
    }

    @Test("a matching finger: PAM_SUCCESS, with the reader named in the prompt and no passcode")
    func match() throws {
      try withSandbox { s in
        let f = try Fixture(s)
        defer { f.stop() }
        try f.acknowledge()
        let run = try f.ours(["SCAN print-A"])
        #expect(run.verdict == PAMText.verdict("PAM_SUCCESS"), "\(run.run.stderr)")
        #expect(run.info.contains("Swipe your right index finger across the Virtual device for debugging reader to authenticate for \(s.service)."), "\(run.info)")
        #expect(!run.conversation.contains("Enter Passcode"))
        #expect(try s.record()?.lastBiometricSuccess != nil)
        let peer = try f.theirs(["SCAN print-A"])
        FprintdComparison.shared.record("matching finger", ours: Self.name(run), theirs: Self.name(peer))
        // localauthctl shows the reader and the prints fprintd keeps, and sends enrollment to fprintd-enroll.
        let bus = ["DBUS_SYSTEM_BUS_ADDRESS": f.world.busAddress]
        let status = try Run.program(
          Artifacts.ctl, ["status", s.user, "--sensor", "fprintd", "--state-dir", s.stateDir], environment: bus)
        #expect(status.stdout.contains("Reader: Virtual device for debugging (swipe), through fprintd; enrolled: right-index-finger."), "\(status.stdout)")
        let list = try Run.program(Artifacts.ctl, ["list", s.user, "--sensor", "fprintd", "--state-dir", s.stateDir], environment: bus)
        #expect(list.stdout.contains("enrolled: right-index-finger."), "\(list.stdout)")
        let enroll = try Run.program(
          Artifacts.ctl, ["enroll", s.user, "left-thumb", "--sensor", "fprintd", "--state-dir", s.stateDir], environment: bus)
        #expect(enroll.status != 0)
        #expect(enroll.stderr.contains("enroll with fprintd-enroll -f left-thumb-finger \(s.user)"), "\(enroll.stderr)")
      }
    }

    @Test("three wrong fingers: the passcode under policy 2, authenticationFailed under policy 1")
    func threeWrong() throws {
      try withSandbox { s in
        let f = try Fixture(s)
        defer { f.stop() }
        try f.acknowledge()
        let run = try f.ours(["SCAN print-X", "SCAN print-X", "SCAN print-X"], stdin: "1234\n")
        #expect(run.verdict == PAMText.verdict("PAM_SUCCESS"), "\(run.run.stderr)")
        #expect(run.conversation.components(separatedBy: "Try again.").count - 1 == 2, "\(run.conversation)")
        #expect(run.conversation.contains("Enter Passcode: "))
        try f.writeServices(policy: "deviceOwnerAuthenticationWithBiometrics")
        RecentPrompt.waitOut()
        let biometricsOnly = try f.ours(["SCAN print-X", "SCAN print-X", "SCAN print-X"])
        #expect(biometricsOnly.verdict == PAMText.verdict("PAM_AUTH_ERR"), "\(biometricsOnly.run.stderr)")
        #expect(try s.record()?.biometricFailures == 3)
        let peer = try f.theirs(["SCAN print-X", "SCAN print-X", "SCAN print-X"])
        FprintdComparison.shared.record(
          "three wrong fingers in one prompt", ours: "policy 2: passcode prompt; policy 1: \(Self.name(biometricsOnly))",
          theirs: Self.name(peer))
      }
    }

    @Test("five wrong fingers across two prompts lock biometry until the passcode")
    func lockout() throws {
      try withSandbox { s in
        let f = try Fixture(s, policy: "deviceOwnerAuthenticationWithBiometrics")
        defer { f.stop() }
        try f.writeServices(policy: "deviceOwnerAuthentication")
        try f.acknowledge()
        try f.writeServices(policy: "deviceOwnerAuthenticationWithBiometrics")
        let first = try f.ours(["SCAN print-X", "SCAN print-X", "SCAN print-X"])
        #expect(first.verdict == PAMText.verdict("PAM_AUTH_ERR"), "\(first.run.stderr)")
        RecentPrompt.waitOut()
        let second = try f.ours(["SCAN print-X", "SCAN print-X"])
        #expect(second.verdict == PAMText.verdict("PAM_MAXTRIES"), "\(second.run.stderr)")
        #expect(second.conversation.contains("Too many failed attempts; biometry is locked until the passcode is entered."))
        // Locked: even the right finger is not asked for.
        let locked = try f.ours(["SCAN print-A"])
        #expect(locked.verdict == PAMText.verdict("PAM_MAXTRIES"), "\(locked.run.stderr)")
        #expect(!locked.info.contains { $0.contains("Swipe your finger") })
        // The passcode clears it; then the finger works again.
        try f.writeServices(policy: "deviceOwnerAuthentication")
        let passcode = try f.ours(stdin: "1234\n")
        #expect(passcode.verdict == PAMText.verdict("PAM_SUCCESS"), "\(passcode.run.stderr)")
        #expect(try s.record()?.biometricFailures == 0)
        RecentPrompt.waitOut()
        let finger = try f.ours(["SCAN print-A"])
        #expect(finger.verdict == PAMText.verdict("PAM_SUCCESS"), "\(finger.run.stderr)")
        let peerFirst = try f.theirs(["SCAN print-X", "SCAN print-X", "SCAN print-X"])
        let peerSecond = try f.theirs(["SCAN print-X", "SCAN print-X", "SCAN print-A"])
        FprintdComparison.shared.record(
          "five wrong fingers over two prompts, then the right one", ours: "\(Self.name(second)), then locked until the passcode",
          theirs: "\(Self.name(peerFirst)), then \(Self.name(peerSecond)) (no lockout across calls)")
      }
    }

    @Test("a finger enrolled again changes the domain state: the passcode is required next")
    func reenrolled() throws {
      try withSandbox { s in
        let f = try Fixture(s)
        defer { f.stop() }
        try f.acknowledge()
        let before = try #require(try s.record()?.domainState)
        try f.world.reenroll(user: s.user, printID: "print-B")
        let run = try f.ours(["SCAN print-B"], stdin: "1234\n")
        #expect(run.verdict == PAMText.verdict("PAM_SUCCESS"), "\(run.run.stderr)")
        #expect(run.info.contains("Your passcode is required because the enrolled identities changed."), "\(run.info)")
        #expect(run.conversation.contains("Enter Passcode: "))
        #expect(try s.record()?.domainState != before)
        let finger = try f.ours(["SCAN print-B"])
        #expect(finger.verdict == PAMText.verdict("PAM_SUCCESS"), "\(finger.run.stderr)")
        let peer = try f.theirs(["SCAN print-B"])
        FprintdComparison.shared.record(
          "finger enrolled again (new print)", ours: "passcode required once, then the new print", theirs: Self.name(peer) + " at once")
      }
    }

    @Test("fprintd not running: the passcode at once, with a log line saying why")
    func fprintdStopped() throws {
      try withSandbox { s in
        let f = try Fixture(s)
        defer { f.stop() }
        try f.acknowledge()
        f.world.stopFprintd()
        let run = try f.ours(stdin: "1234\n")
        #expect(run.verdict == PAMText.verdict("PAM_SUCCESS"), "\(run.run.stderr)")
        #expect(run.conversation.contains("Enter Passcode: "))
        #expect(
          run.syslog.contains { $0.hasPrefix("The fingerprint reader is not available through fprintd") && $0.hasSuffix("biometry is not offered.") },
          "\(run.syslog)")
        let peer = try f.theirs()
        FprintdComparison.shared.record("fprintd not running", ours: "passcode prompt (log line)", theirs: Self.name(peer))
      }
    }

    @Test("the reader unplugged in the middle of a prompt: no success, no hang")
    func unplugged() throws {
      try withSandbox { s in
        let f = try Fixture(s)
        defer { f.stop() }
        try f.acknowledge()
        try f.writeServices(policy: "deviceOwnerAuthenticationWithBiometrics")
        let start = Date()
        let run = try f.ours(["UNPLUG"])
        #expect(run.verdict == PAMText.verdict("PAM_AUTHINFO_UNAVAIL"), "\(run.run.stderr)")
        #expect(Date().timeIntervalSince(start) < 8, "the prompt must end when the reader goes, not at its 10 s timeout")
        #expect(run.syslog.contains { $0.hasPrefix("The fingerprint reader failed during the prompt for user \(s.user)") }, "\(run.syslog)")
        FprintdComparison.shared.record("reader unplugged during the prompt", ours: Self.name(run), theirs: "PAM_AUTHINFO_UNAVAIL (FprintdWorld notes)")
      }
    }

    @Test("no scan before timeout=: systemCancel (PAM_AUTHINFO_UNAVAIL) at the timeout, as with the simulated sensor")
    func timeout() throws {
      try withSandbox { s in
        let f = try Fixture(s)
        defer { f.stop() }
        try f.acknowledge()
        try s.writeService([s.moduleLine(["sensor=fprintd", "fprint_dir=" + f.world.stateDir, "timeout=1"])])
        let start = Date()
        let run = try f.ours()
        let elapsed = Date().timeIntervalSince(start)
        #expect(run.verdict == PAMText.verdict("PAM_AUTHINFO_UNAVAIL"), "\(run.run.stderr)")
        #expect(elapsed >= 1 && elapsed < 6, "the wait must end at the 1 s timeout (took \(elapsed) s)")
        #expect(run.syslog.contains("Biometric prompt for user \(s.user) timed out after 1 seconds."), "\(run.syslog)")
        // The claim was released: the next prompt can claim the reader again and match.
        try f.writeServices(policy: "deviceOwnerAuthentication")
        RecentPrompt.waitOut()
        let next = try f.ours(["SCAN print-A"])
        #expect(next.verdict == PAMText.verdict("PAM_SUCCESS"), "\(next.run.stderr)")
      }
    }

    @Test("retry results (scan again, swipe too short …) are retries, not failures")
    func retries() throws {
      try withSandbox { s in
        let f = try Fixture(s)
        defer { f.stop() }
        try f.acknowledge()
        try f.writeServices(policy: "deviceOwnerAuthenticationWithBiometrics")
        let run = try f.ours(["RETRY 0", "RETRY 1", "RETRY 2", "RETRY 3", "SCAN print-X", "SCAN print-X", "SCAN print-X"])
        #expect(run.verdict == PAMText.verdict("PAM_AUTH_ERR"), "\(run.run.stderr)")
        for text in [
          "Place your finger on the reader again.", "Swipe too short; try again.", "Center your finger on the reader and try again.",
          "Remove your finger and try again.",
        ] {
          #expect(run.conversation.contains(text), "\(text): \(run.conversation)")
        }
        #expect(try s.record()?.biometricFailures == 3)
        let peer = try f.theirs(["RETRY 0", "RETRY 1", "SCAN print-A"])
        FprintdComparison.shared.record("retry results, then wrong fingers", ours: "retries not counted; \(Self.name(run)) after 3 no-matches", theirs: "retries not counted; \(Self.name(peer)) on the match")
      }
    }
  }
}
