/// localauth-helper's side: one request from an unprivileged application, for the user who runs the helper only.
///
/// As unix_chkpwd does for pam_unix, the helper authenticates its real uid's user and nobody else: a request for
/// another user is answered `otherUser` before anything is read. The configuration is the system's file only.
public struct HelperService {
  /// How long the caller has to send its hello.
  package static let helloBound = 10
  /// How long the helper waits for a typed answer.
  package static let answerBound = 600

  /// The socket to the caller.
  package var channel: HelperChannel
  /// The name of the user running the helper (its real uid's), or nil when the uid has no passwd entry.
  package var realUserName: String?
  /// The caller's pid, named on the prompt and in the prompt's announcement.
  package var callerPID: Int32
  /// The helper's log.
  package var log: AuthLog
  /// The /proc reads that name the caller (its executable and terminal) and decide its request's visibility; tests
  /// feed fake files.
  package var processes: RequestVisibility.System = .live

  /// Describes a service.
  public init(channel: HelperChannel, realUserName: String?, callerPID: Int32, log: AuthLog) {
    self.channel = channel
    self.realUserName = realUserName
    self.callerPID = callerPID
    self.log = log
  }

  /// Serves one request and returns the result it sent (also when sending it failed): for an app, the fault of the
  /// one reply that refused its opening, or nil after its session (`AppSession`, which answers each call itself).
  /// The defaults are the system's: its configuration file, its user database and `Dependencies.live`.
  @discardableResult
  package func serve(
    options parse: () throws(ConfigError) -> Options = { () throws(ConfigError) in
      try OptionParser.parse(arguments: []).options
    },
    userExists: (String) -> Bool = { Syscalls.userID(named: $0) != nil },
    dependencies build: (Options, AuthPrompter, AuthLog) -> Dependencies = Dependencies.live
  ) -> HelperResult? {
    let opening: HelperMessage
    do { opening = try channel.receive(within: Self.helloBound) } catch {
      log.log(.error, "localauth-helper refused a caller (pid \(callerPID)): \(error).")
      // Any refused opening (another version among them) gets the result every version decodes (`HelperWire`).
      try? channel.send(.result(.fault(.protocolViolation)))
      return .fault(.protocolViolation)
    }
    if case .appHello(let version) = opening {
      switch appSession(version, parse, build) {
      case .serve(let session):
        session.run()
        return nil
      case .refused(let fault): return .fault(fault)
      }
    }
    let result = decide(opening, parse, userExists, build)
    try? channel.send(.result(result))
    return result
  }

  /// What an app's opening comes to: its session, or the fault of the one reply it was sent.
  private enum AppOpening {
    case serve(AppSession)
    case refused(HelperFault)
  }

  /// The session of an app that opened in wire `version`, or the fault it was told in one reply when it cannot be
  /// served: the app must have asked for its sender's credentials, run as a user with a passwd entry, and the
  /// system's configuration must be valid.
  private func appSession(
    _ version: UInt16, _ parse: () throws(ConfigError) -> Options,
    _ build: (Options, AuthPrompter, AuthLog) -> Dependencies
  ) -> AppOpening {
    func refuse(_ fault: HelperFault) -> AppOpening {
      try? channel.send(.reply(.fault(fault)))
      return .refused(fault)
    }
    guard channel.sender != nil else {
      log.log(.error, "localauth-helper refused an app (pid \(callerPID)) whose socket does not pass credentials.")
      return refuse(.protocolViolation)
    }
    guard let realUserName, let user = try? UserName(realUserName) else {
      log.log(.notice, "localauth-helper refused an app (pid \(callerPID)) of uid \(Syscalls.realUserID), which has no usable passwd entry.")
      // A version 2 client cannot decode unknownUser; it is told what it was told before version 3.
      return refuse(HelperWire.sends(.unknownUser, to: version) ? .unknownUser : .stateUnreadable)
    }
    let options: Options
    do { options = try parse() } catch {
      log.log(.error, "localauth-helper cannot read its configuration: \(error)")
      return refuse(.configuration)
    }
    return .serve(AppSession(channel: channel, user: user, callerPID: callerPID, options: options, log: log, build: build))
  }

