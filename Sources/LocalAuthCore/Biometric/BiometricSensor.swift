/// What the sensor reports while a prompt waits.
public enum SensorEvent: Equatable, Sendable {
  /// A capture was presented.
  case sample(BiometricSample)
  /// The prompt's Cancel button was pressed.
  case cancel
  /// The prompt's fallback button was pressed.
  case fallback
  /// Nothing happened before the deadline.
  case timeout
}

/// A biometric sensor: it reports events for a user's prompt and never decides a match.
public protocol BiometricSensor: AnyObject {
  /// The sensor's modality, or nil when no sensor is configured (biometryNotAvailable).
  var modality: Modality? { get }
  /// Announces that a prompt for `user`, asked by `origin`, waits: only events presented to it reach it.
  func openPrompt(for user: UserName, origin: RequestOrigin) throws
  /// Withdraws the prompt for `user`; what was presented to it and not read is discarded.
  func closePrompt(for user: UserName)
  /// Waits until an event arrives for `user`'s prompt or `deadline` passes.
  ///
  /// Deadlines are points on `AuthClock.uptime()`, the clock that never jumps.
  func nextEvent(for user: UserName, deadline: WallTime) throws -> SensorEvent
  /// Like `nextEvent(for:deadline:)`, but returns `.timeout` early once `cancellation` is set.
  func nextEvent(for user: UserName, deadline: WallTime, cancellation: CancellationFlag?) throws -> SensorEvent
}

extension BiometricSensor {
  /// Sensors whose events are not presented to a named prompt (scripted ones) need no announcement.
  public func openPrompt(for user: UserName, origin: RequestOrigin) throws {}
  /// Nothing to withdraw.
  public func closePrompt(for user: UserName) {}

  /// The default ignores the flag; the caller checks it after the event (sensors that wait override this).
  public func nextEvent(for user: UserName, deadline: WallTime, cancellation: CancellationFlag?) throws -> SensorEvent {
    try nextEvent(for: user, deadline: deadline)
  }
}

/// A sensor that is not there.
public final class AbsentSensor: BiometricSensor {
  /// Creates an absent sensor.
  public init() {}
  /// Always nil: there is no sensor.
  public var modality: Modality? { nil }
  public func nextEvent(for user: UserName, deadline: WallTime) throws -> SensorEvent { .timeout }
}

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

  public func nextEvent(for user: UserName, deadline: WallTime) throws -> SensorEvent {
    try nextEvent(for: user, deadline: deadline, cancellation: nil)
  }

  /// Replays the next event; a set `cancellation` ends the wait at once without consuming an event.
  public func nextEvent(for user: UserName, deadline: WallTime, cancellation: CancellationFlag?) throws -> SensorEvent {
    if cancellation?.isCancelled == true { return .timeout }
    if let event: SensorEvent = lock.withLock({ queue.isEmpty ? nil : queue.removeFirst() }) { return event }
    let wait = deadline.seconds - clock.uptime()
    if wait > 0 { clock.sleep(wait) }
    return .timeout
  }
}
