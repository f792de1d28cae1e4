import Dispatch
import Foundation
import LocalAuthCore

/// The private portion of a persisted right's P-256 key pair (Apple's `LAPrivateKey`).
///
/// The key itself never reaches this process: it is opened on the privileged side (localauth-helper, or the core
/// in a root process) on what the right's authorization established, used there, and only the signature or the
/// shared secret comes back. Every operation needs the right to be authorized (`notInteractive` otherwise) and
/// asks nothing. Supported: `.ecdsaSignatureMessageX962SHA256`, `.ecdsaSignatureDigestX962SHA256`,
/// `.ecdhKeyExchangeStandard`; no decryption (`canDecrypt` is false). Completions run on a background thread.
public final class LAPrivateKey: @unchecked Sendable {
  /// The public key that corresponds with the private key.
  public let publicKey: LAPublicKey
  let link: RightLink

  init(link: RightLink, publicKey: LAPublicKey) {
    self.link = link
    self.publicKey = publicKey
  }

  // MARK: Algorithm support

  /// True for the two ECDSA-SHA256 signature algorithms.
  public func canSign(using algorithm: SecKeyAlgorithm) -> Bool { algorithm.rightSignature != nil }

  /// True for `.ecdhKeyExchangeStandard`.
  public func canExchangeKeys(using algorithm: SecKeyAlgorithm) -> Bool { algorithm == .ecdhKeyExchangeStandard }

  /// Always false: a right's key decrypts nothing here (ECIES is not implemented).
  public func canDecrypt(using algorithm: SecKeyAlgorithm) -> Bool { false }

  // MARK: Operations

  /// Signs `data` (the message, or its 32-byte SHA-256 digest for the digest algorithm): `handler` gets the
  /// DER-encoded ECDSA signature, or an error — `notInteractive` while the right is not authorized; errSecParam
  /// (NSOSStatusErrorDomain) for an algorithm the key cannot sign with ("algorithm not supported by the key",
  /// as SecKey says) and for a digest that is not 32 bytes.
  public func sign(
    _ data: Data, algorithm: SecKeyAlgorithm, completion handler: @escaping @Sendable (Data?, (any Error)?) -> Void
  ) {
    guard let core = algorithm.rightSignature else {
      return DispatchQueue.global(qos: .userInitiated).async { handler(nil, KeyErrors.unsupported(algorithm)) }
    }
    let link = link
    let bytes = Array(data)
    link.run({ context in
      guard case .bytes(let signature) = try context.rightCall(.sign(link.identifier, core, bytes)) else {
        throw RightErrors.unexpected
      }
      return Data(signature)
    }, handler)
  }

  /// Signs `data` with `algorithm`; returns the DER-encoded ECDSA signature.
  public func sign(_ data: Data, algorithm: SecKeyAlgorithm) async throws -> Data {
    try await withCheckedThrowingContinuation { continuation in
      sign(data, algorithm: algorithm) { signature, error in continuation.resume(with: RightErrors.result(signature, error)) }
    }
  }

  /// Performs an ECDH key exchange with the remote party's public key (`04 ‖ X ‖ Y`, 65 bytes): `handler` gets the
  /// 32-byte shared secret (the X coordinate; `parameters` are not used by `.ecdhKeyExchangeStandard`), or an
  /// error as for `sign`; a peer key that is not a P-256 point is errSecParam.
  public func exchangeKeys(
    publicKey: Data, algorithm: SecKeyAlgorithm, parameters: [AnyHashable: Any],
    completion handler: @escaping @Sendable (Data?, (any Error)?) -> Void
  ) {
    guard canExchangeKeys(using: algorithm) else {
      return DispatchQueue.global(qos: .userInitiated).async { handler(nil, KeyErrors.unsupported(algorithm)) }
    }
    let link = link
    let peer = Array(publicKey)
    link.run({ context in
      guard case .bytes(let shared) = try context.rightCall(.exchange(link.identifier, peer)) else {
        throw RightErrors.unexpected
      }
      return Data(shared)
    }, handler)
  }

  /// Performs an ECDH key exchange; returns the shared secret.
  public func exchangeKeys(publicKey: Data, algorithm: SecKeyAlgorithm, parameters: [AnyHashable: Any]) async throws -> Data {
    try await withCheckedThrowingContinuation { continuation in
      exchangeKeys(publicKey: publicKey, algorithm: algorithm, parameters: parameters) { shared, error in
        continuation.resume(with: RightErrors.result(shared, error))
      }
    }
  }

  /// Decryption is not supported: `handler` gets errSecParam (NSOSStatusErrorDomain), "algorithm not
  /// supported by the key", for every algorithm.
  public func decrypt(
    _ data: Data, algorithm: SecKeyAlgorithm, completion handler: @escaping @Sendable (Data?, (any Error)?) -> Void
  ) {
    DispatchQueue.global(qos: .userInitiated).async { handler(nil, KeyErrors.unsupported(algorithm)) }
  }

  /// Decryption is not supported: throws errSecParam (NSOSStatusErrorDomain), "algorithm not supported by
  /// the key".
  public func decrypt(_ data: Data, algorithm: SecKeyAlgorithm) async throws -> Data {
    throw KeyErrors.unsupported(algorithm)
  }
}
