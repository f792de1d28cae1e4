import LocalAuthCore

/// Wraps a sensor so that `invalidate()` ends a sensor wait promptly: the wait is cut into short slices and
/// the cancellation flag is checked between them (the core then reports `appCancel`).
final class CancellableSensor: BiometricSensor {
  private let inner: BiometricSensor
  private let flag: CancellationFlag
  private let clock: AuthClock
  private let slice: Double

  init(_ inner: BiometricSensor, flag: CancellationFlag, clock: AuthClock, slice: Double = 0.1) {
    self.inner = inner
    self.flag = flag
    self.clock = clock
    self.slice = slice
  }

  var modality: Modality? { inner.modality }

  func openPrompt(for user: UserName, origin: RequestOrigin) throws(LocalAuthError) { try inner.openPrompt(for: user, origin: origin) }

  func openPrompt(_ announcement: PromptAnnouncement) throws(LocalAuthError) {
    try inner.openPrompt(announcement)
  }

  func startFailure(for user: UserName) -> PromptStartFailure? { inner.startFailure(for: user) }

  func closePrompt(for user: UserName) { inner.closePrompt(for: user) }

  func nextEvent(for user: UserName, deadline: WallTime) throws(LocalAuthError) -> SensorEvent {
    while true {
      if flag.isCancelled { return .timeout }
      let sliceEnd = min(deadline, WallTime(seconds: clock.uptime() + slice))
      let event = try inner.nextEvent(for: user, deadline: sliceEnd)
      // A sensor that returned before its slice ended did not wait: pass its answer on rather than spin.
      let now = WallTime(seconds: clock.uptime())
      if event != .timeout || now >= deadline || now < sliceEnd { return event }
    }
  }
}
