/// LARightStore's persisted rights in a user's keychain: one implementation for a root process (LocalAuthentication
/// calls it in-process) and for an app's session in localauth-helper (docs/KEYCHAIN.md, "Persisted rights").
///
/// A right is up to three generic-password items in the reserved access group `accessGroup`, all with the right's
/// identifier as their service: `key` (the P-256 private scalar) and `secret` (the application's data), each with
/// the access control of the right's requirement, and `right` (the requirement, the public key, whether a secret
/// exists), with none. The private key is opened only here, by `KeychainReader` on what the caller's evaluations
/// established and never with a prompt, and only a signature or a shared secret leaves.
public struct RightStore {
  /// The access group of every right's items; apps' keychain calls cannot name it (`Keychain.isReserved`).
  package static let accessGroup = "com.apple.LocalAuthentication.rights"
  /// The longest identifier (the protocol's text limit).
  package static let maximumIdentifierLength = 512
  /// The longest message `sign` takes.
  package static let maximumMessageSize = KeychainItem.maximumDataSize

  /// The item accounts.
  enum Part {
    static let record = "right"
    static let key = "key"
    static let secret = "secret"
  }

  /// The keychain.
  package let keychain: Keychain
  /// The store (the user's domain state) and the log.
  package let dependencies: Dependencies
  /// The evaluation rules (the keychain's hasher).
  package let settings: EvaluationSettings

  /// A store over `keychain`.
  public init(keychain: Keychain, dependencies: Dependencies, settings: EvaluationSettings) {
    self.keychain = keychain
    self.dependencies = dependencies
    self.settings = settings
  }

  /// Refuses an identifier that is empty, too long or holds control characters (errSecParam).
  package static func check(identifier: String) throws(KeychainError) {
    let bytes = Array(identifier.utf8)
    guard !bytes.isEmpty, bytes.count <= maximumIdentifierLength, bytes.allSatisfy({ $0 >= 0x20 && $0 != 0x7f }) else {
      throw .parameter("a right's identifier must be 1 to 512 bytes without control characters")
    }
  }

  // MARK: Storing

  /// Saves a right for `user`: a fresh P-256 key pair, `secret` when given, and the record. A right already stored
  /// under `identifier` is replaced only when `authorization` satisfies its requirement, as a use of it would
  /// (`requireAuthorization`); otherwise nothing changes. A `.biometryCurrentSet` right needs an enrolled finger
  /// (`notAvailable`).
  package func save(
    _ identifier: String, requirement: RightRequirement, secret: [UInt8]?, for user: UserName,
    authorization: KeychainAuthorization
  ) throws(LocalAuthError) -> PersistedRight {
    try keychainErrors { () throws(KeychainError) in
      try RightStore.check(identifier: identifier)
      if let secret, secret.count > KeychainItem.maximumDataSize { throw .parameter("the secret is larger than 16 KiB") }
    }
    if let existing = try existing(identifier, for: user) {
      try requireAuthorization(existing, for: user, authorization: authorization)
    }
    let record = try dependencies.store.load(user)
    if requirement == .biometryCurrentSet && record?.domainState == nil {
      throw .keychain(.notAvailable("nothing is enrolled, and biometryCurrentSet needs the enrolled set"))
    }
    return try keychainErrors { () throws(KeychainError) -> PersistedRight in
      let (privateKey, publicKey) = try keychainCrypto { () throws(CryptoError) -> (SecretBytes, [UInt8]) in
        let pair = try P256.generate()
        return (pair.privateKey, pair.publicKey)
      }
      defer { privateKey.wipe() }
      _ = try? keychain.delete(query(identifier), for: user)
      let hasher = settings.hasher
      do throws(KeychainError) {
        let key = try keychain.add(
          item(identifier, Part.key, requirement.flags, privateKey.bytes), for: user, record: record, hasher: hasher)
        if let secret {
          try keychain.add(item(identifier, Part.secret, requirement.flags, secret), for: user, record: record, hasher: hasher)
        }
        let right = PersistedRight(
          identifier: identifier, requirement: requirement, publicKey: publicKey,
          domainState: requirement == .biometryCurrentSet ? key.domainState : nil, hasSecret: secret != nil)
        try keychain.add(item(identifier, Part.record, nil, right.encodedRecord()), for: user, record: record, hasher: hasher)
        return right
      } catch {
        // Nothing of a right that could not be saved whole stays behind.
        _ = try? keychain.delete(query(identifier), for: user)
        throw error
      }
    }
  }

