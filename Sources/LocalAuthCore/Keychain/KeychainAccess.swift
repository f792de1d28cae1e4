/// SecAccessControlCreateFlags' bits, with Apple's values (docs/KEYCHAIN.md).
public struct KeychainAccessFlags: OptionSet, Hashable, Sendable {
  public let rawValue: UInt

  /// Wraps Apple's bit pattern.
  public init(rawValue: UInt) { self.rawValue = rawValue }

  /// Biometry or the passcode (the device-owner policy).
  package static let userPresence = KeychainAccessFlags(rawValue: 1 << 0)
  /// Any enrolled biometry; the item survives enrolment changes.
  package static let biometryAny = KeychainAccessFlags(rawValue: 1 << 1)
  /// The biometry enrolled when the item was added; any enrolment change makes the item unreadable.
  package static let biometryCurrentSet = KeychainAccessFlags(rawValue: 1 << 3)
  /// The passcode.
  package static let devicePasscode = KeychainAccessFlags(rawValue: 1 << 4)
  /// A paired watch (never available on Linux).
  package static let companion = KeychainAccessFlags(rawValue: 1 << 5)
  /// Any one of the constraints suffices.
  package static let or = KeychainAccessFlags(rawValue: 1 << 14)
  /// Every constraint is required (also the meaning of several constraints without `.or`).
  package static let and = KeychainAccessFlags(rawValue: 1 << 15)
  /// Guards key use instead of reading; refused on generic passwords.
  package static let privateKeyUsage = KeychainAccessFlags(rawValue: 1 << 30)
  /// An extra password, asked when the item is added and at every read.
  package static let applicationPassword = KeychainAccessFlags(rawValue: 1 << 31)

  /// Every bit Apple defines.
  static let known: KeychainAccessFlags = [
    .userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode, .companion, .or, .and, .privateKeyUsage,
    .applicationPassword,
  ]

  /// The constraint bits (what must be satisfied), without the operators and modifiers.
  var constraints: KeychainAccessFlags { intersection([.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode, .companion]) }

  /// Names for listings ("biometryCurrentSet|devicePasscode|or").
  package var names: String {
    let table: [(KeychainAccessFlags, String)] = [
      (.userPresence, "userPresence"), (.biometryAny, "biometryAny"), (.biometryCurrentSet, "biometryCurrentSet"),
      (.devicePasscode, "devicePasscode"), (.companion, "companion"), (.or, "or"), (.and, "and"),
      (.privateKeyUsage, "privateKeyUsage"), (.applicationPassword, "applicationPassword"),
    ]
    let found = table.filter { contains($0.0) }.map { $0.1 }
    return found.isEmpty ? "none" : found.joined(separator: "|")
  }

  /// Apple's checks at SecAccessControlCreateWithFlags (SecAccessControl.m); nil when the flags are valid.
  package func validationProblem() -> String? {
    if !KeychainAccessFlags.known.isSuperset(of: self) { return "unknown access-control bits" }
    if contains(.or) && contains(.and) { return "only one of .or and .and may be given" }
    if contains(.biometryAny) && contains(.biometryCurrentSet) { return "only one biometry constraint may be given" }
    if contains(.userPresence) && !subtracting([.userPresence, .applicationPassword, .privateKeyUsage]).isEmpty {
      return "userPresence combines only with applicationPassword or privateKeyUsage"
    }
    return nil
  }
}

/// kSecAttrAccessible*: when an item's data may be read at all (before any access-control constraint).
public enum KeychainAccessibility: String, CaseIterable, Sendable {
  /// kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: needs a passcode to be added; deleted when it is removed.
  case whenPasscodeSetThisDeviceOnly = "akpu"
  /// kSecAttrAccessibleWhenUnlocked (Apple's default): readable only while unlocked (DeviceLock).
  case whenUnlocked = "ak"
  /// kSecAttrAccessibleWhenUnlockedThisDeviceOnly.
  case whenUnlockedThisDeviceOnly = "aku"
  /// kSecAttrAccessibleAfterFirstUnlock: readable from the first unlock in this boot until the next restart.
  case afterFirstUnlock = "ck"
  /// kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly.
  case afterFirstUnlockThisDeviceOnly = "cku"

