/// What one passcode check decided.
enum PasscodeVerdict: Equatable {
  case accepted
  case wrong(failures: Int, repeated: Bool, delayUntil: WallTime?)
  case delayed(until: WallTime)
  case notSet
}

/// Asks for the passcode and checks it, applying Apple's escalating delays; yescrypt never runs under the lock.
struct PasscodeCheck {
  let dependencies: Dependencies
  let settings: EvaluationSettings
  let request: EvaluationRequest
  /// The record the evaluation read just before, when no prompt ran since; nil reads it again.
  var fresh: UserRecord? = nil
  /// The passcode already typed in a parallel prompt: checked as if typed at this step's prompt.
  var entered: SecretBytes? = nil
  /// The parallel prompt still open after the finger's step: this step reads it, keeping what was typed.
  var entry: ParallelEntry? = nil

  func run() throws(LocalAuthError) -> EvaluationOutcome {
    defer { entered?.wipe() }
    let user = request.user
    let clock = dependencies.clock
    // The delay is enforced before the user types anything, and again under the lock below.
    // Compared as !(now >= next) on the raw seconds, so that a clock reading that is not a number keeps the
    // delay (WallTime's derived >= is !(<), which a NaN would pass).
    // The check under the lock is the one that counts, so a record read a moment ago is good enough here.
    var record = if let fresh { fresh } else { try dependencies.store.load(user) ?? UserRecord() }
    // A deadline beyond the longest delay (the clock jumped) is shown capped; `check` writes the cap back.
    _ = FutureTimes.cap(&record, now: clock.now(), longestDelay: FutureTimes.longestDelay(settings.delaySchedule))
    if let next = record.passcodeNextAllowed, !GuessCounter.allows(next, now: clock.now()) {
      return try refuseDelayed(until: next)
    }
    let account = settings.passcodeSource == .account
    let title = request.fallbackTitle(passcode: settings.passcodeSource) ?? (account ? "Enter Password" : "Enter Passcode")
    let secret: SecretBytes
    switch try obtain(title + ": ") {
    case .secret(let typed): secret = typed
    case .cancelled: return .failure(.userCancel, .none)
    case .sensorReady, .timedOut: return .failure(.systemCancel, .none)
    }
    defer { secret.wipe() }
    if request.cancellation?.isCancelled == true { return .failure(.appCancel, .none) }
    if secret.isEmpty {
      dependencies.log.log(.notice, "Empty \(noun) entered for user \(user); not counted.")
      return .failure(.authenticationFailed, .none)
    }
    let verdict = try check(secret)
    switch verdict {
    case .accepted:
      request.passcodeCapture?.keep(secret)
      dependencies.log.log(.info, account ? "Login password accepted as the passcode for user \(user)." : "Passcode accepted for user \(user).")
      return .success(.passcode)
    case .notSet:
      return .failure(.passcodeNotSet, .none)
    case .delayed(let until):
      return try refuseDelayed(until: until)
    case .wrong(let failures, let repeated, let delayUntil):
      dependencies.log.log(
        .notice,
        "Wrong \(noun) for user \(user) (\(failures) consecutive failure\(failures == 1 ? "" : "s")\(repeated ? ", repeated entry not counted" : ""))."
      )
      var message = account ? "Wrong password." : "Wrong passcode."
      if let delayUntil {
        message += " Try again in \(describeDuration(delayUntil.since(clock.now())))."
      }
      try dependencies.prompter.error(message)
      return .failure(.authenticationFailed, .none)
    }
  }

  /// What the first, locked step of a check decided: stop here, or hash against `stored` with the attempt charged.
  enum Charge {
    case stop(PasscodeVerdict)
    /// The attempt is charged (`GuessCounter`): the count and delay it set, and the delay before, for a refund.
    case charged(stored: String, GuessCounter.Charge)
  }

