/// How one biometric prompt ended.
enum BiometricPromptResult: Equatable {
  /// A template matched.
  case matched(String)
  /// The fallback button was pressed (it was visible).
  case fallback
  /// Cancel was pressed.
  case cancel
  /// The sensor wait timed out.
  case timeout
  /// The per-prompt failure limit was reached.
  case exhausted
  /// The consecutive failures reached the lockout threshold.
  case lockedOut
  /// The caller cancelled the evaluation.
  case appCancel
  /// The reader went away or failed during the prompt (the reason, for the log).
  case readerLost(String)
  /// A passcode was typed and entered while the sensor waited (`parallel_passcode`).
  case passcode(TypedPasscode)
  /// The prompt stopped waiting: another request of the user asks too, or this one is no longer visible. The
  /// request falls back as a hidden one does (the passcode under policy 2).
  case withdrawn(PromptWithdrawal)
}

/// Runs one biometric prompt: waits for captures, matches them, counts failures across processes.
struct BiometricPrompt {
  let dependencies: Dependencies
  let settings: EvaluationSettings
  let request: EvaluationRequest
  let modality: Modality
  let templates: [BiometricTemplate]
  /// The parallel prompt also read while the sensor waits, when `parallel_passcode` opened one.
  var entry: ParallelEntry? = nil
  /// What the prompt watches while it waits (its conflict mark, the request's visibility); set by `presented`.
  var watch: PromptWatch? = nil
  var matcher: BiometricMatcher { dependencies.matcher }

  /// Announces the prompt for the duration of `body`: in the prompt registry first (docs/RULES.md, "One finger
  /// request at a time"; a prompt that is not its user's only one is withdrawn before the reader is claimed and
  /// before any instruction), then to the sensor, so that only events presented to it reach it. The reader is
  /// released, then the announcement withdrawn, on every path.
  func presented(
    _ body: (BiometricPrompt) throws(LocalAuthError) -> BiometricPromptResult
  ) throws(LocalAuthError) -> BiometricPromptResult {
    let sensor = dependencies.sensor
    let user = request.user
    var lease: PromptLease? = nil
    if let registry = dependencies.prompts {
      lease = try PromptLease.announce(
        request, modality: modality, in: registry, clock: dependencies.clock, log: dependencies.log)
    }
    defer { lease?.end() }
    if let conflict = lease?.conflict(includingRecent: true) { return try withdraw(conflict) }
    if let lease {
      try sensor.openPrompt(lease.announcement)
    } else {
      try sensor.openPrompt(for: user, origin: request.origin)
    }
    defer { sensor.closePrompt(for: user) }
    switch sensor.startFailure(for: user) {
    case nil: break
    case .readerInUse?:
      // The reader is another request's: named when the registry knows it, and never a swipe instruction first.
      return try withdraw(lease?.conflict(includingRecent: false) ?? .readerInUse)
    case .failed(let why)?:
      dependencies.log.log(.error, "The fingerprint reader failed before the prompt for user \(user): \(why).")
      return .readerLost(why)
    }
    var prompt = self
    if lease != nil || request.visibilityRecheck != nil {
      prompt.watch = PromptWatch(lease: lease, recheck: request.visibilityRecheck, clock: dependencies.clock)
    }
    return try body(prompt)
  }

  /// Ends the wait for `withdrawal`: the user is told why in one line, and the request falls back.
  func withdraw(_ withdrawal: PromptWithdrawal) throws(LocalAuthError) -> BiometricPromptResult {
    let passcode = settings.passcodeSource == .account ? "password" : "passcode"
    let then = request.policy == .deviceOwnerAuthentication ? "Enter your \(passcode)." : nil
    if case .notVisible(let why) = withdrawal {
      dependencies.log.log(
        .notice, "Withdrew the \(modality.bodyPart) prompt for user \(request.user): \(why), so the request is no longer "
          + "visible at the machine.")
    }
    if request.interactionAllowed { try dependencies.prompter.error(withdrawal.message(modality, then: then)) }
    return .withdrawn(withdrawal)
  }

  /// A deadline `settings.sensorTimeout` from now on the clock that never jumps.
  private func nextDeadline() -> WallTime {
    WallTime(seconds: dependencies.clock.uptime() + settings.sensorTimeout)
  }

