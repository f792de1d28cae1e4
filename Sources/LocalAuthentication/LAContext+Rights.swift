import Foundation
import LocalAuthCore

/// A persisted right's calls, made with one context: through its localauth-helper session in a process that is
/// not root's (the key and the secret stay on the privileged side), or in-process on the context's keychain (root,
/// or a test configuration). Either way the core's `RightStore` serves them, on what the context's evaluations
/// established, and never prompts (docs/KEYCHAIN.md, "Persisted rights").
extension LAContext {
  /// One right call.
  enum RightRequest: Sendable {
    /// Saves a right: identifier, requirement, secret.
    case save(String, RightRequirement, [UInt8]?)
    /// Fetches a right.
    case fetch(String)
    /// Removes a right.
    case remove(String)
    /// Removes every right of the user.
    case removeAll
    /// Reads a right's secret.
    case secret(String)
    /// Signs with a right's private key.
    case sign(String, RightKeyAlgorithm, [UInt8])
    /// Derives a shared secret from a right's private key and a peer's public key.
    case exchange(String, [UInt8])
  }

  /// What a right call returned.
  enum RightAnswer: Sendable {
    /// A stored right (save, fetch).
    case right(PersistedRight)
    /// A secret, a signature or a shared secret.
    case bytes([UInt8])
    /// Nothing (remove).
    case done
  }

  /// Runs `request` with this context; throws a `LocalAuthError` or an `LAError`.
  func rightCall(_ request: RightRequest) throws -> RightAnswer {
    evaluatesThroughHelper ? try rightCallThroughHelper(request) : try rightCallInProcess(request)
  }

  private func rightCallInProcess(_ request: RightRequest) throws -> RightAnswer {
    let session = try keychainSession(reason: "use a persisted right").get()
    guard let keychain = session.dependencies.keychain else {
      throw LocalAuthError.keychain(.notAvailable("this environment has no keychain"))
    }
    let store = RightStore(keychain: keychain, dependencies: session.dependencies, settings: session.configuration.settings)
    let user = session.user
    switch request {
    case .save(let identifier, let requirement, let secret):
      return .right(try store.save(identifier, requirement: requirement, secret: secret, for: user, authorization: session.authorization))
    case .fetch(let identifier):
      return .right(try store.right(identifier, for: user))
    case .remove(let identifier):
      try store.remove(identifier, for: user, authorization: session.authorization)
      return .done
    case .removeAll:
      try store.removeAll(for: user, authorization: session.authorization)
      return .done
    case .secret(let identifier):
      return .bytes(try store.secret(identifier, for: user, authorization: session.authorization))
    case .sign(let identifier, let algorithm, let data):
      return .bytes(try store.sign(identifier, algorithm: algorithm, data: data, for: user, authorization: session.authorization))
    case .exchange(let identifier, let peer):
      let shared = try store.exchange(identifier, peerPublicKey: peer, for: user, authorization: session.authorization)
      defer { shared.wipe() }
      return .bytes(shared.bytes)
    }
  }

  private func rightCallThroughHelper(_ request: RightRequest) throws -> RightAnswer {
    guard !withState({ $0.invalidated }) else { throw LAError(.invalidContext) }
    var fields = AppFields()
    let operation: AppCall.Operation
    let identifier: String
    switch request {
    case .save(let name, let requirement, let secret):
      (operation, identifier) = (.rightSave, name)
      fields.set(AppCall.Key.requirement, byte: requirement.rawValue)
      if let secret { fields.set(AppCall.Key.secret, secret) }
    case .fetch(let name): (operation, identifier) = (.rightFetch, name)
    case .remove(let name): (operation, identifier) = (.rightRemove, name)
    case .removeAll: (operation, identifier) = (.rightRemoveAll, "")
    case .secret(let name): (operation, identifier) = (.rightSecret, name)
    case .sign(let name, let algorithm, let data):
      (operation, identifier) = (.rightSign, name)
      fields.set(AppCall.Key.algorithm, byte: algorithm.rawValue)
      fields.set(AppCall.Key.data, data)
    case .exchange(let name, let peer):
      (operation, identifier) = (.rightExchange, name)
      fields.set(AppCall.Key.peerKey, peer)
    }
    if operation != .rightRemoveAll {
      // The helper refuses these as malformed; here they are the caller's errSecParam.
      try Keychain.checkRightFields(identifier: identifier, fields: fields)
      fields.set(AppCall.Key.identifier, text: identifier)
    }
    let answer = try helperCall(AppCall(operation, fields))
    switch answer.reply {
    case .done(let values):
      switch request {
      case .save, .fetch: return .right(try Self.right(identifier, values))
      case .secret:
        guard let data = answer.items.first?.fields.bytes(AppCall.Key.data) else { throw LocalAuthError.keychain(.itemNotFound) }
        return .bytes(data)
      case .sign, .exchange:
        guard let output = values.bytes(AppReply.Key.output) else {
          throw LAError(.systemCancel, userInfo: [NSDebugDescriptionErrorKey: "localauth-helper sent no result"])
        }
        return .bytes(output)
      case .remove, .removeAll: return .done
      }
    case .keychain(let error): throw LocalAuthError.keychain(error)
    default: throw helperError(answer.reply, recorder: nil)
    }
  }

  /// A stored right as the helper described it.
  private static func right(_ identifier: String, _ values: AppFields) throws -> PersistedRight {
    guard let raw = try values.byte(AppReply.Key.requirement), let requirement = RightRequirement(rawValue: raw),
      let publicKey = values.bytes(AppReply.Key.publicKey), publicKey.count == P256.publicKeyLength
    else { throw LAError(.systemCancel, userInfo: [NSDebugDescriptionErrorKey: "localauth-helper described the right badly"]) }
    return PersistedRight(
      identifier: identifier, requirement: requirement, publicKey: publicKey,
      domainState: try values.text(AppReply.Key.domainState), hasSecret: try values.flag(AppReply.Key.hasSecret))
  }
}

extension Keychain {
  /// The client's checks of a right call's fields against the protocol's limits (errSecParam when over).
  static func checkRightFields(identifier: String, fields: AppFields) throws {
    do throws(KeychainError) {
      try RightStore.check(identifier: identifier)
    } catch {
      throw LocalAuthError.keychain(error)
    }
    if let secret = fields.bytes(AppCall.Key.secret), secret.count > KeychainItem.maximumDataSize {
      throw LocalAuthError.keychain(.parameter("the secret is larger than 16 KiB"))
    }
    if let data = fields.bytes(AppCall.Key.data), data.count > RightStore.maximumMessageSize {
      throw LocalAuthError.keychain(.parameter("the data to sign is larger than 16 KiB"))
    }
    if let peer = fields.bytes(AppCall.Key.peerKey), peer.count != P256.publicKeyLength {
      throw LocalAuthError.keychain(.parameter("the peer's public key must be an uncompressed P-256 point (65 bytes)"))
    }
  }
}
