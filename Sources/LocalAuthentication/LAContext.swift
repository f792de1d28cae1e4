import Dispatch
import Foundation
import LocalAuthCore

/// A mechanism for evaluating authentication policies (Apple's `LAContext`), over the LocalAuthCore engine.
///
/// A plain `LAContext()` evaluates for the calling user against the system's state and prompts on the
/// controlling terminal (or through its `prompter`). In a process that is not root's, the state is read by
/// localauth-helper, which holds the context's evaluations on the privileged side (`HelperSession`,
/// docs/HELPER.md "Apps"); `LAContext(configuration:)` (Linux-only, in LAContext+Linux.swift) points it elsewhere.
open class LAContext: @unchecked Sendable {
  /// What a context remembers between calls, behind `lock`.
  struct State {
    var fallbackTitle: String?
    var cancelTitle: String?
    var reason = ""
    var reuseDuration: TimeInterval = 0
    var interactionNotAllowed = false
    var biometryType = LABiometryType.none
    var evaluatedDomainState: Data?
    var invalidated = false
    /// What this context's evaluations established, for keychain reads that reuse it (kSecUseAuthenticationContext).
    var keychainAuthorization = KeychainAuthorization()
    /// The app's own dialog (Linux-only), for an app without a terminal.
    var prompter: LAPrompter?
    /// True after `setCredential` gave an application password to the helper's session.
    var credentialSet = false
  }

  private let lock = NSLock()
  private var state = State()
  /// The environment this context evaluates in, or why it could not be set up.
  let setup: Result<LAContextConfiguration, any Error>
  /// Set by `invalidate()` (and on deallocation): running evaluations end with `appCancel`.
  let cancellation = CancellationFlag()
  /// The privileged side of a context in a process that is not root's; nil when the context evaluates itself.
  let helper: HelperSession?

  /// Creates a context for the calling user on this system (or the task's `defaultConfiguration`).
  public init() {
    if let configured = LAContext.defaultConfiguration {
      setup = .success(configured)
      helper = nil
    } else if HelperSession.isNeeded {
      setup = .failure(LAContextConfiguration.SetupError.throughHelper)
      helper = HelperSession()
    } else {
      setup = Result { try LAContextConfiguration.system() }
      helper = nil
    }
  }

  /// Creates a context over an explicit environment (the designated initializer).
  init(setup: Result<LAContextConfiguration, any Error>) {
    self.setup = setup
    helper = nil
  }

  deinit {
    cancellation.cancel()
    state.keychainAuthorization.wipe()
    helper?.close()
  }

  /// Linux-only: the app's own dialog for an evaluation (a GUI app without a terminal); nil uses the terminal.
  open var prompter: LAPrompter? {
    get { withState { $0.prompter } }
    set { withState { $0.prompter = newValue } }
  }

  func withState<T>(_ body: (inout State) -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body(&state)
  }

  // MARK: Properties

  /// The fallback button's title: nil shows the default ("Enter Password" / "Enter Passcode"), "" hides it.
  open var localizedFallbackTitle: String? {
    get { withState { $0.fallbackTitle } }
    set { withState { $0.fallbackTitle = newValue } }
  }

  /// The cancel button's title: nil or "" show "Cancel".
  open var localizedCancelTitle: String? {
    get { withState { $0.cancelTitle } }
    set { withState { $0.cancelTitle = newValue } }
  }

  /// The default reason, used by operations that take none (initially ""); `evaluatePolicy` needs its own.
  open var localizedReason: String {
    get { withState { $0.reason } }
    set { withState { $0.reason = newValue } }
  }

  /// Seconds a recent biometric match may be reused without a new scan (default 0; values above
  /// `LATouchIDAuthenticationMaximumAllowableReuseDuration` are stored as given but act as 300).
  open var touchIDAuthenticationAllowableReuseDuration: TimeInterval {
    get { withState { $0.reuseDuration } }
    set { withState { $0.reuseDuration = newValue } }
  }

