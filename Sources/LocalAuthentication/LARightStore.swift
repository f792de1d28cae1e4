import Dispatch
import Foundation
import LocalAuthCore

/// A container for data protected by a right (Apple's `LARightStore`, iOS 16 / macOS 13).
///
/// A saved right is kept in the calling user's keychain, in an access group reserved for the store: a P-256 key
/// pair made for it, the secret when one is given, and its requirement, the key and the secret protected by the
/// access control the requirement stands for (`.default` → userPresence, `.biometry` → biometryAny,
/// `.biometryCurrentSet` → biometryCurrentSet, `.biometry(fallback:)` → biometryAny or devicePasscode). In a process
/// that is not root's everything happens in localauth-helper (docs/KEYCHAIN.md, "Persisted rights"). Each call runs
/// in the environment current when it is made (`LAContext.defaultConfiguration`, else the system); completions run
/// on a background thread. Failures are `LAError`s: `invalidContext` when no right is stored under the identifier
/// (docs/RULES.md, "Persisted rights").
///
/// ```swift
/// let right = try await LARightStore.shared.saveRight(LARight(), identifier: "access-token", secret: token)
/// try await right.authorize(localizedReason: "use your access token")
/// let token = try await right.secret.rawData
/// ```
open class LARightStore: @unchecked Sendable {
  /// A shared object that stores rights.
  public static let shared = LARightStore()

  init() {}

  // MARK: Accessing rights

  /// Fetches a previously stored right: `handler` gets it (not authorized yet), or an `LAError` — `invalidContext`
  /// when none is stored under `identifier`, or when a `.biometryCurrentSet` right's enrolled set changed (the
  /// right is then removed).
  open func right(
    forIdentifier identifier: String, completion handler: @escaping @Sendable (LAPersistedRight?, (any Error)?) -> Void
  ) {
    perform(.fetch(identifier), handler)
  }

  /// Fetches a previously stored right.
  public func right(forIdentifier identifier: String) async throws -> LAPersistedRight {
    try await withCheckedThrowingContinuation { continuation in
      right(forIdentifier: identifier) { right, error in continuation.resume(with: RightErrors.result(right, error)) }
    }
  }

  // MARK: Storing rights

  /// Saves a right under `identifier` (replacing one stored there) with a new key pair: `handler` gets the persisted
  /// right, not authorized yet. A `.biometryCurrentSet` right is bound to the set enrolled now (`biometryNotEnrolled`
  /// when nothing is).
  open func saveRight(
    _ right: LARight, identifier: String, completion handler: @escaping @Sendable (LAPersistedRight?, (any Error)?) -> Void
  ) {
    perform(.save(identifier, right.requirement.rightRequirement, nil), handler)
  }

  /// Saves a right to the store.
  public func saveRight(_ right: LARight, identifier: String) async throws -> LAPersistedRight {
    try await withCheckedThrowingContinuation { continuation in
      saveRight(right, identifier: identifier) { saved, error in continuation.resume(with: RightErrors.result(saved, error)) }
    }
  }

  /// Saves a right with `secret` (at most 16 KiB), which `secret.loadData` returns once the right is authorized.
  open func saveRight(
    _ right: LARight, identifier: String, secret: Data,
    completion handler: @escaping @Sendable (LAPersistedRight?, (any Error)?) -> Void
  ) {
    perform(.save(identifier, right.requirement.rightRequirement, Array(secret)), handler)
  }

  /// Saves a right with secret data.
  public func saveRight(_ right: LARight, identifier: String, secret: Data) async throws -> LAPersistedRight {
    try await withCheckedThrowingContinuation { continuation in
      saveRight(right, identifier: identifier, secret: secret) { saved, error in
        continuation.resume(with: RightErrors.result(saved, error))
      }
    }
  }

  // MARK: Removing stored rights

  /// Removes a right, with its key and secret; `handler` gets nil, or `invalidContext` when it is not stored. An
  /// authorized right is removed on its authorization; otherwise as `removeRight(forIdentifier:)`.
  open func removeRight(_ right: LAPersistedRight, completion handler: @escaping @Sendable ((any Error)?) -> Void) {
    run(.remove(right.identifier), LAContext.defaultConfiguration, authorized: right.authorizationContext) { _ in true } handler: {
      _, error in handler(error)
    }
  }

