/// Wraps the helper's sensor for an app's session: the wait is cut into short slices, and between them the
/// app's socket is checked. When the app hung up (it exited, or invalidated the context), the wait ends at once
/// and the cancellation flag is set, so the prompt closes and no later finger reaches a request nobody waits for.
final class HangUpSensor: BiometricSensor {
  private let inner: BiometricSensor
  private let channel: HelperChannel
  private let flag: CancellationFlag
  private let clock: AuthClock
  private let slice: Double

  init(_ inner: BiometricSensor, channel: HelperChannel, flag: CancellationFlag, clock: AuthClock, slice: Double = 0.1) {
    self.inner = inner
    self.channel = channel
    self.flag = flag
    self.clock = clock
    self.slice = slice
  }

  var modality: Modality? { inner.modality }

  func openPrompt(for user: UserName, origin: RequestOrigin) throws(LocalAuthError) {
    try inner.openPrompt(for: user, origin: origin)
  }

  func openPrompt(_ announcement: PromptAnnouncement) throws(LocalAuthError) {
    try inner.openPrompt(announcement)
  }

  func startFailure(for user: UserName) -> PromptStartFailure? { inner.startFailure(for: user) }

  func closePrompt(for user: UserName) { inner.closePrompt(for: user) }

  func readerEnrollment(for user: UserName) -> ReaderEnrollment? { inner.readerEnrollment(for: user) }

  func instruction(for user: UserName) -> String? { inner.instruction(for: user) }

  func wakeDescriptor(for user: UserName) -> Int32 { inner.wakeDescriptor(for: user) }

  func nextEvent(
    for user: UserName, deadline: WallTime, cancellation: CancellationFlag?
  ) throws(LocalAuthError) -> SensorEvent {
    let event = try nextEvent(for: user, deadline: deadline)
    return cancellation?.isCancelled == true ? .timeout : event
  }

  func nextEvent(for user: UserName, deadline: WallTime) throws(LocalAuthError) -> SensorEvent {
    while true {
      if flag.isCancelled || channel.peerHungUp() {
        flag.cancel()
        return .timeout
      }
      let sliceEnd = min(deadline, WallTime(seconds: clock.uptime() + slice))
      let event = try inner.nextEvent(for: user, deadline: sliceEnd)
      let now = WallTime(seconds: clock.uptime())
      if event != .timeout || now >= deadline || now < sliceEnd { return event }
    }
  }
}

extension HelperChannel {
  /// True when the other side closed or shut down its end (nothing is read).
  package func peerHungUp() -> Bool { Syscalls.peerHungUp(fd) }
}
