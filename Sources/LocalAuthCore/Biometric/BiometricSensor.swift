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
  func openPrompt(for user: UserName, origin: RequestOrigin) throws(LocalAuthError)
  /// Withdraws the prompt for `user`; what was presented to it and not read is discarded.
  func closePrompt(for user: UserName)
  /// Waits until an event arrives for `user`'s prompt or `deadline` passes.
  ///
  /// Deadlines are points on `AuthClock.uptime()`, the clock that never jumps.
  func nextEvent(for user: UserName, deadline: WallTime) throws(LocalAuthError) -> SensorEvent
  /// Like `nextEvent(for:deadline:)`, but returns `.timeout` early once `cancellation` is set.
  func nextEvent(for user: UserName, deadline: WallTime, cancellation: CancellationFlag?) throws(LocalAuthError) -> SensorEvent
}

extension BiometricSensor {
  /// Sensors whose events are not presented to a named prompt (scripted ones) need no announcement.
  public func openPrompt(for user: UserName, origin: RequestOrigin) throws(LocalAuthError) {}
  /// Nothing to withdraw.
  public func closePrompt(for user: UserName) {}

  /// The default ignores the flag; the caller checks it after the event (sensors that wait override this).
  public func nextEvent(for user: UserName, deadline: WallTime, cancellation: CancellationFlag?) throws(LocalAuthError) -> SensorEvent {
    try nextEvent(for: user, deadline: deadline)
  }
}

/// A sensor that is not there.
public final class AbsentSensor: BiometricSensor {
  /// Creates an absent sensor.
  public init() {}
  /// Always nil: there is no sensor.
  public var modality: Modality? { nil }
  public func nextEvent(for user: UserName, deadline: WallTime) throws(LocalAuthError) -> SensorEvent { .timeout }
}
