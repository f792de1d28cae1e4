/// localauth-helper's side of an app's session: the LAContext (and keychain calls) of one process of the user
/// who runs the helper, held here, on the privileged side (docs/HELPER.md, "Apps").
///
/// The session serves the process that started the helper and nobody else: every byte must come from it by the
/// kernel's word (`HelperChannel.sender`), and the session ends when it exits or closes the socket. What an
/// evaluation established (a match, the accepted passcode, an application password) lives only in this process,
/// so a context's reuse by the keychain works for the app that evaluated it and dies with it.
package final class AppSession {
  /// How long the helper waits for the app's next call before it ends the session (the app then starts another,
  /// without what this one established).
  package static let idleBound = 600

  let channel: HelperChannel
  let user: UserName
  let callerPID: Int32
  let options: Options
  let dependencies: Dependencies
  let log: AuthLog
  /// The one seam to the system (the /proc reads, the remote-session decision) and the request's assembly, shared
  /// with the module's path (`UserAuthentication`).
  let requests: EvaluationRequestBuilder
  /// The /proc reads that name the app and decide its requests' visibility.
  var system: RequestVisibility.System { requests.processes }
  /// The app's executable (the basename of /proc/PID/exe), named on the prompt and by `localauthctl prompts`.
  let application: String
  /// The app's controlling terminal ("/dev/pts/3"), or "".
  let terminal: String
  /// What this session's evaluations established, for keychain reads.
  var authorization = KeychainAuthorization()
  /// Set when the app hung up during a wait.
  let hangUp = CancellationFlag()
  /// The prompter the session's evaluations talk through; it keeps a refused answer (`violation`).
  let prompter: ChannelPrompter

  /// A session for `user` (the helper's real uid) served on `channel`; `build` makes the live dependencies.
  package init(
    channel: HelperChannel, user: UserName, callerPID: Int32, options: Options, log: AuthLog,
    system: RequestVisibility.System = .live, build: (Options, AuthPrompter, AuthLog) -> Dependencies = Dependencies.live
  ) {
    self.channel = channel
    self.user = user
    self.callerPID = callerPID
    self.options = options
    self.log = log
    requests = EvaluationRequestBuilder(processes: system)
    prompter = ChannelPrompter(channel: channel)
    var dependencies = build(options, prompter, log)
    dependencies.sensor = HangUpSensor(dependencies.sensor, channel: channel, flag: hangUp, clock: dependencies.clock)
    self.dependencies = dependencies
    application = AppSession.executableName(callerPID)
    let stat = RequestVisibility.processTerminal(callerPID, system)
    terminal = stat.map { $0.terminal == 0 ? "" : "/dev/" + $0.terminalName } ?? ""
  }

  /// Serves calls until the app hangs up, breaks the protocol, or stays silent past `idleBound`.
  package func run() {
    log.log(
      .info, "localauth-helper serves app \(application) (pid \(callerPID)) of user \(user)"
        + (terminal.isEmpty ? " without a terminal." : " on \(terminal)."))
    while true {
      let message: HelperMessage
      do { message = try channel.receive(within: Self.idleBound) } catch {
        // A message the protocol refuses (a field it does not define, a frame over its maximum, bytes from
        // another process) is answered as one out of turn is: one protocol fault, then the end.
        if case .malformed = error {
          log.log(.error, "localauth-helper ended the session of app \(application) (pid \(callerPID)): \(error).")
          try? channel.send(.reply(.fault(.protocolViolation)))
        } else if error != .closed {
          log.log(.notice, "localauth-helper ended the session of app \(application) (pid \(callerPID)): \(error).")
        }
        break
      }
      guard Syscalls.parentProcessID == callerPID else { break }
      guard case .call(let call) = message else {
        log.log(.error, "localauth-helper ended the session of app \(application) (pid \(callerPID)): a message out of turn.")
        try? channel.send(.reply(.fault(.protocolViolation)))
        break
      }
      let reply: AppReply
      do { reply = try serve(call) } catch {
        log.log(.error, "localauth-helper could not serve app \(application) (pid \(callerPID)) of user \(user): \(error)")
        reply = Self.reply(for: error)
      }
      if hangUp.isCancelled { break }
      // An answer the protocol refused leaves the stream out of step: nothing after it is read.
      if let violation = prompter.violation {
        log.log(.error, "localauth-helper ended the session of app \(application) (pid \(callerPID)): \(violation).")
        try? channel.send(.reply(.fault(.protocolViolation)))
        break
      }
      do { try channel.send(.reply(reply)) } catch { break }
    }
    authorization.wipe()
  }

  /// The reply for an error of the core: a keychain error as the app's status, anything else a fault.
  static func reply(for error: LocalAuthError) -> AppReply {
    switch error {
    case .keychain(let keychain): return .keychain(keychain)
    // A call the library never sends (no reason, a malformed field) is the caller's mistake, not the state's.
    case .helper(.broken(.malformed)), .usage: return .fault(.protocolViolation)
    default: return .fault(HelperFault(error))
    }
  }

  func serve(_ call: AppCall) throws(LocalAuthError) -> AppReply {
    switch call.operation {
    case .canEvaluate:
      return try canEvaluate(try wire { () throws(HelperProtocolError) in try CanEvaluateRequest(decoding: call) }.policy)
    case .evaluate:
      let evaluate = try wire { () throws(HelperProtocolError) in try EvaluateRequest(decoding: call) }
      return try self.evaluate(try request(evaluate.prompt, policy: evaluate.policy))
    case .domainState:
      return .done(AppBiometryReply(biometryType: biometryType, domainState: try evaluator.domainState(for: user)).encode())
    case .keychainAdd, .keychainCopy, .keychainUpdate, .keychainDelete: return try keychainCall(call)
    case .setApplicationPassword:
      authorization.applicationPassword?.wipe()
      authorization.applicationPassword = ApplicationPasswordRequest(decoding: call).password.map { SecretBytes($0) }
      return .done(AppFields())
    case .endReuseWindow:
      try evaluator.endReuseWindow(for: user)
      return .done(AppFields())
    case .feature: return try feature(try wire { () throws(HelperProtocolError) in try FeatureRequest(decoding: call) })
    case .rightSave, .rightFetch, .rightRemove, .rightRemoveAll, .rightSecret, .rightSign, .rightExchange:
      return try rightCall(call)
    }
  }

  var evaluator: PolicyEvaluator { PolicyEvaluator(dependencies: dependencies, settings: options.evaluation) }

  /// The sensor's biometry type (LABiometryType's raw value, 0 none).
  var biometryType: UInt8 { UInt8(dependencies.sensor.modality?.biometryTypeRawValue ?? 0) }

  private func canEvaluate(_ policy: AuthPolicy) throws(LocalAuthError) -> AppReply {
    var reply = AppBiometryReply(biometryType: biometryType)
    if let code = try evaluator.canEvaluate(policy, for: user, remote: remoteSession().isRemote) {
      return .refused(code, reply.encode())
    }
    if policy == .deviceOwnerAuthenticationWithBiometrics { reply.domainState = try evaluator.domainState(for: user) }
    return .done(reply.encode())
  }

  private func evaluate(_ request: EvaluationRequest) throws(LocalAuthError) -> AppReply {
    var request = request
    let capture = PasscodeCapture()
    request.passcodeCapture = capture
    var outcome = try evaluator.evaluate(request)
    // docs/RULES.md, "Visibility holds for the whole wait": the finger's answer reaches the app only while its
    // request is still visible (the prompt and the reuse checked it last; this is the answer's own moment).
    if case .success(let method) = outcome, method != .passcode, let why = request.visibilityRecheck?() {
      log.log(
        .notice, "Withheld the biometric result from app \(application) (pid \(callerPID)) of user \(user): \(why), so the "
          + "request is no longer visible at the machine.")
      outcome = .failure(.biometryNotAvailable, .requestNotVisible)
    }
    var reply = EvaluationReply()
    if case .success(let method) = outcome {
      let state = try dependencies.store.load(user)?.domainState
      if method == .passcode {
        authorization.passcode?.wipe()
        authorization.passcode = capture.secret.map { SecretBytes($0.bytes) }
        authorization.passcodeAccepted = true
      } else {
        authorization.biometry = true
        authorization.domainState = state
      }
      // Apple sets the domain state after a biometric evaluation: policy 1, or policy 2 by biometry.
      if request.policy == .deviceOwnerAuthenticationWithBiometrics || method != .passcode {
        reply = EvaluationReply(captured: true, domainState: state)
      }
    }
    capture.secret?.wipe()
    return .evaluation(outcome, reply.encode())
  }
}
