/// Why an evaluation failed, with Apple's LAError.Code raw values (docs/RULES.md, "Where failures come from").
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
  /// No biometric sensor is available.
  case biometryNotAvailable = -6
  /// No finger or face is enrolled.
  case biometryNotEnrolled = -7
  /// Biometry is locked out; the passcode is required to unlock it.
  case biometryLockout = -8
  /// The application cancelled (invalidate() during an evaluation).
  case appCancel = -9
  /// The context was invalidated before.
  case invalidContext = -10
  /// UI would be needed but interaction is not allowed.
  case notInteractive = -1004

  /// Apple's Swift spelling of the case, as logs and `localauthctl` print it.
  public var name: String {
    switch self {
    case .authenticationFailed: "authenticationFailed"
    case .userCancel: "userCancel"
    case .userFallback: "userFallback"
    case .systemCancel: "systemCancel"
    case .passcodeNotSet: "passcodeNotSet"
    case .biometryNotAvailable: "biometryNotAvailable"
    case .biometryNotEnrolled: "biometryNotEnrolled"
    case .biometryLockout: "biometryLockout"
    case .appCancel: "appCancel"
    case .invalidContext: "invalidContext"
    case .notInteractive: "notInteractive"
    }
  }

  /// A sentence for the user, in the spirit of Apple's localized descriptions.
  public var message: String {
    switch self {
    case .authenticationFailed: "Authentication failed."
    case .userCancel: "Authentication was cancelled."
    case .userFallback: "The fallback was chosen."
    case .systemCancel: "Authentication was cancelled by the system."
    case .passcodeNotSet: "No passcode is set."
    case .biometryNotAvailable: "Biometry is not available."
    case .biometryNotEnrolled: "No biometric identity is enrolled."
    case .biometryLockout: "Biometry is locked out; the passcode is required."
    case .appCancel: "Authentication was cancelled by the application."
    case .invalidContext: "The context was invalidated."
    case .notInteractive: "Interaction is not allowed."
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
  public var name: String {
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
