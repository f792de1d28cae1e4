/// Why a keychain operation failed; `status` is the one place these become Apple's OSStatus values.
public enum KeychainError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A malformed query, attribute or access control (errSecParam).
  case parameter(String)
  /// An item with the same class, service and account exists (errSecDuplicateItem).
  case duplicateItem
  /// No item matches, or the matching item can no longer be read (errSecItemNotFound).
  case itemNotFound
  /// The evaluation failed, or a key did not open the item (errSecAuthFailed).
  case authenticationFailed
  /// The user cancelled the prompt (errSecUserCanceled).
  case userCanceled
  /// Reading needs a prompt and the caller forbade one, or the class is not readable yet (errSecInteractionNotAllowed).
  case interactionNotAllowed
  /// What the item needs is missing: no passcode, nothing enrolled, no cipher library (errSecNotAvailable).
  case notAvailable(String)
  /// The keychain folder could not be read or written safely (errSecIO).
  case storage(StateError)
  /// The caller may not use that access group: an add into a group reserved for the module (errSecMissingEntitlement).
  case missingEntitlement(String)
  /// The user's keychain is full: the add would pass `keychain_max_items` or `keychain_max_bytes` (errSecAllocate).
  case allocate(String)
  /// An item class this keychain does not hold: keys, certificates, identities (errSecUnimplemented).
  case unimplemented(String)

  /// Apple's status code (SecBase.h; the constants and their messages are SecStatusTable's).
  package var status: Int32 {
    switch self {
    case .parameter: errSecParam
    case .duplicateItem: errSecDuplicateItem
    case .itemNotFound: errSecItemNotFound
    case .authenticationFailed: errSecAuthFailed
    case .userCanceled: errSecUserCanceled
    case .interactionNotAllowed: errSecInteractionNotAllowed
    case .notAvailable: errSecNotAvailable
    case .storage: errSecIO
    case .missingEntitlement: errSecMissingEntitlement
    case .allocate: errSecAllocate
    case .unimplemented: errSecUnimplemented
    }
  }

  public var description: String {
    switch self {
    case .parameter(let why): "The keychain request is not valid: \(why)."
    case .duplicateItem: "The keychain already holds an item with that service and account."
    case .itemNotFound: "No keychain item matches."
    case .authenticationFailed: "The keychain item was not released: authentication failed."
    case .userCanceled: "The keychain item was not released: the prompt was cancelled."
    case .interactionNotAllowed: "The keychain item needs a prompt or an unlock that is not allowed now."
    case .notAvailable(let why): "The keychain item is not available: \(why)."
    case .storage(let error): error.description
    case .missingEntitlement(let why): "The keychain request is not allowed: \(why)."
    case .allocate(let why): "The keychain is full: \(why)."
    case .unimplemented(let why): "The keychain request is not supported: \(why)."
    }
  }
}

extension KeychainError {
  /// The keychain error for an evaluation's failure code (docs/KEYCHAIN.md, "derived").
  public init(failure code: AuthErrorCode) {
    switch code {
    case .userCancel, .appCancel, .systemCancel, .userFallback: self = .userCanceled
    case .notInteractive: self = .interactionNotAllowed
    case .passcodeNotSet: self = .notAvailable("no passcode is set")
    case .biometryNotAvailable, .biometryNotEnrolled: self = .notAvailable("biometry is not available")
    default: self = .authenticationFailed
    }
  }
}

/// Runs file work, passing its `StateError` on as `KeychainError.storage`.
func keychainStorage<T>(_ body: () throws(StateError) -> T) throws(KeychainError) -> T {
  do { return try body() } catch { throw .storage(error) }
}

/// Runs crypto work; a missing library is `notAvailable`, anything else fails authentication (fail closed).
func keychainCrypto<T>(_ body: () throws(CryptoError) -> T) throws(KeychainError) -> T {
  do { return try body() } catch {
    if error == .unavailable { throw .notAvailable("libcrypto.so.3 cannot be loaded") }
    throw .authenticationFailed
  }
}
