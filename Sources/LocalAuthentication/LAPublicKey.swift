import Dispatch
import Foundation
import LocalAuthCore

/// The public portion of a persisted right's P-256 key pair (Apple's `LAPublicKey`): its operations need no
/// authorization and run in this process. Completions run on a background thread.
public final class LAPublicKey: Sendable {
  /// The key, 04 ‖ X ‖ Y.
  let raw: [UInt8]

  init(_ raw: [UInt8]) { self.raw = raw }

  /// True for the two ECDSA-SHA256 signature algorithms.
  public func canVerify(using algorithm: SecKeyAlgorithm) -> Bool { algorithm.rightSignature != nil }

  /// Always false: encryption to a right's key (ECIES) is not implemented.
  public func canEncrypt(using algorithm: SecKeyAlgorithm) -> Bool { false }

  /// Exports the key as `SecKeyCopyExternalRepresentation` does for a P-256 public key: the uncompressed X9.63
  /// point `04 ‖ X ‖ Y` (65 bytes).
  public func exportBytes(completion handler: @escaping @Sendable (Data?, (any Error)?) -> Void) {
    let data = Data(raw)
    DispatchQueue.global(qos: .userInitiated).async { handler(data, nil) }
  }

  /// The key's X9.63 bytes (the async form of `exportBytes(completion:)`, as Apple names it).
  public var bytes: Data {
    get async throws { Data(raw) }
  }

  /// The key's X9.63 bytes (the async form of `exportBytes(completion:)`).
  public func exportBytes() async throws -> Data { Data(raw) }

  /// Verifies `signature` over `signedData` (the message, or its SHA-256 digest for the digest algorithm):
  /// `handler` gets nil, or errSecVerifyFailed (NSOSStatusErrorDomain) for a signature that does not
  /// verify, errSecParam for an algorithm the key cannot verify with.
  public func verify(
    _ signedData: Data, signature: Data, algorithm: SecKeyAlgorithm,
    completion handler: @escaping @Sendable ((any Error)?) -> Void
  ) {
    let (raw, message, signature) = (raw, Array(signedData), Array(signature))
    DispatchQueue.global(qos: .userInitiated).async {
      handler(LAPublicKey.check(raw, message, signature, algorithm))
    }
  }

  /// Verifies a signature; throws when it does not verify.
  public func verify(_ signedData: Data, signature: Data, algorithm: SecKeyAlgorithm) async throws {
    if let error = LAPublicKey.check(raw, Array(signedData), Array(signature), algorithm) { throw error }
  }

  /// Encryption is not supported: `handler` gets errSecParam (NSOSStatusErrorDomain), "algorithm not
  /// supported by the key".
  public func encrypt(
    _ data: Data, algorithm: SecKeyAlgorithm, completion handler: @escaping @Sendable (Data?, (any Error)?) -> Void
  ) {
    DispatchQueue.global(qos: .userInitiated).async { handler(nil, KeyErrors.unsupported(algorithm)) }
  }

  /// Encryption is not supported: throws errSecParam (NSOSStatusErrorDomain), "algorithm not supported by
  /// the key".
  public func encrypt(_ data: Data, algorithm: SecKeyAlgorithm) async throws -> Data {
    throw KeyErrors.unsupported(algorithm)
  }

  /// Nil when `signature` verifies, else the error to report.
  private static func check(_ key: [UInt8], _ data: [UInt8], _ signature: [UInt8], _ algorithm: SecKeyAlgorithm) -> NSError? {
    guard let core = algorithm.rightSignature else { return KeyErrors.unsupported(algorithm) }
    if core == .ecdsaSignatureDigestX962SHA256 && data.count != P256.digestLength {
      return KeyErrors.parameter("a digest signature needs the 32-byte SHA-256 digest")
    }
    do throws(CryptoError) {
      let valid =
        core == .ecdsaSignatureMessageX962SHA256
        ? try P256.verify(signature: signature, message: data, publicKey: key)
        : try P256.verify(signature: signature, digest: data, publicKey: key)
      return valid ? nil : KeyErrors.verifyFailed()
    } catch {
      return KeyErrors.parameter("the signature could not be verified: \(error)")
    }
  }
}
