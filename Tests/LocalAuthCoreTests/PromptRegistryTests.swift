#if canImport(Glibc)
import Glibc
#endif
import Dispatch
@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// Touch delivery (docs/RULES.md, "Touch delivery"): a waiting prompt announces itself, a touch goes to exactly
/// one named prompt, is read once, and a touch with no prompt waiting goes nowhere.
@Suite("Simulated sensor: prompts and touch delivery", .serialized)
struct PromptRegistryTests {
  let alice = try! UserName("alice")
  let bob = RequestOrigin(service: "su", tty: "/dev/pts/4", requesterUID: 1001, requesterName: "bob", processID: getpid())

  @Test("Touch: an announcement lists the user, service, tty, requester and pid; it disappears when withdrawn")
  func announcement() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let registry = PromptRegistry(root: folder.path)
    let prompt = try registry.announce(user: alice, modality: .touchID, origin: bob, at: WallTime(seconds: 1_800_000_000))
    let waiting = try registry.waiting(for: alice)
    #expect(waiting == [prompt])
    #expect(waiting.first?.origin.requesterName == "bob")
    #expect(waiting.first?.origin.requesterUID == 1001)
    #expect(waiting.first?.origin.tty == "/dev/pts/4")
    #expect(waiting.first?.origin.service == "su")
    #expect(try registry.waiting(for: UserName("carol")).isEmpty)
    registry.withdraw(prompt.id)
    #expect(try registry.waiting().isEmpty)
    #expect(try FileSyscalls.listDirectory(registry.folder).isEmpty)
  }

  @Test("Touch: with no prompt waiting a touch is refused, not queued for a later prompt")
  func noPromptRefused() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let admin = SensorAdministration(stateRoot: folder.path, clock: SystemClock())
    #expect(throws: LocalAuthError.touchDelivery(.noPrompt(user: alice))) { _ = try admin.present(.cancel, for: alice) }
    #expect(try FileSyscalls.listDirectory(PromptRegistry(root: folder.path).folder).isEmpty)
    #expect(TouchDeliveryError.noPrompt(user: alice).description == "No prompt is waiting for alice.")
  }

  @Test("Touch: with two prompts waiting a touch is refused and lists both; --prompt chooses one")
  func severalPromptsRefused() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let registry = PromptRegistry(root: folder.path)
    // Two prompts root asked for (login on tty1, and a root tool): both are the user's own candidates.
    let login = RequestOrigin(service: "login", tty: "tty1", processID: getpid())
    let first = try registry.announce(user: alice, modality: .touchID, origin: login, at: WallTime(seconds: 1))
    let second = try registry.announce(user: alice, modality: .touchID, origin: RequestOrigin(processID: getpid()), at: WallTime(seconds: 2))
    // bob's `su alice` waits too: it is never a candidate without --prompt, nor listed among them.
    let others = try registry.announce(user: alice, modality: .touchID, origin: bob, at: WallTime(seconds: 3))
    let admin = SensorAdministration(stateRoot: folder.path, clock: SystemClock())
    #expect(throws: LocalAuthError.touchDelivery(.severalPrompts(user: alice, waiting: [first, second]))) {
      _ = try admin.present(.cancel, for: alice)
    }
    let text = TouchDeliveryError.severalPrompts(user: alice, waiting: [first, second]).description
    #expect(text.hasPrefix("2 prompts are waiting for alice; choose one with --prompt ID:"))
    #expect(text.contains("\(first.id)  root (uid 0) asks for alice's finger to run login on tty1"), "\(text)")
    #expect(!text.contains(others.id))
    registry.withdraw(others.id)
    // The chosen prompt reads it (a reader thread stands in for the prompt's process).
    let reader = DispatchQueue(label: "reader")
    reader.asyncAfter(deadline: .now() + 0.2) {
      _ = try? registry.take(from: second.id, now: WallTime(seconds: 2), expiry: 1e12, log: NullLog())
    }
    #expect(try admin.present(.fallback, for: alice, prompt: second.id, readLimit: 5) == second)
    #expect(throws: LocalAuthError.touchDelivery(.noSuchPrompt(id: "0000beef", user: alice))) {
      _ = try admin.present(.cancel, for: alice, prompt: "0000beef")
    }
  }

  @Test("Touch: a prompt another user asked for (bob's `su alice`) takes no touch without --prompt, and is named")
  func othersPromptNeedsItsID() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let registry = PromptRegistry(root: folder.path)
    let others = try registry.announce(user: alice, modality: .touchID, origin: bob, at: WallTime(seconds: 1))
    let admin = SensorAdministration(stateRoot: folder.path, clock: SystemClock())
    #expect(throws: LocalAuthError.touchDelivery(.othersPrompts(user: alice, waiting: [others]))) {
      _ = try admin.present(.cancel, for: alice)
    }
    let text = TouchDeliveryError.othersPrompts(user: alice, waiting: [others]).description
    #expect(text.hasPrefix("No prompt that alice or root asked for is waiting for alice; a prompt another user asked for takes a touch only with --prompt ID:"))
    #expect(text.contains("\(others.id)  bob (uid 1001) asks for alice's finger to run su on /dev/pts/4"), "\(text)")
    #expect(try registry.take(from: others.id, now: WallTime(seconds: 1), expiry: 30, log: NullLog()) == nil)
  }

  @Test("Touch: an event is read once: of two takers exactly one gets it")
  func readOnce() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let registry = PromptRegistry(root: folder.path)
    let prompt = try registry.announce(user: alice, modality: .touchID, origin: bob, at: WallTime(seconds: 100))
    let now = WallTime(seconds: 100)
    _ = try registry.present(.fallback, to: prompt.id, at: now)
    _ = try registry.present(.cancel, to: prompt.id, at: now.adding(0.001))
    #expect(try registry.take(from: prompt.id, now: now, expiry: 30, log: NullLog()) == .fallback)
    #expect(try registry.take(from: prompt.id, now: now, expiry: 30, log: NullLog()) == .cancel)
    #expect(try registry.take(from: prompt.id, now: now, expiry: 30, log: NullLog()) == nil)
    // Many concurrent takers of one event: exactly one succeeds.
    for round in 0..<20 {
      _ = try registry.present(.cancel, to: prompt.id, at: now.adding(Double(round)))
      let winners = Winners()
      DispatchQueue.concurrentPerform(iterations: 8) { _ in
        if (try? registry.take(from: prompt.id, now: now.adding(Double(round)), expiry: 30, log: NullLog())) == .cancel {
          winners.add()
        }
      }
      #expect(winners.count == 1, "round \(round)")
    }
  }

  @Test("Touch: a prompt that ends before reading the touch gives it back; the touch reports it")
  func promptEndedBeforeReading() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let registry = PromptRegistry(root: folder.path)
    let login = RequestOrigin(service: "login", tty: "tty1", processID: getpid())
    let prompt = try registry.announce(user: alice, modality: .touchID, origin: login, at: WallTime(seconds: 1))
    DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { registry.withdraw(prompt.id) }
    let admin = SensorAdministration(stateRoot: folder.path, clock: SystemClock())
    #expect(throws: LocalAuthError.touchDelivery(.promptEnded(id: prompt.id))) { _ = try admin.present(.cancel, for: alice, readLimit: 5) }
    #expect(!FileSyscalls.exists(registry.folder(of: prompt.id)))
  }

  @Test("Touch: the announcement of a process that is gone, or whose pid was reused, is stale and removed")
  func stalePromptRemoved() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let registry = PromptRegistry(root: folder.path)
    for (pid, start) in [(Int32(99_999_999), UInt64(1)), (getpid(), UInt64(1))] {
      // A pid above pid_max stands for a process that ended; this pid with another start time for a reused pid.
      let prompt = try registry.announce(user: alice, modality: .touchID, origin: bob, at: WallTime(seconds: 1))
      var stale = prompt
      stale.waiterPID = pid
      stale.processStart = start
      try FileSyscalls.atomicWrite(stale.encode(), directory: registry.folder(of: prompt.id), name: "prompt")
      _ = try registry.present(.cancel, to: prompt.id, at: WallTime(seconds: 1))
      #expect(try registry.waiting().isEmpty)
      #expect(!FileSyscalls.exists(registry.folder(of: prompt.id)))
    }
  }

  @Test("Touch: an event expires after event_expiry, also when stamped ahead of the clock")
  func expiry() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let registry = PromptRegistry(root: folder.path)
    let prompt = try registry.announce(user: alice, modality: .touchID, origin: bob, at: WallTime(seconds: 1))
    let now = WallTime(seconds: 1_800_000_000)
    _ = try registry.present(.cancel, to: prompt.id, at: now)
    _ = try registry.present(.fallback, to: prompt.id, at: now.adding(3600))
    let log = MemoryLog()
    #expect(try registry.take(from: prompt.id, now: now.adding(31), expiry: 30, log: log) == nil)
    #expect(log.lines.filter { $0.contains("(expired)") }.count == 2)
    _ = try registry.present(.fallback, to: prompt.id, at: now.adding(1))
    #expect(try registry.take(from: prompt.id, now: now, expiry: 30, log: log) == .fallback)
  }

  @Test("Touch: an event file not owned by root is discarded, never obeyed")
  func nonRootEventDiscarded() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let registry = PromptRegistry(root: folder.path)
    let prompt = try registry.announce(user: alice, modality: .touchID, origin: bob, at: WallTime(seconds: 1))
    let path = try registry.present(.cancel, to: prompt.id, at: WallTime(seconds: 1))
    #expect(chown(path, 1000, 1000) == 0)
    let log = MemoryLog()
    #expect(try registry.take(from: prompt.id, now: WallTime(seconds: 1), expiry: 30, log: log) == nil)
    #expect(log.lines.contains { $0.hasPrefix("Discarded sensor event") && $0.contains("not root") })
  }

  @Test("Touch: a prompt folder replaced by a symbolic link is refused, never followed")
  func symlinkedPromptRefused() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let registry = PromptRegistry(root: folder.path)
    let prompt = try registry.announce(user: alice, modality: .touchID, origin: bob, at: WallTime(seconds: 1))
    registry.withdraw(prompt.id)
    #expect(symlink("/tmp", registry.folder(of: prompt.id)) == 0)
    #expect(throws: StateError.self) { _ = try registry.present(.cancel, to: prompt.id, at: WallTime(seconds: 1)) }
  }

  @Test("Sensor: the spool sensor reads only its own prompt, times out at the deadline and stops when cancelled")
  func spoolTimeoutAndCancel() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let clock = ManualClock()
    let spool = SpoolSensor(modality: .touchID, runtimeRoot: folder.path, clock: clock, log: NullLog())
    // Without an announced prompt nothing can arrive.
    #expect(try spool.nextEvent(for: alice, deadline: WallTime(seconds: clock.uptime() + 30)) == .timeout)
    try spool.openPrompt(for: alice, origin: bob)
    let announced = try #require(spool.announcement(for: alice))
    let start = clock.uptime()
    #expect(try spool.nextEvent(for: alice, deadline: WallTime(seconds: start + 1)) == .timeout)
    #expect(clock.uptime() >= start + 1)
    let flag = CancellationFlag()
    flag.cancel()
    let before = clock.uptime()
    #expect(try spool.nextEvent(for: alice, deadline: WallTime(seconds: before + 30), cancellation: flag) == .timeout)
    #expect(clock.uptime() == before)
    _ = try PromptRegistry(root: folder.path).present(.fallback, to: announced.id, at: clock.now())
    #expect(try spool.nextEvent(for: alice, deadline: WallTime(seconds: clock.uptime() + 1)) == .fallback)
    spool.closePrompt(for: alice)
    #expect(try PromptRegistry(root: folder.path).waiting().isEmpty)
  }

  @Test("Sensor: event files round-trip and malformed ones are corrupt")
  func codec() throws {
    var rng = SplitMix64(seed: 1)
    let simulator = BiometricSimulator(worldSeed: 1)
    let sample = simulator.capture(
      simulator.identity(owner: "a", item: "b", modality: .faceID), modality: .faceID, quality: 0.7, using: &rng)
    let entry = SensorEventFile.Entry(event: .sample(sample), created: WallTime(seconds: 12.5))
    #expect(try SensorEventFile.decode(SensorEventFile.encode(entry), path: "e") == entry)
    #expect(throws: StateError.self) { try SensorEventFile.decode(Array("localauth-event 1\nkind bogus\n".utf8), path: "e") }
  }

  @Test("Sensor: no sensor configured reports no modality (biometryNotAvailable)")
  func absentSensor() throws {
    #expect(AbsentSensor().modality == nil)
    #expect(try AbsentSensor().nextEvent(for: UserName("a"), deadline: .epoch) == .timeout)
  }
}

/// Counts the takers that got an event, from several threads.
final class Winners: @unchecked Sendable {
  private let lock = Mutex()
  private var value = 0
  func add() { lock.withLock { value += 1 } }
  var count: Int { lock.withLock { value } }
}
