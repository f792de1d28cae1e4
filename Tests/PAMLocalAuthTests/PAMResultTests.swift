import CPAM
import LocalAuthCore
import Testing

@testable import PAMLocalAuth

/// PAMResult, row by row: the table in docs/return-codes.md.
@Suite("PAMResult")
struct PAMResultTests {
  static let now = WallTime(seconds: 1_800_000_000)

  /// Every evaluation outcome row.
  static let outcomeRows: [(EvaluationOutcome, CInt, String)] = [
    (.success(.biometry), PAM_SUCCESS, "finger"),
    (.success(.passcode), PAM_SUCCESS, "passcode"),
    (.success(.reuse), PAM_SUCCESS, "reuse window"),
    (.failure(.authenticationFailed, .none), PAM_AUTH_ERR, "wrong passcode or finger"),
    (.failure(.biometryLockout, .biometryLockedOut(failures: 5)), PAM_MAXTRIES, "biometric lockout, policy 1"),
    (.failure(.authenticationFailed, .passcodeDelayed(until: now)), PAM_MAXTRIES, "passcode delay"),
    (.failure(.biometryLockout, .passcodeRequired(.reboot)), PAM_AUTHINFO_UNAVAIL, "passcode required, policy 1"),
    (.failure(.biometryNotAvailable, .none), PAM_AUTHINFO_UNAVAIL, "no sensor"),
    (.failure(.biometryNotAvailable, .remoteSession), PAM_AUTHINFO_UNAVAIL, "remote, policy 1"),
    (.failure(.biometryNotEnrolled, .none), PAM_AUTHINFO_UNAVAIL, "not enrolled"),
    (.failure(.passcodeNotSet, .none), PAM_AUTHINFO_UNAVAIL, "no passcode"),
    (.failure(.userFallback, .fallbackChosen), PAM_IGNORE, "fallback, policy 1"),
    (.failure(.userCancel, .none), PAM_AUTHINFO_UNAVAIL, "cancel pressed"),
    (.failure(.systemCancel, .none), PAM_AUTHINFO_UNAVAIL, "sensor timeout"),
    (.failure(.appCancel, .none), PAM_AUTHINFO_UNAVAIL, "application cancelled"),
    (.failure(.notInteractive, .none), PAM_AUTHINFO_UNAVAIL, "no interaction"),
    (.failure(.invalidContext, .none), PAM_AUTHINFO_UNAVAIL, "invalid context"),
  ]

  @Test("evaluation outcomes", arguments: outcomeRows)
  func outcome(_ row: (EvaluationOutcome, CInt, String)) {
    #expect(PAMResult.code(for: row.0) == row.1, "\(row.2)")
  }

  /// Every detail the core can attach to a failure.
  static let details: [FailureDetail] = [
    .none, .passcodeDelayed(until: now), .biometryLockedOut(failures: 5), .remoteSession,
    .fallbackChosen,
  ] + [PasscodeRequirement.reboot, .idle, .passcodeAge, .enrollmentChange, .lockout].map { .passcodeRequired($0) }

  @Test("no failure, whatever its code and detail, gives PAM_SUCCESS")
  func failuresNeverSucceed() {
    for code in AuthErrorCode.allCases {
      for detail in Self.details {
        #expect(PAMResult.code(for: .failure(code, detail)) != PAM_SUCCESS, "\(code) \(detail)")
        #expect(PAMResult.code(for: .failure(code, detail)) != PAM_PERM_DENIED, "\(code) \(detail)")
      }
    }
  }

  /// Failures of the module itself (pam_get_user, argv, chauthtok's own checks).
  static let failureRows: [(PAMFailure, CInt, String)] = [
    (.conversation(again: false), PAM_CONV_ERR, "pam_get_user conversation failed"),
    (.conversation(again: true), PAM_INCOMPLETE, "pam_get_user PAM_CONV_AGAIN"),
    (.noUser, PAM_USER_UNKNOWN, "no user name"),
    (.unknownUser, PAM_USER_UNKNOWN, "unknown user"),
    (.badArguments, PAM_SERVICE_ERR, "argv undecodable"),
    (.notApplicable, PAM_IGNORE, "not applicable"),
    (.authTokenRejected, PAM_AUTHTOK_ERR, "new passcodes differ"),
    (.firstPasscodeNeedsRoot, PAM_PERM_DENIED, "a user may not set a first passcode"),
    (.extraLibraryUnusable, PAM_SYSTEM_ERR, "pam_localauth/extra.so missing, unsafe or of another build"),
  ]

