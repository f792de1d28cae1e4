/// What authenticating a named user came to: an evaluation's outcome, or "the module does not apply".
public enum AuthenticationResult: Equatable, Sendable {
  /// The policy was evaluated.
  case evaluated(EvaluationOutcome)
  /// The module does not apply to this user (unknown, without a passcode or a usable login password with
  /// `passcode=account`, or without the `feature=`).
  case doesNotApply(featureNotEnabled: Bool)
}

/// pam_sm_authenticate's decision for one user, shared by the module (running as root) and localauth-helper
/// (serving an unprivileged caller): who, from where, under which policy; then the evaluator decides.
public struct UserAuthentication {
  /// The user name as the application gave it.
  package var userName: String
  /// The PAM service, for the default reason.
  package var service: String
  /// PAM_TTY; empty when there is none.
  package var tty: String
  /// PAM_RHOST; empty when there is none.
  package var remoteHost: String
  /// Who asks (named on the prompt, the reuse window's scope).
  package var origin: RequestOrigin
  /// The values of `RemoteSession.variables` the caller has; they can only make the session remote.
  package var remoteVariables: [String: String]
  /// The one seam to the system (the /proc reads, the remote-session decision) and the request's assembly.
  package var requests = EvaluationRequestBuilder()
  /// True when the prompt may name the caller's command ("run `apt upgrade` as root (sudo)", `ApprovedCommand`):
  /// only in the module's own process, inside the real setuid su or sudo. localauth-helper sets it false: its
  /// caller's command line is the caller's word.
  package var namesCommand = true

  /// Describes one authentication.
  public init(
    userName: String, service: String, tty: String, remoteHost: String, origin: RequestOrigin,
    remoteVariables: [String: String]
  ) {
    self.userName = userName
    self.service = service
    self.tty = tty
    self.remoteHost = remoteHost
    self.origin = origin
    self.remoteVariables = remoteVariables
  }

  /// Decides, with `userExists` as the system's user database (getpwnam).
  /// `passcodeCapture` receives the passcode when it is the way in (the login secret's release needs to know).
  package func run(
    options: Options, dependencies: Dependencies, userExists: (String) -> Bool, passcodeCapture: PasscodeCapture? = nil
  ) throws(LocalAuthError) -> AuthenticationResult {
    let log = dependencies.log
    // docs/RULES.md, "Users the module does not apply to": an unknown user, a user without a passcode and (with
    // feature=) a user without the feature get the same answer — no prompt, no message, no hash, one code —
    // so that nothing tells them apart; the stack's next line then decides as it would for anyone.
    // With passcode=account, a user applies when the login password is one pam_unix would accept (a record is
    // not needed: enrolment decides whether the finger is offered); a locked or expired one is refused here,
    // with one line naming the user and why, and the stack's next line (pam_unix) refuses it as it would.
    let user = (try? UserName(userName)).flatMap { userExists(userName) ? $0 : nil }
    let record = if let user { try dependencies.store.load(user) } else { UserRecord?.none }
    let evaluator = PolicyEvaluator(dependencies: dependencies, settings: options.evaluation)
    let account = options.evaluation.passcodeSource == .account
    let refusal = if let user, account { evaluator.accountRefusal(for: user) } else { AccountRefusal?.none }
    let doesNotApply: String? =
      if user == nil { "the user is unknown" }
      else if let feature = options.feature, record?.features.contains(feature) != true {
        "the user has not enabled protection for feature \(feature)"
      } else if account { refusal.map { "\($0)" } }
      else if record?.passcodeHash == nil { "the user has no passcode" }
      else { nil }
    guard let user, doesNotApply == nil else {
      if let user, let refusal, doesNotApply == "\(refusal)" {
        log.log(.notice, "The login password of user \(user) is refused as the passcode: \(refusal).")
      } else {
        log.log(.info, "pam_localauth does not apply to this user: \(doesNotApply ?? "the user is unknown").")
      }
      return .doesNotApply(featureNotEnabled: options.feature != nil)
    }
    let session = remoteSession(runtimeRoot: options.runtimeRoot)
    if session.missingLedger {
      log.log(.notice, "No finger is asked of user \(user): \(session.reason).")
    } else if session.isRemote {
      log.log(.debug, "Remote session for user \(user) (\(session.reason)): biometry is not offered.")
    }
    // docs/RULES.md, "Intent": the prompt names what the finger approves.
    var origin = self.origin
    if namesCommand, let phrase = requests.approval(of: origin.processID, service: service) {
      origin.approval = phrase
    }
    let requester = EvaluationRequestBuilder.Requester(
      user: user, origin: origin, service: service, subject: "service \(RequestOrigin.token(service))",
      purpose: .pam(service: service, unlockServices: options.unlockServices), guiServices: { options.guiServices })
    var request = requests.request(
      for: requester, policy: options.policy,
      reason: origin.approval.isEmpty ? options.reason ?? "authenticate for \(service)" : origin.approval,
      fallbackTitle: options.fallbackTitle, reuseDuration: options.reuseDuration, interactionAllowed: true,
      session: session, terminalPrograms: options.terminalPrograms, sensorPresent: dependencies.sensor.modality != nil,
      log: log)
    request.confirm = options.confirm
    // docs/RULES.md, "Screen lockers": a locker's typed passcode is checked before the finger is asked for.
    if options.policy == .deviceOwnerAuthentication, !options.lockerPrograms.isEmpty {
      let locker = ScreenLocker.check(origin.processID, programs: options.lockerPrograms, system: requests.processes)
      request.screenLocker = locker.name
      if locker.name != nil { log.log(.debug, "The passcode is asked of user \(user) before the finger: \(locker.reason).") }
    }
    request.passcodeCapture = passcodeCapture
    // Issue 39: inside polkit's agent helper (the module's own process), every authentication is recorded in the
    // dialogs the helper keeps open for the user's apps, with how it ended (DialogLedger).
    guard namesCommand, service == DialogLedger.service else {
      return .evaluated(try evaluator.evaluate(request, loaded: record))
    }
    let ledger = DialogLedger(root: options.runtimeRoot)
    let dialogs = ledger.beginRun(user: user, processID: origin.processID)
    let outcome: EvaluationOutcome
    do { outcome = try evaluator.evaluate(request, loaded: record) } catch {
      // The agent's conversation gone (its window closed, pkttyagent interrupted) is the user's Cancel.
      let cancelled = if case .prompt = error { true } else { false }
      ledger.endRun(in: dialogs, processID: origin.processID, method: nil, cancelled: cancelled)
      throw error
    }
    switch outcome {
    case .success(let method): ledger.endRun(in: dialogs, processID: origin.processID, method: method)
    case .failure(let code, _):
      ledger.endRun(in: dialogs, processID: origin.processID, method: nil, cancelled: code == .userCancel)
    }
    if !dialogs.isEmpty {
      log.log(.info, "Recorded this polkit-1 authentication of user \(user) for the dialog of app pid \(dialogs[0].appPID).")
    }
    return .evaluated(outcome)
  }

  /// Whether this authentication comes from a remote session (PAM_RHOST, PAM_TTY's utmp record, the login
  /// session and the ledger in `runtimeRoot`, logind, ancestry, and the caller's variables, which can only make
  /// it remote).
  package func remoteSession(runtimeRoot: String) -> RemoteSession.Verdict {
    // The origin read this process's audit session a moment ago; the helper's origin names its caller instead.
    requests.remoteSession(
      remoteHost: remoteHost, tty: tty, environment: remoteVariables, runtimeRoot: runtimeRoot,
      loginSession: origin.processID == Syscalls.processID ? origin.loginSession : nil)
  }
}
