import CPAM
import LocalAuthCore

/// pam_sm_close_session: logout ends the user's reuse window (otherwise Face ID would log the user straight back in: docs/RULES.md, rule 7).
enum Sessions {
  static func close(_ context: PAMEntry.Context) throws(LocalAuthError) -> CInt {
    guard case .success(let rawUser) = context.handle.user(), let user = try? UserName(rawUser) else {
      return PAMResult.code(for: ModuleOutcome.nothingToClose)
    }
    // Only a record that holds a window is rewritten: closing a session must not create state files.
    guard try context.dependencies.store.load(user)?.reuse != nil else {
      return PAMResult.code(for: ModuleOutcome.nothingToClose)
    }
    try PolicyEvaluator(dependencies: context.dependencies, settings: context.options.evaluation).endReuseWindow(for: user)
    context.log.log(.info, "Ended the reuse window of user \(user) at session close.")
    return PAMResult.code(for: ModuleOutcome.sessionClosed)
  }
}
