import Dispatch
import Foundation

/// A grouped set of requirements that gate access to a resource or operation (Apple's `LARight`, iOS 16 / macOS 13).
///
/// Each `authorize` and `checkCanAuthorize` runs on a fresh `LAContext`, through its public API only, in the
/// environment that was current when the right was created: `LAContext.defaultConfiguration` when a task set
/// one, the system otherwise (docs/RULES.md, "LARight").
///
/// ```swift
/// let loginRight = LARight()
/// try await loginRight.authorize(localizedReason: "open the notes")   // loginRight.state == .authorized
/// await loginRight.deauthorize()                                        // loginRight.state == .notAuthorized
/// ```
open class LARight: @unchecked Sendable {
  /// The authorization state of a right, with Apple's raw values.
  public enum State: Int, Sendable, Hashable, CaseIterable {
    /// Not evaluated yet: the state of a new right.
    case unknown = 0
    /// An `authorize` call is running.
    case authorizing = 1
    /// The last authorization succeeded and no `deauthorize` followed.
    case authorized = 2
    /// The last authorization failed, or the right was deauthorized.
    case notAuthorized = 3
  }

  /// What a right remembers between calls, behind `lock`.
  struct Guarded {
    var state = State.unknown
    var tag = 0
    /// Bumped by every `authorize` and `deauthorize`: a reply of an older generation leaves the state alone.
    var generation = 0
    /// The context of the evaluation running now.
    var pending: LAContext?
    /// The context whose success authorized the right, kept until `deauthorize` (for keychain use by subclasses).
    var authorization: LAContext?
  }

  private let lock = NSLock()
  private var guarded = Guarded()
  /// The requirement every authorization must satisfy.
  let requirement: LAAuthenticationRequirement
  /// The environment captured at creation; nil means the system's.
  let configuration: LAContextConfiguration?
  /// For `.biometryCurrentSet`: the enrollment (`domainState.biometry.stateHash`) current when the right was
  /// created; nil when nothing was enrolled or the state could not be read. Always nil for other requirements.
  let boundEnrollment: Data?

  /// Creates a right with the default requirement: biometry, or the passcode.
  public init() {
    let requirement = LAAuthenticationRequirement.default
    self.requirement = requirement
    self.configuration = LAContext.defaultConfiguration
    self.boundEnrollment = Self.enrollment(for: requirement, in: configuration)
  }

  /// Creates a right that is granted only when `requirement` is satisfied.
  public init(requirement: LAAuthenticationRequirement) {
    self.requirement = requirement
    self.configuration = LAContext.defaultConfiguration
    self.boundEnrollment = Self.enrollment(for: requirement, in: configuration)
  }

  /// Creates a right with an explicit environment and, for `.biometryCurrentSet`, the enrollment it is bound to
  /// (a right restored from a store keeps the enrollment of the day it was saved).
  init(requirement: LAAuthenticationRequirement, configuration: LAContextConfiguration?, boundEnrollment: Data?) {
    self.requirement = requirement
    self.configuration = configuration
    self.boundEnrollment = requirement.bindsEnrollment ? boundEnrollment : nil
  }

  /// The enrollment a new right with `requirement` is bound to: read now for `.biometryCurrentSet`, else nil.
  static func enrollment(for requirement: LAAuthenticationRequirement, in configuration: LAContextConfiguration?) -> Data? {
    guard requirement.bindsEnrollment else { return nil }
    return LAContext.fresh(in: configuration).domainState.biometry.stateHash
  }

  /// A fresh context in the right's environment.
  func makeContext() -> LAContext { LAContext.fresh(in: configuration) }

  func withGuarded<T>(_ body: (inout Guarded) -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body(&guarded)
  }

  // MARK: State

  /// The current authorization state.
  open var state: State { withGuarded { $0.state } }

  /// An integer the application uses to identify the right (default 0).
  open var tag: Int {
    get { withGuarded { $0.tag } }
    set { withGuarded { $0.tag = newValue } }
  }

  /// Moves the right to `state` (for subclasses that grant or withdraw authorization by other means).
  func transition(to state: State) { withGuarded { $0.state = state } }

  /// The context whose evaluation authorized the right; nil unless the state is `.authorized`.
  var authorizationContext: LAContext? { withGuarded { $0.state == .authorized ? $0.authorization : nil } }

  // MARK: Authorizing

