/// A secret's bytes, overwritten with zeros when released; its description never shows the content.
public final class SecretBytes: CustomStringConvertible, @unchecked Sendable {
  /// The longest passcode accepted; anything longer is refused before hashing. libxcrypt's
  /// CRYPT_MAX_PASSPHRASE_SIZE (512) counts the terminating NUL, so 511 bytes is the most crypt_rn hashes.
  package static let maximumLength = 511

  /// The secret's bytes; callers must not copy them into longer-lived storage.
  package private(set) var bytes: [UInt8]

  /// Takes ownership of `bytes`.
  public init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// Copies a string's UTF-8 bytes.
  public convenience init(_ string: String) { self.init(Array(string.utf8)) }

  /// The number of bytes.
  package var count: Int { bytes.count }

  /// True when the secret is empty.
  package var isEmpty: Bool { bytes.isEmpty }

  /// Overwrites the bytes with zeros now.
  package func wipe() {
    bytes.withUnsafeMutableBufferPointer { buffer in
      for i in buffer.indices { buffer[i] = 0 }
    }
    bytes.removeAll()
  }

  deinit { wipe() }

  public var description: String { "<secret>" }
}

/// Compares two byte sequences in time that depends only on their lengths.
package func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
  guard lhs.count == rhs.count else { return false }
  return zip(lhs, rhs).reduce(into: UInt8(0)) { $0 |= $1.0 ^ $1.1 } == 0
}
