import CPAM
import CSyscalls
import LocalAuthCore

/// pam_sm_authenticate: who, from where, under which policy; then the core decides, in this process when it
/// runs as root, else in localauth-helper (HelperRelay).
enum Authenticate {
  static func run(_ context: PAMEntry.Context) throws(LocalAuthError) -> CInt {
    let options = context.options
    if !options.noDelay { context.handle.failDelay(microseconds: PAMHandle.standardFailDelay) }  // as pam_unix
    let rawUser: String
    switch context.handle.user() {
    case .success(let name): rawUser = name
    case .failure(let failure): return PAMResult.code(for: failure)
    }
    #if !LOCALAUTH_HOT_MODULE  // in the installed module, ExtraLibrary.runs sent these to pam_localauth/extra.so
      // An auth line after pam_unix that only stores the password it accepted (docs/KEYCHAIN.md).
      if options.keychain.captureAuthToken { return LoginSecretLines.capture(context, userName: rawUser) }
    #endif
    let tty = context.handle.item(PAM_TTY) ?? ""
    let remoteHost = context.handle.item(PAM_RHOST) ?? ""
    var remoteVariables: [String: String] = [:]
    for name in RemoteSession.variables { remoteVariables[name] = context.handle.environment(name) }
    // An application that is not root (a screen locker) cannot read the state: the setuid helper decides.
    if PAMHandle.effectiveUserID != 0 {
      #if LOCALAUTH_HOT_MODULE
        return PAMResult.code(for: PAMFailure.extraLibraryUnusable)
      #else
        let hello = HelperHello(
          user: rawUser, service: context.service, tty: tty, remoteHost: remoteHost, remoteVariables: remoteVariables)
        return try HelperRelay.run(context, hello)
      #endif
    }
    let authentication = UserAuthentication(
      userName: rawUser, service: context.service, tty: tty, remoteHost: remoteHost,
      origin: RequestOrigin.current(service: context.service, tty: tty, remoteHost: remoteHost),
      remoteVariables: remoteVariables)
    #if LOCALAUTH_HOT_MODULE
      let result = try authentication.run(
        options: options, dependencies: context.dependencies, userExists: PAMHandle.userExists, passcodeCapture: nil)
    #else
      let passcode = PasscodeCapture()
      defer { passcode.wipe() }
      let result = try authentication.run(
        options: options, dependencies: context.dependencies, userExists: PAMHandle.userExists,
        passcodeCapture: options.keychain.releaseAuthToken ? passcode : nil)
      if options.keychain.releaseAuthToken, case .evaluated(.success(let method)) = result, let user = try? UserName(rawUser) {
        LoginSecretLines.release(context, user: user, method: method, passcode: passcode, authentication: authentication)
      }
    #endif
    return PAMResult.code(for: result)
  }
}
