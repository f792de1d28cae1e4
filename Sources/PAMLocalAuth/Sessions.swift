import CPAM
import LocalAuthCore

/// pam_sm_open_session records how the login session was opened (SessionLedger, docs/RULES.md rule 2);
/// pam_sm_close_session ends the user's reuse window (otherwise Face ID would log the user straight back in:
/// docs/RULES.md, rule 7).
enum Sessions {
  /// Records the login session that pam_loginuid has just started in this process, as remote or local. A
  /// failure to record is logged and returns PAM_SESSION_ERR: the session line is `optional`, so the login goes
  /// on, and an unrecorded session is never taken as local once the ledger exists.
  static func open(_ context: PAMEntry.Context) -> CInt {
    guard PAMHandle.effectiveUserID == 0 else { return PAMResult.code(for: ModuleOutcome.sessionOpened) }
    let tty = context.handle.item(PAM_TTY) ?? ""
    let remoteHost = context.handle.item(PAM_RHOST) ?? ""
    do throws(StateError) {
      let opening = try SessionLedger.recordOpening(
        remoteHost: remoteHost, tty: tty, environment: { context.handle.environment($0) },
        runtimeRoot: context.options.runtimeRoot)
      if case .recorded(let session, let entry, let reason) = opening {
        let kind = entry == .remote ? "remote" : "local"
        context.log.log(.info, "Recorded login session \(session) (service \(context.service)) as \(kind): \(reason).")
      }
      return PAMResult.code(for: ModuleOutcome.sessionOpened)
    } catch {
      context.log.log(.error, "Could not record the login session opened by \(context.service): \(error).")
      return PAMResult.code(for: ModuleOutcome.sessionNotRecorded)
    }
  }

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
