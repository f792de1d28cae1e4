/// Apple's LAError table (LAError.h): the one place of its raw values, Swift names and sentences. Evaluations
/// fail with these codes (docs/RULES.md, "Where failures come from"), and LocalAuthentication's `LAError.Code` is
/// this type, so no other file restates a number.
public enum AuthErrorCode: Int, Sendable, CaseIterable {
  /// The user failed to provide valid credentials.
  case authenticationFailed = -1
  /// The user pressed Cancel.
  case userCancel = -2
  /// The user pressed the fallback button and the policy has no fallback.
  case userFallback = -3
  /// The system cancelled (a sensor wait timed out).
  case systemCancel = -4
  /// No passcode is set for the user.
  case passcodeNotSet = -5
  /// No biometric sensor is available (also: the authentication state could not be reached).
  case biometryNotAvailable = -6
  /// No finger or face is enrolled.
  case biometryNotEnrolled = -7
  /// Biometry is locked out; the passcode is required to unlock it.
  case biometryLockout = -8
  /// The application cancelled (invalidate() during an evaluation).
  case appCancel = -9
  /// The context was invalidated before.
  case invalidContext = -10
  /// UI would be needed but interaction is not allowed (or no terminal is available).
  case notInteractive = -1004
  // Apple's codes that nothing on Linux produces, declared for source compatibility. The helper's wire carries
  // a code by its raw value (docs/HELPER.md, "Schema"), so the order of the cases is free.
  /// No paired companion device is nearby (never produced on Linux).
  case companionNotAvailable = -11
  /// Biometry needs a paired accessory and none is paired (never produced on Linux).
  case biometryNotPaired = -12
  /// The paired biometric accessory is disconnected (never produced on Linux).
  case biometryDisconnected = -13
  /// Invalid dimensions for embedded UI (never produced on Linux).
  case invalidDimensions = -14

  /// Apple's Swift spelling of the case, as logs and `localauthctl` print it.
  package var name: String { row.name }

  /// The sentence `localauthctl` prints after the name and code.
  package var message: String { row.message }

  /// The sentence an `LAError` with this code gives as its localized description: `message`, or Apple's
  /// wording where it differs.
  package var localizedDescription: String { row.apple ?? row.message }

  /// The table: each code's name, `message`, and Apple's wording where it differs from `message`.
  private var row: (name: String, message: String, apple: String?) {
    switch self {
    case .authenticationFailed: ("authenticationFailed", "Authentication failed.", nil)
    case .userCancel: ("userCancel", "Authentication was cancelled.", "Authentication was canceled by the user.")
    case .userFallback: ("userFallback", "The fallback was chosen.", "The user chose the fallback.")
    case .systemCancel:
      ("systemCancel", "Authentication was cancelled by the system.", "Authentication was canceled by the system.")
    case .passcodeNotSet: ("passcodeNotSet", "No passcode is set.", nil)
    case .biometryNotAvailable: ("biometryNotAvailable", "Biometry is not available.", nil)
    case .biometryNotEnrolled: ("biometryNotEnrolled", "No biometric identity is enrolled.", nil)
    case .biometryLockout: ("biometryLockout", "Biometry is locked out; the passcode is required.", nil)
    case .appCancel:
      ("appCancel", "Authentication was cancelled by the application.", "Authentication was canceled by the application.")
    case .invalidContext: ("invalidContext", "The context was invalidated.", nil)
    case .notInteractive: ("notInteractive", "Interaction is not allowed.", nil)
    case .companionNotAvailable: ("companionNotAvailable", "No companion device is available.", nil)
    case .biometryNotPaired: ("biometryNotPaired", "No biometric accessory is paired.", nil)
    case .biometryDisconnected: ("biometryDisconnected", "The biometric accessory is disconnected.", nil)
    case .invalidDimensions: ("invalidDimensions", "The user interface dimensions are invalid.", nil)
    }
  }
}

/// The evaluation policies (LAPolicy raw values).
public enum AuthPolicy: Int, Sendable, CaseIterable {
  /// Biometrics only; the caller handles the fallback (LAPolicy 1).
  case deviceOwnerAuthenticationWithBiometrics = 1
  /// Biometrics first, then the passcode (LAPolicy 2).
  case deviceOwnerAuthentication = 2

  /// The name used in configuration and logs.
  package var name: String {
    switch self {
    case .deviceOwnerAuthenticationWithBiometrics: "deviceOwnerAuthenticationWithBiometrics"
    case .deviceOwnerAuthentication: "deviceOwnerAuthentication"
    }
  }

  /// Parses a configuration name (the full name, or the short forms `biometrics` and `deviceOwner`).
  public init?(name: String) {
    switch name {
    case "deviceOwnerAuthenticationWithBiometrics", "biometrics": self = .deviceOwnerAuthenticationWithBiometrics
    case "deviceOwnerAuthentication", "deviceOwner": self = .deviceOwnerAuthentication
    default: return nil
    }
  }
}
