import CPeerCredentials
import CSyscalls
import LocalAuthCore

/// localauth-helper: the setuid-root program through which pam_localauth serves applications that do not run
/// as root (screen lockers), as unix_chkpwd serves pam_unix. It authenticates only the user who runs it.
///
/// It trusts nothing it inherits: the environment is cleared, descriptors above 2 are closed, standard input
/// must be the socket pam_localauth made (never a terminal), and the configuration is the system's file only.
/// It refuses to run (exit 2, one log line) when standard input is not that socket or when it cannot get the
/// resource limits a safe state write needs (`ResourceLimits`).
@main
enum LocalAuthHelper {
  static func main() {
    let log = HelperSyslog()
    ProcessHygiene.apply()
    if let refusal = ResourceLimits.apply() {
      log.log(.error, refusal.sentence(uid: getuid()))
      exit(2)
    }
    guard ProcessHygiene.standardInputIsSocket() else {
      log.log(
        .error,
        "localauth-helper was run by uid \(getuid()) without pam_localauth's socket on its standard input; refused.")
      exit(2)
    }
    // An app asks the kernel to name the sender of every byte (SO_PASSCRED) before it starts the helper: then
    // every message must come from the parent, the process the session serves (docs/HELPER.md, "Apps").
    let caller = getppid()
    let channel = HelperChannel(fd: 0, sender: cpeer_passes_credentials(0) != 0 ? caller : nil)
    let service = HelperService(
      channel: channel, realUserName: RequestOrigin.passwdName(of: getuid()), callerPID: caller, log: log)
    switch service.serve() {
    case .decided, nil: exit(0)
    case .otherUser, .fault: exit(1)
    }
  }
}
