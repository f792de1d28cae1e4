import LocalAuthCore

/// Everything that differs between the two builds of the module, in one place, so that the entry points read one
/// way (docs/EMBEDDED.md):
/// - the installed `pam_localauth.so` (`LOCALAUTH_HOT_MODULE`) holds the simulated-finger path only; an operation
///   that needs another part is handed whole to `pam_localauth/extra.so` before anything is read or written
///   (`ExtraLibrary.runs`), so its parts below are never reached and only refuse;
/// - `pam_localauth/extra.so` (and SwiftPM's build, for the tests) holds every part and hands nothing over.
enum ModuleBuild {
  #if LOCALAUTH_HOT_MODULE
    /// Whether `operation` runs in pam_localauth/extra.so instead of here.
    static func handsOver(_ operation: PAMEntry.Operation, _ options: Options) -> Bool {
      ExtraLibrary.runs(operation, options)
    }

    /// The live dependencies: neither fprintd nor the keychain (the operations that need them were handed over).
    static func dependencies(_ options: Options, prompter: AuthPrompter, log: AuthLog) -> Dependencies {
      .liveSimulated(options, prompter: prompter, log: log)
    }

    /// Handed over (`capture_authtok`); refuses if ever reached.
    static func captureLoginSecret(_ context: PAMEntry.Context, userName: String) -> CInt {
      PAMResult.code(for: PAMFailure.extraLibraryUnusable)
    }

    /// Handed over (an application that is not root); refuses if ever reached.
    static func relay(_ context: PAMEntry.Context, _ hello: HelperHello) throws(LocalAuthError) -> CInt {
      PAMResult.code(for: PAMFailure.extraLibraryUnusable)
    }

    /// Handed over (pam_sm_chauthtok); refuses if ever reached.
    static func changeAuthToken(_ context: PAMEntry.Context) throws(LocalAuthError) -> CInt {
      PAMResult.code(for: PAMFailure.extraLibraryUnusable)
    }

    /// Runs `authentication` (`release_authtok` was handed over).
    static func authenticate(
      _ authentication: UserAuthentication, _ context: PAMEntry.Context, userName: String
    ) throws(LocalAuthError) -> AuthenticationResult {
      try authentication.run(
        options: context.options, dependencies: context.dependencies, userExists: PAMHandle.userExists,
        passcodeCapture: nil)
    }
  #else
    /// Whether `operation` runs in pam_localauth/extra.so instead of here: never, this is the whole module.
    static func handsOver(_ operation: PAMEntry.Operation, _ options: Options) -> Bool { false }

    /// The live dependencies, fprintd and the keychain included.
    static func dependencies(_ options: Options, prompter: AuthPrompter, log: AuthLog) -> Dependencies {
      .live(options, prompter: prompter, log: log)
    }

    /// An auth line after pam_unix that only stores the password it accepted (docs/KEYCHAIN.md).
    static func captureLoginSecret(_ context: PAMEntry.Context, userName: String) -> CInt {
      LoginSecretLines.capture(context, userName: userName)
    }

    /// An application that is not root: localauth-helper decides.
    static func relay(_ context: PAMEntry.Context, _ hello: HelperHello) throws(LocalAuthError) -> CInt {
      try HelperRelay.run(context, hello)
    }

    /// pam_sm_chauthtok.
    static func changeAuthToken(_ context: PAMEntry.Context) throws(LocalAuthError) -> CInt {
      try ChangeAuthToken.run(context)
    }

    /// Runs `authentication`, keeping the passcode typed for `release_authtok` and releasing the login secret
    /// after a success.
    static func authenticate(
      _ authentication: UserAuthentication, _ context: PAMEntry.Context, userName: String
    ) throws(LocalAuthError) -> AuthenticationResult {
      let options = context.options
      let passcode = PasscodeCapture()
      defer { passcode.wipe() }
      let result = try authentication.run(
        options: options, dependencies: context.dependencies, userExists: PAMHandle.userExists,
        passcodeCapture: options.keychain.releaseAuthToken ? passcode : nil)
      if options.keychain.releaseAuthToken, case .evaluated(.success(let method)) = result, let user = try? UserName(userName) {
        LoginSecretLines.release(context, user: user, method: method, passcode: passcode, authentication: authentication)
      }
      return result
    }
  #endif
}
