/// The requirement a persisted right was saved with (Apple's `LAAuthenticationRequirement`), and the access control
/// its key and secret items carry (docs/KEYCHAIN.md, "Persisted rights").
package enum RightRequirement: UInt8, Equatable, Sendable, CaseIterable {
  /// `.default`: biometry or the passcode (userPresence).
  case userPresence = 0
  /// `.biometry`: any enrolled biometry (biometryAny).
  case biometry = 1
  /// `.biometryCurrentSet`: the biometry enrolled when the right was saved (biometryCurrentSet).
  case biometryCurrentSet = 2
  /// `.biometry(fallback: .devicePasscode)`: biometry or the passcode (biometryAny, or, devicePasscode).
  case biometryOrPasscode = 3
  /// `.biometry(fallback: .default)`: the same on Linux, where the passcode is the default fallback.
  case biometryOrDefault = 4

  /// The access control of the right's key and secret items.
  package var flags: KeychainAccessFlags {
    switch self {
    case .userPresence: .userPresence
    case .biometry: .biometryAny
    case .biometryCurrentSet: .biometryCurrentSet
    case .biometryOrPasscode, .biometryOrDefault: [.biometryAny, .devicePasscode, .or]
    }
  }
}

/// The algorithms of a right's private key (Apple's `SecKeyAlgorithm` values a P-256 key supports here).
package enum RightKeyAlgorithm: UInt8, Equatable, Sendable {
  /// `.ecdsaSignatureMessageX962SHA256`: DER ECDSA over the SHA-256 of the message.
  case ecdsaSignatureMessageX962SHA256 = 1
  /// `.ecdsaSignatureDigestX962SHA256`: DER ECDSA over a 32-byte SHA-256 digest.
  case ecdsaSignatureDigestX962SHA256 = 2
}

/// What a right store keeps of a persisted right beyond its key and secret: readable without authentication.
package struct PersistedRight: Equatable, Sendable {
  /// The application's identifier (the items' service).
  package var identifier: String
  /// The requirement it was saved with.
  package var requirement: RightRequirement
  /// The public key, 04 ‖ X ‖ Y (65 bytes).
  package var publicKey: [UInt8]
  /// For `.biometryCurrentSet`, the domain state when the right was saved (the key item's); nil otherwise.
  package var domainState: String?
  /// True when a secret was saved with the right.
  package var hasSecret: Bool

  /// Describes a persisted right.
  package init(identifier: String, requirement: RightRequirement, publicKey: [UInt8], domainState: String?, hasSecret: Bool) {
    self.identifier = identifier
    self.requirement = requirement
    self.publicKey = publicKey
    self.domainState = domainState
    self.hasSecret = hasSecret
  }

  /// The first line of the record item's data.
  static let header = "localauth-right 1"

  /// The record item's data: the header, the requirement, the public key and whether a secret exists.
  func encodedRecord() -> [UInt8] {
    let lines = [
      PersistedRight.header, "requirement " + String(requirement.rawValue), "public " + hexEncode(publicKey),
      "secret " + (hasSecret ? "1" : "0"),
    ]
    return Array((lines.joined(separator: "\n") + "\n").utf8)
  }

  /// Decodes a record item's data; nil when it is not one (the right is then treated as missing).
  static func decodeRecord(_ bytes: [UInt8], identifier: String, domainState: String?) -> PersistedRight? {
    let text = String(decoding: bytes, as: UTF8.self)
    let lines = text.fields(separatedBy: UInt8(ascii: "\n"))
    guard lines.count >= 4, String(lines[0]) == header else { return nil }
    var fields: [String: String] = [:]
    for line in lines.dropFirst() where !line.isEmpty {
      guard let space = line.firstIndex(ofByte: UInt8(ascii: " ")) else { return nil }
      let key = String(line[..<space])
      guard fields[key] == nil else { return nil }
      fields[key] = String(line[line.index(after: space)...])
    }
    guard let raw = fields["requirement"].flatMap({ UInt8($0) }), let requirement = RightRequirement(rawValue: raw),
      let publicKey = fields["public"].flatMap({ hexDecode($0) }), publicKey.count == P256.publicKeyLength,
      let secret = fields["secret"], secret == "0" || secret == "1"
    else { return nil }
    return PersistedRight(
      identifier: identifier, requirement: requirement, publicKey: publicKey,
      domainState: requirement == .biometryCurrentSet ? domainState : nil, hasSecret: secret == "1")
  }
}
