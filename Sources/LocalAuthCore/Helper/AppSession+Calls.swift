/// The parts of an app's calls that read fields: the evaluation request, the keychain calls and the facade's
/// feature flags, each built from the fields an `AppCall` allows and from what the helper reads itself.
extension AppSession {
  /// Runs a field read, turning a malformed field into the error that ends the call as a protocol violation.
  func wire<T>(_ body: () throws(HelperProtocolError) -> T) throws(LocalAuthError) -> T {
    do { return try body() } catch { throw .helper(.broken(error)) }
  }

  /// The evaluation request of a call: its reason, titles, reuse and interaction, for this session's user, from
  /// this app (its executable, pid and terminal), remote as the session is (`EvaluationRequestBuilder`).
  func request(_ fields: AppFields, policy: AuthPolicy, defaultReason: String = "") throws(LocalAuthError) -> EvaluationRequest {
    let reason = try wire { () throws(HelperProtocolError) in try fields.text(AppCall.Key.reason) } ?? defaultReason
    guard !reason.isEmpty else { throw .usage(.emptyReason) }
    let reuse = Int(try wire { () throws(HelperProtocolError) in try fields.integer(AppCall.Key.reuseSeconds, as: UInt16.self) } ?? 0)
    let (interactionNotAllowed, ownInterface) = try wire { () throws(HelperProtocolError) in
      (try fields.flag(AppCall.Key.interactionNotAllowed), try fields.flag(AppCall.Key.ownInterface))
    }
    let (fallbackTitle, cancelTitle) = try wire { () throws(HelperProtocolError) in
      (try fields.text(AppCall.Key.fallbackTitle), try fields.text(AppCall.Key.cancelTitle))
    }
    // Rule 7: an app's match serves nothing else, and it may reuse only a session unlock. docs/RULES.md, "Intent":
    // an app's request gets the finger when its process is in the foreground of its terminal, or when it shows the
    // request itself (its own prompter, as a GUI app does).
    let requester = EvaluationRequestBuilder.Requester(
      user: user, origin: RequestOrigin.current(service: application, tty: terminal, processID: callerPID),
      service: application, subject: "app \(application) (pid \(callerPID))", purpose: .app(processID: callerPID),
      guiServices: { ownInterface ? self.ownDialogServices() : [] })
    return requests.request(
      for: requester, policy: policy, reason: reason, fallbackTitle: fallbackTitle, cancelTitle: cancelTitle,
      reuseDuration: min(Double(reuse), EvaluationRequest.maximumReuseDuration, options.evaluation.reuseLimit),
      interactionAllowed: !interactionNotAllowed, session: remoteSession(), cancellation: hangUp,
      terminalPrograms: options.terminalPrograms, sensorPresent: dependencies.sensor.modality != nil, log: log)
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
    let fields = call.fields
    let operations = KeychainOperations(keychain: keychain, dependencies: dependencies, settings: options.evaluation)
    let query = try wire { () throws(HelperProtocolError) -> Keychain.Query in try fields.keychainQuery() }
    switch call.operation {
    case .keychainAdd:
      let template = try request(fields, policy: .deviceOwnerAuthentication, defaultReason: "add a keychain item")
      let new = try wire { () throws(HelperProtocolError) -> Keychain.NewItem in
        guard let data = fields.bytes(AppCall.Key.data) else { throw .malformed("an add without data") }
        let accessibility = try fields.text(AppCall.Key.accessibility).map { raw throws(HelperProtocolError) in
          guard let parsed = KeychainAccessibility(rawValue: raw) else { throw .malformed("an unknown accessibility") }
          return parsed
        }
        let flags = try fields.integer(AppCall.Key.accessFlags, as: UInt64.self).map { KeychainAccessFlags(rawValue: UInt($0)) }
        var new = Keychain.NewItem(
          service: query.service ?? "", account: query.account ?? "", label: query.label ?? "",
          accessGroup: query.accessGroup ?? "", accessibility: accessibility ?? .whenUnlocked, flags: flags, data: data)
        new.itemClass = query.itemClass ?? .genericPassword
        new.attributes = query.attributes
        return new
      }
      let item = try operations.add(new, request: template, authorization: authorization)
      try channel.sendItem(AppItem(item, data: nil))
      return .done(AppFields())
    case .keychainCopy:
      let template = try request(fields, policy: .deviceOwnerAuthentication, defaultReason: "access a keychain item")
      let (returnData, all, rawMode) = try wire { () throws(HelperProtocolError) in
        (try fields.flag(AppCall.Key.returnData), try fields.flag(AppCall.Key.matchAll), try fields.byte(AppCall.Key.interface))
      }
      guard let mode = AppInterfaceMode(rawValue: rawMode ?? 0) else {
        throw .helper(.broken(.malformed("an unknown interface mode")))
      }
      let found = try operations.copy(
        query, returnData: returnData, all: all, mode: mode, request: template, authorization: &authorization)
      for entry in found { try channel.sendItem(AppItem(entry.item, data: entry.data)) }
      return .done(AppFields())
    case .keychainUpdate:
      let template = try request(fields, policy: .deviceOwnerAuthentication, defaultReason: "change a keychain item")
      let changes = try wire { () throws(HelperProtocolError) in try fields.keychainChanges() }
      try operations.update(query, changes: changes, request: template, authorization: &authorization)
      return .done(AppFields())
    default:
      try operations.delete(query, user: user)
      return .done(AppFields())
    }
  }

  /// A feature's flag (BiometricAuthenticationFacade): read, or set without authentication when enabling; a
  /// feature is disabled only after an evaluation of this session succeeded (as the facade asks for one).
  func feature(_ fields: AppFields) throws(LocalAuthError) -> AppReply {
    let (name, enable) = try wire { () throws(HelperProtocolError) in
      (try fields.text(AppCall.Key.feature) ?? "", try fields.byte(AppCall.Key.enable))
    }
    guard isValidItemName(name) else { throw .helper(.broken(.malformed("an invalid feature name"))) }
    if let enable {
      guard enable == 1 || authorization.biometry || authorization.passcode != nil else {
        throw .keychain(.authenticationFailed)
      }
      let administration = Administration(store: dependencies.store, clock: dependencies.clock, settings: options.evaluation)
      try administration.setFeature(name, enabled: enable == 1, for: user)
    }
    var reply = AppFields()
    reply.set(AppReply.Key.enabled, flag: try dependencies.store.load(user)?.features.contains(name) ?? false)
    return .done(reply)
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
