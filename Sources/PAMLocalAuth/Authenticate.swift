import CPAM
import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// pam_sm_authenticate: who, from where, under which policy; then the core decides.
enum Authenticate {
  static func run(_ context: PAMEntry.Context) throws -> CInt {
    let options = context.options
    let rawUser: String
    switch context.handle.user() {
    case .success(let name): rawUser = name
    case .failure(let failure): throw failure
    }
    let evaluator = PolicyEvaluator(dependencies: context.dependencies, settings: options.evaluation)
    let reason = options.reason ?? "authenticate for \(context.service)"
    guard let user = try? UserName(rawUser), getpwnam(rawUser) != nil else {
      return PAMResult.code(for: try evaluator.evaluateUnknownUser(reason: reason, fallbackTitle: options.fallbackTitle))
    }
    if let feature = options.feature {
      let record = try context.dependencies.store.load(user)
      guard record?.features.contains(feature) == true else {
        context.log.log(.debug, "User \(user) has not enabled protection for feature \(feature); ignoring.")
        return PAM_IGNORE
      }
    }
    let request = EvaluationRequest(
      user: user, policy: options.policy, reason: reason, fallbackTitle: options.fallbackTitle,
      reuseDuration: options.reuseDuration, interactionAllowed: true, remote: isRemote(context))
    return PAMResult.code(for: try evaluator.evaluate(request))
  }

  /// True for remote sessions: PAM_RHOST set to a non-local host, or an SSH session.
  static func isRemote(_ context: PAMEntry.Context) -> Bool {
    if let host = context.handle.item(PAM_RHOST), !host.isEmpty, !["localhost", "127.0.0.1", "::1"].contains(host) {
      return true
    }
    return context.handle.environment("SSH_CONNECTION") != nil || context.handle.environment("SSH_CLIENT") != nil
  }
}

/// pam_sm_close_session: logout ends the user's reuse window.
enum Sessions {
  static func close(_ context: PAMEntry.Context) throws -> CInt {
    guard case .success(let rawUser) = context.handle.user(), let user = try? UserName(rawUser) else {
      return PAM_SESSION_ERR
    }
    try PolicyEvaluator(dependencies: context.dependencies, settings: context.options.evaluation).endReuseWindow(for: user)
    context.log.log(.info, "Ended the reuse window of user \(user) at session close.")
    return PAM_SUCCESS
  }
}

/// pam_sm_chauthtok: changes the passcode, passwd-style.
enum ChangeAuthToken {
  static func run(_ context: PAMEntry.Context) throws -> CInt {
    throw PAMFailure.notApplicable
  }
}