  /// Checks `secret`: delay and charge under the lock, hash without it, then record the result under the lock.
  ///
  /// yescrypt runs without the user's lock, so a process stopped or hung mid-hash (SIGSTOP, a debugger) blocks
  /// no other prompt and no `localauthctl reset`. The attempt is counted before the hash, as a failure with the
  /// delay that count brings, so killing the process mid-hash does not undo it and attempts made in parallel
  /// are slowed as well; success then clears the counters, and a repeated identical wrong entry is refunded.
  /// The charge also notes the attempt in `recentFailures` with its origin, as a failed match is noted, and
  /// a success or a refund takes that entry back.
  func check(_ secret: SecretBytes) throws(LocalAuthError) -> PasscodeVerdict {
    let clock = dependencies.clock
    let hasher = settings.hasher
    let counter = GuessCounter(schedule: settings.delaySchedule)
    let failure = FailureEntry(at: clock.now(), kind: .passcode, origin: request.origin)
    let longest = FutureTimes.longestDelay(counter.schedule)
    var future = FutureTimes()
    defer {
      if let sentence = future.sentence(user: request.user, longestDelay: longest) { dependencies.log.log(.warning, sentence) }
    }
    let charge = try updateRecord(in: dependencies.store, request.user) { record throws(LocalAuthError) -> Charge in
      let now = clock.now()
      // A deadline set while the clock ran ahead is capped (and written back) before it is enforced.
      future = FutureTimes.cap(&record, now: now, longestDelay: longest)
      if let next = counter.runningDelay(&record.passcodeNextAllowed, now: now) { return .stop(.delayed(until: next)) }
      guard let stored = storedHash(in: record) else { return .stop(.notSet) }
      record.noteFailure(failure)
      return .charged(
        stored: stored, counter.charge(failures: &record.passcodeFailures, nextAllowed: &record.passcodeNextAllowed, now: now))
    }
    let (stored, charged): (String, GuessCounter.Charge)
    switch charge {
    case .stop(let verdict):
      if verdict == .notSet { hasher.burnEquivalentWork(for: secret) }
      return verdict
    case .charged(let hash, let done):
      (stored, charged) = (hash, done)
    }
    // A passcode that is too long or holds a NUL can never match; it is refused before hashing.
    let computed = try? hasher.rehash(secret, like: stored)
    return try updateRecord(in: dependencies.store, request.user) { record throws(LocalAuthError) -> PasscodeVerdict in
      // A passcode set or removed meanwhile is never matched against an entry checked with the old one.
      guard let current = storedHash(in: record) else { return .notSet }
      guard current == stored else { return .wrong(failures: record.passcodeFailures, repeated: false, delayUntil: nil) }
      if let computed, constantTimeEquals(Array(computed.utf8), Array(stored.utf8)) {
        let now = clock.now()
        counter.clear(failures: &record.passcodeFailures, nextAllowed: &record.passcodeNextAllowed)
        record.lastWrongPasscodeHash = nil
        record.lastPasscodeSuccess = now
        record.lastPasscodeBootID = clock.bootID()
        record.lastSuccess = now
        record.biometricFailures = 0
        record.acknowledgedDomainState = record.domainState
        record.withdrawFailure(failure)
        return .accepted
      }
      if let computed, let last = record.lastWrongPasscodeHash,
        constantTimeEquals(Array(computed.utf8), Array(last.utf8))
      {
        // Counted once: the charge is refunded (unless a reset, a success or another attempt came meanwhile); any
        // earlier delay has already run out (checked above).
        counter.refund(charged, failures: &record.passcodeFailures, nextAllowed: &record.passcodeNextAllowed)
        record.withdrawFailure(failure)
        return .wrong(failures: record.passcodeFailures, repeated: true, delayUntil: nil)
      }
      record.lastWrongPasscodeHash = computed
      return .wrong(failures: record.passcodeFailures, repeated: false, delayUntil: record.passcodeNextAllowed)
    }
  }

  /// The secret: the one typed in the parallel prompt, read from it now, or asked through the prompter.
  ///
  /// Read from the parallel prompt, the wait is bounded by the sensor's timeout (`timeout=`), as the finger's is.
  private func obtain(_ prompt: String) throws(LocalAuthError) -> ParallelInput {
    if let entered { return .secret(entered) }
    guard let entry else { return .secret(try dependencies.prompter.secret(prompt)) }
    try entry.reprompt(prompt)
    let input = try entry.next(waitingOn: -1, until: dependencies.clock.uptime() + settings.sensorTimeout)
    if case .timedOut = input {
      dependencies.log.log(.notice, "The \(noun) prompt for user \(request.user) timed out after \(wholeSeconds(settings.sensorTimeout)) seconds.")
    }
    return input
  }

  /// The secret's name in messages: "passcode", or "password" when the login password is the passcode.
  private var noun: String { settings.passcodeSource == .account ? "password" : "passcode" }

  /// The hash an entry is checked against: the record's passcode, or the login password's /etc/shadow hash when
  /// `passcode=account` (nil when pam_unix would refuse it: locked, expired; `AccountRefusal`).
  private func storedHash(in record: UserRecord) -> String? {
    switch settings.passcodeSource {
    case .separate: return record.passcodeHash
    case .account:
      let today = dependencies.clock.now().shadowDay
      guard case .success(let hash) = dependencies.accountPasswords.usableHash(for: request.user, today: today) else { return nil }
      return hash
    }
  }

  private func refuseDelayed(until next: WallTime) throws(LocalAuthError) -> EvaluationOutcome {
    let left = next.since(dependencies.clock.now())
    let entry = settings.passcodeSource == .account ? "Password" : "Passcode"
    dependencies.log.log(
      .notice, "\(entry) entry for user \(request.user) refused: delayed for \(wholeSeconds(left)) more seconds.")
    try dependencies.prompter.error("\(entry) entry is disabled after repeated failures. Try again in \(describeDuration(left)).")
    return .failure(.authenticationFailed, .passcodeDelayed(until: next))
  }
}
