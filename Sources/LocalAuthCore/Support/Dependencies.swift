/// Every side effect the core has comes in through this one value: clock, store, sensor, UI, log.
public struct Dependencies {
  /// Time and boot identity.
  public var clock: AuthClock
  /// The state store.
  public var store: StateStore
  /// The biometric sensor.
  public var sensor: BiometricSensor
  /// The user interface.
  public var prompter: AuthPrompter
  /// The log.
  public var log: AuthLog

  /// Collects the side effects.
  public init(clock: AuthClock, store: StateStore, sensor: BiometricSensor, prompter: AuthPrompter, log: AuthLog) {
    self.clock = clock
    self.store = store
    self.sensor = sensor
    self.prompter = prompter
    self.log = log
  }
}