  /// Authorizes the right: `handler` gets nil on success (state `.authorized`), or an `LAError` (state
  /// `.notAuthorized`); it runs once, on a background thread.
  ///
  /// A `deauthorize()`, or another `authorize`, while this one runs supersedes it: its prompt ends and `handler`
  /// gets `appCancel`, and the later call decides the state.
  open func authorize(localizedReason: String, completion handler: @escaping @Sendable ((any Error)?) -> Void) {
    let context = makeContext()
    let (generation, superseded) = withGuarded { guarded -> (Int, LAContext?) in
      guarded.generation += 1
      guarded.state = .authorizing
      defer { guarded.pending = context }
      return (guarded.generation, guarded.pending)
    }
    superseded?.invalidate()
    let policy = requirement.policy
    DispatchQueue.global(qos: .userInitiated).async {
      if let refusal = self.enrollmentRefusal(context) {
        self.finish(generation, context, refusal, handler)
        return
      }
      context.evaluatePolicy(policy, localizedReason: localizedReason) { success, error in
        var error = error.map { LAError(bridging: $0) ?? $0 }
        if success, let changed = self.enrollmentChange(context) { error = changed }
        self.finish(generation, context, error, handler)
      }
    }
  }

  /// Authorizes the right; throws an `LAError` when it is not granted.
  public func authorize(localizedReason: String) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      authorize(localizedReason: localizedReason) { error in
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
      }
    }
  }

  /// Checks, without any prompt, whether the right could be authorized now: `handler` gets nil, or the `LAError`
  /// an authorization would fail with (`biometryNotEnrolled`, `passcodeNotSet`, …); it runs on a background thread.
  open func checkCanAuthorize(completion handler: @escaping @Sendable ((any Error)?) -> Void) {
    let context = makeContext()
    let policy = requirement.policy
    DispatchQueue.global(qos: .userInitiated).async {
      var error: NSError?
      guard context.canEvaluatePolicy(policy, error: &error) else {
        handler(error.map { LAError(bridging: $0) ?? $0 } ?? LAError(.biometryNotAvailable))
        return
      }
      handler(self.enrollmentChange(context))
    }
  }

  /// Checks whether the right could be authorized now; throws the `LAError` an authorization would fail with.
  public func checkCanAuthorize() async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
      checkCanAuthorize { error in
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
      }
    }
  }

  /// Withdraws the authorization (state `.notAuthorized`) and ends a running `authorize` with `appCancel`;
  /// `handler` runs on a background thread.
  open func deauthorize(completion handler: @escaping @Sendable () -> Void) {
    let contexts = withGuarded { guarded -> [LAContext] in
      guarded.generation += 1
      guarded.state = .notAuthorized
      defer {
        guarded.pending = nil
        guarded.authorization = nil
      }
      return [guarded.pending, guarded.authorization].compactMap { $0 }
    }
    for context in contexts { context.invalidate() }
    DispatchQueue.global(qos: .userInitiated).async { handler() }
  }

  /// Withdraws the authorization (state `.notAuthorized`).
  public func deauthorize() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      deauthorize { continuation.resume() }
    }
  }

  // MARK: Internals

  /// Records the end of the authorization of `generation` and calls `handler` with what it should see.
  private func finish(
    _ generation: Int, _ context: LAContext, _ error: (any Error)?, _ handler: @Sendable ((any Error)?) -> Void
  ) {
    let (outcome, replaced) = withGuarded { guarded -> ((any Error)?, LAContext?) in
      guard guarded.generation == generation else { return (error ?? LAError(.appCancel), context) }
      guarded.pending = nil
      guard error == nil else {
        guarded.state = .notAuthorized
        return (error, context)
      }
      guarded.state = .authorized
      defer { guarded.authorization = context }
      return (nil, guarded.authorization)
    }
    // A superseded success, a failure, or the previous authorization: nothing may use that context any more.
    replaced?.invalidate()
    handler(outcome)
  }

  /// Why a `.biometryCurrentSet` right cannot be authorized now without prompting: nil for other requirements,
  /// when the preflight fails (the evaluation reports that itself), and when the enrollment is unchanged.
  private func enrollmentRefusal(_ context: LAContext) -> LAError? {
    guard requirement.bindsEnrollment, context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
    else { return nil }
    return enrollmentChange(context)
  }

  /// For `.biometryCurrentSet`, `biometryNotEnrolled` when the enrollment `context` last captured differs from the
  /// one bound at creation; nil otherwise.
  private func enrollmentChange(_ context: LAContext) -> LAError? {
    guard requirement.bindsEnrollment, context.evaluatedPolicyDomainState != boundEnrollment else { return nil }
    return LAError(
      .biometryNotEnrolled,
      userInfo: [NSDebugDescriptionErrorKey: "The enrolled biometry changed since the right was created (biometryCurrentSet)."])
  }
}

extension LAContext {
  /// A new context in `configuration`, or a plain `LAContext()` (the system) when it is nil: what rights and
  /// environments use, since the task-local `defaultConfiguration` does not reach the threads they reply on.
  static func fresh(in configuration: LAContextConfiguration?) -> LAContext {
    configuration.map { LAContext(configuration: $0) } ?? LAContext()
  }
}
