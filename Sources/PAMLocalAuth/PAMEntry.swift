import CPAM
import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// Runs one PAM operation: decodes arguments, builds the dependencies, calls the core, maps the result.
enum PAMEntry {
  /// The PAM service functions.
  enum Operation: String {
    case authenticate = "authenticate"
    case setCredentials = "setcred"
    case accountManagement = "acct_mgmt"
    case changeAuthToken = "chauthtok"
    case openSession = "open_session"
    case closeSession = "close_session"
  }

  /// Everything an operation needs, built once per call.
  struct Context {
    let handle: PAMHandle
    let flags: CInt
    let options: Options
    let log: SyslogLog
    let dependencies: Dependencies
    let service: String
  }

  static func run(
    _ operation: Operation, _ pamh: OpaquePointer?, _ flags: CInt, _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
  ) -> CInt {
    guard let pamh else { return PAMResult.code(for: PAMFailure.badArguments) }
    let handle = PAMHandle(raw: pamh, silent: cpam_is_silent(flags) != 0)
    guard let arguments = PAMHandle.arguments(argc, argv) else {
      handle.syslog(LOG_ERR, "Module arguments could not be decoded: too many, too long or NULL.")
      return PAMResult.code(for: PAMFailure.badArguments)
    }
    // These answers depend on nothing configurable: sudo calls setcred twice per run, so they skip the
    // configuration file and the dependencies.
    if let fixed = fixedOutcome(operation) { return PAMResult.code(for: fixed) }
    let context: Context
    do {
      context = try makeContext(handle: handle, flags: flags, arguments: arguments)
    } catch {
      handle.syslog(LOG_ERR, "Configuration error, pam_sm_\(operation.rawValue) refused: \(error)")
      return PAMResult.code(for: error)
    }
    do {
      return try perform(operation, context)
    } catch {
      let code = PAMResult.code(for: error)
      context.log.log(.error, failureSentence(operation, error, code: code))
      return code
    }
  }

  /// One plain log sentence for an error that ended an operation; it never holds a secret.
  static func failureSentence(_ operation: Operation, _ error: any Error, code: CInt) -> String {
    if case StateError.permissionDenied(let path) = error {
      return "pam_sm_\(operation.rawValue) cannot read the state at \(path) as uid \(PAMHandle.effectiveUserID): "
        + "the application is not running as root, so pam_localauth does not apply (PAM_AUTHINFO_UNAVAIL)."
    }
    // Already a whole sentence that names the user, the wait and the holder.
    if case StateError.lockTimeout = error { return "\(error)" }
    let reason: String
    switch error {
    case PromptError.conversationFailed: reason = "the application's conversation failed or gave no answer"
    case PromptError.conversationAgain: reason = "the application's conversation asked to be called again (PAM_CONV_AGAIN)"
    default: reason = "\(error)"
    }
    return "pam_sm_\(operation.rawValue) failed: \(reason) (PAM code \(code))."
  }

  static func makeContext(handle: PAMHandle, flags: CInt, arguments: [String]) throws -> Context {
    let parsed = try OptionParser.parse(arguments: arguments, readFile: ConfigFileReader.read)
    let options = parsed.options
    let log = SyslogLog(handle: handle, debug: options.debug)
    for warning in parsed.warnings { log.log(.error, warning) }
    let clock = SystemClock()
    let dependencies = Dependencies(
      clock: clock, store: FileStateStore(root: options.stateDirectory),
      sensor: options.sensor == nil
        ? AbsentSensor()
        : SpoolSensor(modality: options.sensor, stateRoot: options.stateDirectory, clock: clock, log: log, expiry: options.eventExpiry),
      prompter: ConversationPrompter(handle: handle), log: log)
    return Context(
      handle: handle, flags: flags, options: options, log: log, dependencies: dependencies,
      service: handle.item(PAM_SERVICE) ?? "unknown")
  }

  /// The outcome of an operation that needs neither options nor state, or nil when it needs them.
  static func fixedOutcome(_ operation: Operation) -> ModuleOutcome? {
    switch operation {
    case .setCredentials: .credentialsUnchanged
    case .accountManagement: .accountNotManaged
    case .openSession: .sessionOpened
    case .authenticate, .closeSession, .changeAuthToken: nil
    }
  }

  static func perform(_ operation: Operation, _ context: Context) throws -> CInt {
    if let fixed = fixedOutcome(operation) { return PAMResult.code(for: fixed) }
    switch operation {
    case .authenticate: return try Authenticate.run(context)
    case .closeSession: return try Sessions.close(context)
    case .changeAuthToken: return try ChangeAuthToken.run(context)
    case .setCredentials, .accountManagement, .openSession: return PAM_SYSTEM_ERR  // answered by fixedOutcome
    }
  }
}
