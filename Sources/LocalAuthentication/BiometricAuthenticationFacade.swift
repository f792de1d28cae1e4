import Dispatch
import Foundation
import LocalAuthCore

/// Per-feature owner authentication (a widely copied Objective-C BiometricAuthenticationFacade) as a Swift API:
/// rule 10 in docs/RULES.md.
///
/// A user protects named features ("transfer", "settings"): enabling needs no authentication, disabling needs
/// a successful owner authentication, and authenticating for a feature that is not enabled succeeds without
/// a prompt. Everything fails with `authenticationUnavailabilityError` while authentication is unavailable.
/// The flags persist per user in the core's state (`UserRecord.features`), where the PAM module's
/// `feature=` option reads them. Completion blocks run on a background queue, like `evaluatePolicy`'s reply.
public final class BiometricAuthenticationFacade: @unchecked Sendable {
  /// Why a facade call was refused before any authentication.
  public enum FacadeError: Error, Equatable, Sendable {
    /// The feature name is not 1–64 of A–Z a–z 0–9 . _ - (or starts with '.').
    case invalidFeatureName(String)
  }

  /// The policy evaluated (the seeds use biometrics only; `.deviceOwnerAuthentication` adds the passcode).
  public let policy: LAPolicy
  /// The environment, or nil for the system's (through localauth-helper in a process that is not root's).
  private let configuration: LAContextConfiguration?
  private let queue = DispatchQueue(label: "BiometricAuthenticationFacade")

  /// A facade for the calling user on this system (or the task's `LAContext.defaultConfiguration`).
  public init(policy: LAPolicy = .deviceOwnerAuthenticationWithBiometrics) {
    self.policy = policy
    configuration = LAContext.defaultConfiguration
  }

  /// Linux-only: a facade over an explicit environment.
  public init(configuration: LAContextConfiguration, policy: LAPolicy = .deviceOwnerAuthenticationWithBiometrics) {
    self.policy = policy
    self.configuration = configuration
  }

  /// A context over the facade's environment.
  private func makeContext() -> LAContext { configuration.map { LAContext(configuration: $0) } ?? LAContext() }

  // MARK: Availability

  /// True when the policy can be evaluated now (seed: `isAuthenticationAvailable`).
  public var isAuthenticationAvailable: Bool { authenticationUnavailabilityError == nil }

  /// Why authentication is unavailable (an `LAErrorDomain` NSError), or nil when it is available; the
  /// failure blocks and async forms report it as the equivalent `LAError`.
  public var authenticationUnavailabilityError: NSError? {
    var error: NSError?
    return makeContext().canEvaluatePolicy(policy, error: &error) ? nil : error
  }

  /// True when authentication is available and the user enabled it for `feature`.
  public func isAuthenticationEnabled(forFeature feature: String) -> Bool {
    isAuthenticationAvailable && ((try? loadEnabled(feature, makeContext())) ?? false)
  }

  // MARK: Completion-block forms

  /// Enables protection of `feature` without authenticating; fails only when unavailable or not persisted.
  public func enableAuthentication(
    forFeature feature: String, success: @escaping @Sendable () -> Void, failure: @escaping @Sendable (any Error) -> Void
  ) {
    queue.async {
      do {
        try self.enable(feature)
        success()
      } catch {
        failure(error)
      }
    }
  }

  /// Disables protection of `feature` after a successful owner authentication (none needed if not enabled).
  public func disableAuthentication(
    forFeature feature: String, reason: String, success: @escaping @Sendable () -> Void,
    failure: @escaping @Sendable (any Error) -> Void
  ) {
    whenEnabled(feature, authenticate: reason, success: success, failure: failure) { context in
      try self.save(feature, enabled: false, context)
    }
  }

  /// Authenticates the owner for `feature`; succeeds at once, without a prompt, when it is not enabled.
  public func authenticate(
    forFeature feature: String, reason: String, success: @escaping @Sendable () -> Void,
    failure: @escaping @Sendable (any Error) -> Void
  ) {
    whenEnabled(feature, authenticate: reason, success: success, failure: failure) { _ in }
  }

