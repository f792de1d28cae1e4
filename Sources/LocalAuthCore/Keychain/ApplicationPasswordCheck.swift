/// Counts and delays guesses of an application password as rule 5 counts and delays passcode guesses
/// (docs/KEYCHAIN.md, "Application passwords"): per user, over every applicationPassword item, on the user's record
/// (`applicationPasswordFailures`, `applicationPasswordNextAllowed`) with the evaluation's clock and
/// `EvaluationSettings.delaySchedule`. A guess made while a delay runs is refused without being checked.
struct ApplicationPasswordCheck {
  /// The clock, the store and the log.
  let dependencies: Dependencies
  /// The delay schedule.
  let settings: EvaluationSettings
  /// Whose guesses these are.
  let user: UserName

  /// Runs `attempt` (opening an item with the given application password) as one guess. The guess is charged
  /// first, so that killing the process mid-check does not undo it; a success clears the count, and an error that
  /// is not a wrong password (errSecAuthFailed) gives the charge back. While a delay runs: `authenticationFailed`.
  func guess<T>(item: String, _ attempt: () throws(KeychainError) -> T) throws(LocalAuthError) -> T {
    let clock = dependencies.clock
    let counter = GuessCounter(schedule: settings.delaySchedule)
    let charged = try updateRecord(in: dependencies.store, user) { record throws(LocalAuthError) -> Charge in
      let now = clock.now()
      if let next = counter.runningDelay(&record.applicationPasswordNextAllowed, now: now) { return .delayed(next) }
      return .charged(
        counter.charge(
          failures: &record.applicationPasswordFailures, nextAllowed: &record.applicationPasswordNextAllowed, now: now))
    }
    let charge: GuessCounter.Charge
    switch charged {
    case .delayed(let next):
      dependencies.log.log(
        .notice,
        "An application password for keychain item \(item) of user \(user) was refused unchecked: guesses are delayed for \(wholeSeconds(next.since(clock.now()))) more seconds.")
      throw .keychain(.authenticationFailed)
    case .charged(let done): charge = done
    }
    let outcome: Result<T, KeychainError>
    do throws(KeychainError) { outcome = .success(try attempt()) } catch { outcome = .failure(error) }
    switch outcome {
    case .success(let result):
      try dependencies.store.modify(user) { record throws(LocalAuthError) in
        counter.clear(failures: &record.applicationPasswordFailures, nextAllowed: &record.applicationPasswordNextAllowed)
      }
      return result
    case .failure(.authenticationFailed):
      let delay = counter.schedule.delay(afterFailures: charge.failures)
      dependencies.log.log(
        .notice,
        "A wrong application password was given for keychain item \(item) of user \(user) (\(charge.failures) in a row"
          + (delay > 0 ? "; the next guess waits \(Int(delay)) seconds)." : ")."))
      throw .keychain(.authenticationFailed)
    case .failure(let error):
      try dependencies.store.modify(user) { record throws(LocalAuthError) in
        counter.refund(charge, failures: &record.applicationPasswordFailures, nextAllowed: &record.applicationPasswordNextAllowed)
      }
      throw .keychain(error)
    }
  }

  /// What the charge found.
  private enum Charge {
    /// A delay runs until then: the guess is not checked.
    case delayed(WallTime)
    /// Charged: what to clear or give back.
    case charged(GuessCounter.Charge)
  }
}
