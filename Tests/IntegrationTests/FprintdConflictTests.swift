import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealPAM {
  /// docs/RULES.md, "One finger request at a time", on fprintd's virtual reader (FprintdTests' fixture): two
  /// requests of one user both fall back to the passcode, the second before it claims the reader; a reader another
  /// program holds is the same case, and no swipe instruction is shown before it.
  @Suite("One finger request at a time through fprintd", .serialized, .enabled(if: FprintdWorld.pamtesterAvailable, "needs fprintd, python3-dbusmock and libpam-fprintd (make deps)"))
  struct FprintdConflictTests {
    static let swipe = "Swipe your right index finger"

    /// Waits (at most 10 s) until a prompt of the sandbox's user is listed; returns its pid.
    static func waitForPrompt(_ s: Sandbox) throws -> Int {
      let end = Date().addingTimeInterval(10)
      while Date() < end {
        let listed = try Run.program(Artifacts.ctl, ["prompts", s.user, "--json", "--state-dir", s.stateDir])
        let prompts = (try? JSONSerialization.jsonObject(with: Data(listed.stdout.utf8))) as? [[String: Any]] ?? []
        if let pid = prompts.first?["pid"] as? Int { return pid }
        usleep(20_000)
      }
      throw RunError.message("no prompt of \(s.user) was listed within 10 s")
    }

    enum RunError: Error { case message(String) }

    @Test("two requests of one user: both get the passcode, each names the other; the second never claims the reader nor asks for a swipe")
    func twoRequestsBothFallBack() throws {
      try withSandbox { s in
        let f = try FprintdTests.Fixture(s)
        defer { f.stop() }
        try f.acknowledge()
        RecentPrompt.waitOut()  // the acknowledging run asked no finger, but keep clear of any recent prompt
        let first = Background { try f.ours(stdin: "1234\n") }
        let firstPID = try Self.waitForPrompt(s)
        let second = try f.ours(stdin: "1234\n")
        let firstRun = try first.result()
        for run in [firstRun, second] {
          #expect(run.verdict == PAMText.verdict("PAM_SUCCESS"), "\(run.run.stderr)")
          #expect(run.conversation.contains("Enter Passcode: "), "\(run.conversation)")
        }
        #expect(!second.info.contains { $0.contains(Self.swipe) }, "\(second.info)")
        #expect(second.conversation.contains("Another program is asking for your finger: \(s.service), pid \(firstPID), "), "\(second.conversation)")
        #expect(firstRun.conversation.contains("Another program is asking for your finger: \(s.service), pid "), "\(firstRun.conversation)")
        #expect(try s.record()?.lastBiometricSuccess == nil)
        #expect((firstRun.syslog + second.syslog).filter { $0.hasPrefix("Two requests ask for the finger of user \(s.user) at once") }.count == 1)
      }
    }

    @Test("a reader pam_fprintd holds: the passcode at once, naming no swipe instruction first")
    func readerHeldElsewhere() throws {
      try withSandbox { s in
        let f = try FprintdTests.Fixture(s)
        defer { f.stop() }
        try f.acknowledge()
        // pam_fprintd (outside the registry) claims the reader and waits for a finger.
        let peer = Background { try f.theirs() }
        usleep(1_500_000)
        let run = try f.ours(stdin: "1234\n")
        #expect(run.verdict == PAMText.verdict("PAM_SUCCESS"), "\(run.run.stderr)")
        #expect(!run.info.contains { $0.contains("Swipe your") }, "\(run.info)")
        #expect(run.conversation.contains("Another program is using the fingerprint reader. Enter your passcode."), "\(run.conversation)")
        #expect(run.syslog.contains { $0.hasPrefix("The fingerprint reader is claimed by another request") }, "\(run.syslog)")
        _ = try? peer.result()
      }
    }
  }
}

extension RealPAM.FprintdTests.Fixture: @unchecked Sendable {}
