import Foundation
import LocalAuthCore

/// A persisted right's calls, made with one context: through its localauth-helper session in a process that is
/// not root's (the key and the secret stay on the privileged side), or in-process on the context's keychain (root,
/// or a test configuration). Either way the core's `RightStore` serves them, on what the context's evaluations
/// established, and never prompts (docs/KEYCHAIN.md, "Persisted rights").
extension LAContext {
  /// One right call: the core's typed request, run in-process or sent to the helper as it is.
  typealias RightRequest = AppRightRequest

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
    // The helper refuses these as malformed; here they are the caller's errSecParam.
    do throws(KeychainError) { try request.check() } catch { throw LocalAuthError.keychain(error) }
    let answer = try helperCall(request.encode())
    switch answer.reply {
    case .done(let values):
      switch request {
      case .save, .fetch:
        do throws(HelperProtocolError) { return .right(try PersistedRight(identifier: request.identifier, decoding: values)) } catch {
          throw LAError(.systemCancel, userInfo: [NSDebugDescriptionErrorKey: "localauth-helper described the right badly"])
        }
      case .secret:
        guard let data = answer.items.first?.fields.bytes(AppCall.Key.data) else { throw LocalAuthError.keychain(.itemNotFound) }
        return .bytes(data)
      case .sign, .exchange:
        guard let reply = RightOutputReply(decoding: values) else {
          throw LAError(.systemCancel, userInfo: [NSDebugDescriptionErrorKey: "localauth-helper sent no result"])
        }
        return .bytes(reply.output)
      case .remove, .removeAll: return .done
      }
    case .keychain(let error): throw LocalAuthError.keychain(error)
    default: throw helperError(answer.reply, recorder: nil)
    }
  }
}
