import Foundation
import Testing

extension RealPAM {
  /// pam_sm_close_session ends the reuse window (reuse_duration=60).
  @Suite("Sessions and the reuse window")
  struct SessionTests {
    static let finger = "info: Place your finger on the sensor to authenticate for localauth-test."

    func prepare(_ s: Sandbox) throws {
      try Setups.ready(s)
      try s.writeService([s.moduleLine(["reuse_duration=60"]), s.moduleLine([], type: "session")])
      try s.touch()
      // Pressed at the prompt after the session closed: the prompt appears, proving a touch is needed again.
      try s.pressCancel()
    }

    @Test("PAMHarness: reuse without a touch, then close_session asks for the finger again")
    func harness() throws {
      try withSandbox { s in
        try prepare(s)
        let run = try s.harness(operations: ["authenticate", "authenticate", "close_session", "authenticate"])
        #expect(
          run.lines == [
            Self.finger,
            "result: PAM_SUCCESS (0) Success",
            "result: PAM_SUCCESS (0) Success",
            "result: PAM_SUCCESS (0) Success",
            Self.finger,
            "result: PAM_AUTHINFO_UNAVAIL (9) Authentication service cannot retrieve authentication info",
          ])
        #expect(try s.record()?.reuse == nil)
      }
    }

    @Test("pamtester: the same sequence under pam_wrapper", .enabled(if: Artifacts.pamtesterAvailable, "pamtester or libpam-wrapper missing"))
    func pamtester() throws {
      try withSandbox { s in
        try prepare(s)
        let run = try s.pamtester(["authenticate", "authenticate", "close_session", "authenticate"])
        #expect(
          run.run.stdoutLines == [
            String(Self.finger.dropFirst(6)), "pamtester: successfully authenticated", "pamtester: successfully authenticated",
            "pamtester: session has successfully been closed.", String(Self.finger.dropFirst(6)),
          ])
        #expect(run.verdict == PAMText.verdict("PAM_AUTHINFO_UNAVAIL"))
        #expect(run.syslog.contains { $0.hasPrefix("Reused a biometric match for user \(s.user) within 60 seconds") })
        #expect(run.syslog.contains { $0.hasPrefix("Ended the reuse window of user \(s.user) at session close") })
      }
    }

    @Test("close_session for a user without state writes nothing")
    func closeWithoutState() throws {
      try withSandbox { s in
        try s.writeService([s.moduleLine([], type: "session"), "session required pam_permit.so"])
        let run = try s.harness(operations: ["open_session", "close_session"])
        #expect(run.results == ["PAM_SUCCESS", "PAM_SUCCESS"])
        #expect(!FileManager.default.fileExists(atPath: s.recordPath))
      }
    }
  }
}
