import Foundation

/// An authentication mechanism the user has (Apple's `LAEnvironmentMechanism`, iOS 18 / macOS 15).
public class LAEnvironmentMechanism: @unchecked Sendable, CustomStringConvertible {
  /// Whether the mechanism can be used now: the relevant `canEvaluatePolicy` preflight succeeds.
  public let isUsable: Bool
  /// The mechanism's name: "Touch ID", "Face ID", "Passcode".
  public let localizedName: String

  init(isUsable: Bool, localizedName: String) {
    self.isUsable = isUsable
    self.localizedName = localizedName
  }

  /// The name and whether it is usable.
  public var description: String { "\(localizedName) (\(isUsable ? "usable" : "not usable"))" }
}

/// The biometric mechanism (Apple's `LAEnvironmentMechanismBiometry`).
public final class LAEnvironmentMechanismBiometry: LAEnvironmentMechanism, @unchecked Sendable {
  /// The sensor's kind (the hardware, whether or not anything is enrolled or usable).
  public let biometryType: LABiometryType
  /// Whether the user has enrolled a finger or face; enrolled does not mean usable (see `isUsable`).
  public let isEnrolled: Bool
  /// Whether biometry is locked out after too many failed matches; the passcode unlocks it.
  public let isLockedOut: Bool
  /// The enrollment's state, as `LAContext.domainState.biometry.stateHash`: it changes on every enrollment change.
  /// Empty when nothing is enrolled (Apple's property is not optional).
  public let stateHash: Data

  init(biometryType: LABiometryType, isUsable: Bool, isEnrolled: Bool, isLockedOut: Bool, stateHash: Data) {
    self.biometryType = biometryType
    self.isEnrolled = isEnrolled
    self.isLockedOut = isLockedOut
    self.stateHash = stateHash
    super.init(isUsable: isUsable, localizedName: Self.name(of: biometryType))
  }

  static func name(of type: LABiometryType) -> String {
    switch type {
    case .touchID: "Touch ID"
    case .faceID: "Face ID"
    case .opticID: "Optic ID"
    case .none: "Biometry"
    }
  }
}

/// The user's passcode (Apple's `LAEnvironmentMechanismUserPassword`).
public final class LAEnvironmentMechanismUserPassword: LAEnvironmentMechanism, @unchecked Sendable {
  /// Whether the user has a passcode.
  public let isSet: Bool

  init(isSet: Bool, isUsable: Bool) {
    self.isSet = isSet
    super.init(isUsable: isUsable, localizedName: "Passcode")
  }
}

/// A snapshot of the user's authentication mechanisms (Apple's `LAEnvironmentState`, `LAEnvironment.State` in Swift).
public final class LAEnvironmentState: @unchecked Sendable, CustomStringConvertible {
  /// The biometric mechanism; nil when the machine has no sensor (or the environment could not be set up).
  public let biometry: LAEnvironmentMechanismBiometry?
  /// The passcode mechanism (always present: every user can have a passcode).
  public let userPassword: LAEnvironmentMechanismUserPassword?
  /// Every mechanism present: biometry when there is a sensor, then the passcode.
  public var allMechanisms: [LAEnvironmentMechanism] { [biometry, userPassword].compactMap { $0 } }

  /// The facts the state is made of, compared to detect a change.
  struct Facts: Equatable, Sendable {
    struct Biometry: Equatable, Sendable {
      var type: LABiometryType
      var isUsable: Bool
      var isEnrolled: Bool
      var isLockedOut: Bool
      var stateHash: Data
    }
    struct Passcode: Equatable, Sendable {
      var isSet: Bool
      var isUsable: Bool
    }
    var biometry: Biometry?
    var passcode: Passcode
  }

  let facts: Facts

  init(_ facts: Facts) {
    self.facts = facts
    biometry = facts.biometry.map {
      LAEnvironmentMechanismBiometry(
        biometryType: $0.type, isUsable: $0.isUsable, isEnrolled: $0.isEnrolled, isLockedOut: $0.isLockedOut,
        stateHash: $0.stateHash)
    }
    userPassword = LAEnvironmentMechanismUserPassword(isSet: facts.passcode.isSet, isUsable: facts.passcode.isUsable)
  }

  /// The mechanisms, one per clause.
  public var description: String {
    allMechanisms.map(\.description).joined(separator: ", ")
  }

  /// Reads the state through `context`'s public API, so that it works wherever the context does (docs/RULES.md,
  /// "LAEnvironment"): the two `canEvaluatePolicy` preflights and `domainState`.
  ///
  /// - Biometry is present when the context reports a sensor (`biometryType` after the preflight).
  ///   Usable: the biometrics-only preflight succeeds. Locked out: it fails with `biometryLockout`. Enrolled: not
  ///   when it fails with `biometryNotEnrolled`; otherwise when it got past the enrollment check (success, lockout,
  ///   `passcodeNotSet`) or, when it stopped before (`biometryNotAvailable`: remote session), the state hash is set.
  /// - The passcode is set and usable when the `deviceOwnerAuthentication` preflight succeeds; `passcodeNotSet`,
  ///   and a state that cannot be read, give not set.
  static func read(_ context: LAContext) -> LAEnvironmentState {
    var biometricError: NSError?
    let biometricOK = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &biometricError)
    let biometricCode = biometricError.flatMap { LAError(bridging: $0)?.code }
    let type = context.biometryType
    var biometry: Facts.Biometry?
    if type != .none {
      let hash = context.domainState.biometry.stateHash
      let pastEnrollment = biometricOK || biometricCode == .biometryLockout || biometricCode == .passcodeNotSet
      let enrolled = biometricCode != .biometryNotEnrolled && (pastEnrollment || hash != nil)
      biometry = Facts.Biometry(
        type: type, isUsable: biometricOK, isEnrolled: enrolled,
        isLockedOut: biometricCode == .biometryLockout, stateHash: hash ?? Data())
    }
    let passcodeOK = context.canEvaluatePolicy(.deviceOwnerAuthentication, error: nil)
    return LAEnvironmentState(Facts(biometry: biometry, passcode: Facts.Passcode(isSet: passcodeOK, isUsable: passcodeOK)))
  }
}
