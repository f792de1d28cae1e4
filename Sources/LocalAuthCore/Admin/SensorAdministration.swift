/// The administrator's side of the simulated sensor: enrolment captures and queued touches or button presses.
///
/// `localauthctl enroll` and `touch` call these, and so can a demo or a test harness, so that identities,
/// capture noise and the queue format live in the core only.
public struct SensorAdministration {
  /// The state folder holding the world seed and the sensor queue.
  public var stateRoot: String
  /// The clock that stamps enrolments and queued events.
  public var clock: AuthClock

  /// Creates the operations over a state folder.
  public init(stateRoot: String, clock: AuthClock) {
    self.stateRoot = stateRoot
    self.clock = clock
  }

  /// Enrolls `user`'s own `item` from simulated captures; the domain state changes.
  public func enroll(_ item: String, modality: Modality, for user: UserName, through admin: Administration) throws {
    guard isValidItemName(item) else { throw AdministrationError.invalidName(item) }
    let simulator = BiometricSimulator(worldSeed: try WorldSeed.load(stateRoot: stateRoot))
    var rng = SystemRandomNumberGenerator()
    let template = simulator.enroll(owner: user.value, item: item, modality: modality, at: clock.now(), using: &rng)
    try admin.enroll(template, for: user)
  }

  /// Queues a capture of `owner`'s `item` (default: `user`'s own) for `user`'s next prompt.
  ///
  /// - Parameter quality: the capture quality from 0 to 1; nil draws a typical placement.
  public func present(
    _ item: String, modality: Modality, quality: Double?, from owner: String? = nil, for user: UserName
  ) throws {
    guard isValidItemName(item) else { throw AdministrationError.invalidName(item) }
    let simulator = BiometricSimulator(worldSeed: try WorldSeed.load(stateRoot: stateRoot))
    var rng = SystemRandomNumberGenerator()
    let identity = simulator.identity(owner: owner ?? user.value, item: item, modality: modality)
    let q = quality ?? BiometricSimulator.typicalQuality(using: &rng)
    try queue(.sample(simulator.capture(identity, modality: modality, quality: q, using: &rng)), for: user)
  }

  /// Queues an event (a capture, Cancel or the fallback button) for `user`'s next prompt.
  public func queue(_ event: SensorEvent, for user: UserName) throws {
    var rng = SystemRandomNumberGenerator()
    try SensorQueue(stateRoot: stateRoot).enqueue(event, for: user, at: clock.now(), sequence: rng.next())
  }

  /// The number of events waiting for `user`'s next prompt.
  public func pendingCount(for user: UserName) throws -> Int {
    try SensorQueue(stateRoot: stateRoot).pending(for: user).count
  }

  /// Discards every event waiting for `user`; returns how many there were.
  @discardableResult
  public func discardPending(for user: UserName) throws -> Int {
    let queue = SensorQueue(stateRoot: stateRoot)
    let count = try queue.pending(for: user).count
    try queue.clear(for: user)
    return count
  }
}
