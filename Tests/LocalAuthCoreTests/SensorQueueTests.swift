#if canImport(Glibc)
import Glibc
#endif
@testable import LocalAuthCore
import Testing

/// The simulated sensor's spool: events queued before a prompt, expiring, root-only (issue 2, "Simulated biometrics").
@Suite("Simulated sensor: the spool queue")
struct SensorQueueTests {
  @Test("Sensor: a queued capture reaches the next prompt through the spool")
  func queuedCaptureReachesPrompt() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let clock = ManualClock()
    let world = try TestWorld(store: FileStateStore(root: folder.path), clock: clock)
    try world.prime()
    let queue = SensorQueue(stateRoot: folder.path)
    guard case .sample(let sample) = world.genuine() else { return }
    try queue.enqueue(.sample(sample), for: world.user, at: clock.now(), sequence: 1)
    let spool = SpoolSensor(modality: .touchID, stateRoot: folder.path, clock: clock, log: world.log)
    let deps = Dependencies(clock: clock, store: world.store, sensor: spool, prompter: world.prompter, log: world.log)
    let evaluator = PolicyEvaluator(dependencies: deps, settings: world.settings)
    #expect(try evaluator.evaluate(world.request(.deviceOwnerAuthenticationWithBiometrics)) == .success(.biometry))
    #expect(try queue.pending(for: world.user).isEmpty)
  }

  @Test("Sensor: events come out in order, cancel and fallback included")
  func order() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let queue = SensorQueue(stateRoot: folder.path)
    let alice = try UserName("alice")
    let now = WallTime(seconds: 1_800_000_000)
    try queue.enqueue(.fallback, for: alice, at: now, sequence: 1)
    try queue.enqueue(.cancel, for: alice, at: now.adding(1), sequence: 2)
    #expect(try queue.take(for: alice, now: now.adding(2), expiry: 30, log: NullLog()) == .fallback)
    #expect(try queue.take(for: alice, now: now.adding(2), expiry: 30, log: NullLog()) == .cancel)
    #expect(try queue.take(for: alice, now: now.adding(2), expiry: 30, log: NullLog()) == nil)
  }

  @Test("Sensor: a queued event expires after 30 seconds, so a stale touch never authenticates a later prompt")
  func expiry() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let queue = SensorQueue(stateRoot: folder.path)
    let alice = try UserName("alice")
    let now = WallTime(seconds: 1_800_000_000)
    try queue.enqueue(.cancel, for: alice, at: now, sequence: 1)
    let log = MemoryLog()
    #expect(try queue.take(for: alice, now: now.adding(31), expiry: 30, log: log) == nil)
    #expect(try queue.pending(for: alice).isEmpty)
    #expect(log.lines.contains { $0.contains("(expired)") })
  }

  @Test("Sensor: an event stamped further ahead than it may live (the clock was set back) is discarded too")
  func futureEventExpires() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let queue = SensorQueue(stateRoot: folder.path)
    let alice = try UserName("alice")
    let now = WallTime(seconds: 1_800_000_000)
    try queue.enqueue(.cancel, for: alice, at: now.adding(3600), sequence: 1)
    try queue.enqueue(.fallback, for: alice, at: now.adding(3600), sequence: 2)
    let log = MemoryLog()
    #expect(try queue.take(for: alice, now: now, expiry: 30, log: log) == nil)
    #expect(try queue.pending(for: alice).isEmpty)
    #expect(log.lines.contains("Discarded a sensor event for alice stamped 3600 seconds ahead of the clock (expired)."))
    // A small step back is tolerated: a touch queued a second "ahead" still counts.
    try queue.enqueue(.fallback, for: alice, at: now.adding(1), sequence: 3)
    #expect(try queue.take(for: alice, now: now, expiry: 30, log: log) == .fallback)
  }

  @Test("Sensor: an event file not owned by root is discarded, never obeyed")
  func nonRootEventDiscarded() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let queue = SensorQueue(stateRoot: folder.path)
    let alice = try UserName("alice")
    let now = WallTime(seconds: 1_800_000_000)
    try queue.enqueue(.cancel, for: alice, at: now, sequence: 1)
    let name = try #require(try queue.pending(for: alice).first)
    #expect(chown(queue.directory(for: alice) + "/" + name, 1000, 1000) == 0)
    let log = MemoryLog()
    #expect(try queue.take(for: alice, now: now, expiry: 30, log: log) == nil)
    #expect(log.lines.contains { $0.hasPrefix("Discarded sensor event") && $0.contains("not root") })
  }

  @Test("Sensor: the spool sensor times out at the deadline and stops at once when cancelled")
  func spoolTimeoutAndCancel() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let clock = ManualClock()
    let spool = SpoolSensor(modality: .touchID, stateRoot: folder.path, clock: clock, log: NullLog())
    let alice = try UserName("alice")
    let start = clock.now()
    #expect(try spool.nextEvent(for: alice, deadline: start.adding(1)) == .timeout)
    #expect(clock.now() >= start.adding(1))
    let flag = CancellationFlag()
    flag.cancel()
    let before = clock.now()
    #expect(try spool.nextEvent(for: alice, deadline: before.adding(30), cancellation: flag) == .timeout)
    #expect(clock.now() == before)
  }

  @Test("Sensor: event files round-trip and malformed ones are corrupt")
  func codec() throws {
    var rng = SplitMix64(seed: 1)
    let simulator = BiometricSimulator(worldSeed: 1)
    let sample = simulator.capture(
      simulator.identity(owner: "a", item: "b", modality: .faceID), modality: .faceID, quality: 0.7, using: &rng)
    let entry = SensorQueue.Entry(event: .sample(sample), created: WallTime(seconds: 12.5))
    #expect(try SensorQueue.decode(SensorQueue.encode(entry), path: "e") == entry)
    #expect(throws: StateError.self) { try SensorQueue.decode(Array("localauth-event 1\nkind bogus\n".utf8), path: "e") }
  }

  @Test("Sensor: no sensor configured reports no modality (biometryNotAvailable)")
  func absentSensor() throws {
    #expect(AbsentSensor().modality == nil)
    #expect(try AbsentSensor().nextEvent(for: UserName("a"), deadline: .epoch) == .timeout)
  }
}
