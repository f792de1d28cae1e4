import CPAM
import CSyscalls
import LocalAuthCore

/// pam_sm_authenticate: who, from where, under which policy; then the core decides.
enum Authenticate {
  static func run(_ context: PAMEntry.Context) throws(LocalAuthError) -> CInt {
    let options = context.options
    if !options.noDelay { context.handle.failDelay(microseconds: PAMHandle.standardFailDelay) }  // as pam_unix
    let rawUser: String
    switch context.handle.user() {
    case .success(let name): rawUser = name
    case .failure(let failure): return PAMResult.code(for: failure)
    }
    let evaluator = PolicyEvaluator(dependencies: context.dependencies, settings: options.evaluation)
    let reason = options.reason ?? "authenticate for \(context.service)"
    // docs/RULES.md, "Users the module does not apply to": an unknown user, a user without a passcode and (with
    // feature=) a user without the feature get the same answer — no prompt, no message, no hash, one code —
    // so that nothing tells them apart; the stack's next line then decides as it would for anyone.
    let user = (try? UserName(rawUser)).flatMap { PAMHandle.userExists(rawUser) ? $0 : nil }
    let record = if let user { try context.dependencies.store.load(user) } else { UserRecord?.none }
    let doesNotApply: String? =
      if user == nil { "the user is unknown" }
      else if let feature = options.feature, record?.features.contains(feature) != true {
        "the user has not enabled protection for feature \(feature)"
      } else if record?.passcodeHash == nil { "the user has no passcode" }
      else { nil }
    if let why = doesNotApply {
      context.log.log(.info, "pam_localauth does not apply to this user: \(why).")
      return PAMResult.code(for: options.feature == nil ? ModuleOutcome.doesNotApply : ModuleOutcome.featureNotEnabled)
    }
    guard let user else { return PAMResult.code(for: ModuleOutcome.doesNotApply) }
    let session = remoteSession(context)
    let remote = session.isRemote
    if remote { context.log.log(.debug, "Remote session for user \(user) (\(session.reason)): biometry is not offered.") }
    let tty = context.handle.item(PAM_TTY) ?? ""
    let origin = RequestOrigin.current(
      service: context.service, tty: tty, remoteHost: context.handle.item(PAM_RHOST) ?? "")
    let request = EvaluationRequest(
      user: user, policy: options.policy, reason: reason, fallbackTitle: options.fallbackTitle,
      reuseDuration: options.reuseDuration, interactionAllowed: true, remote: remote, origin: origin)
    return PAMResult.code(for: try evaluator.evaluate(request))
  }

  /// Whether this is a remote session, and why (RemoteSession: PAM_RHOST, logind, utmp, ancestry, SSH_*).
  static func remoteSession(_ context: PAMEntry.Context) -> RemoteSession.Verdict {
    RemoteSession.detectCurrent(
      remoteHost: context.handle.item(PAM_RHOST) ?? "", tty: context.handle.item(PAM_TTY) ?? "",
      environment: context.handle.environment)
  }
}
