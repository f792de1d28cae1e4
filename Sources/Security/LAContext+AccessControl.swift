import Foundation
import LocalAuthCore
import LocalAuthentication

/// The operation an access control guards (Apple's LAAccessControlOperation).
public enum LAAccessControlOperation: Int, Sendable {
  /// Creating an item.
  case createItem = 0
  /// Using an item (reading its data).
  case useItem = 1
  /// Creating a key.
  case createKey = 2
  /// Signing with a key.
  case useKeySign = 3
  /// Decrypting with a key.
  case useKeyDecrypt = 4
  /// Key exchange.
  case useKeyKeyExchange = 5
}

extension LAContext {
  /// Evaluates `accessControl` for `operation` now, so that a later keychain call with this context asks
  /// nothing (Apple's evaluateAccessControl); `reply` runs once, on a background thread.
  public func evaluateAccessControl(
    _ accessControl: SecAccessControl, operation: LAAccessControlOperation, localizedReason: String,
    reply: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    guard !localizedReason.isEmpty else { return reply(false, LAContext.UsageError.emptyReason) }
    guard operation == .useItem || operation == .createItem else { return reply(false, LAError(.invalidContext)) }
    let context = self
    DispatchQueue.global(qos: .userInitiated).async {
      reply(context.evaluateNow(accessControl, operation: operation, reason: localizedReason), nil)
    } as Void
  }

  /// Evaluates `accessControl` (async form).
  public func evaluateAccessControl(
    _ accessControl: SecAccessControl, operation: LAAccessControlOperation, localizedReason: String
  ) async throws -> Bool {
    try await withCheckedThrowingContinuation { continuation in
      evaluateAccessControl(accessControl, operation: operation, localizedReason: localizedReason) { success, error in
        if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: success) }
      }
    }
  }

  private func evaluateNow(_ accessControl: SecAccessControl, operation: LAAccessControlOperation, reason: String) -> Bool {
    // Creating an item needs no authentication (only reading is guarded).
    guard operation == .useItem else { return true }
    guard case .success(var session) = keychainSession(reason: reason), let keychain = session.dependencies.keychain else {
      return false
    }
    let reader = KeychainReader(keychain: keychain, dependencies: session.dependencies, settings: session.configuration.settings)
    let probe = KeychainItem.probe(
      accessibility: accessControl.accessibility, flags: accessControl.flags,
      domainState: (try? session.dependencies.store.load(session.user))??.domainState)
    do {
      let steps = try reader.steps(for: probe, authorization: session.authorization, currentDomainState: probe.domainState)
      for step in steps { try reader.run(step, request: session.request, into: &session.authorization) }
    } catch {
      keepKeychainAuthorization(session.authorization)
      return false
    }
    keepKeychainAuthorization(session.authorization)
    return true
  }
}
