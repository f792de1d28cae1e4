/// How a successful evaluation was reached.
public enum AuthMethod: String, Sendable {
  /// A fresh biometric match.
  case biometry
  /// The passcode.
  case passcode
  /// A recent biometric match honoured by the reuse window.
  case reuse
}

/// What lies behind a failure, beyond the LAError code: the detail the PAM module and the CLI report.
public enum FailureDetail: Sendable, Equatable {
  /// No further detail.
  case none
  /// The passcode is delayed until the given time after repeated failures.
  case passcodeDelayed(until: WallTime)
  /// Biometry is locked after consecutive failed matches.
  case biometryLockedOut(failures: Int)
  /// The passcode is required instead of biometry, for the given reason.
  case passcodeRequired(PasscodeRequirement)
  /// Biometry is not offered on a remote session.
  case remoteSession
  /// Biometry is not offered: the request is not visible to the person at the machine (no terminal, a
  /// background job, or a program started without the terminal; docs/RULES.md, "Intent").
  case requestNotVisible
  /// The fallback was pressed under the biometrics-only policy.
  case fallbackChosen
  /// Biometry is not offered: another request asks for the same user's finger, or did a moment ago
  /// (docs/RULES.md, "One finger request at a time").
  case concurrentRequest
}

/// Why the passcode is required instead of biometry (docs/RULES.md, rule 6).
public enum PasscodeRequirement: String, Sendable, Equatable {
  /// The machine rebooted since the last passcode success.
  case reboot
  /// No successful authentication for the idle limit (48 h).
  case idle
  /// Passcode not used for 156 h and biometry not for 4 h.
  case passcodeAge
  /// An enrollment changed since the last passcode success.
  case enrollmentChange
  /// Biometry is locked out after consecutive failed matches.
  case lockout

  /// A sentence for the user.
  package var message: String {
    switch self {
    case .reboot: "Your passcode is required after a restart."
    case .idle: "Your passcode is required after 48 hours without authentication."
    case .passcodeAge: "Your passcode is required because it has not been used recently."
    case .enrollmentChange: "Your passcode is required because the enrolled identities changed."
    case .lockout: "Biometry is locked after too many failed attempts; your passcode is required."
    }
  }
}

/// The result of evaluating a policy: success by some method, or an LAError code with detail.
public enum EvaluationOutcome: Sendable, Equatable {
  /// The owner was authenticated.
  case success(AuthMethod)
  /// The evaluation failed.
  case failure(AuthErrorCode, FailureDetail)

  /// True only for `.success`.
  package var isSuccess: Bool { if case .success = self { true } else { false } }
}
