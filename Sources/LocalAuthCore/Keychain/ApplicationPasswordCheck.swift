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
    let schedule = settings.delaySchedule
    let longest = FutureTimes.longestDelay(schedule)
    let charged = try updateRecord(in: dependencies.store, user) { record throws(LocalAuthError) -> Charge in
      let now = clock.now()
      // A deadline set while the clock ran ahead is capped before it is enforced, as the passcode's is.
      if let next = record.applicationPasswordNextAllowed, !(next.seconds <= now.adding(longest).seconds) {
        record.applicationPasswordNextAllowed = now.adding(longest)
      }
      if let next = record.applicationPasswordNextAllowed, !(now.seconds >= next.seconds) { return .delayed(next) }
      let previous = Charge.charged(failures: record.applicationPasswordFailures, until: record.applicationPasswordNextAllowed)
      record.applicationPasswordFailures += 1
      let delay = schedule.delay(afterFailures: record.applicationPasswordFailures)
      record.applicationPasswordNextAllowed = delay > 0 ? now.adding(delay) : nil
      return previous
    }
    guard case .charged(let failures, let until) = charged else {
      if case .delayed(let next) = charged {
        dependencies.log.log(
          .notice,
          "An application password for keychain item \(item) of user \(user) was refused unchecked: guesses are delayed for \(Int(next.since(clock.now()).rounded(.up))) more seconds.")
      }
      throw .keychain(.authenticationFailed)
    }
    let outcome: Result<T, KeychainError>
    do throws(KeychainError) { outcome = .success(try attempt()) } catch { outcome = .failure(error) }
    switch outcome {
    case .success(let result):
      try dependencies.store.modify(user) { record throws(LocalAuthError) in
        record.applicationPasswordFailures = 0
        record.applicationPasswordNextAllowed = nil
      }
      return result
    case .failure(.authenticationFailed):
      let count = failures + 1
      let delay = schedule.delay(afterFailures: count)
      dependencies.log.log(
        .notice,
        "A wrong application password was given for keychain item \(item) of user \(user) (\(count) in a row"
          + (delay > 0 ? "; the next guess waits \(Int(delay)) seconds)." : ")."))
      throw .keychain(.authenticationFailed)
    case .failure(let error):
      try dependencies.store.modify(user) { record throws(LocalAuthError) in
        record.applicationPasswordFailures = failures
        record.applicationPasswordNextAllowed = until
      }
      throw .keychain(error)
    }
  }

  /// What the charge found.
  private enum Charge {
    /// A delay runs until then: the guess is not checked.
    case delayed(WallTime)
    /// Charged; the count and deadline before the charge, to give back.
    case charged(failures: Int, until: WallTime?)
  }
}