  /// Removes a right given an instance of it.
  public func removeRight(_ right: LAPersistedRight) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      removeRight(right) { error in
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
      }
    }
  }

  /// Removes the right stored under `identifier`, with its key and secret; `handler` gets nil, or `invalidContext`
  /// when none is stored there. As replacing one, removing a right needs an evaluation that satisfies it: the store
  /// asks for one (owner authentication) and fails with its error, or `notInteractive`, leaving the right as it was.
  open func removeRight(forIdentifier identifier: String, completion handler: @escaping @Sendable ((any Error)?) -> Void) {
    performRemoval(.remove(identifier), handler)
  }

  /// Removes a right given its identifier.
  public func removeRight(forIdentifier identifier: String) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      removeRight(forIdentifier: identifier) { error in
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
      }
    }
  }

  /// Removes every right of the calling user, with their keys and secrets (none stored is not an error), after an
  /// evaluation that satisfies every one of them; otherwise none is removed.
  open func removeAllRights(completion handler: @escaping @Sendable ((any Error)?) -> Void) {
    performRemoval(.removeAll, handler)
  }

  /// Removes all rights.
  public func removeAllRights() async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      removeAllRights { error in
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
      }
    }
  }

  // MARK: Internals

  /// Runs `request` on a fresh context of the caller's environment, on a background thread, and hands `handler`
  /// the persisted right a save or fetch returned.
  private func perform(_ request: LAContext.RightRequest, _ handler: @escaping @Sendable (LAPersistedRight?, (any Error)?) -> Void) {
    let configuration = LAContext.defaultConfiguration
    run(request, configuration) { answer in
      guard case .right(let stored) = answer else { throw RightErrors.unexpected }
      return LAPersistedRight(stored, configuration: configuration)
    } handler: { right, error in handler(right, error) }
  }

  /// Runs a removal and hands `handler` its error, or nil.
  private func performRemoval(_ request: LAContext.RightRequest, _ handler: @escaping @Sendable ((any Error)?) -> Void) {
    run(request, LAContext.defaultConfiguration) { _ in true } handler: { _, error in handler(error) }
  }

  /// Runs `request` on `authorized` (an authorized right's context), else on a fresh context of `configuration`.
  /// A save over a stored right, a removal and a removal of all need what the stored rights need (issue 27,
  /// finding 10): refused for want of it on a fresh context, the call asks for owner authentication once on that
  /// context and is made again.
  private func run<T: Sendable>(
    _ request: LAContext.RightRequest, _ configuration: LAContextConfiguration?, authorized: LAContext? = nil,
    _ transform: @escaping @Sendable (LAContext.RightAnswer) throws -> T,
    handler: @escaping @Sendable (T?, (any Error)?) -> Void
  ) {
    var requirement: RightRequirement? = nil
    if case .save(_, let saved, _) = request { requirement = saved }
    let bound = requirement
    DispatchQueue.global(qos: .userInitiated).async {
      let fresh = authorized == nil ? LAContext.fresh(in: configuration) : nil
      // A fresh context exists for this call only: its helper session ends with it.
      defer { fresh?.invalidate() }
      guard let context = authorized ?? fresh else { return }
      do {
        let answer: LAContext.RightAnswer
        do {
          answer = try context.rightCall(request)
        } catch LocalAuthError.keychain(.interactionNotAllowed) where fresh != nil && Self.changesStoredRights(request) {
          try Self.authenticate(context, for: request)
          answer = try context.rightCall(request)
        }
        handler(try transform(answer), nil)
      } catch {
        handler(nil, RightErrors.map(error, requirement: bound))
      }
    }
  }

  /// True for the calls that replace or remove stored rights.
  private static func changesStoredRights(_ request: LAContext.RightRequest) -> Bool {
    switch request {
    case .save, .remove, .removeAll: true
    default: false
    }
  }

  /// Evaluates owner authentication on `context` (biometry first, then the passcode), waiting for its answer.
  private static func authenticate(_ context: LAContext, for request: LAContext.RightRequest) throws {
    let reason: String
    switch request {
    case .save(let identifier, _, _): reason = "replace the saved right \(identifier)"
    case .remove(let identifier): reason = "remove the saved right \(identifier)"
    default: reason = "remove every saved right"
    }
    let done = DispatchSemaphore(value: 0)
    let outcome = LockedOutcome()
    context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: reason) { success, error in
      outcome.set(success ? nil : (error ?? LAError(.authenticationFailed)))
      done.signal()
    }
    done.wait()
    if let error = outcome.get() { throw error }
  }
}

/// An evaluation's error, handed from its completion to the waiting thread.
private final class LockedOutcome: @unchecked Sendable {
  private let lock = NSLock()
  private var error: (any Error)?

  func set(_ error: (any Error)?) { lock.withLock { self.error = error } }
  func get() -> (any Error)? { lock.withLock { error } }
}
