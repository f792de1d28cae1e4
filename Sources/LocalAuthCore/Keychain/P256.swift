import CLibCrypto

/// P-256 (secp256r1) keys, ECDSA-SHA256 and ECDH from libcrypto, in the byte forms Apple's SecKey uses.
///
/// A private key is its 32-byte big-endian scalar; a public key is the 65-byte uncompressed X9.63 point
/// 04 ‖ X ‖ Y, as `SecKeyCopyExternalRepresentation` gives it for a P-256 public key. Signatures are DER-encoded
/// ECDSA (`.ecdsaSignatureMessageX962SHA256`, `.ecdsaSignatureDigestX962SHA256`); the shared secret is the X
/// coordinate (`.ecdhKeyExchangeStandard`). Key bytes that are not a valid key (a scalar of 0 or beyond the group
/// order, a point off the curve, a wrong length) throw `.failed`. The C side is Sources/CLibCrypto/p256.h.
package enum P256 {
  /// The length of a private key (the scalar d).
  package static let privateKeyLength = Int(CLIBCRYPTO_P256_PRIVATE_KEY)
  /// The length of a public key (04 ‖ X ‖ Y).
  package static let publicKeyLength = Int(CLIBCRYPTO_P256_PUBLIC_KEY)
  /// The length of the digest `sign(digest:privateKey:)` signs (SHA-256).
  package static let digestLength = Int(CLIBCRYPTO_P256_DIGEST)
  /// The length of the shared secret.
  package static let sharedSecretLength = 32

  /// A fresh key pair from libcrypto's key generation.
  package static func generate() throws(CryptoError) -> (privateKey: SecretBytes, publicKey: [UInt8]) {
    var privateKey = [UInt8](repeating: 0, count: privateKeyLength)
    var publicKey = [UInt8](repeating: 0, count: publicKeyLength)
    let status = clibcrypto_p256_generate(&privateKey, &publicKey)
    let secret = SecretBytes(privateKey)
    try check(status, "P-256 key generation", key: "generated key")
    return (secret, publicKey)
  }

  /// The public key (04 ‖ X ‖ Y) of a private key.
  package static func publicKey(of privateKey: SecretBytes) throws(CryptoError) -> [UInt8] {
    try checkPrivate(privateKey)
    var publicKey = [UInt8](repeating: 0, count: publicKeyLength)
    try check(clibcrypto_p256_public_key(privateKey.bytes, &publicKey), "P-256 public key", key: "private key")
    return publicKey
  }

  /// The DER-encoded ECDSA signature of the SHA-256 of `message` (Apple's `.ecdsaSignatureMessageX962SHA256`).
  package static func sign(message: [UInt8], privateKey: SecretBytes) throws(CryptoError) -> [UInt8] {
    try sign(message, prehashed: false, privateKey: privateKey)
  }

  /// The DER-encoded ECDSA signature of a 32-byte SHA-256 digest (Apple's `.ecdsaSignatureDigestX962SHA256`).
  package static func sign(digest: [UInt8], privateKey: SecretBytes) throws(CryptoError) -> [UInt8] {
    try checkDigest(digest)
    return try sign(digest, prehashed: true, privateKey: privateKey)
  }

  /// True when `signature` is a DER-encoded ECDSA signature of the SHA-256 of `message` under `publicKey`; false
  /// for any other signature, including bytes that are not DER. A public key that is not one throws.
  package static func verify(signature: [UInt8], message: [UInt8], publicKey: [UInt8]) throws(CryptoError) -> Bool {
    try verify(signature, message, prehashed: false, publicKey: publicKey)
  }

  /// True when `signature` is a DER-encoded ECDSA signature of the 32-byte SHA-256 `digest` under `publicKey`.
  package static func verify(signature: [UInt8], digest: [UInt8], publicKey: [UInt8]) throws(CryptoError) -> Bool {
    try checkDigest(digest)
    return try verify(signature, digest, prehashed: true, publicKey: publicKey)
  }

  /// The ECDH shared secret (the 32-byte X coordinate, Apple's `.ecdhKeyExchangeStandard`) of a private key and a
  /// peer's public key.
  package static func sharedSecret(privateKey: SecretBytes, peerPublicKey: [UInt8]) throws(CryptoError) -> SecretBytes {
    try checkPrivate(privateKey)
    try checkPublic(peerPublicKey)
    var shared = [UInt8](repeating: 0, count: sharedSecretLength)
    let status = clibcrypto_p256_ecdh(privateKey.bytes, peerPublicKey, &shared)
    let secret = SecretBytes(shared)
    try check(status, "P-256 key agreement", key: "private key or peer public key")
    return secret
  }

  private static func sign(_ data: [UInt8], prehashed: Bool, privateKey: SecretBytes) throws(CryptoError) -> [UInt8] {
    try checkPrivate(privateKey)
    var signature = [UInt8](repeating: 0, count: Int(CLIBCRYPTO_P256_MAX_SIGNATURE))
    var length = 0
    try check(
      clibcrypto_p256_sign(privateKey.bytes, data, data.count, prehashed ? 1 : 0, &signature, &length),
      "ECDSA signing", key: "private key")
    signature.removeSubrange(length...)
    return signature
  }

  private static func verify(_ signature: [UInt8], _ data: [UInt8], prehashed: Bool, publicKey: [UInt8])
    throws(CryptoError) -> Bool
  {
    try checkPublic(publicKey)
    let status = clibcrypto_p256_verify(publicKey, data, data.count, prehashed ? 1 : 0, signature, signature.count)
    if status == 0 { return false }
    try check(status, "ECDSA verification", key: "public key")
    return true
  }

  private static func checkPrivate(_ key: SecretBytes) throws(CryptoError) {
    guard key.count == privateKeyLength else { throw .failed("P-256 private key must be 32 bytes") }
  }

  private static func checkPublic(_ key: [UInt8]) throws(CryptoError) {
    guard key.count == publicKeyLength else { throw .failed("P-256 public key must be 65 bytes (04 ‖ X ‖ Y)") }
  }

  private static func checkDigest(_ digest: [UInt8]) throws(CryptoError) {
    guard digest.count == digestLength else { throw .failed("SHA-256 digest must be 32 bytes") }
  }

  /// Throws for a shim status other than 1: -1 unavailable, -3 invalid key bytes (`key` says which), else failed.
  private static func check(_ status: Int32, _ operation: String, key: String) throws(CryptoError) {
    switch status {
    case 1: return
    case -1: throw .unavailable
    case -3: throw .failed(operation + ": the " + key + " is not a valid P-256 key")
    default: throw .failed(operation + " failed")
    }
  }
}