  /// Errors thrown below the entry point.
  static let errorRows: [(LocalAuthError, CInt, String)] = [
    (.prompt(.conversationFailed), PAM_CONV_ERR, "conversation failed / NULL response"),
    (.prompt(.conversationAgain), PAM_INCOMPLETE, "PAM_CONV_AGAIN"),
    (.prompt(.noTerminal), PAM_CONV_ERR, "no terminal"),
    (.prompt(.interrupted), PAM_CONV_ERR, "interrupted"),
    (.config(.invalid(key: "timeout", value: "abc", expected: "seconds")), PAM_SERVICE_ERR, "malformed value"),
    (.config(.missingValue(key: "reason")), PAM_SERVICE_ERR, "missing value"),
    (.config(.unreadable(path: "/x", reason: "missing")), PAM_SERVICE_ERR, "conf= missing"),
    (.config(.tooLarge(what: "file")), PAM_SERVICE_ERR, "config too large"),
    (.usage(.emptyReason), PAM_SERVICE_ERR, "empty reason"),
    (.state(.corrupt(path: "/x", reason: "bad")), PAM_SYSTEM_ERR, "corrupt state"),
    (.state(.insecure(path: "/x", reason: "mode")), PAM_SYSTEM_ERR, "insecure state"),
    (.state(.unsupportedVersion(path: "/x", found: "9")), PAM_SYSTEM_ERR, "future state format"),
    (.state(.io(path: "/x", operation: "read", errno: 5)), PAM_SYSTEM_ERR, "I/O error"),
    (.state(.tooLarge(path: "/x", limit: 1)), PAM_SYSTEM_ERR, "oversized state"),
    (.state(.lockTimeout(path: "/x", seconds: 5, holder: nil)), PAM_SYSTEM_ERR, "state lock held past the bounded wait"),
    (.state(.permissionDenied(path: "/x")), PAM_AUTHINFO_UNAVAIL, "not running as root"),
    (.state(.invalidUserName(reason: "slash")), PAM_USER_UNKNOWN, "user name unusable"),
    (.administration(.passcode(.tooShort(minimum: 4))), PAM_AUTHTOK_ERR, "new passcode too short"),
    (.administration(.invalidName("x")), PAM_SYSTEM_ERR, "other administration error"),
    (.touchDelivery(.noPrompt(user: try! UserName("alice"))), PAM_SYSTEM_ERR, "touch delivery (never thrown in PAM)"),
  ]

  @Test("errors")
  func errors() {
    for (error, code, label) in Self.errorRows {
      #expect(PAMResult.code(for: error) == code, "\(label)")
      #expect(PAMResult.code(for: error) != PAM_SUCCESS, "\(label)")
    }
    for (failure, code, label) in Self.failureRows {
      #expect(PAMResult.code(for: failure) == code, "\(label)")
      #expect(PAMResult.code(for: failure) != PAM_SUCCESS, "\(label)")
    }
  }

  @Test("helper results: another user and every fault fail closed, each with its code")
  func helperResults() {
    let expected: [HelperFault: CInt] = [
      .stateUnreadable: PAM_AUTHINFO_UNAVAIL, .stateFailed: PAM_SYSTEM_ERR, .lockTimeout: PAM_SYSTEM_ERR,
      .conversationFailed: PAM_CONV_ERR, .conversationAgain: PAM_INCOMPLETE, .configuration: PAM_SERVICE_ERR,
      .protocolViolation: PAM_SYSTEM_ERR, .unknownUser: PAM_USER_UNKNOWN,
    ]
    #expect(Set(expected.keys) == Set(HelperFault.allCases))
    for fault in HelperFault.allCases {
      #expect(PAMResult.code(for: HelperResult.fault(fault)) == expected[fault], "\(fault)")
    }
    #expect(PAMResult.code(for: HelperResult.otherUser) == PAM_AUTH_ERR)
  }

  @Test("module decisions")
  func moduleOutcomes() {
    let expected: [ModuleOutcome: CInt] = [
      .featureNotEnabled: PAM_IGNORE, .doesNotApply: PAM_AUTHINFO_UNAVAIL, .accountNotManaged: PAM_IGNORE, .nothingToClose: PAM_IGNORE,
      .credentialsUnchanged: PAM_SUCCESS, .sessionOpened: PAM_SUCCESS, .sessionClosed: PAM_SUCCESS,
      .sessionNotRecorded: PAM_SESSION_ERR,
      .readyToChange: PAM_SUCCESS, .passcodeChanged: PAM_SUCCESS,
    ]
    #expect(Set(expected.keys) == Set(ModuleOutcome.allCases))
    for outcome in ModuleOutcome.allCases {
      #expect(PAMResult.code(for: outcome) == expected[outcome], "\(outcome)")
    }
  }

  @Test("setcred and acct_mgmt answer without options or state; the others (open_session records the login session) need them")
  func fixedOutcomes() {
    #expect(PAMEntry.fixedOutcome(.setCredentials) == .credentialsUnchanged)
    #expect(PAMEntry.fixedOutcome(.accountManagement) == .accountNotManaged)
    #expect(PAMEntry.fixedOutcome(.openSession) == nil)
    #expect(PAMEntry.fixedOutcome(.authenticate) == nil)
    #expect(PAMEntry.fixedOutcome(.closeSession) == nil)
    #expect(PAMEntry.fixedOutcome(.changeAuthToken) == nil)
  }

  @Test("the constants are Linux-PAM's, not OpenPAM's")
  func linuxPAMConstants() {
    #expect(PAM_AUTH_ERR == 7)
    #expect(PAM_MAXTRIES == 11)
    #expect(PAM_IGNORE == 25)
    #expect(PAM_INCOMPLETE == 31)
    #expect(CInt(PAM_SILENT) == 0x8000)
    #expect(cpam_is_silent(CInt(PAM_SILENT)) == 1)
    #expect(cpam_is_silent(CInt(PAM_SILENT) | CInt(PAM_DISALLOW_NULL_AUTHTOK)) == 1)
    #expect(cpam_is_silent(CInt(PAM_DISALLOW_NULL_AUTHTOK)) == 0)
  }
}
