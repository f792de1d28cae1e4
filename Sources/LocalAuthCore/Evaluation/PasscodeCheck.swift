/// What one passcode check under the user's lock decided.
enum PasscodeVerdict: Equatable {
  case accepted
  case wrong(failures: Int, repeated: Bool, delayUntil: WallTime?)
  case delayed(until: WallTime)
  case notSet
}

/// Asks for the passcode and checks it under the user's lock, applying Apple's escalating delays.
struct PasscodeCheck {
  let dependencies: Dependencies
  let settings: EvaluationSettings
  let request: EvaluationRequest
  /// The record the evaluation read just before, when no prompt ran since; nil reads it again.
  var fresh: UserRecord? = nil

  func run() throws -> EvaluationOutcome {
    let user = request.user
    let clock = dependencies.clock
    // The delay is enforced before the user types anything, and again under the lock below.
    // Compared as !(now >= next) on the raw seconds, so that a clock reading that is not a number keeps the
    // delay (WallTime's derived >= is !(<), which a NaN would pass).
    // The check under the lock is the one that counts, so a record read a moment ago is good enough here.
    let record = try fresh ?? dependencies.store.load(user)
    if let next = record?.passcodeNextAllowed, !(clock.now().seconds >= next.seconds) {
      return try refuseDelayed(until: next)
    }
    let title = request.effectiveFallbackTitle ?? "Enter Passcode"
    let secret = try dependencies.prompter.secret(title + ": ")
    defer { secret.wipe() }
    if request.cancellation?.isCancelled == true { return .failure(.appCancel, .none) }
    if secret.isEmpty {
      dependencies.log.log(.notice, "Empty passcode entered for user \(user); not counted.")
      return .failure(.authenticationFailed, .none)
    }
    let verdict = try check(secret)
    switch verdict {
    case .accepted:
      dependencies.log.log(.info, "Passcode accepted for user \(user).")
      return .success(.passcode)
    case .notSet:
      return .failure(.passcodeNotSet, .none)
    case .delayed(let until):
      return try refuseDelayed(until: until)
    case .wrong(let failures, let repeated, let delayUntil):
      dependencies.log.log(
        .notice,
        "Wrong passcode for user \(user) (\(failures) consecutive failure\(failures == 1 ? "" : "s")\(repeated ? ", repeated entry not counted" : ""))."
      )
      var message = "Wrong passcode."
      if let delayUntil {
        message += " Try again in \(describeDuration(delayUntil.since(clock.now())))."
      }
      try dependencies.prompter.error(message)
      return .failure(.authenticationFailed, .none)
    }
  }

  /// Checks `secret` under the lock: delay, hash, compare, count.
  func check(_ secret: SecretBytes) throws -> PasscodeVerdict {
    let clock = dependencies.clock
    let hasher = settings.hasher
    let schedule = settings.delaySchedule
    return try dependencies.store.update(request.user) { record -> PasscodeVerdict in
      let now = clock.now()
      if let next = record.passcodeNextAllowed, !(now.seconds >= next.seconds) { return .delayed(until: next) }
      guard let stored = record.passcodeHash else {
        hasher.burnEquivalentWork(for: secret)
        return .notSet
      }
      // A passcode that is too long or holds a NUL can never match; it is refused before hashing.
      let computed = try? hasher.rehash(secret, like: stored)
      if let computed, constantTimeEquals(Array(computed.utf8), Array(stored.utf8)) {
        record.passcodeFailures = 0
        record.lastWrongPasscodeHash = nil
        record.passcodeNextAllowed = nil
        record.lastPasscodeSuccess = now
        record.lastPasscodeBootID = clock.bootID()
        record.lastSuccess = now
        record.biometricFailures = 0
        record.acknowledgedDomainState = record.domainState
        return .accepted
      }
      if let computed, let last = record.lastWrongPasscodeHash,
        constantTimeEquals(Array(computed.utf8), Array(last.utf8))
      {
        // Not counted and no new delay; any earlier delay has already run out (checked above).
        return .wrong(failures: record.passcodeFailures, repeated: true, delayUntil: nil)
      }
      record.passcodeFailures += 1
      record.lastWrongPasscodeHash = computed
      let delay = schedule.delay(afterFailures: record.passcodeFailures)
      record.passcodeNextAllowed = delay > 0 ? now.adding(delay) : nil
      return .wrong(failures: record.passcodeFailures, repeated: false, delayUntil: record.passcodeNextAllowed)
    }
  }

  private func refuseDelayed(until next: WallTime) throws -> EvaluationOutcome {
    let left = next.since(dependencies.clock.now())
    dependencies.log.log(
      .notice, "Passcode entry for user \(request.user) refused: delayed for \(wholeSeconds(left)) more seconds.")
    try dependencies.prompter.error("Passcode entry is disabled after repeated failures. Try again in \(describeDuration(left)).")
    return .failure(.authenticationFailed, .passcodeDelayed(until: next))
  }
}