  /// The right stored under `identifier`; `itemNotFound` when there is none, or when an enrolment change
  /// invalidated a `.biometryCurrentSet` right (which is then removed, as its items would be at their next read).
  package func right(_ identifier: String, for user: UserName) throws(LocalAuthError) -> PersistedRight {
    try stored(identifier, for: user).right
  }

  /// Removes the right stored under `identifier`: its key, secret and record, once `authorization` satisfies its
  /// requirement (`requireAuthorization`); `itemNotFound` when there is none.
  package func remove(_ identifier: String, for user: UserName, authorization: KeychainAuthorization) throws(LocalAuthError) {
    try requireAuthorization(try stored(identifier, for: user), for: user, authorization: authorization)
    try keychainErrors { () throws(KeychainError) in
      if try keychain.delete(query(identifier), for: user).isEmpty { throw .itemNotFound }
    }
  }

  /// Removes every right of `user` and returns how many items went; none is not an error. `authorization` must
  /// satisfy every stored right's requirement; when one is not satisfied, nothing is removed.
  @discardableResult
  package func removeAll(for user: UserName, authorization: KeychainAuthorization) throws(LocalAuthError) -> Int {
    let identifiers = try keychainErrors { () throws(KeychainError) -> [String] in
      var seen: [String] = []
      for item in try keychain.matching(Keychain.Query(accessGroup: RightStore.accessGroup), for: user)
      where !seen.contains(item.service) {
        seen.append(item.service)
      }
      return seen
    }
    for identifier in identifiers {
      guard let found = try existing(identifier, for: user) else { continue }
      try requireAuthorization(found, for: user, authorization: authorization)
    }
    do throws(KeychainError) {
      return try keychain.delete(Keychain.Query(accessGroup: RightStore.accessGroup), for: user).count
    } catch .itemNotFound {
      return 0
    } catch {
      throw .keychain(error)
    }
  }

  // MARK: Using

  /// The secret saved with the right, opened with what `authorization` holds and never with a prompt:
  /// `interactionNotAllowed` when it does not satisfy the right's access control, `itemNotFound` without a secret.
  package func secret(
    _ identifier: String, for user: UserName, authorization: KeychainAuthorization
  ) throws(LocalAuthError) -> [UInt8] {
    let found = try stored(identifier, for: user)
    guard let item = found.secret else { throw .keychain(.itemNotFound) }
    return try open(item, for: user, authorization: authorization)
  }

  /// The DER ECDSA signature of `data` by the right's private key, which is opened here with what
  /// `authorization` holds, used and wiped; `interactionNotAllowed` when it does not satisfy the right.
  package func sign(
    _ identifier: String, algorithm: RightKeyAlgorithm, data: [UInt8], for user: UserName,
    authorization: KeychainAuthorization
  ) throws(LocalAuthError) -> [UInt8] {
    if data.count > RightStore.maximumMessageSize { throw .keychain(.parameter("the data to sign is larger than 16 KiB")) }
    if algorithm == .ecdsaSignatureDigestX962SHA256 && data.count != P256.digestLength {
      throw .keychain(.parameter("a digest signature needs the 32-byte SHA-256 digest"))
    }
    let privateKey = try privateKey(identifier, for: user, authorization: authorization)
    defer { privateKey.wipe() }
    return try keychainErrors { () throws(KeychainError) in
      try keyCrypto { () throws(CryptoError) in
        algorithm == .ecdsaSignatureMessageX962SHA256
          ? try P256.sign(message: data, privateKey: privateKey) : try P256.sign(digest: data, privateKey: privateKey)
      }
    }
  }

  /// The ECDH shared secret (`.ecdhKeyExchangeStandard`: the X coordinate) of the right's private key and
  /// `peerPublicKey` (04 ‖ X ‖ Y); a peer key that is not a P-256 point is `parameter`.
  package func exchange(
    _ identifier: String, peerPublicKey: [UInt8], for user: UserName, authorization: KeychainAuthorization
  ) throws(LocalAuthError) -> SecretBytes {
    if peerPublicKey.count != P256.publicKeyLength || peerPublicKey.first != 4 {
      throw .keychain(.parameter("the peer's public key must be an uncompressed P-256 point (65 bytes, 04 ‖ X ‖ Y)"))
    }
    let privateKey = try privateKey(identifier, for: user, authorization: authorization)
    defer { privateKey.wipe() }
    return try keychainErrors { () throws(KeychainError) in
      try keyCrypto { () throws(CryptoError) in try P256.sharedSecret(privateKey: privateKey, peerPublicKey: peerPublicKey) }
    }
  }

  // MARK: Internals

  /// The right stored under `identifier`, or nil when there is none (or it was damaged or invalidated, and removed).
  private func existing(_ identifier: String, for user: UserName) throws(LocalAuthError) -> Stored? {
    do { return try stored(identifier, for: user) } catch .keychain(.itemNotFound) { return nil }
  }

