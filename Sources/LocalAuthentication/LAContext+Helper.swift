import Foundation
import LocalAuthCore

/// A context in a process that is not root's: every call goes to its `HelperSession`, which evaluates on the
/// privileged side under the same rules as the PAM module (docs/HELPER.md, "Apps").
extension LAContext {
  /// The prompt every prompting call carries: the reason, the titles, the reuse duration and how the app may
  /// interact. The app never names a user, a state folder or a configuration: the helper takes those itself.
  func prompt(reason: String?, target: DialogTarget) -> AppPrompt {
    let snapshot = withState { $0 }
    let reuse = snapshot.reuseDuration.isFinite
      ? Int(max(0, min(snapshot.reuseDuration, EvaluationRequest.maximumReuseDuration))) : 0
    // An app with neither a terminal nor a prompter still allows interaction: the helper shows its request in the
    // desktop's dialog (issue 39), or answers notInteractive when it cannot.
    return AppPrompt(
      reason: reason.map { Self.clipped($0, AppCall.textLimit) },
      fallbackTitle: snapshot.fallbackTitle.map { Self.clipped($0, AppCall.titleLimit) },
      cancelTitle: snapshot.cancelTitle.map { Self.clipped($0, AppCall.titleLimit) }, reuseSeconds: UInt16(reuse),
      interactionNotAllowed: snapshot.interactionNotAllowed,
      ownInterface: { if case .prompter = target { true } else { false } }())
  }

