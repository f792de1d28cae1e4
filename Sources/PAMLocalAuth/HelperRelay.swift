import CPAM
import LocalAuthCore

/// pam_sm_authenticate for an application that does not run as root: localauth-helper, setuid root, runs the
/// same engine on the same state for the user who runs the application, and the module relays its prompts.
enum HelperRelay {
  static func run(_ context: PAMEntry.Context, _ hello: HelperHello) throws(LocalAuthError) -> CInt {
    let path = context.options.helperPath
    let result = try HelperClient.authenticate(hello, helper: path, prompter: ConversationPrompter(handle: context.handle))
    let user = RequestOrigin.token(hello.user)
    let code = PAMResult.code(for: result)
    switch result {
    case .decided:
      context.log.log(.debug, "localauth-helper decided for user \(user) (PAM code \(code)).")
    case .otherUser:
      context.log.log(
        .notice,
        "localauth-helper refused user \(user) for uid \(PAMHandle.realUserID): it authenticates only the user who runs it.")
    case .fault(.unknownUser):
      context.log.log(
        .notice,
        "localauth-helper refused user \(user) for uid \(PAMHandle.realUserID), which has no passwd entry: "
          + "it authenticates only the user who runs it, by name (PAM code \(code)).")
    case .fault(let fault):
      context.log.log(.error, "localauth-helper \(fault.description) while authenticating user \(user) (PAM code \(code)).")
    }
    return code
  }
}
