import CPAM
import LocalAuthCore

/// Failures of the module itself, outside the core's evaluation outcomes and errors.
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
  /// The operation needs pam_localauth/extra.so, which is missing, unsafe or of another build (ExtraLibrary).
  case extraLibraryUnusable
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
  /// pam_sm_open_session: the login session was recorded, or there was nothing to record.
  case sessionOpened
  /// pam_sm_open_session: the login session this process opened could not be recorded in the ledger.
  case sessionNotRecorded
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
      case (.userFallback, _): return PAM_IGNORE
      case (.biometryLockout, .passcodeRequired): return PAM_AUTHINFO_UNAVAIL
      case (.biometryLockout, _): return PAM_MAXTRIES
      case (.biometryNotAvailable, _), (.biometryNotEnrolled, _), (.passcodeNotSet, _): return PAM_AUTHINFO_UNAVAIL
      case (.userCancel, _), (.systemCancel, _), (.appCancel, _): return PAM_AUTHINFO_UNAVAIL
      case (.notInteractive, _), (.invalidContext, _): return PAM_AUTHINFO_UNAVAIL
      // Apple codes that no evaluation on Linux produces.
      case (.companionNotAvailable, _), (.biometryNotPaired, _), (.biometryDisconnected, _), (.invalidDimensions, _):
        return PAM_AUTHINFO_UNAVAIL
      case (.authenticationFailed, _): return PAM_AUTH_ERR
      }
    }
  }

  /// The PAM code for what authenticating a user came to.
  static func code(for result: AuthenticationResult) -> CInt {
    switch result {
    case .evaluated(let outcome): code(for: outcome)
    case .doesNotApply(let featureNotEnabled): code(for: featureNotEnabled ? ModuleOutcome.featureNotEnabled : .doesNotApply)
    }
  }

  /// The PAM code for how localauth-helper ended; never PAM_SUCCESS unless the engine decided so.
  static func code(for result: HelperResult) -> CInt {
    switch result {
    case .decided(let decided): return code(for: decided)
    // As unix_chkpwd answers a caller that asks for someone else.
    case .otherUser: return PAM_AUTH_ERR
    case .fault(let fault):
      switch fault {
      case .stateUnreadable: return PAM_AUTHINFO_UNAVAIL
      case .stateFailed, .lockTimeout, .protocolViolation: return PAM_SYSTEM_ERR
      case .conversationFailed: return PAM_CONV_ERR
      case .conversationAgain: return PAM_INCOMPLETE
      case .configuration: return PAM_SERVICE_ERR
      // The application's uid has no passwd entry: there is no user the helper could authenticate for it.
      case .unknownUser: return PAM_USER_UNKNOWN
      }
    }
  }

  /// The PAM code for a decision the module made without an evaluation.
  static func code(for outcome: ModuleOutcome) -> CInt {
    switch outcome {
    case .featureNotEnabled, .accountNotManaged, .nothingToClose: return PAM_IGNORE
    case .doesNotApply: return PAM_AUTHINFO_UNAVAIL
    case .sessionNotRecorded: return PAM_SESSION_ERR
    case .credentialsUnchanged, .sessionOpened, .sessionClosed, .readyToChange, .passcodeChanged: return PAM_SUCCESS
    }
  }

  /// The PAM code for a failure of the module itself; never PAM_SUCCESS.
  static func code(for failure: PAMFailure) -> CInt {
    switch failure {
    case .noUser: PAM_USER_UNKNOWN
    case .unknownUser: PAM_USER_UNKNOWN
    case .conversation(let again): again ? PAM_INCOMPLETE : PAM_CONV_ERR
    case .badArguments: PAM_SERVICE_ERR
    case .notApplicable: PAM_IGNORE
    case .authTokenRejected: PAM_AUTHTOK_ERR
    case .firstPasscodeNeedsRoot: PAM_PERM_DENIED
    case .extraLibraryUnusable: PAM_SYSTEM_ERR
    }
  }

  /// The PAM code for an error thrown anywhere below the entry point; never PAM_SUCCESS.
  static func code(for error: LocalAuthError) -> CInt {
    switch error {
    case .prompt(let prompt): prompt == .conversationAgain ? PAM_INCOMPLETE : PAM_CONV_ERR
    case .config: PAM_SERVICE_ERR
    case .usage: PAM_SERVICE_ERR
    case .state(let state):
      switch state {
      case .invalidUserName: PAM_USER_UNKNOWN
      case .permissionDenied: PAM_AUTHINFO_UNAVAIL
      // Another process holds the user's lock past the bounded wait: a system fault, not a verdict on the user.
      case .lockTimeout: PAM_SYSTEM_ERR
      case .insecure, .corrupt, .unsupportedVersion, .io, .tooLarge: PAM_SYSTEM_ERR
      }
    case .administration(let admin):
      if case .passcode = admin { PAM_AUTHTOK_ERR } else { PAM_SYSTEM_ERR }
    case .touchDelivery: PAM_SYSTEM_ERR
    // Without a usable helper the module cannot apply here: the stack's next line decides, as pam_unix would
    // without unix_chkpwd. A conversation with the helper that broke off is a system fault.
    case .helper(let helper):
      switch helper {
      case .unusable, .spawnFailed: PAM_AUTHINFO_UNAVAIL
      case .broken: PAM_SYSTEM_ERR
      }
    // The login secret is an addition to an authentication that already succeeded; the lines that capture or
    // release it catch their own errors (LoginSecret.swift). One that reaches here is a system fault.
    case .keychain: PAM_SYSTEM_ERR
    }
  }
}
