import LocalAuthCore

/// What a right falls back on when biometry is not used (Apple's `LABiometryFallbackRequirement`, iOS 16 / macOS 13).
public final class LABiometryFallbackRequirement: Hashable, Sendable, CustomStringConvertible {
  /// The two fallbacks Apple defines.
  enum Kind: Hashable, Sendable {
    case `default`
    case devicePasscode
  }

  let kind: Kind

  private init(_ kind: Kind) { self.kind = kind }

  /// The default biometric fallback: on Linux, as on a device without a watch, the user's passcode.
  public static var `default`: LABiometryFallbackRequirement { LABiometryFallbackRequirement(.default) }

  /// The fallback that requires entering the device passcode.
  public static var devicePasscode: LABiometryFallbackRequirement { LABiometryFallbackRequirement(.devicePasscode) }

  public static func == (lhs: LABiometryFallbackRequirement, rhs: LABiometryFallbackRequirement) -> Bool {
    lhs.kind == rhs.kind
  }

  public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

  /// "default" or "devicePasscode".
  public var description: String {
    switch kind {
    case .default: "default"
    case .devicePasscode: "devicePasscode"
    }
  }
}

/// A set of requirements that protect a right (Apple's `LAAuthenticationRequirement`, iOS 16 / macOS 13).
///
/// Each requirement is evaluated as one of the two policies (docs/RULES.md, "LARight"):
/// `.default` and `.biometry(fallback:)` as `deviceOwnerAuthentication` (biometry first, then the passcode);
/// `.biometry` and `.biometryCurrentSet` as `deviceOwnerAuthenticationWithBiometrics` (biometry only), the latter
/// also refusing once the enrolled set differs from the one current when the right was created.
public final class LAAuthenticationRequirement: Hashable, Sendable, CustomStringConvertible {
  /// The requirement's meaning.
  enum Kind: Hashable, Sendable {
    case `default`
    case biometry
    case biometryCurrentSet
    case biometryWithFallback(LABiometryFallbackRequirement.Kind)
  }

  let kind: Kind

  private init(_ kind: Kind) { self.kind = kind }

  /// The requirement that requires user authentication: biometry, or the passcode.
  public static var `default`: LAAuthenticationRequirement { LAAuthenticationRequirement(.default) }

  /// The requirement that requires biometric authentication; it fails when biometry is not available or nothing
  /// is enrolled.
  public static var biometry: LAAuthenticationRequirement { LAAuthenticationRequirement(.biometry) }

  /// The requirement that requires biometric authentication with the set of biometrics enrolled when the right
  /// was created; it also fails after any enrollment change (a finger added or removed).
  public static var biometryCurrentSet: LAAuthenticationRequirement { LAAuthenticationRequirement(.biometryCurrentSet) }

  /// A requirement for biometric authentication, or `fallback` when biometry fails, is unavailable or is declined.
  public static func biometry(fallback: LABiometryFallbackRequirement) -> LAAuthenticationRequirement {
    LAAuthenticationRequirement(.biometryWithFallback(fallback.kind))
  }

  /// The policy that evaluates this requirement.
  var policy: LAPolicy {
    switch kind {
    case .default, .biometryWithFallback: .deviceOwnerAuthentication
    case .biometry, .biometryCurrentSet: .deviceOwnerAuthenticationWithBiometrics
    }
  }

  /// True when the right is bound to the enrollment current at its creation.
  var bindsEnrollment: Bool { kind == .biometryCurrentSet }

  /// The requirement a right store records (and derives its items' access control from).
  var rightRequirement: RightRequirement {
    switch kind {
    case .default: .userPresence
    case .biometry: .biometry
    case .biometryCurrentSet: .biometryCurrentSet
    case .biometryWithFallback(.devicePasscode): .biometryOrPasscode
    case .biometryWithFallback(.default): .biometryOrDefault
    }
  }

  /// The requirement a right store recorded.
  convenience init(stored: RightRequirement) {
    switch stored {
    case .userPresence: self.init(.default)
    case .biometry: self.init(.biometry)
    case .biometryCurrentSet: self.init(.biometryCurrentSet)
    case .biometryOrPasscode: self.init(.biometryWithFallback(.devicePasscode))
    case .biometryOrDefault: self.init(.biometryWithFallback(.default))
    }
  }

  public static func == (lhs: LAAuthenticationRequirement, rhs: LAAuthenticationRequirement) -> Bool {
    lhs.kind == rhs.kind
  }

  public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

  /// "default", "biometry", "biometryCurrentSet" or "biometry(fallback: …)".
  public var description: String {
    switch kind {
    case .default: "default"
    case .biometry: "biometry"
    case .biometryCurrentSet: "biometryCurrentSet"
    case .biometryWithFallback(.default): "biometry(fallback: default)"
    case .biometryWithFallback(.devicePasscode): "biometry(fallback: devicePasscode)"
    }
  }
}
