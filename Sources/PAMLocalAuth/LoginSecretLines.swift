import CPAM
import LocalAuthCore

/// The login secret's three PAM lines (docs/KEYCHAIN.md): capture on an auth line after pam_unix, release after a
/// successful evaluation, and the password line that keeps it in step. None of them changes the stack's verdict:
/// capture and the password line return PAM_IGNORE, and a release that fails leaves the success as it was, with
/// a log line.
enum LoginSecretLines {
  /// pam_set_data's name for "this transaction's PAM_AUTHTOK came from the login secret", so that a capture line
  /// later in the stack does not store it back.
  static let releasedMark = "pam_localauth_released_authtok"

  static func loginSecret(_ context: PAMEntry.Context) -> LoginSecret? {
    guard let keychain = context.dependencies.keychain else { return nil }
    return LoginSecret(
      keychain: keychain, flags: context.options.keychain.loginSecretFlags, hasher: context.options.evaluation.hasher)
  }

  /// `auth … capture_authtok`: stores PAM_AUTHTOK as the login secret when it is the user's password in /etc/shadow
  /// (the password pam_unix accepted).
  static func capture(_ context: PAMEntry.Context, userName: String) -> CInt {
    let ignore = PAMResult.code(for: PAMFailure.notApplicable)
    let log = context.log
    guard PAMHandle.effectiveUserID == 0 else {
      log.log(.notice, "The login secret was not captured: the application does not run as root.")
      return ignore
    }
    if context.handle.isMarked(releasedMark) { return ignore }
    guard let token = context.handle.authToken(PAM_AUTHTOK), !token.isEmpty else {
      log.log(.notice, "The login secret was not captured for user \(userName): no earlier module set a password (PAM_AUTHTOK).")
      return ignore
    }
    defer { token.wipe() }
    guard PAMHandle.userExists(userName), let user = try? UserName(userName), let secret = loginSecret(context) else {
      return ignore
    }
    // Whatever the stack's order, only the user's real Unix password is kept (pam_unix's own check, redone).
    guard ShadowPassword.verify(token, for: user) else {
      log.log(.notice, "The login secret of user \(user) was not captured: PAM_AUTHTOK is not the user's password in /etc/shadow.")
      return ignore
    }
    do throws(LocalAuthError) {
      let record = try context.dependencies.store.load(user)
      try keychain { () throws(KeychainError) in try secret.capture(token, for: user, record: record) }
      log.log(.info, "The login secret of user \(user) was captured (\(context.options.keychain.loginSecretFlags.names)).")
    } catch {
      log.log(.notice, "The login secret of user \(user) was not captured: \(error)")
    }
    return ignore
  }

  /// After a successful evaluation: sets PAM_AUTHTOK from the login secret, unless the session is remote or the
  /// success came from the reuse window (without `release_on_reuse`).
  static func release(
    _ context: PAMEntry.Context, user: UserName, method: AuthMethod, passcode: PasscodeCapture,
    authentication: UserAuthentication
  ) {
    let log = context.log
    let options = context.options.keychain
    if method == .reuse && !options.releaseOnReuse {
      log.log(.info, "The login secret of user \(user) was not released: the success came from the reuse window.")
      return
    }
    let session = authentication.remoteSession(runtimeRoot: context.options.runtimeRoot)
    if session.isRemote {
      log.log(.info, "The login secret of user \(user) was not released: remote session (\(session.reason)).")
      return
    }
    guard let secret = loginSecret(context) else { return }
    do throws(LocalAuthError) {
      let record = try context.dependencies.store.load(user)
      let authorization =
        method == .passcode
        ? KeychainAuthorization(passcode: passcode.secret)
        : KeychainAuthorization(biometry: true, domainState: record?.domainState)
      let lock = DeviceLock.of(record, bootID: context.dependencies.clock.bootID())
      let released = try keychain { () throws(KeychainError) -> SecretBytes? in
        try secret.release(
          for: user, authorization: authorization, currentDomainState: record?.domainState, lock: lock)
      }
      guard let token = released else {
        log.log(.info, "No login secret is stored for user \(user); PAM_AUTHTOK was not set.")
        return
      }
      defer { token.wipe() }
      if context.handle.setAuthToken(token) {
        context.handle.mark(releasedMark)
        log.log(.info, "The login secret of user \(user) was released to the modules after this one (PAM_AUTHTOK).")
      } else {
        log.log(.error, "The login secret of user \(user) could not be set as PAM_AUTHTOK.")
      }
    } catch {
      log.log(.notice, "The login secret of user \(user) was not released: \(error)")
    }
  }

  /// `password … capture_authtok`: after pam_unix changed the password, re-seals the login secret when
  /// PAM_OLDAUTHTOK was the stored one, and drops it otherwise.
  static func passwordChanged(_ context: PAMEntry.Context, userName: String) -> CInt {
    let ignore = PAMResult.code(for: PAMFailure.notApplicable)
    guard context.flags & CInt(PAM_UPDATE_AUTHTOK) != 0, PAMHandle.effectiveUserID == 0,
      let user = try? UserName(userName), let secret = loginSecret(context)
    else { return ignore }
    let old = context.handle.authToken(PAM_OLDAUTHTOK) ?? SecretBytes([])
    let new = context.handle.authToken(PAM_AUTHTOK) ?? SecretBytes([])
    defer {
      old.wipe()
      new.wipe()
    }
    do throws(LocalAuthError) {
      let record = try context.dependencies.store.load(user)
      let change = try keychain { () throws(KeychainError) -> LoginSecret.ChangeResult in
        try secret.passwordChanged(for: user, from: old, to: new, currentDomainState: record?.domainState)
      }
      if context.options.evaluation.passcodeSource == .account, !new.isEmpty {
        // The login password is the passcode: the passcode key follows it (re-sealed when the old one opens it).
        let orphans = try keychain { () throws(KeychainError) -> [KeychainItem] in
          try context.dependencies.keychain?.passcodeChanged(
            for: user, from: old.isEmpty ? nil : old, to: new, hasher: context.options.evaluation.hasher) ?? []
        }
        context.log.log(
          orphans.isEmpty ? .info : .notice,
          orphans.isEmpty
            ? "The passcode key of user \(user) now opens with the new password (passcode=account)."
            : "The passcode key of user \(user) was replaced; \(orphans.count) passcode-keyed item(s) it opened were deleted.")
      }
      switch change {
      case .none: break
      case .resealed: context.log.log(.info, "The login secret of user \(user) now holds the new password.")
      case .dropped:
        context.log.log(.notice, "The login secret of user \(user) was deleted: the old password given was not the stored one.")
      }
    } catch {
      context.log.log(.notice, "The login secret of user \(user) could not be kept in step with the password change: \(error)")
    }
    return ignore
  }

  /// Runs keychain work, passing its error on as `LocalAuthError.keychain`.
  private static func keychain<T>(_ body: () throws(KeychainError) -> T) throws(LocalAuthError) -> T {
    do { return try body() } catch { throw .keychain(error) }
  }
}
