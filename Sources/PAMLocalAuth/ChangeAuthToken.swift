import CPAM
import LocalAuthCore

/// pam_sm_chauthtok: changes the user's passcode, passwd-style.
///
/// PAM calls it twice. With PAM_PRELIM_CHECK it only checks that the user is known and the state is
/// reachable. With PAM_UPDATE_AUTHTOK it asks for the current passcode (when one is set and the real uid
/// is not root), checked by the core under the same delay rules as authentication, then for the new one twice.
/// A user who has no passcode cannot set the first one: whoever holds the user's session could otherwise give
/// themselves a passcode that sudo accepts without ever knowing the Unix password. The administrator sets it.
enum ChangeAuthToken {
  /// The prompts, as passwd words them.
  static let currentTitle = "Current passcode"
  static let newPrompt = "New passcode: "
  static let retypePrompt = "Retype new passcode: "

  static func run(_ context: PAMEntry.Context) throws(LocalAuthError) -> CInt {
    let rawUser: String
    switch context.handle.user() {
    case .success(let name): rawUser = name
    case .failure(let failure): return PAMResult.code(for: failure)
    }
    // A password line after pam_unix that keeps the login secret in step (docs/KEYCHAIN.md).
    if context.options.keychain.captureAuthToken { return LoginSecretLines.passwordChanged(context, userName: rawUser) }
    // With passcode=account the passcode is the login password, which pam_unix changes: nothing to set here.
    if context.options.evaluation.passcodeSource == .account {
      context.log.log(.info, "No separate passcode to change: the passcode is the login password (passcode=account).")
      return PAMResult.code(for: .notApplicable)
    }
    guard PAMHandle.userExists(rawUser) else { return PAMResult.code(for: .unknownUser) }
    let user: UserName
    do { user = try UserName(rawUser) } catch { throw .state(error) }
    let record = try context.dependencies.store.load(user)
    if context.flags & CInt(PAM_PRELIM_CHECK) != 0 {
      return PAMResult.code(for: ModuleOutcome.readyToChange)
    }
    guard context.flags & CInt(PAM_UPDATE_AUTHTOK) != 0 else { return PAMResult.code(for: .notApplicable) }

    if record?.passcodeHash == nil && PAMHandle.realUserID != 0 {
      try context.dependencies.prompter.error("No passcode is set; ask the administrator to set one (localauthctl passcode set).")
      context.log.log(.notice, "Passcode change for user \(user) refused: only root may set a first passcode.")
      return PAMResult.code(for: .firstPasscodeNeedsRoot)
    }
    let current = PasscodeCapture()
    defer { current.wipe() }
    if record?.passcodeHash != nil && PAMHandle.realUserID != 0 {
      let outcome = try verifyCurrent(user, context, capture: current)
      guard outcome.isSuccess else {
        context.log.log(.notice, "Passcode change for user \(user) refused: the current passcode was not confirmed.")
        return PAMResult.code(for: outcome)
      }
    }
    let prompter = context.dependencies.prompter
    let first = try prompter.secret(newPrompt)
    defer { first.wipe() }
    let second = try prompter.secret(retypePrompt)
    defer { second.wipe() }
    guard constantTimeEquals(first.bytes, second.bytes) else {
      try prompter.error("Sorry, passcodes do not match.")
      context.log.log(.notice, "Passcode change for user \(user) refused: the two entries differ.")
      return PAMResult.code(for: .authTokenRejected)
    }
    let administration = Administration(
      store: context.dependencies.store, clock: context.dependencies.clock, settings: context.options.evaluation,
      keychain: context.dependencies.keychain)
    do {
      try administration.setPasscode(first, for: user, previous: current.secret)
    } catch {
      if case .administration(let refusal) = error {
        try prompter.error("\(refusal)")
        context.log.log(.notice, "Passcode change for user \(user) refused: \(refusal)")
      }
      throw error
    }
    context.log.log(.info, "Passcode changed for user \(user).")
    try prompter.info("Passcode changed.")
    return PAMResult.code(for: ModuleOutcome.passcodeChanged)
  }

  /// Checks the current passcode through the core: a remote request is its passcode-only path, so the
  /// escalating delays, counters and the repeated-entry rule apply exactly as at authentication.
  /// The accepted passcode goes to `capture`, so that the keychain's passcode key is re-sealed, not replaced.
  static func verifyCurrent(
    _ user: UserName, _ context: PAMEntry.Context, capture: PasscodeCapture
  ) throws(LocalAuthError) -> EvaluationOutcome {
    var request = EvaluationRequest(
      user: user, policy: .deviceOwnerAuthentication, reason: "change the passcode", fallbackTitle: currentTitle,
      reuseDuration: 0, interactionAllowed: true, remote: true)
    request.passcodeCapture = capture
    return try PolicyEvaluator(dependencies: context.dependencies, settings: context.options.evaluation).evaluate(request)
  }
}
