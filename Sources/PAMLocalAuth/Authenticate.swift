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
    // An auth line after pam_unix that only stores the password it accepted (docs/KEYCHAIN.md).
    if options.keychain.captureAuthToken { return ModuleBuild.captureLoginSecret(context, userName: rawUser) }
    let tty = context.handle.item(PAM_TTY) ?? ""
    let remoteHost = context.handle.item(PAM_RHOST) ?? ""
    var remoteVariables: [String: String] = [:]
    for name in RemoteSession.variables { remoteVariables[name] = context.handle.environment(name) }
    // An application that is not root (a screen locker) cannot read the state: the setuid helper decides.
    if PAMHandle.effectiveUserID != 0 {
      let hello = HelperHello(
        user: rawUser, service: context.service, tty: tty, remoteHost: remoteHost, remoteVariables: remoteVariables)
      return try ModuleBuild.relay(context, hello)
    }
    let authentication = UserAuthentication(
      userName: rawUser, service: context.service, tty: tty, remoteHost: remoteHost,
      origin: RequestOrigin.current(service: context.service, tty: tty, remoteHost: remoteHost),
      remoteVariables: remoteVariables)
    let result = try ModuleBuild.authenticate(authentication, context, userName: rawUser)
    return PAMResult.code(for: result)
  }
}
