/// Times in a record that lie further in the future than any rule can put them, after the clock jumped forward
/// and back (issue 20, finding 7).
///
/// A passcode delay is stored as an absolute deadline. Set while the clock ran decades ahead, it would hold the
/// passcode back for decades once the clock is right again ("Try again in 555556 hours"). No rule puts a
/// deadline further ahead than the longest delay of the schedule (1 hour in Apple's table), so a deadline
/// beyond `now + longest delay` is capped there. The times of past events (successes, failures, the reuse
/// stamp) cannot lie in the future at all; beyond the same margin they are set to now (the reuse stamp is
/// dropped), so that a success dated in the future cannot postpone the idle and passcode-age rules either.
package struct FutureTimes: Equatable, Sendable {
  /// How far ahead of the clock the furthest capped time lay, in seconds; 0 when none did.
  package var furthest: Double = 0
  /// True when the passcode delay's deadline was capped.
  package var cappedDelay = false
  /// The names of the other times set to now ("last success", "2 recent failures", "the reuse window").
  package var others: [String] = []

  /// True when nothing was beyond the cap.
  package var isEmpty: Bool { !cappedDelay && others.isEmpty }

  /// The longest delay `schedule` can bring: the latest deadline any rule sets, counted from now.
  package static func longestDelay(_ schedule: DelaySchedule) -> Double {
    max(schedule.delays.max() ?? 0, 0)
  }

  /// Caps the times of `record` that lie beyond `now + longestDelay`, and says what it changed. A time that is
  /// not a number counts as beyond; a clock that is not a finite number changes nothing (the delay check keeps
  /// the deadline against such a clock, and nothing it reads is written back).
  package static func cap(_ record: inout UserRecord, now: WallTime, longestDelay: Double) -> FutureTimes {
    var found = FutureTimes()
    guard now.seconds.isFinite, longestDelay.isFinite else { return found }
    let limit = now.adding(longestDelay)
    func beyond(_ time: WallTime) -> Bool {
      guard !(time.seconds <= limit.seconds) else { return false }
      let ahead = time.since(now)
      found.furthest = ahead.isNaN ? found.furthest : max(found.furthest, ahead)
      return true
    }
    if let ahead = capDeadline(&record.passcodeNextAllowed, now: now, longestDelay: longestDelay) {
      found.furthest = ahead.isNaN ? found.furthest : max(found.furthest, ahead)
      found.cappedDelay = true
    }
    if let time = record.lastSuccess, beyond(time) {
      record.lastSuccess = now
      found.others.append("last success")
    }
    if let time = record.lastBiometricSuccess, beyond(time) {
      record.lastBiometricSuccess = now
      found.others.append("last biometric match")
    }
    if let time = record.lastPasscodeSuccess, beyond(time) {
      record.lastPasscodeSuccess = now
      found.others.append("last passcode success")
    }
    if record.reuseStamps.contains(where: { beyond($0.at) }) {
      record.reuseStamps.removeAll { beyond($0.at) }
      found.others.append("reuse window")
    }
    var failures = 0
    for index in record.recentFailures.indices where beyond(record.recentFailures[index].at) {
      record.recentFailures[index].at = now
      failures += 1
    }
    if failures > 0 { found.others.append(failures == 1 ? "1 recent failure" : "\(failures) recent failures") }
    return found
  }

  /// Caps one deadline (a guess counter's next allowed time) beyond `now + longestDelay` there, and says how far
  /// ahead of `now` it lay; nil when it was not beyond. As `cap`: a deadline that is not a number counts as
  /// beyond, a clock that is not a finite number changes nothing.
  package static func capDeadline(_ deadline: inout WallTime?, now: WallTime, longestDelay: Double) -> Double? {
    guard now.seconds.isFinite, longestDelay.isFinite else { return nil }
    let limit = now.adding(longestDelay)
    guard let time = deadline, !(time.seconds <= limit.seconds) else { return nil }
    deadline = limit
    return time.since(now)
  }

  /// The log line for `user`: one plain sentence, in Linux-PAM style; nil when nothing was capped.
  package func sentence(user: UserName, longestDelay: Double) -> String? {
    guard !isEmpty else { return nil }
    let ahead = "\(wholeSeconds(furthest)) seconds ahead of the clock"
    let others = self.others.joined(separator: ", ")
    guard cappedDelay else {
      return "The record of user \(user) held times in the future (\(others); up to \(ahead)); set to now."
    }
    let capped = "capped at \(describeDuration(longestDelay))"
    guard !self.others.isEmpty else {
      return "The passcode delay of user \(user) ended in the future (\(ahead)); \(capped)."
    }
    return "The passcode delay of user \(user) ended in the future (\(ahead)); \(capped), and its other times in the future (\(others)) set to now."
  }
}