  /// Replacing or removing a stored right needs what using it needs, as Apple's LARightStore asks: `authorization`
  /// must open its key item (no prompt). Otherwise `interactionNotAllowed` (LAError.notInteractive for the
  /// LocalAuthentication caller), and the caller changes nothing.
  private func requireAuthorization(
    _ found: Stored, for user: UserName, authorization: KeychainAuthorization
  ) throws(LocalAuthError) {
    var key = try open(found.key, for: user, authorization: authorization)
    wipe(&key)
  }

  /// A right's items as stored: the decoded record, and the key and secret items.
  struct Stored {
    var right: PersistedRight
    var key: KeychainItem
    var secret: KeychainItem?
  }

  private func query(_ identifier: String) -> Keychain.Query {
    Keychain.Query(service: identifier, accessGroup: RightStore.accessGroup)
  }

  private func item(_ identifier: String, _ part: String, _ flags: KeychainAccessFlags?, _ data: [UInt8]) -> Keychain.NewItem {
    Keychain.NewItem(
      service: identifier, account: part, label: "LARightStore " + part, accessGroup: RightStore.accessGroup,
      accessibility: .whenUnlockedThisDeviceOnly, flags: flags, data: data)
  }

  /// Finds and checks the right's items: a partial or undecodable right, and one an enrolment change invalidated,
  /// are removed and reported as `itemNotFound`.
  func stored(_ identifier: String, for user: UserName) throws(LocalAuthError) -> Stored {
    let items = try keychainErrors { () throws(KeychainError) in
      try RightStore.check(identifier: identifier)
      return try keychain.matching(query(identifier), for: user)
    }
    guard !items.isEmpty else { throw .keychain(.itemNotFound) }
    let recordItem = items.first { $0.account == Part.record }
    let keyItem = items.first { $0.account == Part.key }
    let secretItem = items.first { $0.account == Part.secret }
    let current = try dependencies.store.load(user)?.domainState
    guard let recordItem, let keyItem,
      let bytes = try? keychain.open(
        recordItem, for: user, authorization: KeychainAuthorization(), lock: .unlocked, hasher: settings.hasher),
      let right = PersistedRight.decodeRecord(bytes, identifier: identifier, domainState: keyItem.domainState),
      right.hasSecret == (secretItem != nil)
    else {
      dependencies.log.log(.error, "The persisted right \(identifier) of user \(user) is incomplete or damaged; it was removed.")
      _ = try? keychain.delete(query(identifier), for: user)
      throw .keychain(.itemNotFound)
    }
    if keychain.isInvalidated(keyItem, currentDomainState: current) {
      dependencies.log.log(
        .notice, "The persisted right \(identifier) of user \(user) was removed: the enrolled set changed since it was saved (biometryCurrentSet).")
      _ = try? keychain.delete(query(identifier), for: user)
      throw .keychain(.itemNotFound)
    }
    return Stored(right: right, key: keyItem, secret: secretItem)
  }

  /// Opens one of the right's items with `authorization` only: the read runs no evaluation.
  private func open(
    _ item: KeychainItem, for user: UserName, authorization: KeychainAuthorization
  ) throws(LocalAuthError) -> [UInt8] {
    let reader = KeychainReader(keychain: keychain, dependencies: dependencies, settings: settings)
    let request = EvaluationRequest(user: user, policy: .deviceOwnerAuthentication, reason: "use a persisted right", interactionAllowed: false)
    var held = authorization
    return try reader.read(item, request: request, authorization: &held)
  }

  private func privateKey(
    _ identifier: String, for user: UserName, authorization: KeychainAuthorization
  ) throws(LocalAuthError) -> SecretBytes {
    let key = SecretBytes(try open(try stored(identifier, for: user).key, for: user, authorization: authorization))
    guard key.count == P256.privateKeyLength else {
      key.wipe()
      throw .keychain(.authenticationFailed)
    }
    return key
  }

  private func keychainErrors<T>(_ body: () throws(KeychainError) -> T) throws(LocalAuthError) -> T {
    do { return try body() } catch { throw .keychain(error) }
  }

  /// Key operations' crypto: a missing libcrypto is `notAvailable`, a bad input `parameter`.
  private func keyCrypto<T>(_ body: () throws(CryptoError) -> T) throws(KeychainError) -> T {
    do { return try body() } catch {
      if error == .unavailable { throw .notAvailable("libcrypto.so.3 cannot be loaded") }
      if case .failed(let why) = error { throw .parameter(why) }
      throw .authenticationFailed
    }
  }
}
