/// The simulated sensor: each prompt announces itself in the runtime folder and reads only the events presented
/// to it (`localauthctl touch`), waking as soon as one arrives (its doorbell rings).
public final class SpoolSensor: BiometricSensor, @unchecked Sendable {
  /// The modality it reports, or nil for no sensor.
  public let modality: Modality?
  private let registry: PromptRegistry
  private let clock: AuthClock
  private let log: AuthLog
  private let expiry: Double
  private let lock = Mutex()
  /// The prompts waiting in this process; `own` when this sensor announced it (and withdraws it).
  private var open: [UserName: (announcement: PromptAnnouncement, doorbell: PromptDoorbell, own: Bool)] = [:]

  /// Creates a sensor of `modality` over the prompts of `runtimeRoot` (Options.runtimeRoot); events older than
  /// `expiry` seconds are dropped.
  public init(modality: Modality?, runtimeRoot: String, clock: AuthClock, log: AuthLog, expiry: Double = 30) {
    self.modality = modality
    self.registry = PromptRegistry(root: runtimeRoot)
    self.clock = clock
    self.log = log
    self.expiry = expiry
  }

  /// The announcement of the prompt waiting for `user` in this process, if any.
  package func announcement(for user: UserName) -> PromptAnnouncement? { lock.withLock { open[user]?.announcement } }

  public func openPrompt(for user: UserName, origin: RequestOrigin) throws(LocalAuthError) {
    guard let modality else { return }
    if lock.withLock({ open[user] != nil }) {
      throw .state(.io(path: registry.folder, operation: "announce a second prompt for \(user) in", errno: Errno.busy.code))
    }
    let announcement: PromptAnnouncement
    do {
      announcement = try registry.announce(user: user, modality: modality, origin: origin, at: clock.now())
    } catch {
      throw .state(error)
    }
    let doorbell = PromptDoorbell(listeningAt: registry.doorbell(of: announcement.id))
    lock.withLock { open[user] = (announcement, doorbell, true) }
    log.log(
      .debug,
      "Prompt \(announcement.id) waits for user \(user) (service \(origin.service), tty \(origin.tty.isEmpty ? "none" : origin.tty), requested by uid \(origin.requesterUID)).")
  }

  /// Reads the events presented to the prompt the evaluation announced (and withdraws) in this runtime folder.
  public func openPrompt(_ announcement: PromptAnnouncement) throws(LocalAuthError) {
    guard modality != nil else { return }
    let user = announcement.user
    if lock.withLock({ open[user] != nil }) {
      throw .state(.io(path: registry.folder, operation: "announce a second prompt for \(user) in", errno: Errno.busy.code))
    }
    let doorbell = PromptDoorbell(listeningAt: registry.doorbell(of: announcement.id))
    lock.withLock { open[user] = (announcement, doorbell, false) }
  }

  public func closePrompt(for user: UserName) {
    guard let entry = lock.withLock({ open.removeValue(forKey: user) }), entry.own else { return }
    registry.withdraw(entry.announcement.id)
  }

  public func nextEvent(for user: UserName, deadline: WallTime) throws(LocalAuthError) -> SensorEvent {
    try nextEvent(for: user, deadline: deadline, cancellation: nil)
  }

  /// The doorbell of the prompt waiting for `user`: it rings when `localauthctl touch` presents an event.
  public func wakeDescriptor(for user: UserName) -> Int32 { lock.withLock { open[user]?.doorbell.descriptor ?? -1 } }

  /// Waits for an event presented to this process's prompt for `user` until `deadline` (on `clock.uptime()`)
  /// or the caller's cancellation; without an announced prompt nothing can arrive.
  public func nextEvent(for user: UserName, deadline: WallTime, cancellation: CancellationFlag?) throws(LocalAuthError) -> SensorEvent {
    guard let entry = lock.withLock({ open[user] }) else { return .timeout }
    while true {
      if cancellation?.isCancelled == true { return .timeout }
      entry.doorbell.drain()
      let event: SensorEvent?
      do {
        event = try registry.take(from: entry.announcement.id, now: clock.now(), expiry: expiry, log: log)
      } catch {
        throw .state(error)
      }
      if let event { return event }
      let left = deadline.seconds - clock.uptime()
      if left <= 0 { return .timeout }
      // The doorbell wakes the wait at once; the slice bounds how late a cancellation is seen.
      clock.sleep(min(entry.doorbell.descriptor >= 0 ? 0.25 : 0.05, left), wakingOn: entry.doorbell.descriptor)
    }
  }
}
