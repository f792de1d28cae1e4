/// The evaluation engine: runs a policy for a user against the state, the sensor and the user interface.
///
/// The flow follows docs/RULES.md, rules 1 and 2: under deviceOwnerAuthentication, biometry first when usable, the
/// passcode otherwise or after the fallback; under deviceOwnerAuthenticationWithBiometrics, biometry only.
package struct PolicyEvaluator {
  /// The side effects.
  package var dependencies: Dependencies
  /// The rules.
  package var settings: EvaluationSettings

  /// Creates an evaluator.
  package init(dependencies: Dependencies, settings: EvaluationSettings = EvaluationSettings()) {
    self.dependencies = dependencies
    self.settings = settings
  }

  /// The biometry status for `user` now.
  package func biometryStatus(for user: UserName, remote: Bool = false) throws(LocalAuthError) -> BiometryStatus {
    let (record, reader) = try load(user)
    return status(of: record, reader, remote: remote)
  }

  /// Checks whether `policy` can be evaluated for `user` now; nil when it can (canEvaluatePolicy).
  package func canEvaluate(_ policy: AuthPolicy, for user: UserName, remote: Bool = false) throws(LocalAuthError) -> AuthErrorCode? {
    let (record, reader) = try load(user)
    switch policy {
    case .deviceOwnerAuthenticationWithBiometrics:
      if case .unusable(let code, let detail) = status(of: record, reader, remote: remote) {
        // A passcode requirement is not an error of the sensor; it surfaces only when evaluating.
        if case .passcodeRequired = detail {} else { return code }
      }
      return hasPasscode(record, for: user) ? nil : .passcodeNotSet
    case .deviceOwnerAuthentication:
      return hasPasscode(record, for: user) ? nil : .passcodeNotSet
    }
  }

  /// Evaluates `request`; throws `UsageError` for an empty reason, and state or prompt errors as they come.
  ///
  /// `loaded` is the user's record as the caller read it a moment before (pam_sm_authenticate reads it to see
  /// whether the module applies), so that it is not read again; every change is still made under the lock on a
  /// fresh read.
  package func evaluate(_ request: EvaluationRequest, loaded: UserRecord? = nil) throws(LocalAuthError) -> EvaluationOutcome {
    guard !request.reason.isEmpty else { throw .usage(.emptyReason) }
    let user = request.user
    let log = dependencies.log
    let (record, reader) = try load(user, loaded: loaded, correcting: true)
    if request.cancellation?.isCancelled == true { return .failure(.appCancel, .none) }

    var request = request
    if let outcome = reuse(record, request) {
      // "Visibility holds for the whole wait": a reuse is granted only to a request still visible at the end.
      if let why = request.visibilityRecheck?() {
        log.log(
          .notice, "Refused to reuse a biometric match for user \(user): \(why), so the request is no longer visible at "
            + "the machine.")
        request.hidden = true
        request.visibilityRecheck = nil
      } else {
        let window = min(request.reuseDuration, settings.reuseLimit, EvaluationRequest.maximumReuseDuration)
        log.log(.info, "Reused a biometric match for user \(user) within \(wholeSeconds(window)) seconds.")
        return outcome
      }
    }

    // Issue 39: a request the person at the machine cannot see is shown in the desktop's dialog when its caller
    // has one (an app through polkit); the finger is asked there, by the module in polkit-1's stack.
    // No dialog shown (no polkitd, no agent): on as without one.
    if request.hidden, request.interactionAllowed, !request.remote, let dialog = request.systemDialog {
      guard hasPasscode(record, for: user) else { return finish(.failure(.passcodeNotSet, .none), request) }
      if request.policy == .deviceOwnerAuthenticationWithBiometrics,
        case .unusable(let code, let detail) = status(of: record, reader, remote: false)
      {
        return finish(.failure(code, detail), request)
      }
      if let outcome = dialog() { return finish(outcome, request) }
    }

    let biometry = status(of: record, reader, remote: request.remote, hidden: request.hidden)
    switch request.policy {
    case .deviceOwnerAuthenticationWithBiometrics:
      if case .unusable(let code, let detail) = biometry {
        // A hidden request that may not interact (an app without a terminal, a background job) is told it
        // cannot interact, as an app without a terminal always was (docs/LocalAuthentication.md).
        if case .requestNotVisible = detail, !request.interactionAllowed {
          return finish(.failure(hasPasscode(record, for: user) ? .notInteractive : .passcodeNotSet, .none), request)
        }
        if request.interactionAllowed {
          switch detail {
          case .passcodeRequired(let why): try dependencies.prompter.error(why.message)
          case .biometryLockedOut: try dependencies.prompter.error(PasscodeRequirement.lockout.message)
          default: break
          }
        }
        return finish(.failure(code, detail), request)
      }
      guard hasPasscode(record, for: user) else { return finish(.failure(.passcodeNotSet, .none), request) }
      guard request.interactionAllowed else { return finish(.failure(.notInteractive, .none), request) }
      guard case .usable(let modality) = biometry else { return finish(.failure(.biometryNotAvailable, .none), request) }
      guard try confirmed(request, modality) else { return finish(.failure(.userFallback, .fallbackChosen), request) }
      let prompt = BiometricPrompt(
        dependencies: dependencies, settings: settings, request: request, modality: modality, templates: record.templates)
      let result = try prompt.presented { (prompt) throws(LocalAuthError) in
        let first = try prompt.run()
        guard first == .exhausted && modality == .faceID && request.effectiveFallbackTitle != nil else { return first }
        return try prompt.awaitButtons()
      }
      let outcome: EvaluationOutcome =
        switch result {
        case .matched: .success(.biometry)
        case .fallback: .failure(.userFallback, .fallbackChosen)
        case .cancel: .failure(.userCancel, .none)
        case .timeout: .failure(.systemCancel, .none)
        case .exhausted: .failure(.authenticationFailed, .none)
        case .lockedOut: .failure(.biometryLockout, .biometryLockedOut(failures: settings.lockoutThreshold))
        case .appCancel: .failure(.appCancel, .none)
        case .readerLost: .failure(.biometryNotAvailable, .none)
        case .passcode: .failure(.authenticationFailed, .none)  // no parallel prompt under this policy
        case .withdrawn(.concurrent), .withdrawn(.readerInUse): .failure(.biometryNotAvailable, .concurrentRequest)
        case .withdrawn(.notVisible): .failure(.biometryNotAvailable, .requestNotVisible)
        }
      return finish(outcome, request)

    case .deviceOwnerAuthentication:
      guard hasPasscode(record, for: user) else {
        settings.hasher.burnEquivalentWork()
        return finish(.failure(.passcodeNotSet, .none), request)
      }
      guard request.interactionAllowed else { return finish(.failure(.notInteractive, .none), request) }
      var fresh: UserRecord? = record
      // A parallel prompt (parallel_passcode) stays open into the passcode step and is closed on every path.
      var entry: ParallelEntry? = nil
      defer { entry?.close() }
      switch biometry {
      case .usable(let modality):
        fresh = nil  // the prompt may take long and another process may count a failure meanwhile
        // A screen locker answers the passcode prompt at once with what was typed before Return: a typed passcode
        // is checked now, never after the finger's wait; an empty answer chooses the finger (and stands for
        // `confirm`'s Enter).
        if let locker = request.screenLocker {
          if case .passcode(let typed) = try LockerAnswer.ask(
            request, locker: locker, modality, passcode: settings.passcodeSource, dependencies)
          {
            let check = PasscodeCheck(dependencies: dependencies, settings: settings, request: request, entered: typed)
            return finish(try check.run(), request)
          }
        } else {
          guard try confirmed(request, modality) else { break }
          entry = try openParallelEntry(record, modality)
        }
        let prompt = BiometricPrompt(
          dependencies: dependencies, settings: settings, request: request, modality: modality, templates: record.templates,
          entry: entry)
        switch try prompt.presented({ (prompt) throws(LocalAuthError) in try prompt.run() }) {
        case .matched: return finish(.success(.biometry), request)
        case .passcode(let typed):
          let check = PasscodeCheck(dependencies: dependencies, settings: settings, request: request, entered: typed.secret)
          return finish(try check.run(), request)
        case .cancel: return finish(.failure(.userCancel, .none), request)
        case .timeout: return finish(.failure(.systemCancel, .none), request)
        case .appCancel: return finish(.failure(.appCancel, .none), request)
        case .fallback, .exhausted, .lockedOut: break
        // The reader failed mid-prompt: the passcode, as when it is not there at all (rule 1).
        case .readerLost: break
        // Another request of the user, or this one no longer visible: the passcode, as for a hidden request.
        case .withdrawn: break
        }
      case .unusable(_, let detail):
        // Unusable biometry is not an error under this policy: straight to the passcode (rule 1).
        if case .passcodeRequired(let why) = detail { try dependencies.prompter.info(why.message) }
      }
      return finish(
        try PasscodeCheck(dependencies: dependencies, settings: settings, request: request, fresh: fresh, entry: entry).run(),
        request)
    }
  }

  /// The parallel prompt for this evaluation: only with `parallel_passcode`, when no passcode delay runs (the
  /// passcode could not be checked: the finger alone is offered, as without the option), and when the prompter
  /// can be read while the sensor waits; nil otherwise, and the steps run one after another.
  private func openParallelEntry(_ record: UserRecord, _ modality: Modality) throws(LocalAuthError) -> ParallelEntry? {
    guard settings.parallelPasscode else { return nil }
    if let next = record.passcodeNextAllowed, !(dependencies.clock.now().seconds >= next.seconds) { return nil }
    let entry = try dependencies.prompter.openParallelEntry(
      BiometricPrompt.parallelPrompt(modality, passcode: settings.passcodeSource))
    if entry == nil { dependencies.log.log(.debug, "No parallel passcode prompt: the conversation is not a terminal this module can read.") }
    return entry
  }

  /// Whether `user` has a passcode: the record's own, or with `passcode=account` a login password pam_unix would
  /// accept today (not locked, not expired: `ShadowEntry.refusal`).
  package func hasPasscode(_ record: UserRecord, for user: UserName) -> Bool {
    switch settings.passcodeSource {
    case .separate: return record.passcodeHash != nil
    case .account: return accountRefusal(for: user) == nil
    }
  }

  /// Why the login password of `user` cannot be the passcode today, or nil when it can.
  package func accountRefusal(for user: UserName) -> AccountRefusal? {
    switch dependencies.accountPasswords.usableHash(for: user, today: dependencies.clock.now().shadowDay) {
    case .success: return nil
    case .failure(let refusal): return refusal
    }
  }

  /// With `confirm`: the user presses Enter before the reader is claimed and the prompt announced (Howdy's
  /// request, boltgolt/howdy #218); false when they typed something instead, which chooses the fallback.
  private func confirmed(_ request: EvaluationRequest, _ modality: Modality) throws(LocalAuthError) -> Bool {
    guard request.confirm else { return true }
    let answer = try dependencies.prompter.secret(
      ReasonPhrase.line("Press Enter to use your \(modality.bodyPart)", reason: request.reason, end: ": "))
    defer { answer.wipe() }
    if !answer.isEmpty { dependencies.log.log(.info, "User \(request.user) declined the \(modality.bodyPart) at the confirmation.") }
    return answer.isEmpty
  }

  /// The user's opaque enrollment state (evaluatedPolicyDomainState); nil when nothing is enrolled (rule 8).
  package func domainState(for user: UserName) throws(LocalAuthError) -> String? {
    try dependencies.store.load(user)?.domainState
  }

  /// Ends `user`'s reuse window (logout must end it, or Face ID would log the user straight back in: rule 7).
  package func endReuseWindow(for user: UserName) throws(LocalAuthError) {
    try dependencies.store.modify(user) { record throws(LocalAuthError) in record.reuse = nil }
  }

  private func status(
    of record: UserRecord, _ reader: ReaderEnrollment?, remote: Bool, hidden: Bool = false
  ) -> BiometryStatus {
    BiometryStatus.of(
      record: record, sensor: dependencies.sensor.modality, remote: remote, hidden: hidden, now: dependencies.clock.now(),
      bootID: dependencies.clock.bootID(), settings: settings, readerItems: reader?.items)
  }

  /// The user's record, and the prints the reader keeps itself (fprintd) when it does. A change in those prints
  /// (a finger added, removed or enrolled again) becomes the record's domain state, so the enrollment-change
  /// rule asks for the passcode next, as for the simulated sensor's templates (rule 8).
  ///
  /// Times beyond what any rule sets (a clock that jumped forward and back) are capped (`FutureTimes`); when
  /// `correcting`, as for an evaluation, that is logged and written back to the record.
  private func load(
    _ user: UserName, loaded: UserRecord? = nil, correcting: Bool = false
  ) throws(LocalAuthError) -> (UserRecord, ReaderEnrollment?) {
    let stored: UserRecord?
    if let loaded { stored = loaded } else { stored = try dependencies.store.load(user) }
    guard var record = stored else { return (UserRecord(), nil) }
    let clock = dependencies.clock
    let longest = FutureTimes.longestDelay(settings.delaySchedule)
    let future = FutureTimes.cap(&record, now: clock.now(), longestDelay: longest)
    if correcting, !future.isEmpty {
      try dependencies.store.modify(user) { (stored: inout UserRecord) throws(LocalAuthError) in
        _ = FutureTimes.cap(&stored, now: clock.now(), longestDelay: longest)
      }
      if let sentence = future.sentence(user: user, longestDelay: longest) { dependencies.log.log(.warning, sentence) }
    }
    guard let reader = dependencies.sensor.readerEnrollment(for: user) else { return (record, nil) }
    if record.domainState != reader.domainState {
      let state = reader.domainState
      try dependencies.store.modify(user) { (stored: inout UserRecord) throws(LocalAuthError) in stored.domainState = state }
      record.domainState = state
      dependencies.log.log(
        .notice, "The enrolled prints of user \(user) on the reader changed (\(reader.items.count) enrolled): the passcode is required next.")
    }
    return (record, reader)
  }

  /// A match this request may reuse (docs/RULES.md, rule 7): within `min(requested, reuseLimit, 300)` seconds, in
  /// this boot and domain state, with biometry not locked, on a visible local request, and made for the same
  /// purpose. A PAM service reuses only its own matches, scoped like sudo's tickets: the same requester, login
  /// session, terminal session (leader and its start time) and terminal. An app reuses only a session unlock
  /// (login, display manager, screen locker) of its own login session, asked by the user or by root on the
  /// user's behalf; the terminal is not compared, as an unlock has none. An app's match is never reused.
  private func reuse(_ record: UserRecord, _ request: EvaluationRequest) -> EvaluationOutcome? {
    let window = min(request.reuseDuration, settings.reuseLimit, EvaluationRequest.maximumReuseDuration)
    guard window > 0, !request.remote, !request.hidden, dependencies.sensor.modality != nil else { return nil }
    let origin = request.origin
    let stamp: ReuseStamp
    switch request.purpose {
    case .app:
      guard let unlock = record.reuseStamp(for: .sessionUnlock), origin.reuseAllowed, !origin.loginSession.isEmpty,
        unlock.loginSession == origin.loginSession, unlock.requesterUID == 0 || unlock.requesterUID == origin.requesterUID
      else { return nil }
      stamp = unlock
    case .sessionUnlock, .service:
      // A stamp with no scope is never reused.
      guard let own = record.reuseStamp(for: request.purpose), own.requesterUID == origin.requesterUID,
        !own.scope.isEmpty, own.scope == origin.reuseScope
      else { return nil }
      stamp = own
    }
    let age = dependencies.clock.now().since(stamp.at)
    guard age >= 0, age <= window, stamp.bootID == dependencies.clock.bootID(), stamp.domainState == record.domainState,
      !record.isBiometryLockedOut(threshold: settings.lockoutThreshold)
    else { return nil }
    return .success(.reuse)
  }

  private func finish(_ outcome: EvaluationOutcome, _ request: EvaluationRequest) -> EvaluationOutcome {
    switch outcome {
    case .success(let method):
      dependencies.log.log(.info, "Authenticated user \(request.user) by \(method.rawValue) under \(request.policy.name).")
    case .failure(let code, _):
      dependencies.log.log(
        .notice, "Authentication of user \(request.user) under \(request.policy.name) failed: \(code.name) (\(code.rawValue)).")
    }
    return outcome
  }
}
