import LocalAuthCore

/// A sensor whose events are queued in advance: tests and scripted runs need no timing.
public final class ScriptedSensor: BiometricSensor, @unchecked Sendable {
  private let lock = Mutex()
  private var queue: [SensorEvent]
  private let clock: AuthClock
  /// The modality it reports.
  public let modality: Modality?

  /// Creates a sensor of `modality` that replays `events`, advancing `clock` to the deadline when empty.
  public init(modality: Modality? = .touchID, clock: AuthClock, events: [SensorEvent] = []) {
    self.modality = modality
    self.clock = clock
    self.queue = events
  }

  /// Queues more events.
  public func enqueue(_ events: SensorEvent...) { lock.withLock { queue += events } }

  /// The events not consumed yet.
  public var pending: [SensorEvent] { lock.withLock { queue } }

  public func nextEvent(for user: UserName, deadline: WallTime) throws(LocalAuthError) -> SensorEvent {
    try nextEvent(for: user, deadline: deadline, cancellation: nil)
  }

  /// Replays the next event; a set `cancellation` ends the wait at once without consuming an event.
  public func nextEvent(for user: UserName, deadline: WallTime, cancellation: CancellationFlag?) throws(LocalAuthError) -> SensorEvent {
    if cancellation?.isCancelled == true { return .timeout }
    if let event: SensorEvent = lock.withLock({ queue.isEmpty ? nil : queue.removeFirst() }) { return event }
    let wait = deadline.seconds - clock.uptime()
    if wait > 0 { clock.sleep(wait) }
    return .timeout
  }
}
