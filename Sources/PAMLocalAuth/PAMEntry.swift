import CPAM
import CSyscalls
import LocalAuthCore

/// Runs one PAM operation: decodes arguments, builds the dependencies, calls the core, maps the result.
enum PAMEntry {
  /// The PAM service functions.
  enum Operation: String, CaseIterable {
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
    guard let pamh else { return PAMResult.code(for: .badArguments) }
    let handle = PAMHandle(raw: pamh, silent: cpam_is_silent(flags) != 0)
    guard let arguments = PAMHandle.arguments(argc, argv) else {
      handle.syslog(LOG_ERR, "Module arguments could not be decoded: too many, too long or NULL.")
      return PAMResult.code(for: .badArguments)
    }
    // These answers depend on nothing configurable: sudo calls setcred twice per run, so they skip the
    // configuration file and the dependencies.
    if let fixed = fixedOutcome(operation) { return PAMResult.code(for: fixed) }
    let parsed: OptionParser.Parsed
    do {
      parsed = try OptionParser.parse(arguments: arguments)
    } catch {
      handle.syslog(LOG_ERR, "Configuration error, pam_sm_\(operation.rawValue) refused: \(error)")
      return PAMResult.code(for: .config(error))
    }
    // The installed module: an operation that needs a rarely used part runs whole in pam_localauth/extra.so.
    if ModuleBuild.handsOver(operation, parsed.options) {
      return ExtraLibrary.run(operation, handle: handle, flags: flags, argc, argv)
    }
    let context = makeContext(handle: handle, flags: flags, parsed: parsed)
    do {
      return try perform(operation, context)
    } catch {
      let code = PAMResult.code(for: error)
      context.log.log(.error, failureSentence(operation, error, code: code))
      return code
    }
  }

  /// One plain log sentence for an error that ended an operation; it never holds a secret.
  static func failureSentence(_ operation: Operation, _ error: LocalAuthError, code: CInt) -> String {
    if case .state(.permissionDenied(let path)) = error {
      return "pam_sm_\(operation.rawValue) cannot read the state at \(path) as uid \(PAMHandle.effectiveUserID): "
        + "the application is not running as root, so pam_localauth does not apply (PAM_AUTHINFO_UNAVAIL)."
    }
    if case .helper(.unusable) = error {
      return "pam_sm_\(operation.rawValue) runs as uid \(PAMHandle.effectiveUserID) and cannot read the state itself; "
        + "\(error), so pam_localauth does not apply (PAM_AUTHINFO_UNAVAIL)."
    }
    // Already a whole sentence that names the user, the wait and the holder.
    if case .state(.lockTimeout) = error { return "\(error)" }
    return "pam_sm_\(operation.rawValue) failed: \(error) (PAM code \(code))."
  }

  static func makeContext(handle: PAMHandle, flags: CInt, parsed: OptionParser.Parsed) -> Context {
    let options = parsed.options
    let log = SyslogLog(handle: handle, debug: options.debug)
    for warning in parsed.warnings { log.log(.error, warning) }
    let dependencies = ModuleBuild.dependencies(options, prompter: ConversationPrompter(handle: handle), log: log)
    return Context(
      handle: handle, flags: flags, options: options, log: log, dependencies: dependencies,
      service: handle.item(PAM_SERVICE) ?? "unknown")
  }

  /// The outcome of an operation that needs neither options nor state, or nil when it needs them.
  static func fixedOutcome(_ operation: Operation) -> ModuleOutcome? {
    switch operation {
    case .setCredentials: .credentialsUnchanged
    case .accountManagement: .accountNotManaged
    case .authenticate, .openSession, .closeSession, .changeAuthToken: nil
    }
  }

  static func perform(_ operation: Operation, _ context: Context) throws(LocalAuthError) -> CInt {
    switch operation {
    case .authenticate: try Authenticate.run(context)
    case .closeSession: try Sessions.close(context)
    case .changeAuthToken: try ModuleBuild.changeAuthToken(context)
    case .setCredentials: PAMResult.code(for: .credentialsUnchanged)
    case .accountManagement: PAMResult.code(for: .accountNotManaged)
    case .openSession: Sessions.open(context)
    }
  }
}
