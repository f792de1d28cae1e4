/// The parts of an app's calls built from their typed requests (AppRequests.swift, AppKeychainRequests.swift): the
/// evaluation request, the keychain calls and the facade's feature flags, each from what the app sent and what the
/// helper reads itself.
extension AppSession {
  /// Runs a field read, turning a malformed field into the error that ends the call as a protocol violation.
  func wire<T>(_ body: () throws(HelperProtocolError) -> T) throws(LocalAuthError) -> T {
    do { return try body() } catch { throw .helper(.broken(error)) }
  }

  /// The evaluation request of a call: its reason, titles, reuse and interaction, for this session's user, from
  /// this app (its executable, pid and terminal), remote as the session is (`EvaluationRequestBuilder`).
  func request(_ prompt: AppPrompt, policy: AuthPolicy, defaultReason: String = "") throws(LocalAuthError) -> EvaluationRequest {
    let reason = prompt.reason ?? defaultReason
    guard !reason.isEmpty else { throw .usage(.emptyReason) }
    // Rule 7: an app's match serves nothing else, and it may reuse only a session unlock. docs/RULES.md, "Intent":
    // an app's request gets the finger when its process is in the foreground of its terminal, or when it shows the
    // request itself (its own prompter, as a GUI app does).
    let requester = EvaluationRequestBuilder.Requester(
      user: user, origin: RequestOrigin.current(service: application, tty: terminal, processID: callerPID),
      service: application, subject: "app \(application) (pid \(callerPID))", purpose: .app(processID: callerPID),
      guiServices: { prompt.ownInterface ? self.ownDialogServices() : [] })
    var request = requests.request(
      for: requester, policy: policy, reason: reason, fallbackTitle: prompt.fallbackTitle, cancelTitle: prompt.cancelTitle,
      reuseDuration: min(Double(prompt.reuseSeconds), EvaluationRequest.maximumReuseDuration, options.evaluation.reuseLimit),
      interactionAllowed: !prompt.interactionNotAllowed, session: remoteSession(), cancellation: hangUp,
      terminalPrograms: options.terminalPrograms, sensorPresent: dependencies.sensor.modality != nil, log: log)
    // Issue 39: an app the person at the machine cannot see in a terminal gets the desktop's dialog (polkit).
    if request.hidden, !request.remote, options.appDialog, let ask = dependencies.askPolkit {
      let channel = self.channel
      let hangUp = self.hangUp
      let dialog = PolkitDialog(
        ask: ask, ledger: DialogLedger(root: options.runtimeRoot), application: application, uid: Syscalls.realUserID,
        withdrawn: {
          if channel.peerHungUp() { hangUp.cancel() }
          return hangUp.isCancelled
        }, log: log)
      let shown = request
      request.systemDialog = { dialog.run(shown) }
    }
    return request
  }

  /// The services whose request counts as shown by the app's own dialog: the app's name when its executable is a
  /// system program (`SystemProgram`) named in `gui_services=`, else none, and the terminal rule decides. An app's
  /// claim of a dialog (`ownInterface`) is its own word; what it runs is the kernel's.
  func ownDialogServices() -> [String] {
    let program = SystemProgram.check(callerPID, system: system)
    guard let name = program.name, RequestOrigin.token(name) == application, options.guiServices.contains(name) else {
      log.log(
        .info, "App \(application) (pid \(callerPID)) claims its own dialog, which counts only for a system program "
          + "named in gui_services: \(program.reason).")
      return []
    }
    return [application]
  }

  /// Whether the app runs in a remote session: its terminal's utmp record, the login session and the ledger, the
  /// ancestry, and its SSH_* variables as the kernel kept them (/proc/PID/environ), which can only make it remote.
  func remoteSession() -> RemoteSession.Verdict {
    requests.remoteSession(
      tty: terminal, environment: requests.environment(of: callerPID), runtimeRoot: options.runtimeRoot, loginSession: nil)
  }

  /// A keychain call, on this session's authorization.
  func keychainCall(_ call: AppCall) throws(LocalAuthError) -> AppReply {
    guard let keychain = dependencies.keychain else { throw .keychain(.notAvailable("this system has no keychain")) }
    let operations = KeychainOperations(keychain: keychain, dependencies: dependencies, settings: options.evaluation)
    switch call.operation {
    case .keychainAdd:
      let add = try wire { () throws(HelperProtocolError) in try KeychainAddRequest(decoding: call) }
      let template = try request(add.prompt, policy: .deviceOwnerAuthentication, defaultReason: "add a keychain item")
      let item = try operations.add(add.newItem, request: template, authorization: authorization)
      try channel.sendItem(AppItem(item, data: nil))
    case .keychainCopy:
      let copy = try wire { () throws(HelperProtocolError) in try KeychainCopyRequest(decoding: call) }
      let template = try request(copy.prompt, policy: .deviceOwnerAuthentication, defaultReason: "access a keychain item")
      let found = try operations.copy(
        copy.query, returnData: copy.returnData, all: copy.matchAll, mode: copy.mode, request: template,
        authorization: &authorization)
      for entry in found { try channel.sendItem(AppItem(entry.item, data: entry.data)) }
    case .keychainUpdate:
      let update = try wire { () throws(HelperProtocolError) in try KeychainUpdateRequest(decoding: call) }
      let template = try request(update.prompt, policy: .deviceOwnerAuthentication, defaultReason: "change a keychain item")
      try operations.update(update.query, changes: update.changes, request: template, authorization: &authorization)
    default:
      let delete = try wire { () throws(HelperProtocolError) in try KeychainDeleteRequest(decoding: call) }
      try operations.delete(delete.query, user: user)
    }
    return .done(AppFields())
  }

  /// A feature's flag (BiometricAuthenticationFacade): read, or set without authentication when enabling; a
  /// feature is disabled only after an evaluation of this session succeeded (as the facade asks for one).
  func feature(_ call: FeatureRequest) throws(LocalAuthError) -> AppReply {
    guard isValidItemName(call.name) else { throw .helper(.broken(.malformed("an invalid feature name"))) }
    if let enable = call.enable {
      guard enable || authorization.biometry || authorization.passcode != nil || authorization.passcodeAccepted else {
        throw .keychain(.authenticationFailed)
      }
      let administration = Administration(store: dependencies.store, clock: dependencies.clock, settings: options.evaluation)
      try administration.setFeature(call.name, enabled: enable, for: user)
    }
    let enabled = try dependencies.store.load(user)?.features.contains(call.name) ?? false
    return .done(FeatureReply(enabled: enabled).encode())
  }

  /// The basename of the app's executable as the kernel names it (/proc/PID/exe), as a printable token.
  static func executableName(_ pid: Int32) -> String {
    guard let path = Syscalls.linkTarget("/proc/\(pid)/exe", capacity: 4095) else { return "app" }
    let name = path.utf8.split(separator: UInt8(ascii: "/")).last.map { String(decoding: $0, as: UTF8.self) } ?? "app"
    return RequestOrigin.token(name)
  }
}

extension HelperChannel {
  /// Sends an item, a failure to send ending the call like a lost conversation.
  func sendItem(_ item: AppItem) throws(LocalAuthError) {
    do { try send(.item(item)) } catch { throw .prompt(.conversationFailed) }
  }
}
