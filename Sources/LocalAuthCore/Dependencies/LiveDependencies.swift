/// The one place where the live side effects are built from the effective options: the module, localauthctl and
/// LocalAuthentication's system context all go through here.
extension Dependencies {
  /// The system clock, the state folder of `options` and its keychain, the configured sensor (the simulated one,
  /// its prompts in the runtime folder; fprintd; or none), and the caller's own prompter and log.
  package static func live(_ options: Options, prompter: AuthPrompter, log: AuthLog) -> Dependencies {
    var dependencies = liveSimulated(options, prompter: prompter, log: log)
    if options.fprintd { dependencies.sensor = FprintdSensor(printsFolder: options.fprintDirectory, log: log) }
    dependencies.keychain = Keychain(
      root: options.stateDirectory, tcti: options.tpm, clock: dependencies.clock, limits: options.keychain.limits)
    dependencies.screenLocked = { user in
      // A user without a passwd entry has no sessions logind could name: locked.
      guard let uid = Syscalls.userID(named: user.value) else { return true }
      return RemoteSession.screenLocked(uid: uid, RemoteSession.System(facts: .live)) {
        LogindBus.lockedHint(session: $0, timeout: 2)
      }
    }
    dependencies.askPolkit = { question, withdrawn in PolkitBus.ask(question, withdrawn: withdrawn) }
    return dependencies
  }

  /// `live` without the keychain and with the simulated sensor or none in place of fprintd's: what the installed
  /// module builds for an authentication, so that its link holds neither (pam_localauth/extra.so has them).
  package static func liveSimulated(_ options: Options, prompter: AuthPrompter, log: AuthLog) -> Dependencies {
    let clock = SystemClock()
    let sensor: BiometricSensor =
      if let modality = options.sensor, !options.fprintd {
        SpoolSensor(
          modality: modality, runtimeRoot: options.runtimeRoot, clock: clock, log: log, expiry: options.eventExpiry)
      } else {
        AbsentSensor()
      }
    var dependencies = Dependencies(
      clock: clock, store: FileStateStore(root: options.stateDirectory), sensor: sensor, prompter: prompter, log: log)
    if options.sensor != nil || options.fprintd { dependencies.prompts = PromptRegistry(root: options.runtimeRoot) }
    return dependencies
  }
}

extension OptionParser {
  /// Parses module arguments over the configuration file they name (or the default one), read the safe way.
  package static func parse(arguments: [String]) throws(ConfigError) -> Parsed {
    try parse(arguments: arguments, readFile: ConfigFileReader.read)
  }
}

extension RemoteSession {
  /// Whether the calling process runs in a remote session: PAM_RHOST and PAM_TTY when PAM gives them, the
  /// variables of `RemoteSession.variables` as `environment` finds them, and this process's login session (with
  /// the session ledger of `runtimeRoot`), logind session and ancestry.
  package static func detectCurrent(
    remoteHost: String = "", tty: String, environment: (String) -> String?, runtimeRoot: String,
    loginSession: String? = nil
  ) -> Verdict {
    var found: [String: String] = [:]
    for name in variables { found[name] = environment(name) }
    return detect(
      Input(remoteHost: remoteHost, tty: tty, environment: found, processID: Syscalls.processID, loginSession: loginSession),
      system: .live(runtimeRoot: runtimeRoot))
  }
}

extension SessionLedger {
  /// What pam_sm_open_session did with the ledger.
  package enum Opening: Equatable, Sendable {
    /// The process is in no login session, or did not start the one it is in (su and sudo run inside the
    /// caller's session, even when their parent has exited; only the root process that ran pam_loginuid
    /// records it).
    case notOpenedHere
    /// The session was recorded.
    case recorded(session: UInt32, entry: Entry, reason: String)
  }

  /// Records the login session this process has just opened (pam_loginuid ran earlier in the stack): remote when
  /// the remote detection says so from PAM_RHOST, PAM_TTY's utmp record, a network login daemon in the session,
  /// logind, the ancestry or the SSH variables; else local. The ledger is in `runtimeRoot` for this boot.
  package static func recordOpening(
    remoteHost: String, tty: String, environment: (String) -> String?, runtimeRoot: String
  ) throws(StateError) -> Opening {
    let live = RemoteSession.System.live(runtimeRoot: runtimeRoot)
    guard let session = openedSession(processID: Syscalls.processID, parentID: Syscalls.parentProcessID, realUID: Syscalls.realUserID, live) else {
      return .notOpenedHere
    }
    // The session's own entry cannot be asked while it is being written: judge it as if there were no ledger.
    var opening = live
    opening.sessionLedger = { _ in .noLedger }
    opening.judgesOpening = true
    opening.remembersProcesses = false
    var found: [String: String] = [:]
    for name in RemoteSession.variables { found[name] = environment(name) }
    let verdict = RemoteSession.detect(
      RemoteSession.Input(remoteHost: remoteHost, tty: tty, environment: found, processID: Syscalls.processID), system: opening)
    let entry: Entry = verdict.isRemote ? .remote : .local
    let ledger = SessionLedger(root: runtimeRoot, bootID: SystemClock.bootID(readingFrom: SystemClock.bootIDPath))
    try ledger.record(session, as: entry)
    return .recorded(session: session, entry: entry, reason: verdict.reason)
  }

  /// The login session `processID` has just opened, or nil when it did not open one: pam_loginuid, which starts a
  /// session, needs CAP_AUDIT_CONTROL and runs in the login daemon (sshd, login, a display manager: real uid 0),
  /// whose session then differs from its parent's. su and sudo are setuid (their real uid is the caller's): one
  /// whose parent has exited, so that its session differs from init's, is still not opening one.
  static func openedSession(
    processID: Int32, parentID: Int32, realUID: UInt32, _ system: RemoteSession.System
  ) -> UInt32? {
    guard realUID == 0, let session = RemoteSession.auditSession(processID, system),
      RemoteSession.auditSession(parentID, system) != session
    else { return nil }
    return session
  }
}
