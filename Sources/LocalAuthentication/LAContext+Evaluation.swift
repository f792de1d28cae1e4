import Foundation
import LocalAuthCore

/// One evaluation, prepared on the caller's thread and run on a background one.
struct Evaluation: @unchecked Sendable {
  /// What an evaluation produced.
  struct Result {
    var success: Bool
    var error: (any Error)?
    /// `.some(state)` when the context must store a new `evaluatedPolicyDomainState`.
    var capturedDomainState: Data??
    /// What a success established, for keychain reads with this context.
    var authorization: KeychainAuthorization? = nil
  }

  let configuration: LAContextConfiguration
  let request: EvaluationRequest
  let user: UserName
  let cancellation: CancellationFlag

  /// Runs the core; any failure maps to an LAError, and a failure after `invalidate()` is `appCancel`.
  func run() -> Result {
    var dependencies = configuration.dependencies
    dependencies.sensor = CancellableSensor(dependencies.sensor, flag: cancellation, clock: dependencies.clock)
    let evaluator = PolicyEvaluator(dependencies: dependencies, settings: configuration.settings)
    var request = request
    let capture = PasscodeCapture()
    request.passcodeCapture = capture
    do {
      switch try evaluator.evaluate(request) {
      case .success(let method):
        let token = try? dependencies.store.load(user)?.domainState
        let authorization =
          method == .passcode
          ? KeychainAuthorization(passcode: capture.secret.map { SecretBytes($0.bytes) })
          : KeychainAuthorization(biometry: true, domainState: token ?? nil)
        // Apple sets the domain state after a biometric evaluation: policy 1, or policy 2 by biometry.
        guard request.policy == .deviceOwnerAuthenticationWithBiometrics || method != .passcode else {
          return Result(success: true, error: nil, capturedDomainState: nil, authorization: authorization)
        }
        return Result(
          success: true, error: nil, capturedDomainState: .some(domainStateData(token ?? nil)), authorization: authorization)
      case .failure(let code, let detail):
        if cancellation.isCancelled { return Result(success: false, error: LAError(.appCancel), capturedDomainState: nil) }
        return Result(success: false, error: ErrorMapping.error(code, detail), capturedDomainState: nil)
      }
    } catch {
      if cancellation.isCancelled { return Result(success: false, error: LAError(.appCancel), capturedDomainState: nil) }
      return Result(success: false, error: ErrorMapping.error(for: error), capturedDomainState: nil)
    }
  }
}

extension LAContext {
  /// What `evaluatePolicy` does: refuse at once, or run an evaluation.
  enum Job: @unchecked Sendable {
    case refuse(any Error)
    case run(Evaluation)
    /// An evaluation by the helper (a process that is not root's): the call and where its dialog goes.
    case helper(AppCall, DialogTarget)
  }

  /// Checks the call and snapshots the context's properties into a request (Apple reads them at call time).
  func prepare(_ policy: LAPolicy, reason: String) -> Job {
    guard !reason.isEmpty else { return .refuse(UsageError.emptyReason) }
    let snapshot = withState { $0 }
    guard !snapshot.invalidated else { return .refuse(LAError(.invalidContext)) }
    var configuration: LAContextConfiguration
    let user: UserName
    do {
      configuration = try setup.get()
      user = try UserName(configuration.user)
    } catch {
      return .refuse(ErrorMapping.error(for: error))
    }
    // The app's own dialog, when it set one, in place of the environment's (the terminal).
    if let prompter = snapshot.prompter { configuration.dependencies.prompter = PrompterBridge(prompter) }
    let reuse = snapshot.reuseDuration.isFinite ? max(0, min(snapshot.reuseDuration, LATouchIDAuthenticationMaximumAllowableReuseDuration)) : 0
    var request = EvaluationRequest(
      user: user, policy: policy.corePolicy, reason: reason, fallbackTitle: snapshot.fallbackTitle,
      cancelTitle: snapshot.cancelTitle, reuseDuration: reuse, interactionAllowed: !snapshot.interactionNotAllowed,
      remote: configuration.remote, cancellation: cancellation, origin: configuration.origin)
    // An in-process evaluation is an app's, as through the helper: its match is never reused, and it may reuse
    // only a session unlock (rule 7; Apple's window "does not reuse matches made in-app or in other apps").
    request.purpose = .app(processID: getpid())
    return .run(Evaluation(configuration: configuration, request: request, user: user, cancellation: cancellation))
  }

  /// The error `canEvaluatePolicy` reports, or nil when `policy` can be evaluated; sets `biometryType`.
  func preflight(_ policy: LAPolicy) -> LAError? {
    let configuration: LAContextConfiguration
    let user: UserName
    do {
      configuration = try setup.get()
      withState { $0.biometryType = LABiometryType(configuration.dependencies.sensor.modality) }
      user = try UserName(configuration.user)
    } catch {
      return ErrorMapping.error(for: error)
    }
    if withState({ $0.invalidated }) { return LAError(.invalidContext) }
    let evaluator = PolicyEvaluator(dependencies: configuration.dependencies, settings: configuration.settings)
    do {
      if let code = try evaluator.canEvaluate(policy.corePolicy, for: user, remote: configuration.remote) {
        return LAError(code)
      }
      if policy == .deviceOwnerAuthenticationWithBiometrics {
        let token = try configuration.dependencies.store.load(user)?.domainState
        withState { $0.evaluatedDomainState = domainStateData(token) }
      }
      return nil
    } catch {
      return ErrorMapping.error(for: error)
    }
  }
}