  /// When true, an evaluation that needs UI fails with `notInteractive` (default false).
  open var interactionNotAllowed: Bool {
    get { withState { $0.interactionNotAllowed } }
    set { withState { $0.interactionNotAllowed = newValue } }
  }

  /// The kind of biometry; `.none` until `canEvaluatePolicy(_:error:)` has run (it is set whatever the result).
  open var biometryType: LABiometryType { withState { $0.biometryType } }

  /// The enrollment state captured by the last successful biometric `canEvaluatePolicy` or evaluation;
  /// nil before that, and nil when nothing is enrolled.
  open var evaluatedPolicyDomainState: Data? { withState { $0.evaluatedDomainState } }

  /// The current domain state (iOS 18 shape), read now: `domainState.biometry.stateHash` is nil when
  /// nothing is enrolled or the state cannot be read.
  open var domainState: LADomainState {
    if helper != nil { return helperDomainState() }
    guard case .success(let configuration) = setup else {
      return LADomainState(biometry: LADomainStateBiometry(biometryType: .none, stateHash: nil))
    }
    let type = LABiometryType(configuration.dependencies.sensor.modality)
    let token = (try? UserName(configuration.user)).flatMap { user in
      (try? configuration.dependencies.store.load(user)).flatMap { $0?.domainState }
    }
    return LADomainState(biometry: LADomainStateBiometry(biometryType: type, stateHash: domainStateData(token)))
  }

  // MARK: Evaluation

  /// Checks whether `policy` can be evaluated now; on failure sets `error` (when given) and returns false.
  @discardableResult
  open func canEvaluatePolicy(_ policy: LAPolicy, error: NSErrorPointer) -> Bool {
    let result = helper != nil ? helperPreflight(policy) : preflight(policy)
    error?.pointee = result.map { $0.nsError }
    return result == nil
  }

  /// Evaluates `policy`; `reply` runs once, on a background thread, with `(true, nil)` or `(false, error)`.
  ///
  /// An empty `localizedReason` is a programmer error: the reply gets `(false, LAContext.UsageError.emptyReason)`
  /// and nothing is shown (Apple raises NSInvalidArgumentException).
  open func evaluatePolicy(
    _ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void
  ) {
    let job = helper != nil ? prepareThroughHelper(policy, reason: localizedReason) : prepare(policy, reason: localizedReason)
    // The running evaluation holds the context, so a local `let context = LAContext()` works as in Apple's samples.
    DispatchQueue.global(qos: .userInitiated).async {
      switch job {
      case .refuse(let error):
        reply(false, error)
      case .helper(let call, let target):
        let result = self.runThroughHelper(call, target: target)
        reply(result.success, result.error)
      case .run(let evaluation):
        let result = evaluation.run()
        if case .some(let captured) = result.capturedDomainState {
          self.withState { $0.evaluatedDomainState = captured }
        }
        if let established = result.authorization { self.withState { $0.keychainAuthorization.merge(established) } }
        reply(result.success, result.error)
      }
    }
  }

  /// Evaluates `policy`; returns true or throws an `LAError` (or `LAContext.UsageError.emptyReason`).
  open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
    try await withCheckedThrowingContinuation { continuation in
      evaluatePolicy(policy, localizedReason: localizedReason) { success, error in
        if let error {
          continuation.resume(throwing: error)
        } else {
          continuation.resume(returning: success)
        }
      }
    }
  }

  /// Invalidates the context: a running evaluation ends with `appCancel`, later ones fail with
  /// `invalidContext`; a second call does nothing.
  open func invalidate() {
    withState {
      $0.invalidated = true
      $0.keychainAuthorization.wipe()
    }
    cancellation.cancel()
    helper?.close()
  }

  /// Mistakes of the calling program (Apple raises an Objective-C exception for these): the core's one
  /// `UsageError`, so the module, the CLI and this API name them alike.
  public typealias UsageError = LocalAuthCore.UsageError
}