  /// Apple's constant name without the prefix, for listings.
  package var name: String {
    switch self {
    case .whenPasscodeSetThisDeviceOnly: "WhenPasscodeSetThisDeviceOnly"
    case .whenUnlocked: "WhenUnlocked"
    case .whenUnlockedThisDeviceOnly: "WhenUnlockedThisDeviceOnly"
    case .afterFirstUnlock: "AfterFirstUnlock"
    case .afterFirstUnlockThisDeviceOnly: "AfterFirstUnlockThisDeviceOnly"
    }
  }

  /// True for the AfterFirstUnlock classes: readable from the first unlock in this boot, even while locked again.
  var readableWhileLocked: Bool { self == .afterFirstUnlock || self == .afterFirstUnlockThisDeviceOnly }
}

/// What an evaluation established, checked against an item's constraints before its data is decrypted.
public struct KeychainAuthorization {
  /// A fresh biometric match (or one the reuse window honoured), with the domain state it matched under.
  package var biometry: Bool
  /// The domain state at the match; a biometryCurrentSet item needs the one stored when it was added.
  package var domainState: String?
  /// The passcode, when it was entered and accepted (passcode-keyed items are decrypted with it).
  package var passcode: SecretBytes?
  /// True when the owner was authenticated without the finger and without the passcode's bytes reaching the
  /// helper: the desktop's dialog approved by the passcode or the login password (PolkitDialog). It satisfies
  /// `.userPresence`, never biometry nor `.devicePasscode`, which needs the passcode itself (it may key the item).
  package var passcodeAccepted = false
  /// The application password typed or set on the context, for applicationPassword items.
  package var applicationPassword: SecretBytes?

  /// Describes an authorization.
  public init(
    biometry: Bool = false, domainState: String? = nil, passcode: SecretBytes? = nil,
    applicationPassword: SecretBytes? = nil
  ) {
    self.biometry = biometry
    self.domainState = domainState
    self.passcode = passcode
    self.applicationPassword = applicationPassword
  }
}

/// One constraint of an item, as the reading side must satisfy it.
public enum KeychainConstraint: Equatable, Sendable {
  /// Biometry or the passcode.
  case ownerAuthentication
  /// Biometry; `currentSet` also needs the domain state stored at add.
  case biometry(currentSet: Bool)
  /// The passcode.
  case passcode
  /// A paired watch: never satisfiable here.
  case companion
}

extension KeychainAccessFlags {
  /// The constraints, and whether any one suffices (`.or`) or all are needed.
  package var requirement: (constraints: [KeychainConstraint], anyOne: Bool) {
    var list: [KeychainConstraint] = []
    if contains(.userPresence) { list.append(.ownerAuthentication) }
    if contains(.biometryAny) { list.append(.biometry(currentSet: false)) }
    if contains(.biometryCurrentSet) { list.append(.biometry(currentSet: true)) }
    if contains(.devicePasscode) { list.append(.passcode) }
    if contains(.companion) { list.append(.companion) }
    return (list, contains(.or))
  }

  /// True when the item's data is keyed by the passcode: the passcode is its only way in.
  var isPasscodeKeyed: Bool { constraints == .devicePasscode }
}

extension KeychainConstraint {
  /// True when `authorization` satisfies this constraint for an item added under `storedDomainState`.
  func isSatisfied(by authorization: KeychainAuthorization, storedDomainState: String?) -> Bool {
    switch self {
    case .ownerAuthentication: authorization.biometry || authorization.passcode != nil || authorization.passcodeAccepted
    case .biometry(let currentSet):
      authorization.biometry && (!currentSet || (storedDomainState != nil && authorization.domainState == storedDomainState))
    case .passcode: authorization.passcode != nil
    case .companion: false
    }
  }
}

extension KeychainAuthorization {
  /// Adds what `other` established (a later evaluation on the same context).
  package mutating func merge(_ other: KeychainAuthorization) {
    if other.biometry {
      biometry = true
      domainState = other.domainState
    }
    if let passcode = other.passcode { self.passcode = passcode }
    if let password = other.applicationPassword { applicationPassword = password }
  }

  /// Forgets everything, wiping the secrets.
  package mutating func wipe() {
    passcode?.wipe()
    applicationPassword?.wipe()
    self = KeychainAuthorization()
  }
}
