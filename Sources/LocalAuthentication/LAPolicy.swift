import LocalAuthCore

/// The set of conditions an evaluation must satisfy (Apple's `LAPolicy`, the two policies the core implements).
public enum LAPolicy: Int, Sendable, Hashable, CaseIterable {
  /// Biometry only; the caller handles the fallback (Apple raw value 1).
  case deviceOwnerAuthenticationWithBiometrics = 1
  /// Biometry first when usable, then the device passcode (Apple raw value 2).
  case deviceOwnerAuthentication = 2
}

extension LAPolicy {
  /// The core's policy with the same raw value.
  var corePolicy: AuthPolicy {
    switch self {
    case .deviceOwnerAuthenticationWithBiometrics: .deviceOwnerAuthenticationWithBiometrics
    case .deviceOwnerAuthentication: .deviceOwnerAuthentication
    }
  }
}
