/// Rule 5's guess counter over one pair of record fields: consecutive failures and the earliest time the next guess
/// is checked. The passcode (`passcodeFailures`, `passcodeNextAllowed`; `PasscodeCheck`) and the application
/// passwords (`applicationPasswordFailures`, `applicationPasswordNextAllowed`; `ApplicationPasswordCheck`) count
/// their guesses with it, under the record's lock, so that both follow one schedule the same way.
///
/// A guess is charged before it is checked, so that killing the process mid-check does not undo it and guesses
/// made in parallel are slowed as well; a success clears the count, and a guess that turns out not to count is
/// refunded. The methods take the two fields `inout`, so that the counter stores nothing of its own and the
/// record's format stays what it is.
struct GuessCounter {
  /// The delays the failures bring.
  let schedule: DelaySchedule

  /// One charged guess: the count and deadline it set, and the deadline before it, for a refund.
  struct Charge: Equatable {
    /// The count of consecutive failures, this guess included.
    let failures: Int
    /// The deadline this count brings; nil when it brings none.
    let until: WallTime?
    /// The deadline the record had before the charge.
    let previousUntil: WallTime?
  }

  /// The deadline still running at `now`, or nil when a guess may be checked. A deadline beyond the longest delay
  /// of the schedule (set while the clock ran ahead) is capped there first (`FutureTimes.capDeadline`). Compared
  /// as !(now >= next) on the raw seconds, so that a clock reading that is not a number keeps the delay.
  func runningDelay(_ nextAllowed: inout WallTime?, now: WallTime) -> WallTime? {
    _ = FutureTimes.capDeadline(&nextAllowed, now: now, longestDelay: FutureTimes.longestDelay(schedule))
    guard let next = nextAllowed, !GuessCounter.allows(next, now: now) else { return nil }
    return next
  }

  /// True when a guess may be checked at `now` against the deadline `next` (raw seconds, so NaN keeps the delay).
  static func allows(_ next: WallTime, now: WallTime) -> Bool { now.seconds >= next.seconds }

  /// Counts one more failure and sets the delay that count brings, from `now`.
  func charge(failures: inout Int, nextAllowed: inout WallTime?, now: WallTime) -> Charge {
    let previousUntil = nextAllowed
    failures += 1
    let delay = schedule.delay(afterFailures: failures)
    nextAllowed = delay > 0 ? now.adding(delay) : nil
    return Charge(failures: failures, until: nextAllowed, previousUntil: previousUntil)
  }

  /// Gives `charge` back: the count, unless a reset or a success cleared it meanwhile, and its deadline, unless
  /// another guess replaced it.
  func refund(_ charge: Charge, failures: inout Int, nextAllowed: inout WallTime?) {
    if failures >= charge.failures { failures -= 1 }
    if nextAllowed == charge.until { nextAllowed = charge.previousUntil }
  }

  /// A success: no failures, no delay.
  func clear(failures: inout Int, nextAllowed: inout WallTime?) {
    failures = 0
    nextAllowed = nil
  }
}