  // MARK: Async forms

  /// Enables protection of `feature` (async form).
  public func enableAuthentication(forFeature feature: String) async throws {
    try await bridge { self.enableAuthentication(forFeature: feature, success: $0, failure: $1) }
  }

  /// Disables protection of `feature` after owner authentication (async form).
  public func disableAuthentication(forFeature feature: String, reason: String) async throws {
    try await bridge { self.disableAuthentication(forFeature: feature, reason: reason, success: $0, failure: $1) }
  }

  /// Authenticates the owner for `feature` (async form).
  public func authenticate(forFeature feature: String, reason: String) async throws {
    try await bridge { self.authenticate(forFeature: feature, reason: reason, success: $0, failure: $1) }
  }

  // MARK: Internals

  private func bridge(
    _ start: (@escaping @Sendable () -> Void, @escaping @Sendable (any Error) -> Void) -> Void
  ) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      start({ continuation.resume() }, { continuation.resume(throwing: $0) })
    }
  }

  /// Fails with the unavailability error, or an invalid name; else tells whether `feature` is enabled.
  private func checkEnabled(_ feature: String, _ context: LAContext) throws -> Bool {
    guard isValidItemName(feature) else { throw FacadeError.invalidFeatureName(feature) }
    if let error = authenticationUnavailabilityError { throw LAError(bridging: error) ?? error }
    do { return try loadEnabled(feature, context) } catch { throw ErrorMapping.error(for: error) }
  }

  private func enable(_ feature: String) throws {
    let context = makeContext()
    guard try !checkEnabled(feature, context) else { return }
    do { try save(feature, enabled: true, context) } catch { throw ErrorMapping.error(for: error) }
  }

  /// On the queue: succeeds at once when `feature` is not enabled; else authenticates the owner, runs `then`
  /// (its error mapped to an LAError) and succeeds.
  private func whenEnabled(
    _ feature: String, authenticate reason: String, success: @escaping @Sendable () -> Void,
    failure: @escaping @Sendable (any Error) -> Void, then: @escaping @Sendable (LAContext) throws -> Void
  ) {
    queue.async {
      do {
        // One context for the check, the authentication and the change: through the helper, the change of a
        // flag is allowed only in the session whose evaluation succeeded.
        let context = self.makeContext()
        guard try self.checkEnabled(feature, context) else { return success() }
        context.evaluatePolicy(self.policy, localizedReason: reason) { passed, error in
          if !passed { return failure(error ?? LAError(.authenticationFailed)) }
          do {
            try then(context)
            success()
          } catch {
            failure(ErrorMapping.error(for: error))
          }
        }
      } catch {
        failure(error)
      }
    }
  }

  /// Whether `feature` is enabled: read by the helper for a context that uses it, else from the state.
  private func loadEnabled(_ feature: String, _ context: LAContext) throws -> Bool {
    if context.evaluatesThroughHelper { return try featureThroughHelper(feature, enable: nil, context) }
    let configuration = try context.setup.get()
    return try configuration.dependencies.store.load(try UserName(configuration.user))?.features.contains(feature) ?? false
  }

  private func save(_ feature: String, enabled: Bool, _ context: LAContext) throws {
    if context.evaluatesThroughHelper {
      _ = try featureThroughHelper(feature, enable: enabled, context)
      return
    }
    let configuration = try context.setup.get()
    let administration = Administration(
      store: configuration.dependencies.store, clock: configuration.dependencies.clock, settings: configuration.settings)
    try administration.setFeature(feature, enabled: enabled, for: try UserName(configuration.user))
  }

  private func featureThroughHelper(_ feature: String, enable: Bool?, _ context: LAContext) throws -> Bool {
    let answer = try context.helperCall(FeatureRequest(name: feature, enable: enable).encode())
    guard case .done(let values) = answer.reply else { throw context.helperError(answer.reply, recorder: nil) }
    return FeatureReply(decoding: values).enabled
  }
}
