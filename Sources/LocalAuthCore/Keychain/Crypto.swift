import CLibCrypto

/// Why a cryptographic operation failed.
package enum CryptoError: Error, Equatable, Sendable {
  /// libcrypto.so.3 could not be loaded, or one of the functions it needs is missing.
  case unavailable
  /// The operation failed for another reason (a bad argument, or libcrypto reported an error).
  case failed(String)
  /// A sealed box did not verify: too short, the wrong key or additional data, or tampered with.
  case authenticationFailed
}

/// AES-256-GCM, X25519, SHA-256 and HKDF-SHA256 from libcrypto, opened on first use.
///
/// libcrypto.so.3 is opened with dlopen (Sources/CLibCrypto/shim.h, its calls typed by OpenSSL's headers), never
/// linked, so the module loads and authenticates on a machine without it; every call then throws `.unavailable`.
package enum Crypto {
  /// The length of an AES-256-GCM key, an X25519 key, and a SHA-256 digest.
  package static let keyLength = 32
  /// The length of the random nonce at the start of a sealed box.
  package static let nonceLength = 12
  /// The length of the authentication tag at the end of a sealed box.
  package static let tagLength = 16

  /// `count` bytes from libcrypto's random generator (RAND_bytes).
  package static func randomBytes(_ count: Int) throws(CryptoError) -> [UInt8] {
    guard count >= 0 else { throw .failed("negative byte count") }
    var bytes = [UInt8](repeating: 0, count: count)
    guard count > 0 else { return bytes }
    try check(clibcrypto_random(&bytes, count), "RAND_bytes")
    return bytes
  }

  /// The SHA-256 digest (32 bytes) of `data`.
  package static func sha256(_ data: [UInt8]) throws(CryptoError) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: keyLength)
    try check(clibcrypto_sha256(data, data.count, &digest), "SHA-256")
    return digest
  }

  /// HKDF (RFC 5869) with HMAC-SHA256: `count` bytes (at most 255 × 32) derived from `key`, `salt` and `info`.
  /// An empty salt stands for 32 zero bytes, as the RFC says.
  package static func hkdf(key: [UInt8], salt: [UInt8], info: [UInt8], count: Int = 32) throws(CryptoError) -> [UInt8] {
    guard count >= 0, count <= 255 * keyLength else { throw .failed("HKDF output length must be 0...8160 bytes") }
    let extractSalt = salt.isEmpty ? [UInt8](repeating: 0, count: keyLength) : salt
    var prk = [UInt8](repeating: 0, count: keyLength)
    var block = [UInt8](repeating: 0, count: keyLength)
    var message: [UInt8] = []
    var output: [UInt8] = []
    output.reserveCapacity(count)
    defer {
      wipe(&prk)
      wipe(&block)
      wipe(&message)
    }
    var status = hmacSHA256(key: extractSalt, data: key, into: &prk)
    var counter: UInt8 = 1
    while status == 1 && output.count < count {
      // T(i) = HMAC(PRK, T(i-1) ‖ info ‖ i), with T(0) empty.
      wipe(&message)
      message.removeAll(keepingCapacity: true)
      if counter > 1 { message.append(contentsOf: block) }
      message.append(contentsOf: info)
      message.append(counter)
      status = hmacSHA256(key: prk, data: message, into: &block)
      if status == 1 { output.append(contentsOf: block.prefix(count - output.count)) }
      counter &+= 1
    }
    guard status == 1 else {
      wipe(&output)
      throw error(status, "HMAC-SHA256")
    }
    return output
  }

  /// Encrypts and authenticates `plaintext` (and authenticates `aad`) with AES-256-GCM under a 32-byte key:
  /// random 12-byte nonce ‖ ciphertext ‖ 16-byte tag.
  package static func seal(_ plaintext: [UInt8], key: [UInt8], aad: [UInt8]) throws(CryptoError) -> [UInt8] {
    try checkKey(key, "AES-256-GCM key")
    let nonce = try randomBytes(nonceLength)
    var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
    var tag = [UInt8](repeating: 0, count: tagLength)
    try check(
      clibcrypto_aes256gcm_seal(key, nonce, aad, aad.count, plaintext, plaintext.count, &ciphertext, &tag),
      "AES-256-GCM encryption")
    var box = nonce
    box.reserveCapacity(nonceLength + ciphertext.count + tagLength)
    box.append(contentsOf: ciphertext)
    box.append(contentsOf: tag)
    return box
  }

  /// Verifies and decrypts a box made by `seal` with the same key and `aad`; a box that is too short, was sealed
  /// under another key or other `aad`, or was changed in any bit throws `.authenticationFailed`.
  package static func open(_ box: [UInt8], key: [UInt8], aad: [UInt8]) throws(CryptoError) -> [UInt8] {
    try checkKey(key, "AES-256-GCM key")
    guard box.count >= nonceLength + tagLength else { throw .authenticationFailed }
    let nonce = Array(box[0..<nonceLength])
    let ciphertext = Array(box[nonceLength..<(box.count - tagLength)])
    let tag = Array(box[(box.count - tagLength)...])
    var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
    let status = clibcrypto_aes256gcm_open(key, nonce, aad, aad.count, ciphertext, ciphertext.count, tag, &plaintext)
    guard status == 1 else {
      wipe(&plaintext)
      throw status == 0 ? .authenticationFailed : error(status, "AES-256-GCM decryption")
    }
    return plaintext
  }

  /// A fresh X25519 key pair (32 bytes each).
  package static func x25519KeyPair() throws(CryptoError) -> (privateKey: [UInt8], publicKey: [UInt8]) {
    var privateKey = [UInt8](repeating: 0, count: keyLength)
    var publicKey = [UInt8](repeating: 0, count: keyLength)
    try check(clibcrypto_x25519_keypair(&privateKey, &publicKey), "X25519 key generation")
    return (privateKey, publicKey)
  }

  /// The X25519 (RFC 7748) shared secret of a 32-byte private key and a peer's 32-byte public key; an all-zero
  /// secret (a peer key of small order) throws `.failed`.
  package static func x25519(privateKey: [UInt8], peer: [UInt8]) throws(CryptoError) -> [UInt8] {
    try checkKey(privateKey, "X25519 private key")
    try checkKey(peer, "X25519 public key")
    var shared = [UInt8](repeating: 0, count: keyLength)
    try check(clibcrypto_x25519(privateKey, peer, &shared), "X25519 key agreement")
    return shared
  }

  /// Overwrites `bytes` with zeros in a way the optimiser keeps (a volatile store loop in the shim).
  static func wipe(_ bytes: inout [UInt8]) {
    let count = bytes.count
    guard count > 0 else { return }
    bytes.withUnsafeMutableBytes { buffer in clibcrypto_wipe(buffer.baseAddress, count) }
  }

  /// HMAC-SHA256 of `data` under `key` into `mac` (32 bytes); the shim's status.
  private static func hmacSHA256(key: [UInt8], data: [UInt8], into mac: inout [UInt8]) -> Int32 {
    clibcrypto_hmac_sha256(key, key.count, data, data.count, &mac)
  }

  private static func checkKey(_ key: [UInt8], _ what: String) throws(CryptoError) {
    guard key.count == keyLength else { throw .failed(what + " must be 32 bytes") }
  }

  private static func check(_ status: Int32, _ operation: String) throws(CryptoError) {
    guard status == 1 else { throw error(status, operation) }
  }

  private static func error(_ status: Int32, _ operation: String) -> CryptoError {
    status == -1 ? .unavailable : .failed(operation + " failed")
  }
}
