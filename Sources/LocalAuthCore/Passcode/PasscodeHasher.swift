import CCrypt

/// Why a passcode could not be hashed or accepted.
public enum PasscodeError: Error, Equatable, Sendable {
  /// Longer than `SecretBytes.maximumLength`; refused before hashing.
  case tooLong
  /// Contains a NUL byte, which no stored passcode can contain.
  case containsNUL
  /// Shorter than the minimum length for a new passcode.
  case tooShort(minimum: Int)
  /// libxcrypt failed (no entropy, unknown method).
  case hashingFailed(String)
}

/// yescrypt hashing through libxcrypt, the scheme /etc/shadow uses on Debian.
public struct PasscodeHasher: Equatable, Sendable {
  /// The yescrypt cost parameter (libxcrypt's `count`; Debian's default is 5).
  package var cost: UInt

  /// Creates a hasher with a yescrypt cost (1...11).
  public init(cost: UInt = 5) { self.cost = cost }

  /// Hashes a new passcode with a fresh salt.
  package func hash(_ passcode: SecretBytes) throws(PasscodeError) -> String {
    try check(passcode)
    var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
    guard ccrypt_gensalt_rn("$y$", cost, nil, 0, &setting, Int32(setting.count)) != nil else {
      throw .hashingFailed("crypt_gensalt_rn failed (or libcrypt.so.1 could not be loaded)")
    }
    return try compute(passcode, setting: setting)
  }

  /// Hashes `passcode` with the salt and parameters of `stored`, for comparison with it.
  package func rehash(_ passcode: SecretBytes, like stored: String) throws(PasscodeError) -> String {
    try check(passcode)
    return try compute(passcode, setting: Array(stored.utf8CString))
  }

  /// True when `passcode` hashes to `stored`; the comparison takes constant time.
  package func verify(_ passcode: SecretBytes, against stored: String) throws(PasscodeError) -> Bool {
    constantTimeEquals(Array(try rehash(passcode, like: stored).utf8), Array(stored.utf8))
  }

  /// Does the same yescrypt work as a verification, for users who have no passcode or do not exist.
  package func burnEquivalentWork() {
    let dummy = SecretBytes(Array("localauth-timing-equalizer".utf8))
    _ = try? hash(dummy)
  }

  private func check(_ passcode: SecretBytes) throws(PasscodeError) {
    guard passcode.count <= SecretBytes.maximumLength else { throw .tooLong }
    guard !passcode.bytes.contains(0) else { throw .containsNUL }
  }

  private func compute(_ passcode: SecretBytes, setting: [CChar]) throws(PasscodeError) -> String {
    reportHashWork(setting)
    let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
    defer {
      UnsafeMutableRawPointer(data).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<crypt_data>.size)
      data.deallocate()
    }
    UnsafeMutableRawPointer(data).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<crypt_data>.size)
    // Built in place: `map` then `+ [0]` would leave an unwiped temporary copy of the passcode on the heap.
    var phrase = [CChar](repeating: 0, count: passcode.count + 1)
    defer { for i in phrase.indices { phrase[i] = 0 } }
    for (i, byte) in passcode.bytes.enumerated() { phrase[i] = CChar(bitPattern: byte) }
    guard let result = ccrypt_rn(phrase, setting, data, Int32(MemoryLayout<crypt_data>.size)) else {
      throw .hashingFailed("crypt_rn failed (or libcrypt.so.1 could not be loaded)")
    }
    let text = String(cString: result)
    guard text.hasPrefix("$") else { throw .hashingFailed("crypt_rn returned a failure token") }
    return text
  }
}
