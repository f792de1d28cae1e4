import CPAM
import LocalAuthCore

/// Failures of the module itself, outside the core's evaluation outcomes.
enum PAMFailure: Error, Equatable {
  /// PAM could not tell the user name.
  case noUser
  /// The user name is not known to the system.
  case unknownUser
  /// The conversation failed (again: the application returned PAM_CONV_AGAIN).
  case conversation(again: Bool)
  /// argv could not be decoded.
  case badArguments
  /// The operation is not supported with these arguments.
  case notApplicable
  /// The new passcode was refused (the two entries differ).
  case authTokenRejected
  /// A user without a passcode tried to set the first one: only root may (it would open a path to sudo).
  case firstPasscodeNeedsRoot
}

/// What the module decided on its own, without an evaluation: each becomes a PAM code below.
enum ModuleOutcome: Equatable, CaseIterable {
  /// facade mode (`feature=`): the module does not apply to this user (no feature, no passcode, or unknown).
  case featureNotEnabled
  /// The module does not apply to this user (unknown, or without a passcode): the next line decides.
  case doesNotApply
  /// pam_sm_setcred: there are no credentials to establish.
  case credentialsUnchanged
  /// pam_sm_acct_mgmt: the module manages no accounts.
  case accountNotManaged
  /// pam_sm_open_session: nothing to do.
  case sessionOpened
  /// pam_sm_close_session: the user's reuse window ended.
  case sessionClosed
  /// pam_sm_close_session for a user without a state record or not known to the system.
  case nothingToClose
  /// pam_sm_chauthtok with PAM_PRELIM_CHECK: the user is known and the state is reachable.
  case readyToChange
  /// pam_sm_chauthtok with PAM_UPDATE_AUTHTOK: the passcode was changed.
  case passcodeChanged
}

/// The one place where outcomes and errors become PAM return codes (docs/return-codes.md).
enum PAMResult {
  /// The PAM code for an evaluation outcome.
  static func code(for outcome: EvaluationOutcome) -> CInt {
    switch outcome {
    case .success:
      return PAM_SUCCESS
    case .failure(let code, let detail):
      switch (code, detail) {
      case (_, .passcodeDelayed): return PAM_MAXTRIES
      case (_, .featureNotEnabled): return PAM_IGNORE
      case (.userFallback, _): return PAM_IGNORE
      case (.biometryLockout, .passcodeRequired): return PAM_AUTHINFO_UNAVAIL
      case (.biometryLockout, _): return PAM_MAXTRIES
      case (.biometryNotAvailable, _), (.biometryNotEnrolled, _), (.passcodeNotSet, _): return PAM_AUTHINFO_UNAVAIL
      case (.userCancel, _), (.systemCancel, _), (.appCancel, _): return PAM_AUTHINFO_UNAVAIL
      case (.notInteractive, _), (.invalidContext, _): return PAM_AUTHINFO_UNAVAIL
      case (.authenticationFailed, _): return PAM_AUTH_ERR
      }
    }
  }

  /// The PAM code for a decision the module made without an evaluation.
  static func code(for outcome: ModuleOutcome) -> CInt {
    switch outcome {
    case .featureNotEnabled, .accountNotManaged, .nothingToClose: return PAM_IGNORE
    case .doesNotApply: return PAM_AUTHINFO_UNAVAIL
    case .credentialsUnchanged, .sessionOpened, .sessionClosed, .readyToChange, .passcodeChanged: return PAM_SUCCESS
    }
  }

  /// The PAM code for an error thrown anywhere below the entry point; never PAM_SUCCESS.
  static func code(for error: any Error) -> CInt {
    switch error {
    case let failure as PAMFailure:
      switch failure {
      case .noUser: return PAM_USER_UNKNOWN
      case .unknownUser: return PAM_USER_UNKNOWN
      case .conversation(let again): return again ? PAM_INCOMPLETE : PAM_CONV_ERR
      case .badArguments: return PAM_SERVICE_ERR
      case .notApplicable: return PAM_IGNORE
      case .authTokenRejected: return PAM_AUTHTOK_ERR
      case .firstPasscodeNeedsRoot: return PAM_PERM_DENIED
      }
    case let prompt as PromptError:
      return prompt == .conversationAgain ? PAM_INCOMPLETE : PAM_CONV_ERR
    case is ConfigError:
      return PAM_SERVICE_ERR
    case let state as StateError:
      if case .invalidUserName = state { return PAM_USER_UNKNOWN }
      if case .permissionDenied = state { return PAM_AUTHINFO_UNAVAIL }
      // Another process holds the user's lock past the bounded wait: a system fault, not a verdict on the user.
      if case .lockTimeout = state { return PAM_SYSTEM_ERR }
      return PAM_SYSTEM_ERR
    case let admin as AdministrationError:
      if case .passcode = admin { return PAM_AUTHTOK_ERR }
      return PAM_SYSTEM_ERR
    case is UsageError:
      return PAM_SERVICE_ERR
    default:
      return PAM_SYSTEM_ERR
    }
  }
}
