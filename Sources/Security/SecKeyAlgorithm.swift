import LocalAuthentication

/// A cryptographic algorithm for a key's operations (Apple's `SecKeyAlgorithm`): LocalAuthentication's type, since
/// `LAPrivateKey` and `LAPublicKey` take it and Security is built on LocalAuthentication.
public typealias SecKeyAlgorithm = LocalAuthentication.SecKeyAlgorithm

/// ECDSA over the SHA-256 of the message, DER-encoded (X9.62).
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA256 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256
/// ECDSA over a SHA-256 digest, DER-encoded (X9.62).
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA256 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA256
/// ECDH, the shared secret being the X coordinate.
public let kSecKeyAlgorithmECDHKeyExchangeStandard = SecKeyAlgorithm.ecdhKeyExchangeStandard
