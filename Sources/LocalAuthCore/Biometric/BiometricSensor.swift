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
  /// A reader that matches on its own (fprintd) reported a result.
  case reader(ReaderResult)
}

/// What a reader that matches prints itself (fprintd) reports; the simulated sensor never gives one.
public enum ReaderResult: Equatable, Sendable {
  /// The finger matched the named enrolled print.
  case match(item: String)
  /// The finger did not match any enrolled print.
  case noMatch
  /// The scan was unusable; the user should present again (not a failed match). The text says how.
  case retry(String)
  /// The reader went away or failed (disconnected, unknown error): biometry is not available now. The text says why.
  case lost(String)
}

/// The prints a reader keeps itself (fprintd): the enrolled items and a digest of them that changes whenever a
/// print is added, removed or enrolled again (the domain state).
public struct ReaderEnrollment: Equatable, Sendable {
  /// The enrolled items ("right-index-finger").
  package var items: [String]
  /// The domain state; nil when nothing is enrolled.
  package var domainState: String?

  /// Describes an enrollment.
  public init(items: [String], domainState: String?) {
    self.items = items
    self.domainState = items.isEmpty ? nil : domainState
  }
}

/// A biometric sensor: it reports events for a user's prompt and never decides a match.
public protocol BiometricSensor: AnyObject {
  /// The sensor's modality, or nil when no sensor is configured (biometryNotAvailable).
  var modality: Modality? { get }
  /// Announces that a prompt for `user`, asked by `origin`, waits: only events presented to it reach it.
  func openPrompt(for user: UserName, origin: RequestOrigin) throws(LocalAuthError)
  /// Opens the prompt the evaluation announced in the prompt registry (`PromptLease`): a sensor whose events are presented
  /// to a named prompt (the simulated one) reads those presented to this announcement; a reader claims itself as
  /// for `openPrompt(for:origin:)`. Sensors that wrap another pass this on.
  func openPrompt(_ announcement: PromptAnnouncement) throws(LocalAuthError)
  /// Why the prompt opened last for `user` is not waiting (the reader could not be claimed), or nil when it is.
  func startFailure(for user: UserName) -> PromptStartFailure?
  /// Withdraws the prompt for `user`; what was presented to it and not read is discarded.
  func closePrompt(for user: UserName)
  /// Waits until an event arrives for `user`'s prompt or `deadline` passes.
  ///
  /// Deadlines are points on `AuthClock.uptime()`, the clock that never jumps.
  func nextEvent(for user: UserName, deadline: WallTime) throws(LocalAuthError) -> SensorEvent
  /// Like `nextEvent(for:deadline:)`, but returns `.timeout` early once `cancellation` is set.
  func nextEvent(for user: UserName, deadline: WallTime, cancellation: CancellationFlag?) throws(LocalAuthError) -> SensorEvent
  /// The prints the reader itself keeps for `user`, or nil when enrollment lives in the user's record (the
  /// simulated sensor).
  func readerEnrollment(for user: UserName) -> ReaderEnrollment?
  /// What the prompt asks the user to do ("Place your finger on the Goodix reader"), or nil for the modality's
  /// own instruction.
  func instruction(for user: UserName) -> String?
  /// A descriptor that becomes readable when an event may be waiting for `user`'s prompt, or -1 when there is
  /// none to wait on (then a parallel prompt asks the sensor in short slices).
  func wakeDescriptor(for user: UserName) -> Int32
}

extension BiometricSensor {
  /// Sensors whose events are not presented to a named prompt (scripted ones) need no announcement.
  public func openPrompt(for user: UserName, origin: RequestOrigin) throws(LocalAuthError) {}
  /// A sensor without a registry of its own opens the prompt as it always did.
  public func openPrompt(_ announcement: PromptAnnouncement) throws(LocalAuthError) {
    try openPrompt(for: announcement.user, origin: announcement.origin)
  }
  /// The prompt waits.
  public func startFailure(for user: UserName) -> PromptStartFailure? { nil }
  /// Nothing to withdraw.
  public func closePrompt(for user: UserName) {}
  /// Enrollment lives in the record.
  public func readerEnrollment(for user: UserName) -> ReaderEnrollment? { nil }
  /// The modality's instruction.
  public func instruction(for user: UserName) -> String? { nil }
  /// No descriptor to wait on.
  public func wakeDescriptor(for user: UserName) -> Int32 { -1 }

  /// The default ignores the flag; the caller checks it after the event (sensors that wait override this).
  public func nextEvent(for user: UserName, deadline: WallTime, cancellation: CancellationFlag?) throws(LocalAuthError) -> SensorEvent {
    try nextEvent(for: user, deadline: deadline)
  }
}

/// Why a sensor's prompt could not start waiting.
public enum PromptStartFailure: Equatable, Sendable {
  /// Another program holds the reader (fprintd's Claim: AlreadyInUse).
  case readerInUse
  /// The reader could not start a verification; the text says why.
  case failed(String)
}

/// A sensor that is not there.
public final class AbsentSensor: BiometricSensor {
  /// Creates an absent sensor.
  public init() {}
  /// Always nil: there is no sensor.
  public var modality: Modality? { nil }
  public func nextEvent(for user: UserName, deadline: WallTime) throws(LocalAuthError) -> SensorEvent { .timeout }
}
