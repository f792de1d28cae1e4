/// Why an administrative change was refused.
public enum AdministrationError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The finger or feature name is not acceptable.
  case invalidName(String)
  /// The item is already enrolled.
  case alreadyEnrolled(String)
  /// The item is not enrolled.
  case notEnrolled(String)
  /// The modality's enrollment limit is reached.
  case enrollmentFull(Modality)
  /// The new passcode is not acceptable.
  case passcode(PasscodeError)

  public var description: String {
    switch self {
    case .invalidName(let n): "The name \"\(n.prefix(64))\" is not acceptable: use 1 to 64 letters, digits, '.', '_' or '-'."
    case .alreadyEnrolled(let n): "\(n) is already enrolled."
    case .notEnrolled(let n): "\(n) is not enrolled."
    case .enrollmentFull(let m): "At most \(m.maximumEnrolled) \(m.itemNoun)s can be enrolled."
    case .passcode(.tooShort(let minimum)): "The passcode must be at least \(minimum) characters long."
    case .passcode(.tooLong): "The passcode is longer than \(SecretBytes.maximumLength) bytes."
    case .passcode(.containsNUL): "The passcode must not contain a NUL byte."
    case .passcode(.hashingFailed(let why)): "The passcode could not be hashed: \(why)."
    }
  }
}

/// The administrator's operations on the state, shared by `localauthctl` and the module (faillock-style).
public struct Administration {
  /// The state store.
  package var store: StateStore
  /// The clock.
  package var clock: AuthClock
  /// The rules (hash cost, minimum passcode length).
  package var settings: EvaluationSettings
  /// The users' keychains, which a passcode change re-seals or clears; nil where there is none.
  package var keychain: Keychain?

  /// Creates the operations over a store.
  public init(
    store: StateStore, clock: AuthClock, settings: EvaluationSettings = EvaluationSettings(), keychain: Keychain? = nil
  ) {
    self.store = store
    self.clock = clock
    self.settings = settings
    self.keychain = keychain
  }

  /// The user's record; an empty record when the user has no state file.
  package func record(for user: UserName) throws(LocalAuthError) -> UserRecord {
    try store.load(user) ?? UserRecord()
  }

  /// Enrolls `template`; the domain state changes.
  package func enroll(_ template: BiometricTemplate, for user: UserName) throws(LocalAuthError) {
    guard isValidItemName(template.name) else { throw .administration(.invalidName(template.name)) }
    try store.modify(user) { record throws(LocalAuthError) in
      guard !record.templates.contains(where: { $0.name == template.name }) else {
        throw .administration(.alreadyEnrolled(template.name))
      }
      guard record.templates.filter({ $0.modality == template.modality }).count < template.modality.maximumEnrolled else {
        throw .administration(.enrollmentFull(template.modality))
      }
      record.templates.append(template)
      Self.changeEnrollment(&record)
    }
  }

  /// Removes an enrolled item; the domain state changes (nil when nothing is left).
  package func unenroll(_ name: String, for user: UserName) throws(LocalAuthError) {
    try store.modify(user) { record throws(LocalAuthError) in
      guard let index = record.templates.firstIndex(where: { $0.name == name }) else {
        throw .administration(.notEnrolled(name))
      }
      record.templates.remove(at: index)
      Self.changeEnrollment(&record)
    }
  }

  /// Sets or replaces the user's passcode; counters and delays start over. The keychain's passcode key is
  /// re-sealed when `previous` (the passcode being replaced) is given and right, and replaced otherwise.
  package func setPasscode(_ passcode: SecretBytes, for user: UserName, previous: SecretBytes? = nil) throws(LocalAuthError) {
    guard passcode.count >= settings.passcodeMinimumLength else {
      throw .administration(.passcode(.tooShort(minimum: settings.passcodeMinimumLength)))
    }
    let hash: String
    do { hash = try settings.hasher.hash(passcode) } catch { throw .administration(.passcode(error)) }
    try store.modify(user) { record throws(LocalAuthError) in
      record.passcodeHash = hash
      record.passcodeFailures = 0
      record.lastWrongPasscodeHash = nil
      record.passcodeNextAllowed = nil
    }
    do { try keychain?.passcodeChanged(for: user, from: previous, to: passcode, hasher: settings.hasher) } catch {
      throw .keychain(error)
    }
  }

  /// Removes the user's passcode (biometry cannot be used without one), and with it every keychain item of the
  /// class WhenPasscodeSetThisDeviceOnly, as Apple does.
  package func removePasscode(for user: UserName) throws(LocalAuthError) {
    try store.modify(user) { record throws(LocalAuthError) in
      record.passcodeHash = nil
      record.passcodeFailures = 0
      record.lastWrongPasscodeHash = nil
      record.passcodeNextAllowed = nil
      record.applicationPasswordFailures = 0
      record.applicationPasswordNextAllowed = nil
      record.reuse = nil
    }
    do { try keychain?.passcodeChanged(for: user, from: nil, to: nil, hasher: settings.hasher) } catch {
      throw .keychain(error)
    }
  }

  /// Clears failure counters and their history, lockout, delays and the reuse window (faillock --reset).
  /// The passcode, the enrolment and the keychain stay: a reset is the answer to a lockout that anyone who may
  /// run su can cause, so it must never cost the user their keychain (`deleteKeychainItems(of:)` does that).
  package func reset(_ user: UserName) throws(LocalAuthError) {
    try store.modify(user) { record throws(LocalAuthError) in
      record.recentFailures = []
      record.biometricFailures = 0
      record.passcodeFailures = 0
      record.lastWrongPasscodeHash = nil
      record.passcodeNextAllowed = nil
      record.reuse = nil
    }
  }

  /// Deletes every keychain item of the user (`localauthctl reset --keychain`), and returns them; none when the
  /// user has no keychain. The device key and the passcode key stay, so new items can be added at once.
  package func deleteKeychainItems(of user: UserName) throws(LocalAuthError) -> [KeychainItem] {
    guard let keychain else { return [] }
    do throws(KeychainError) {
      return try keychain.delete(Keychain.Query(includesReservedGroups: true), for: user)
    } catch .itemNotFound {
      return []
    } catch {
      throw .keychain(error)
    }
  }

  /// Turns protection of a feature on or off for a user (the facade of seeds 000/002).
  package func setFeature(_ feature: String, enabled: Bool, for user: UserName) throws(LocalAuthError) {
    guard isValidItemName(feature) else { throw .administration(.invalidName(feature)) }
    try store.modify(user) { record throws(LocalAuthError) in
      if enabled { record.features.insert(feature) } else { record.features.remove(feature) }
    }
  }

  /// Bumps the generation and draws a new opaque domain state (nil when nothing is enrolled); ends reuse.
  static func changeEnrollment(_ record: inout UserRecord) {
    record.enrollmentGeneration += 1
    record.reuse = nil
    record.domainState = record.templates.isEmpty ? nil : randomToken()
  }

  /// 32 random bytes as hex, from the system's generator.
  package static func randomToken() -> String {
    var rng = SystemRandomNumberGenerator()
    return (0..<4).map { _ in String(rng.next() as UInt64, radix: 16).leftPadded(to: 16) }.joined()
  }
}
