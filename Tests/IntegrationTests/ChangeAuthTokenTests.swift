import Foundation
import LocalAuthCore
import Testing

extension RealPAM {
  /// pam_sm_chauthtok through real PAM: libpam calls it with PAM_PRELIM_CHECK, then PAM_UPDATE_AUTHTOK.
  @Suite("Passcode change (chauthtok)")
  struct ChangeAuthTokenTests {
    static let newPrompts = ["prompt: New passcode: ", "prompt: Retype new passcode: "]
    static let current = "prompt: Current passcode: "

    /// A service with an auth line (to check the passcode afterwards) and a password line.
    func prepare(_ sandbox: Sandbox, passcode: Bool = true) throws {
      if passcode { try sandbox.setPasscode() }
      try sandbox.writeService([sandbox.moduleLine([]), sandbox.moduleLine([], type: "password")])
    }

    /// Authenticates with a passcode only (no finger is enrolled) and returns the result.
    func authenticate(_ sandbox: Sandbox, with passcode: String) throws -> String {
      try sandbox.harness(answers: [passcode]).result
    }

    @Test("root changes the passcode without the current one")
    func rootChanges() throws {
      try withSandbox { s in
        try prepare(s)
        let run = try s.harness(answers: ["5678", "5678"], operations: ["chauthtok"])
        #expect(run.results == ["PAM_SUCCESS"])
        #expect(run.messages == Self.newPrompts + ["info: Passcode changed."])
        #expect(try authenticate(s, with: "5678") == "PAM_SUCCESS")
        #expect(try authenticate(s, with: "1234") == "PAM_AUTH_ERR")
      }
    }

    @Test("entries that differ give PAM_AUTHTOK_ERR and keep the old passcode")
    func mismatch() throws {
      try withSandbox { s in
        try prepare(s)
        let run = try s.harness(answers: ["5678", "5679"], operations: ["chauthtok"])
        #expect(run.results == ["PAM_AUTHTOK_ERR"])
        #expect(run.messages == Self.newPrompts + ["error: Sorry, passcodes do not match."])
        #expect(try authenticate(s, with: "1234") == "PAM_SUCCESS")
      }
    }

    @Test("a passcode that is too short gives PAM_AUTHTOK_ERR")
    func tooShort() throws {
      try withSandbox { s in
        try prepare(s)
        let run = try s.harness(answers: ["12", "12"], operations: ["chauthtok"])
        #expect(run.results == ["PAM_AUTHTOK_ERR"])
        #expect(run.messages == Self.newPrompts + ["error: The passcode must be at least 4 characters long."])
      }
    }

    @Test("a user (real uid not 0) must give the current passcode")
    func userGivesCurrent() throws {
      try withSandbox { s in
        try prepare(s)
        let run = try s.harness(answers: ["1234", "5678", "5678"], operations: ["chauthtok"], ["--real-uid", "\(s.uid)"])
        #expect(run.results == ["PAM_SUCCESS"])
        #expect(run.messages == [Self.current] + Self.newPrompts + ["info: Passcode changed."])
        #expect(try authenticate(s, with: "5678") == "PAM_SUCCESS")
      }
    }

    @Test("a wrong current passcode gives PAM_AUTH_ERR and counts as a failure")
    func wrongCurrent() throws {
      try withSandbox { s in
        try prepare(s)
        let run = try s.harness(answers: ["0000", "5678", "5678"], operations: ["chauthtok"], ["--real-uid", "\(s.uid)"])
        #expect(run.results == ["PAM_AUTH_ERR"])
        #expect(run.messages == [Self.current, "error: Wrong passcode."])
        #expect(try s.record()?.passcodeFailures == 1)
        #expect(try authenticate(s, with: "1234") == "PAM_SUCCESS")
      }
    }

    @Test("a passcode delay in force gives PAM_MAXTRIES before any prompt")
    func delayed() throws {
      try withSandbox { s in
        try prepare(s)
        let now = SystemClock().now()
        try s.seed { record in
          record.passcodeFailures = 6
          record.passcodeNextAllowed = now.adding(290)
        }
        let run = try s.harness(answers: ["1234", "5678", "5678"], operations: ["chauthtok"], ["--real-uid", "\(s.uid)"])
        #expect(run.results == ["PAM_MAXTRIES"])
        #expect(run.messages == ["error: Passcode entry is disabled after repeated failures. Try again in 5 minutes."])
      }
    }

    @Test("a user without a passcode may not set the first one: PAM_PERM_DENIED, nothing asked or written")
    func firstPasscodeNeedsRoot() throws {
      try withSandbox { s in
        try prepare(s, passcode: false)
        let run = try s.harness(answers: ["2468", "2468"], operations: ["chauthtok"], ["--real-uid", "\(s.uid)"])
        #expect(run.results == ["PAM_PERM_DENIED"])
        #expect(run.messages == ["error: No passcode is set; ask the administrator to set one (localauthctl passcode set)."])
        #expect(try authenticate(s, with: "2468") != "PAM_SUCCESS")
      }
    }

    @Test("root sets a user's first passcode without a current one")
    func firstPasscodeByRoot() throws {
      try withSandbox { s in
        try prepare(s, passcode: false)
        let run = try s.harness(answers: ["2468", "2468"], operations: ["chauthtok"])
        #expect(run.results == ["PAM_SUCCESS"])
        #expect(run.messages == Self.newPrompts + ["info: Passcode changed."])
        #expect(try authenticate(s, with: "2468") == "PAM_SUCCESS")
      }
    }

    @Test("an unknown user gives PAM_USER_UNKNOWN")
    func unknownUser() throws {
      try withSandbox { s in
        try prepare(s)
        let run = try s.harness(user: "latnosuchuser", answers: ["5678", "5678"], operations: ["chauthtok"])
        #expect(run.results == ["PAM_USER_UNKNOWN"])
        #expect(run.messages == [])
      }
    }

    @Test("pamtester chauthtok under pam_wrapper", .enabled(if: Artifacts.pamtesterAvailable, "pamtester or libpam-wrapper missing"))
    func pamtester() throws {
      try withSandbox { s in
        try prepare(s)
        let changed = try s.pamtester(["chauthtok"], stdin: "5678\n5678\n")
        #expect(changed.status == 0)
        #expect(changed.verdict == "pamtester: authentication token altered successfully.")
        #expect(changed.info == ["Passcode changed."])
        #expect(changed.syslog.contains { $0.hasPrefix("Passcode changed for user \(s.user)") })
        let refused = try s.pamtester(["chauthtok"], stdin: "5678\n8765\n")
        #expect(refused.status == 1)
        #expect(refused.verdict == PAMText.verdict("PAM_AUTHTOK_ERR"))
        #expect(refused.conversation.contains("Sorry, passcodes do not match."))
      }
    }
  }
}