  /// Text cut to `limit` bytes on a character boundary, without control characters.
  static func clipped(_ text: String, _ limit: Int) -> String {
    var out = ""
    for character in text where !character.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) {
      guard out.utf8.count + character.utf8.count <= limit else { break }
      out.append(character)
    }
    return out
  }

  /// evaluatePolicy's checks, then the call for the helper.
  func prepareThroughHelper(_ policy: LAPolicy, reason: String) -> Job {
    guard !reason.isEmpty else { return .refuse(UsageError.emptyReason) }
    guard !withState({ $0.invalidated }) else { return .refuse(LAError(.invalidContext)) }
    let target = DialogTarget.resolve(withState { $0.prompter })
    return .helper(EvaluateRequest(policy: policy.corePolicy, prompt: prompt(reason: reason, target: target)).encode(), target)
  }

  /// Runs an evaluation through the helper and keeps what it captured (the domain state).
  func runThroughHelper(_ call: AppCall, target: DialogTarget) -> (success: Bool, error: (any Error)?) {
    guard let helper else { return (false, LAError(.invalidContext)) }
    let recorder = RecordingPrompter(target.authPrompter)
    do {
      let answer = try helper.call(call, prompter: recorder)
      switch answer.reply {
      case .evaluation(.success, let fields):
        let reply = EvaluationReply(decoding: fields)
        if reply.captured {
          let state = domainStateData(reply.domainState)
          withState { $0.evaluatedDomainState = state }
        }
        return (true, nil)
      case .evaluation(.failure(let code, let detail), _):
        if cancellation.isCancelled { return (false, LAError(.appCancel)) }
        return (false, ErrorMapping.error(code, detail))
      default:
        return (false, helperError(answer.reply, recorder: recorder))
      }
    } catch {
      return (false, helperError(error, recorder: recorder))
    }
  }

  /// canEvaluatePolicy through the helper; sets `biometryType` and, for biometrics, the domain state.
  func helperPreflight(_ policy: LAPolicy) -> LAError? {
    guard let helper else { return LAError(.invalidContext) }
    if withState({ $0.invalidated }) { return LAError(.invalidContext) }
    do {
      let answer = try helper.call(CanEvaluateRequest(policy: policy.corePolicy).encode(), prompter: TerminalPrompter())
      switch answer.reply {
      case .done(let values), .refused(_, let values):
        let reply = AppBiometryReply(decoding: values)
        withState { $0.biometryType = LABiometryType(rawValue: Int(reply.biometryType)) ?? .none }
        if case .refused(let code, _) = answer.reply { return LAError(code) }
        if policy == .deviceOwnerAuthenticationWithBiometrics {
          let state = domainStateData(reply.domainState)
          withState { $0.evaluatedDomainState = state }
        }
        return nil
      default: return helperError(answer.reply, recorder: nil)
      }
    } catch {
      return helperError(error, recorder: nil)
    }
  }

  /// The current domain state, read by the helper.
  func helperDomainState() -> LADomainState {
    let none = LADomainState(biometry: LADomainStateBiometry(biometryType: .none, stateHash: nil))
    guard let helper, let answer = try? helper.call(AppCall(.domainState), prompter: TerminalPrompter()),
      case .done(let values) = answer.reply
    else { return none }
    let reply = AppBiometryReply(decoding: values)
    let type = LABiometryType(rawValue: Int(reply.biometryType)) ?? .none
    return LADomainState(biometry: LADomainStateBiometry(biometryType: type, stateHash: domainStateData(reply.domainState)))
  }

  /// A call that needs no dialog (endReuseWindow, the application password, the facade's flags).
  package func helperCall(_ call: AppCall) throws(LocalAuthError) -> HelperSession.Answer {
    guard let helper else { throw .helper(.broken(.closed)) }
    return try helper.call(call, prompter: TerminalPrompter())
  }

  /// True when this context's calls go to localauth-helper (the process is not root's).
  package var evaluatesThroughHelper: Bool { helper != nil }

  /// A keychain call through the helper: `build` makes the call from the context's prompt (its reason or `reason`,
  /// titles and interaction); the dialog goes where an evaluation's would. A Cancel typed at the app's side is
  /// `userCanceled`, as in-process.
  package func keychainCall(
    reason: String?, _ build: (AppPrompt) -> AppCall
  ) throws(LocalAuthError) -> HelperSession.Answer {
    guard let helper, !withState({ $0.invalidated }) else { throw .keychain(.notAvailable("the context was invalidated")) }
    let target = DialogTarget.resolve(withState { $0.prompter })
    let text = reason.flatMap { $0.isEmpty ? nil : $0 } ?? withState { $0.reason }
    let call = build(prompt(reason: text.isEmpty ? nil : text, target: target))
    let recorder = RecordingPrompter(target.authPrompter)
    let answer: HelperSession.Answer
    do { answer = try helper.call(call, prompter: recorder) } catch {
      if case .prompt(.interrupted)? = recorder.failure { throw .keychain(.userCanceled) }
      throw error
    }
    switch answer.reply {
    case .fault(.conversationFailed), .fault(.conversationAgain):
      if let failure = recorder.failure {
        if case .prompt(.noTerminal) = failure { throw .keychain(.interactionNotAllowed) }
        throw .keychain(.userCanceled)
      }
      throw .keychain(.userCanceled)
    case .fault(let fault): throw .keychain(.notAvailable(Self.sentence(of: fault)))
    case .keychain(let error): throw .keychain(error)
    default: return answer
    }
  }

  /// The LAError for a reply that is not an evaluation's, or for a call that broke off.
  func helperError(_ reply: AppReply, recorder: RecordingPrompter?) -> LAError {
    if cancellation.isCancelled { return LAError(.appCancel) }
    switch reply {
    case .fault(.conversationFailed), .fault(.conversationAgain):
      if let failure = recorder?.failure { return ErrorMapping.error(for: failure) }
      return LAError(.systemCancel)
    case .fault(let fault):
      return LAError(
        fault == .protocolViolation ? .systemCancel : .biometryNotAvailable,
        userInfo: [NSDebugDescriptionErrorKey: Self.sentence(of: fault)])
    case .keychain(let error):
      return LAError(.systemCancel, userInfo: [NSDebugDescriptionErrorKey: "\(error)"])
    default:
      return LAError(.systemCancel, userInfo: [NSDebugDescriptionErrorKey: "localauth-helper sent an unexpected reply"])
    }
  }

  /// What an app is told of a helper fault (an LAError's debug description, a keychain failure's sentence): the
  /// helper's clause, or, for a caller whose uid has no passwd entry, that cause with the uid.
  static func sentence(of fault: HelperFault) -> String {
    guard fault == .unknownUser else { return "localauth-helper \(fault.description)" }
    return "uid \(getuid()) has no passwd entry, so localauth-helper cannot serve it: the helper authenticates only "
      + "the user who runs it, by name"
  }

  func helperError(_ error: any Error, recorder: RecordingPrompter?) -> LAError {
    if cancellation.isCancelled { return LAError(.appCancel) }
    if let failure = recorder?.failure { return ErrorMapping.error(for: failure) }
    if case LocalAuthError.helper(.unusable) = error {
      return LAError(.biometryNotAvailable, userInfo: [NSDebugDescriptionErrorKey: "\(error)"])
    }
    return ErrorMapping.error(for: error)
  }
}

/// Passes the helper's dialog on and remembers how the app's side of it failed (Ctrl-C at the passcode prompt is
/// the user's Cancel, which the helper only learns as a failed conversation).
final class RecordingPrompter: AuthPrompter {
  let inner: AuthPrompter
  private(set) var failure: LocalAuthError?

  init(_ inner: AuthPrompter) { self.inner = inner }

  func info(_ text: String) throws(LocalAuthError) { try record { () throws(LocalAuthError) in try inner.info(text) } }
  func request(_ text: String) throws(LocalAuthError) { try record { () throws(LocalAuthError) in try inner.request(text) } }
  func error(_ text: String) throws(LocalAuthError) { try record { () throws(LocalAuthError) in try inner.error(text) } }
  func secret(_ prompt: String) throws(LocalAuthError) -> SecretBytes {
    try record { () throws(LocalAuthError) in try inner.secret(prompt) }
  }

  private func record<T>(_ body: () throws(LocalAuthError) -> T) throws(LocalAuthError) -> T {
    do { return try body() } catch {
      failure = error
      throw error
    }
  }
}
