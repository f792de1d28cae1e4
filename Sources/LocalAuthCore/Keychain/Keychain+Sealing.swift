/// How an item's data is sealed: key = HKDF(device key ‖ passcode share ‖ application-password key, salt: the
/// item's id), AES-256-GCM with every attribute, the owner and the id as associated data.
extension Keychain {
  func seal(
    _ item: inout KeychainItem, data: [UInt8], user: UserName, shared: [UInt8], applicationPassword: SecretBytes?,
    hasher: PasscodeHasher, create: Bool
  ) throws(KeychainError) {
    var key = try itemKey(item, user: user, shared: shared, applicationPassword: applicationPassword, hasher: hasher, create: create)
    defer { wipe(&key) }
    let aad = item.associatedData(owner: user)
    item.sealed = try keychainCrypto { () throws(CryptoError) -> [UInt8] in try Crypto.seal(data, key: key, aad: aad) }
  }

  func unseal(
    _ item: inout KeychainItem, user: UserName, shared: [UInt8], applicationPassword: SecretBytes?, hasher: PasscodeHasher
  ) throws(KeychainError) -> [UInt8] {
    var key = try itemKey(item, user: user, shared: shared, applicationPassword: applicationPassword, hasher: hasher, create: false)
    defer { wipe(&key) }
    let aad = item.associatedData(owner: user)
    let sealed = item.sealed
    return try keychainCrypto { () throws(CryptoError) -> [UInt8] in try Crypto.open(sealed, key: key, aad: aad) }
  }

  /// A fresh ephemeral X25519 key pair for a passcode-keyed item: its public half goes into the item, and the
  /// secret it shares with the user's passcode key joins the key material. Only the passcode's private key can
  /// derive that secret again.
  func passcodeShare(for item: inout KeychainItem, in folder: KeychainFolder) throws(KeychainError) -> [UInt8] {
    guard let publicKey = try PasscodeKey.publicKey(in: folder) else {
      throw .notAvailable("the user has no passcode key pair; set the passcode again")
    }
    let ephemeral = try keychainCrypto { () throws(CryptoError) -> (privateKey: [UInt8], publicKey: [UInt8]) in
      try Crypto.x25519KeyPair()
    }
    var ephemeralPrivate = ephemeral.privateKey
    defer { wipe(&ephemeralPrivate) }
    item.ephemeralPublicKey = ephemeral.publicKey
    return try keychainCrypto { () throws(CryptoError) -> [UInt8] in
      try Crypto.x25519(privateKey: ephemeralPrivate, peer: publicKey)
    }
  }

  private func itemKey(
    _ item: KeychainItem, user: UserName, shared: [UInt8], applicationPassword: SecretBytes?, hasher: PasscodeHasher,
    create: Bool
  ) throws(KeychainError) -> [UInt8] {
    guard var material = try DeviceKey.load(in: folder(user), tcti: tcti, create: create) else {
      throw .itemNotFound
    }
    defer { wipe(&material) }
    material += shared
    if let setting = item.passwordSetting {
      guard let password = applicationPassword else { throw .authenticationFailed }
      let derived: String
      do { derived = try hasher.rehash(password, like: setting) } catch { throw .authenticationFailed }
      material += Array(derived.utf8)
    }
    let salt = Array(item.id.utf8)
    return try keychainCrypto { () throws(CryptoError) -> [UInt8] in
      try Crypto.hkdf(key: material, salt: salt, info: Array("localauth keychain item".utf8))
    }
  }
}

/// The passcode's effect on the keychain: a new passcode re-seals the passcode key pair when the old one is
/// known, and otherwise replaces it (items keyed to the old passcode are deleted, since nothing can open them);
/// a removed passcode deletes every WhenPasscodeSetThisDeviceOnly item, as Apple does.
extension Keychain {
  /// Called after the passcode changed from `old` (nil when unknown or none) to `new` (nil when removed).
  /// Returns the items it deleted.
  @discardableResult
  package func passcodeChanged(
    for user: UserName, from old: SecretBytes?, to new: SecretBytes?, hasher: PasscodeHasher
  ) throws(KeychainError) -> [KeychainItem] {
    let folder = folder(user)
    guard let new else {
      guard try folder.exists() else { return [] }
      let deleted = try delete(for: user) { $0.accessibility == .whenPasscodeSetThisDeviceOnly || $0.keySource == .passcode }
      try folder.locked { () throws(KeychainError) in try folder.remove(PasscodeKey.fileName) }
      return deleted
    }
    return try folder.locked { () throws(KeychainError) -> [KeychainItem] in
      if let old, try PasscodeKey.publicKey(in: folder) != nil {
        do throws(KeychainError) {
          try PasscodeKey.reseal(in: folder, from: old, to: new, hasher: hasher)
          return []
        } catch .authenticationFailed {
          // The key pair was sealed with another passcode: replaced below.
        }
      }
      let orphans = try folder.items().items.filter { $0.keySource == .passcode }
      if !orphans.isEmpty { try KeychainIndex.drop(folder) }
      for item in orphans { try folder.remove(item) }
      try PasscodeKey.create(in: folder, passcode: new, hasher: hasher)
      return orphans
    }
  }
}
