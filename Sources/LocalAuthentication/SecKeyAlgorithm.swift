import Foundation
import LocalAuthCore

/// A cryptographic algorithm for a key's operations (Apple's `SecKeyAlgorithm`), named by Apple's identifier.
///
/// It is declared here because `LAPrivateKey` and `LAPublicKey` take it and LocalAuthentication cannot import
/// Security (which is built on it); Security re-exports it under the same name, with the `kSecKeyAlgorithm…`
/// constants. Any of Apple's identifiers can be named; the keys of persisted rights support the three below.
public struct SecKeyAlgorithm: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// Apple's identifier ("algid:sign:ECDSA:message-X962:SHA256").
  public let rawValue: String

  /// Names an algorithm by Apple's identifier.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// Names an algorithm by Apple's identifier.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// ECDSA over the SHA-256 of the message, the signature DER-encoded (X9.62).
  public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA256")
  /// ECDSA over a 32-byte SHA-256 digest the caller computed, the signature DER-encoded (X9.62).
  public static let ecdsaSignatureDigestX962SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA256")
  /// Elliptic-curve Diffie-Hellman: the shared secret is the X coordinate of the shared point, no KDF.
  public static let ecdhKeyExchangeStandard = SecKeyAlgorithm("algid:keyexchange:ECDH")
  /// ECIES with a standard ECDH, an X9.63 SHA-256 KDF and AES-GCM (nameable; not supported by rights' keys).
  public static let eciesEncryptionStandardX963SHA256AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM")
  /// ECIES as above with a variable IV (nameable; not supported by rights' keys).
  public static let eciesEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm(
    "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV")

  /// Apple's identifier.
  public var description: String { rawValue }

  /// The core's signature algorithm for this one, or nil when a right's key cannot sign with it.
  var rightSignature: RightKeyAlgorithm? {
    switch self {
    case .ecdsaSignatureMessageX962SHA256: .ecdsaSignatureMessageX962SHA256
    case .ecdsaSignatureDigestX962SHA256: .ecdsaSignatureDigestX962SHA256
    default: nil
    }
  }
}

/// The errors a key's operations report as Apple's `SecKey` calls do: `NSError`s in `NSOSStatusErrorDomain`.
enum KeyErrors {
  /// Apple's NSOSStatusErrorDomain (Security's constant of that name has the same value).
  static let domain = "NSOSStatusErrorDomain"

  /// errSecParam with "ALGORITHM: algorithm not supported by the key", as SecKey reports an algorithm the key
  /// has no implementation of (Apple's SecKey.m, `SecKeyRunAlgorithmAndCopyResult`).
  static func unsupported(_ algorithm: SecKeyAlgorithm) -> NSError {
    NSError(domain: domain, code: Int(errSecParam), userInfo: [NSLocalizedDescriptionKey: "\(algorithm.rawValue): algorithm not supported by the key"])
  }

  /// errSecParam: an input the algorithm cannot take.
  static func parameter(_ why: String) -> NSError {
    NSError(domain: domain, code: Int(errSecParam), userInfo: [NSLocalizedDescriptionKey: why])
  }

  /// errSecVerifyFailed: the signature does not verify.
  static func verifyFailed() -> NSError {
    NSError(domain: domain, code: Int(errSecVerifyFailed), userInfo: [NSLocalizedDescriptionKey: "ECDSA signature verification failed"])
  }
}
