/// The typed requests and replies of an app's LARightStore calls (operations 11–17, docs/KEYCHAIN.md, "Persisted
/// rights"): the LocalAuthentication product builds one and runs it in-process or sends `encode()`; the helper reads
/// it back with `init(decoding:)`. None of them prompts.
package enum AppRightRequest: Equatable, Sendable {
  /// Saves a right: identifier, requirement, secret; the helper makes the key pair.
  case save(String, RightRequirement, [UInt8]?)
  /// Fetches a right's record.
  case fetch(String)
  /// Removes a right.
  case remove(String)
  /// Removes every right of the user.
  case removeAll
  /// Reads a right's secret (sent back as one `AppItem` with the data).
  case secret(String)
  /// Signs with a right's private key.
  case sign(String, RightKeyAlgorithm, [UInt8])
  /// Derives a shared secret from a right's private key and a peer's public key.
  case exchange(String, [UInt8])

  /// The operation.
  package var operation: AppCall.Operation {
    switch self {
    case .save: .rightSave
    case .fetch: .rightFetch
    case .remove: .rightRemove
    case .removeAll: .rightRemoveAll
    case .secret: .rightSecret
    case .sign: .rightSign
    case .exchange: .rightExchange
    }
  }

  /// The right the call is about; "" for removeAll.
  package var identifier: String {
    switch self {
    case .save(let name, _, _), .fetch(let name), .remove(let name), .secret(let name), .sign(let name, _, _),
      .exchange(let name, _):
      name
    case .removeAll: ""
    }
  }

  /// The fields of `operation` and their limits.
  static func limits(_ operation: AppCall.Operation) -> AppFieldLimits {
    let identifier: AppFieldLimits = [(AppCall.Key.identifier, RightStore.maximumIdentifierLength)]
    switch operation {
    case .rightSave: return identifier + [(AppCall.Key.requirement, 1), (AppCall.Key.secret, KeychainItem.maximumDataSize)]
    case .rightSign: return identifier + [(AppCall.Key.algorithm, 1), (AppCall.Key.data, RightStore.maximumMessageSize)]
    case .rightExchange: return identifier + [(AppCall.Key.peerKey, P256.publicKeyLength)]
    case .rightRemoveAll: return []
    default: return identifier
    }
  }

  /// The caller's checks against the limits, before anything is sent: what the helper would refuse as malformed is
  /// the caller's errSecParam.
  package func check() throws(KeychainError) {
    if case .removeAll = self { return }
    try RightStore.check(identifier: identifier)
    switch self {
    case .save(_, _, let secret?) where secret.count > KeychainItem.maximumDataSize:
      throw .parameter("the secret is larger than 16 KiB")
    case .sign(_, _, let data) where data.count > RightStore.maximumMessageSize:
      throw .parameter("the data to sign is larger than 16 KiB")
    case .exchange(_, let peer) where peer.count != P256.publicKeyLength:
      throw .parameter("the peer's public key must be an uncompressed P-256 point (65 bytes)")
    default: return
    }
  }

  /// The call: the operation's own fields, then the identifier.
  package func encode() -> AppCall {
    var fields = AppFields()
    switch self {
    case .save(_, let requirement, let secret):
      fields.set(AppCall.Key.requirement, byte: requirement.rawValue)
      if let secret { fields.set(AppCall.Key.secret, secret) }
    case .sign(_, let algorithm, let data):
      fields.set(AppCall.Key.algorithm, byte: algorithm.rawValue)
      fields.set(AppCall.Key.data, data)
    case .exchange(_, let peer): fields.set(AppCall.Key.peerKey, peer)
    case .fetch, .remove, .removeAll, .secret: break
    }
    if operation != .rightRemoveAll { fields.set(AppCall.Key.identifier, text: identifier) }
    return AppCall(operation, fields)
  }

  /// Reads a right call; one without an identifier, a known requirement or a known algorithm is malformed (missing
  /// data to sign or a missing peer key is empty, which the store refuses).
  package init(decoding call: AppCall) throws(HelperProtocolError) {
    let fields = call.fields
    if call.operation == .rightRemoveAll {
      self = .removeAll
      return
    }
    guard let name = try fields.text(AppCall.Key.identifier) else { throw .malformed("a right call without an identifier") }
    switch call.operation {
    case .rightSave:
      guard let raw = try fields.byte(AppCall.Key.requirement), let requirement = RightRequirement(rawValue: raw) else {
        throw .malformed("a right without a known requirement")
      }
      self = .save(name, requirement, fields.bytes(AppCall.Key.secret))
    case .rightFetch: self = .fetch(name)
    case .rightRemove: self = .remove(name)
    case .rightSecret: self = .secret(name)
    case .rightSign:
      guard let algorithm = try fields.byte(AppCall.Key.algorithm).flatMap({ RightKeyAlgorithm(rawValue: $0) }) else {
        throw .malformed("a signature without a known algorithm")
      }
      self = .sign(name, algorithm, fields.bytes(AppCall.Key.data) ?? [])
    case .rightExchange: self = .exchange(name, fields.bytes(AppCall.Key.peerKey) ?? [])
    default: throw .malformed("not a right call")
    }
  }
}

extension PersistedRight {
  /// What the app learns of a stored right (the reply of rightSave and rightFetch): its requirement, public key,
  /// bound enrolment and whether a secret exists.
  package func replyFields() -> AppFields {
    var fields = AppFields()
    fields.set(AppReply.Key.requirement, byte: requirement.rawValue)
    fields.set(AppReply.Key.publicKey, publicKey)
    fields.set(AppReply.Key.domainState, optionalText: domainState)
    fields.set(AppReply.Key.hasSecret, flag: hasSecret)
    return fields
  }

  /// Reads a right's reply; one without a known requirement or a 65-byte public key is malformed.
  package init(identifier: String, decoding fields: AppFields) throws(HelperProtocolError) {
    guard let raw = try fields.byte(AppReply.Key.requirement), let requirement = RightRequirement(rawValue: raw),
      let publicKey = fields.bytes(AppReply.Key.publicKey), publicKey.count == P256.publicKeyLength
    else { throw .malformed("a right described badly") }
    self.init(
      identifier: identifier, requirement: requirement, publicKey: publicKey,
      domainState: try fields.text(AppReply.Key.domainState), hasSecret: try fields.flag(AppReply.Key.hasSecret))
  }
}

/// The reply of rightSign and rightExchange: the signature or the shared secret.
package struct RightOutputReply: Equatable, Sendable {
  /// The bytes.
  package var output: [UInt8]
  /// Describes the reply.
  package init(output: [UInt8]) { self.output = output }

  /// The reply's fields.
  package func encode() -> AppFields {
    var fields = AppFields()
    fields.set(AppReply.Key.output, output)
    return fields
  }

  /// Reads the reply; nil when it carries no output.
  package init?(decoding fields: AppFields) {
    guard let output = fields.bytes(AppReply.Key.output) else { return nil }
    self.output = output
  }
}
