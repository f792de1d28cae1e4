import CPAM
import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// pam_sm_authenticate: who, from where, under which policy; then the core decides.
enum Authenticate {
  static func run(_ context: PAMEntry.Context) throws -> CInt {
    let options = context.options
    let rawUser = try context.handle.user().get()
    let evaluator = PolicyEvaluator(dependencies: context.dependencies, settings: options.evaluation)
    let reason = options.reason ?? "authenticate for \(context.service)"
    guard let user = try? UserName(rawUser), PAMHandle.userExists(rawUser) else {
      return PAMResult.code(for: try evaluator.evaluateUnknownUser(reason: reason, fallbackTitle: options.fallbackTitle))
    }
    if let feature = options.feature {
      let record = try context.dependencies.store.load(user)
      guard record?.features.contains(feature) == true else {
        context.log.log(.debug, "User \(user) has not enabled protection for feature \(feature); ignoring.")
        return PAMResult.code(for: ModuleOutcome.featureNotEnabled)
      }
    }
    let remote = isRemote(context)
    if remote { context.log.log(.debug, "Remote session for user \(user): biometry is not offered.") }
    let request = EvaluationRequest(
      user: user, policy: options.policy, reason: reason, fallbackTitle: options.fallbackTitle,
      reuseDuration: options.reuseDuration, interactionAllowed: true, remote: remote)
    return PAMResult.code(for: try evaluator.evaluate(request))
  }

  /// Host names that mean "this machine" in PAM_RHOST.
  static let localHosts: Set<String> = ["localhost", "localhost.localdomain", "127.0.0.1", "::1"]

  /// True for remote sessions: PAM_RHOST set to a non-local host, or an SSH session.
  static func isRemote(_ context: PAMEntry.Context) -> Bool {
    if let host = context.handle.item(PAM_RHOST), !host.isEmpty, !localHosts.contains(host.lowercased()) {
      return true
    }
    return context.handle.environment("SSH_CONNECTION") != nil || context.handle.environment("SSH_CLIENT") != nil
  }
}