  func run() throws(LocalAuthError) -> BiometricPromptResult {
    let user = request.user
    let prompter = dependencies.prompter
    let origin = request.origin
    // Like Apple's sheet naming the app: a finger asked for by someone else says who asks.
    if origin.isOtherRequester(than: user) {
      try prompter.request("\(origin.requesterName) asks for \(user)'s \(modality.bodyPart) to run \(origin.service).")
    }
    let instruction = dependencies.sensor.instruction(for: user) ?? modality.presentInstruction
    try prompter.request(ReasonPhrase.line(instruction, reason: request.reason))
    var failures = 0
    var deadline = nextDeadline()
    while true {
      let event: SensorEvent
      switch try nextEventOrTyping(until: deadline) {
      case .event(let sensed): event = sensed
      case .typed(let secret): return .passcode(TypedPasscode(secret))
      case .cancelled: return .cancel
      case .withdrawn(let withdrawal): return try withdraw(withdrawal)
      }
      if request.cancellation?.isCancelled == true { return .appCancel }
      switch event {
      case .timeout:
        dependencies.log.log(.notice, "Biometric prompt for user \(user) timed out after \(wholeSeconds(settings.sensorTimeout)) seconds.")
        return .timeout
      case .cancel:
        return .cancel
      case .fallback:
        if fallbackVisible(after: failures) { return .fallback }
        dependencies.log.log(.info, "Ignored a fallback press for user \(user): the fallback button is not shown yet.")
      case .sample(let sample):
        guard sample.modality == modality else {
          try prompter.error("This sensor reads a \(modality.itemNoun); try again.")
          continue
        }
        switch matcher.decide(sample, against: templates) {
        case .retry:
          // A poor capture is not a failed match: it is not counted and the fallback stays hidden.
          try prompter.error(modality == .touchID ? "Place your finger on the sensor again." : "Look at the camera again.")
          deadline = nextDeadline()
        case .match(let name, _):
          // A match seen after a conflict mark, or once the request is no longer visible, is not granted (and not
          // counted as a failure).
          if let withdrawal = watch?.beforeGrant() { return try withdraw(withdrawal) }
          // Another process may have locked biometry while this prompt waited: the lock wins over the match.
          guard try recordMatch(name) else { return .lockedOut }
          return .matched(name)
        case .noMatch:
          if let end = try countFailure(&failures) { return end }
          deadline = nextDeadline()
        }
      // A reader that matches itself (fprintd): its verdicts go through the same rules as the matcher's.
      case .reader(.retry(let text)):
        try prompter.error(text)
        deadline = nextDeadline()
      case .reader(.match(let name)):
        if let withdrawal = watch?.beforeGrant() { return try withdraw(withdrawal) }
        guard try recordMatch(name) else { return .lockedOut }
        return .matched(name)
      case .reader(.noMatch):
        if let end = try countFailure(&failures) { return end }
        deadline = nextDeadline()
      case .reader(.lost(let why)):
        dependencies.log.log(.error, "The fingerprint reader failed during the prompt for user \(user): \(why).")
        return .readerLost(why)
      }
    }
  }

  /// Counts one failed match across processes; the prompt's end when it was the last allowed, else nil after
  /// telling the user to try again.
  private func countFailure(_ failures: inout Int) throws(LocalAuthError) -> BiometricPromptResult? {
    let user = request.user
    let prompter = dependencies.prompter
    failures += 1
    let failure = FailureEntry(at: dependencies.clock.now(), kind: .biometric, origin: request.origin)
    let total = try updateRecord(in: dependencies.store, user) { record throws(LocalAuthError) -> Int in
      record.biometricFailures += 1
      record.noteFailure(failure)
      return record.biometricFailures
    }
    dependencies.log.log(.notice, "Biometric match failed for user \(user) (\(total) consecutive failure\(total == 1 ? "" : "s")).")
    if total >= settings.lockoutThreshold {
      dependencies.log.log(.warning, "Biometry locked for user \(user) after \(total) consecutive failed matches.")
      try prompter.error("Too many failed attempts; biometry is locked until the passcode is entered.")
      return .lockedOut
    }
    if failures >= modality.failuresPerPrompt { return .exhausted }
    try prompter.error(modality == .touchID ? "Try again." : "Face not recognized; try again.")
    return nil
  }

  /// Waits for the buttons Face ID shows after its last failure ("Cancel" and the fallback).
  ///
  /// Face ID "stops trying" after two failures (docs/RULES.md, rule 3), so captures are ignored here; a wait
  /// that times out is a system cancel, like every other sensor wait.
  func awaitButtons() throws(LocalAuthError) -> BiometricPromptResult {
    let fallback = request.fallbackTitle(passcode: settings.passcodeSource) ?? "Enter Password"
    try dependencies.prompter.info("Face not recognized. Choose \"\(request.effectiveCancelTitle)\" or \"\(fallback)\".")
    let deadline = nextDeadline()
    while true {
      let event = try dependencies.sensor.nextEvent(
        for: request.user, deadline: deadline, cancellation: request.cancellation)
      if request.cancellation?.isCancelled == true { return .appCancel }
      switch event {
      case .fallback: return .fallback
      case .cancel: return .cancel
      case .timeout: return .timeout
      case .sample, .reader: continue
      }
    }
  }

  func fallbackVisible(after failures: Int) -> Bool {
    request.effectiveFallbackTitle != nil && failures >= modality.failuresBeforeFallback
  }

  /// Records a match under the user's lock; false when biometry got locked out meanwhile.
  private func recordMatch(_ name: String) throws(LocalAuthError) -> Bool {
    let clock = dependencies.clock
    let threshold = settings.lockoutThreshold
    let origin = request.origin
    let purpose = request.purpose
    let recorded = try updateRecord(in: dependencies.store, request.user) { record throws(LocalAuthError) -> Bool in
      guard !record.isBiometryLockedOut(threshold: threshold) else { return false }
      let now = clock.now()
      record.biometricFailures = 0
      record.lastBiometricSuccess = now
      record.lastSuccess = now
      if let state = record.domainState {
        record.noteReuse(
          ReuseStamp(
            at: now, bootID: clock.bootID(), domainState: state, requesterUID: origin.requesterUID,
            scope: origin.reuseScope, purpose: purpose))
      }
      return true
    }
    if recorded {
      dependencies.log.log(.info, "Biometric match succeeded for user \(request.user) with \(modality.itemNoun) \(name).")
    } else {
      dependencies.log.log(.warning, "Ignored a biometric match for user \(request.user): biometry was locked out meanwhile.")
    }
    return recorded
  }
}
