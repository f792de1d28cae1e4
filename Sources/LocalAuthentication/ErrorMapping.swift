import Foundation
import LocalAuthCore

/// The one place where core outcomes and failures become `LAError` values (a core code is already an
/// `LAError.Code`: the two are one type).
enum ErrorMapping {
  /// An LAError for a core failure, with its detail in the debug description.
  static func error(_ core: AuthErrorCode, _ detail: FailureDetail) -> LAError {
    guard detail != .none else { return LAError(core) }
    return LAError(core, userInfo: [NSDebugDescriptionErrorKey: "\(detail)"])
  }

  /// The LAError for anything the evaluation threw: fails closed, never a success (documented choices).
  ///
  /// - State errors (including `permissionDenied` for callers that may not read the state) → `biometryNotAvailable`.
  /// - No terminal → `notInteractive`; Ctrl-C or end of input at the passcode prompt → `userCancel`.
  /// - A failed or deferred conversation, and anything unexpected → `systemCancel`.
  static func error(for failure: any Error) -> LAError {
    if let failure = failure as? LAError { return failure }
    let code: LAError.Code
    switch failure {
    case LocalAuthError.state, is StateError: code = .biometryNotAvailable
    case is LAContextConfiguration.SetupError: code = .biometryNotAvailable
    case LocalAuthError.prompt(.noTerminal): code = .notInteractive
    case LocalAuthError.prompt(.endOfInput), LocalAuthError.prompt(.interrupted): code = .userCancel
    default: code = .systemCancel
    }
    return LAError(code, userInfo: [NSDebugDescriptionErrorKey: "\(failure)", NSUnderlyingErrorKey: failure as NSError])
  }
}
