/// The user's passcode key pair (X25519), in `passcode.key`: the public key in clear, so an item can be keyed
/// to the passcode without it (adding needs no authentication); the private key sealed with a key derived from
/// the passcode by yescrypt, so only the passcode opens those items. Only the yescrypt setting (salt and cost)
/// is stored, never its output.
struct PasscodeKey {
  static let fileName = "passcode.key"
  static let header = "localauth-keychain-passcode-key 1"

  /// The public key; nil when the user has no passcode key pair.
  static func publicKey(in folder: KeychainFolder) throws(KeychainError) -> [UInt8]? {
    guard try folder.exists(), let bytes = try folder.read(fileName) else { return nil }
    guard let fields = DeviceKey.parse(bytes, header: header), let key = fields["public"].flatMap({ hexDecode($0) }),
      key.count == 32
    else { throw .storage(.corrupt(path: folder.path + "/" + fileName, reason: "it is not a passcode key")) }
    return key
  }

  /// Makes a new key pair sealed by `passcode` (under the folder's lock); items keyed to the old pair can no
  /// longer be opened, so the caller removes them.
  static func create(in folder: KeychainFolder, passcode: SecretBytes, hasher: PasscodeHasher) throws(KeychainError) {
    let pair = try keychainCrypto { () throws(CryptoError) -> (privateKey: [UInt8], publicKey: [UInt8]) in
      try Crypto.x25519KeyPair()
    }
    try write(privateKey: pair.privateKey, publicKey: pair.publicKey, in: folder, passcode: passcode, hasher: hasher)
  }

  /// The private key, opened with `passcode`; `authenticationFailed` when it is not the passcode it was sealed with.
  static func privateKey(in folder: KeychainFolder, passcode: SecretBytes, hasher: PasscodeHasher) throws(KeychainError) -> [UInt8] {
    guard let bytes = try folder.read(fileName) else { throw .notAvailable("the user has no passcode key; set the passcode again") }
    guard let fields = DeviceKey.parse(bytes, header: header), let settingBytes = fields["setting"].flatMap({ hexDecode($0) }),
      let wrapped = fields["wrapped"].flatMap({ hexDecode($0) })
    else { throw .storage(.corrupt(path: folder.path + "/" + fileName, reason: "it is not a passcode key")) }
    let setting = String(decoding: settingBytes, as: UTF8.self)
    let key = try wrappingKey(passcode, setting: setting, user: folder.user, hasher: hasher)
    return try keychainCrypto { () throws(CryptoError) -> [UInt8] in
      try Crypto.open(wrapped, key: key, aad: Array((header + "\n" + folder.user.value).utf8))
    }
  }

  /// Seals the same key pair with a new passcode (a change that knew the old one keeps the items).
  static func reseal(
    in folder: KeychainFolder, from old: SecretBytes, to new: SecretBytes, hasher: PasscodeHasher
  ) throws(KeychainError) {
    guard let publicKey = try publicKey(in: folder) else { return try create(in: folder, passcode: new, hasher: hasher) }
    var privateKey = try privateKey(in: folder, passcode: old, hasher: hasher)
    defer { wipe(&privateKey) }
    try write(privateKey: privateKey, publicKey: publicKey, in: folder, passcode: new, hasher: hasher)
  }

  private static func write(
    privateKey: [UInt8], publicKey: [UInt8], in folder: KeychainFolder, passcode: SecretBytes, hasher: PasscodeHasher
  ) throws(KeychainError) {
    let hash: String
    do { hash = try hasher.hash(passcode) } catch { throw .notAvailable("the passcode cannot be hashed (\(error))") }
    // The setting is everything up to the last '$' ("$y$j9T$salt"); the hash after it is never stored.
    guard let cut = hash.utf8.lastIndex(of: UInt8(ascii: "$")) else { throw .notAvailable("yescrypt returned no setting") }
    let setting = String(hash[..<cut])
    var key = try wrappingKey(passcode, setting: setting, user: folder.user, hasher: hasher)
    defer { wipe(&key) }
    let wrapped = try keychainCrypto { () throws(CryptoError) -> [UInt8] in
      try Crypto.seal(privateKey, key: key, aad: Array((header + "\n" + folder.user.value).utf8))
    }
    let lines = [header, "public " + hexEncode(publicKey), "setting " + hexEncode(Array(setting.utf8)), "wrapped " + hexEncode(wrapped)]
    try folder.write(fileName, Array((lines.joined(separator: "\n") + "\n").utf8))
  }

  /// yescrypt(passcode, setting), then HKDF: the key that seals the private key.
  private static func wrappingKey(
    _ passcode: SecretBytes, setting: String, user: UserName, hasher: PasscodeHasher
  ) throws(KeychainError) -> [UInt8] {
    let derived: String
    do { derived = try hasher.rehash(passcode, like: setting) } catch { throw .authenticationFailed }
    return try keychainCrypto { () throws(CryptoError) -> [UInt8] in
      try Crypto.hkdf(key: Array(derived.utf8), salt: Array(setting.utf8), info: Array(("passcode key " + user.value).utf8))
    }
  }
}

/// Overwrites key material with zeros (Crypto's wipe, which the compiler cannot drop).
func wipe(_ bytes: inout [UInt8]) { Crypto.wipe(&bytes) }
