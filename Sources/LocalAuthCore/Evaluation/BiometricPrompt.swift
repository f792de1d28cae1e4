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
  var matcher: BiometricMatcher { dependencies.matcher }

  /// Announces the prompt to the sensor for the duration of `body`: only events presented to it reach it.
  func presented<T>(_ body: () throws(LocalAuthError) -> T) throws(LocalAuthError) -> T {
    try dependencies.sensor.openPrompt(for: request.user, origin: request.origin)
    defer { dependencies.sensor.closePrompt(for: request.user) }
    return try body()
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