  private func decide(
    _ opening: HelperMessage, _ parse: () throws(ConfigError) -> Options, _ userExists: (String) -> Bool,
    _ build: (Options, AuthPrompter, AuthLog) -> Dependencies
  ) -> HelperResult {
    guard case .hello(let hello) = opening else {
      log.log(.error, "localauth-helper refused a caller (pid \(callerPID)) that did not open with a hello.")
      return .fault(.protocolViolation)
    }
    guard let realUserName else {
      log.log(
        .notice,
        "localauth-helper refused to authenticate user \(RequestOrigin.token(hello.user)) for uid \(Syscalls.realUserID) "
          + "(service \(RequestOrigin.token(hello.service))), which has no usable passwd entry.")
      // A version 2 module cannot decode unknownUser; it is told what it was told before version 3.
      return HelperWire.sends(.unknownUser, to: hello.version) ? .fault(.unknownUser) : .otherUser
    }
    guard hello.user == realUserName else {
      log.log(
        .notice,
        "localauth-helper refused to authenticate user \(RequestOrigin.token(hello.user)) for uid \(Syscalls.realUserID) "
          + "(service \(RequestOrigin.token(hello.service))): it authenticates only the user who runs it.")
      return .otherUser
    }
    let options: Options
    do { options = try parse() } catch {
      log.log(.error, "localauth-helper cannot read its configuration: \(error)")
      return .fault(.configuration)
    }
    let dependencies = build(options, ChannelPrompter(channel: channel), log)
    let caller = callerName(hello)
    let origin = RequestOrigin.current(
      service: caller.service, tty: caller.tty, remoteHost: hello.remoteHost, processID: callerPID)
    var authentication = UserAuthentication(
      userName: realUserName, service: caller.service, tty: caller.tty, remoteHost: hello.remoteHost, origin: origin,
      remoteVariables: hello.remoteVariables)
    authentication.requests.processes = processes
    authentication.namesCommand = false
    do {
      return .decided(try authentication.run(options: options, dependencies: dependencies, userExists: userExists))
    } catch {
      log.log(.error, "localauth-helper could not authenticate user \(realUserName): \(error)")
      return .fault(HelperFault(error))
    }
  }
}

extension HelperService {
  /// The service and terminal a PAM-mode request goes by, from the kernel alone (docs/HELPER.md, "What the helper
  /// believes"): the caller's executable's name when it is a system program (`SystemProgram`), else its full path,
  /// which never equals a service name; and the caller's controlling terminal (/proc/PID/stat), or "" without one.
  /// The hello's service and tty stay on the wire but name nothing; one line is logged when they claim otherwise.
  func callerName(_ hello: HelperHello) -> (service: String, tty: String) {
    let program = SystemProgram.check(callerPID, system: processes)
    let service = RequestOrigin.token(program.serviceName(pid: callerPID))
    let stat = RequestVisibility.processTerminal(callerPID, processes)
    let tty = stat.map { $0.terminal == 0 ? "" : "/dev/" + $0.terminalName } ?? ""
    let claimedTTY = hello.tty.isEmpty || hello.tty.hasPrefix("/") ? hello.tty : "/dev/" + hello.tty
    if RequestOrigin.token(hello.service) != service || claimedTTY != tty {
      log.log(
        .notice,
        "localauth-helper names its caller (pid \(callerPID)) service \(service) on terminal "
          + "\(tty.isEmpty ? "none" : tty) from the kernel (\(program.reason)), not service "
          + "\(RequestOrigin.token(hello.service)) on terminal "
          + "\(hello.tty.isEmpty ? "none" : RequestOrigin.token(hello.tty)) as its hello claims.")
    }
    return (service, tty)
  }
}

/// The helper's prompter: every line and prompt goes to the caller, which shows it through its conversation.
///
/// A secret prompt whose answer breaks the protocol ends the evaluation as a lost conversation, and is kept in
/// `violation`: a refused header leaves the stream out of step (its payload would be read as frames of its own),
/// so an app's session, which would otherwise read on, ends there (`AppSession.run`).
final class ChannelPrompter: AuthPrompter {
  let channel: HelperChannel
  /// Why the answer to a secret prompt was refused (a malformed message, bytes from another process, a message out
  /// of turn), or nil.
  private(set) var violation: HelperProtocolError?

  init(channel: HelperChannel) { self.channel = channel }

  func info(_ text: String) throws(LocalAuthError) { try send(.info(text)) }
  func request(_ text: String) throws(LocalAuthError) { try send(.request(text)) }
  func error(_ text: String) throws(LocalAuthError) { try send(.error(text)) }

  func secret(_ prompt: String) throws(LocalAuthError) -> SecretBytes {
    try send(.secret(prompt))
    let reply: HelperMessage
    do { reply = try channel.receive(within: HelperService.answerBound) } catch {
      if case .malformed = error { violation = error }
      throw .prompt(.conversationFailed)
    }
    switch reply {
    case .answer(let bytes): return SecretBytes(bytes)
    case .cancel(let again): throw .prompt(again ? .conversationAgain : .conversationFailed)
    default:
      violation = .malformed("a message out of turn at a secret prompt")
      throw .prompt(.conversationFailed)
    }
  }

  private func send(_ message: HelperMessage) throws(LocalAuthError) {
    do { try channel.send(message) } catch { throw .prompt(.conversationFailed) }
  }
}
