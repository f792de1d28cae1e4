#if canImport(Glibc)
import Glibc
#endif
@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// docs/RULES.md, "One finger request at a time": a finger prompt waits only while it is its user's only one.
/// A second request of the same user (or one that ended in the last two seconds) makes both fall back, as a
/// hidden request does, naming each other; a touch then approves neither.
///
/// The other request is played by a second evaluation whose registry announces for this process's parent (a
/// live process that is not this one), run from inside the first prompt's wait.
@Suite("One finger request at a time", .serialized)
struct PromptConflictTests {
  static let first = {
    var origin = RequestOrigin(service: "sudo", tty: "pts/1", requesterUID: 1000, requesterName: "alice", processID: 4111)
    origin.approval = "run `ls` as root (sudo)"
    return origin
  }()
  static let second = {
    var origin = RequestOrigin(service: "sudo", tty: "", requesterUID: 1000, requesterName: "alice", processID: 4242)
    origin.approval = "run `id` as root (sudo)"
    return origin
  }()

  /// The evaluator of `world` with its prompts in `folder`, announced for `waiter`.
  func evaluator(_ world: TestWorld, _ folder: TempFolder, sensor: BiometricSensor? = nil, waiter: Int32 = getpid()) -> PolicyEvaluator {
    var dependencies = world.dependencies
    dependencies.prompts = PromptRegistry(root: folder.path, waiterPID: waiter)
    if let sensor { dependencies.sensor = sensor }
    return PolicyEvaluator(dependencies: dependencies, settings: world.settings)
  }

  func request(_ world: TestWorld, _ policy: AuthPolicy, _ origin: RequestOrigin) -> EvaluationRequest {
    var request = world.request(policy)
    request.origin = origin
    return request
  }

  /// What each policy's fallback gives: the passcode (entered) under policy 2, biometryNotAvailable under policy 1.
  func fallback(_ policy: AuthPolicy) -> EvaluationOutcome {
    policy == .deviceOwnerAuthentication ? .success(.passcode) : .failure(.biometryNotAvailable, .concurrentRequest)
  }

  @Test("One request: two prompts of one user both fall back, each names the other, one log line, a touch approves neither", arguments: AuthPolicy.allCases)
  func twoPromptsBothFallBack(policy: AuthPolicy) throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let a = try TestWorld()
    try a.prime()
    let b = try TestWorld(store: a.store, clock: a.clock)
    a.prompter.enqueue(TestWorld.passcode)
    b.prompter.enqueue(TestWorld.passcode)
    b.present(b.genuine())
    var secondOutcome: EvaluationOutcome?
    // While the first prompt waits, the second request starts; then the user's touch reaches the first.
    let sensor = HookedSensor(a.sensor) {
      secondOutcome = try? self.evaluator(b, folder, waiter: getppid()).evaluate(self.request(b, policy, Self.second))
    }
    a.present(a.genuine())
    let outcome = try evaluator(a, folder, sensor: sensor).evaluate(request(a, policy, Self.first))
    #expect(outcome == fallback(policy))
    #expect(secondOutcome == fallback(policy))
    let then = policy == .deviceOwnerAuthentication ? " Enter your passcode." : ""
    #expect(a.shown("error: Another").last
      == "error: Another program is asking for your finger: sudo, pid 4242, no terminal, run `id` as root (sudo)." + then)
    #expect(b.shown("error: Another").last
      == "error: Another program is asking for your finger: sudo, pid 4111, pts/1, run `ls` as root (sudo)." + then)
    // The second never showed the instruction: it fell back before claiming the reader.
    #expect(!b.prompter.transcript.contains { $0.contains("Place your finger") })
    let lines = (a.log.lines + b.log.lines).filter { $0.hasPrefix("Two requests ask for the finger of user alice at once") }
    #expect(lines.count == 1)
    #expect(lines.first?.contains("pid 4111") == true && lines.first?.contains("pid 4242") == true)
    // The touch the first read approved nothing, and was not counted; the second's touch was never read.
    #expect(try a.record().lastBiometricSuccess == nil)
    #expect(try a.record().biometricFailures == 0)
    #expect(b.sensor.pending.count == 1)
    #expect(sensor.closed == 1)
    #expect(try PromptRegistry(root: folder.path).waiting().isEmpty)
  }

  @Test("One request: two prompts announced at the same moment both see the conflict; neither proceeds")
  func simultaneousAnnouncements() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let world = try TestWorld()
    let log = MemoryLog()
    let mine = PromptRegistry(root: folder.path)
    let other = PromptRegistry(root: folder.path, waiterPID: getppid())
    let a = try PromptLease.announce(request(world, .deviceOwnerAuthentication, Self.first), modality: .touchID, in: mine, clock: world.clock, log: log)
    let b = try PromptLease.announce(request(world, .deviceOwnerAuthentication, Self.second), modality: .touchID, in: other, clock: world.clock, log: log)
    // Both announced before either listed: both find the conflict, and it is logged once.
    #expect(a.conflict(includingRecent: true) == .concurrent(b.announcement, recent: false))
    #expect(b.conflict(includingRecent: true) == .concurrent(a.announcement, recent: false))
    #expect(log.lines.filter { $0.hasPrefix("Two requests") }.count == 1)
    a.end()
    b.end()
    // One listed before the other announced: the later one finds it and marks both; the earlier sees the mark.
    let c = try PromptLease.announce(request(world, .deviceOwnerAuthentication, Self.first), modality: .touchID, in: mine, clock: world.clock, log: log)
    world.clock.advance(by: 3)
    #expect(c.conflict(includingRecent: true) == nil)
    let d = try PromptLease.announce(request(world, .deviceOwnerAuthentication, Self.second), modality: .touchID, in: other, clock: world.clock, log: log)
    #expect(d.conflict(includingRecent: true) == .concurrent(c.announcement, recent: false))
    #expect(c.markSeen() == .concurrent(d.announcement, recent: false))
    #expect(c.conflict(includingRecent: false) != nil)  // and before a grant
    #expect(log.lines.filter { $0.hasPrefix("Two requests") }.count == 2)
    c.end()
    d.end()
  }

  @Test("One request: a prompt starting within two seconds of another request's end falls back; after that it waits")
  func recentlyEnded() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let world = try TestWorld()
    try world.prime()
    let other = PromptRegistry(root: folder.path, waiterPID: getppid())
    let ended = try PromptLease.announce(
      request(world, .deviceOwnerAuthentication, Self.second), modality: .touchID, in: other, clock: world.clock, log: world.log)
    ended.end()
    world.clock.advance(by: 1.5)
    world.present(world.genuine())
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try evaluator(world, folder).evaluate(request(world, .deviceOwnerAuthentication, Self.first)) == .success(.passcode))
    #expect(world.shown("error: Another").last
      == "error: Another program asked for your finger a moment ago: sudo, pid 4242, no terminal, run `id` as root (sudo). Enter your passcode.")
    #expect(world.log.lines.contains { $0.hasPrefix("A request for the finger of user alice") && $0.contains("pid 4242") })
    #expect(world.sensor.pending.count == 1)  // the touch was not read
    // The same requesting process asking again within the window (an app's next context, through another helper
    // process) is not another program.
    let again = PromptRegistry(root: folder.path, waiterPID: getppid())
    let sameApp = try PromptLease.announce(
      request(world, .deviceOwnerAuthentication, Self.first), modality: .touchID, in: again, clock: world.clock, log: world.log)
    #expect(sameApp.conflict(includingRecent: true) == nil)
    sameApp.end()
    // Past the window (and the first request's own end is its own process's: no conflict with itself).
    world.clock.advance(by: 2.5)
    #expect(try evaluator(world, folder).evaluate(request(world, .deviceOwnerAuthenticationWithBiometrics, Self.first)) == .success(.biometry))
  }

  @Test("One request: prompts of two different users do not conflict")
  func differentUsersDoNotConflict() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let world = try TestWorld()
    try world.prime()
    let bob = try PromptRegistry(root: folder.path, waiterPID: getppid())
      .announce(user: UserName("bob"), modality: .touchID, origin: Self.second, at: world.clock.now())
    world.present(world.genuine())
    #expect(try evaluator(world, folder).evaluate(request(world, .deviceOwnerAuthenticationWithBiometrics, Self.first)) == .success(.biometry))
    let registry = PromptRegistry(root: folder.path)
    #expect(try registry.waiting() == [bob])
    #expect(registry.conflict(of: bob.id) == nil)
    registry.withdraw(bob.id)
  }

  @Test("One request: a mark seen mid-wait releases the reader at once and falls back", arguments: AuthPolicy.allCases)
  func markSeenMidWait(policy: AuthPolicy) throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let world = try TestWorld()
    try world.prime()
    world.prompter.enqueue(TestWorld.passcode)
    let registry = PromptRegistry(root: folder.path)
    let other = PromptAnnouncement(
      id: "0000beef", user: world.user, modality: .touchID, origin: Self.second, waiterPID: getppid(), processStart: 0,
      started: world.clock.now())
    // Another instance marks this prompt while it waits; nothing is presented.
    let sensor = HookedSensor(world.sensor) {
      guard let mine = try? registry.waiting(for: world.user).first else { return }
      _ = registry.mark(mine.id, naming: other)
    }
    let start = world.clock.now()
    #expect(try evaluator(world, folder, sensor: sensor).evaluate(request(world, policy, Self.first)) == fallback(policy))
    #expect(world.clock.now().since(start) <= 0.5)  // not the 30 s sensor timeout
    #expect(sensor.closed == 1)
    #expect(world.shown("error: Another").last?.hasPrefix("error: Another program is asking for your finger: sudo, pid 4242") == true)
    #expect(try registry.waiting().isEmpty)
  }

  @Test("One request: a match seen after a mark is not granted and not counted as a failure")
  func matchAfterMarkRefused() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let world = try TestWorld()
    try world.prime()
    let registry = PromptRegistry(root: folder.path)
    let other = PromptAnnouncement(
      id: "0000beef", user: world.user, modality: .touchID, origin: Self.second, waiterPID: getppid(), processStart: 0,
      started: world.clock.now())
    let sensor = HookedSensor(world.sensor) {
      guard let mine = try? registry.waiting(for: world.user).first else { return }
      _ = registry.mark(mine.id, naming: other)
    }
    world.present(world.genuine())
    let outcome = try evaluator(world, folder, sensor: sensor).evaluate(request(world, .deviceOwnerAuthenticationWithBiometrics, Self.first))
    #expect(outcome == .failure(.biometryNotAvailable, .concurrentRequest))
    #expect(world.sensor.pending.isEmpty)  // the touch was read
    #expect(try world.record().lastBiometricSuccess == nil)
    #expect(try world.record().biometricFailures == 0)
    #expect(try world.record().reuse == nil)
  }

  @Test("One request: a reader another request holds falls back at once, naming it, without the instruction")
  func readerInUse() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let world = try TestWorld()
    try world.prime()
    world.prompter.enqueue(TestWorld.passcode)
    let sensor = HookedSensor(world.sensor) {}
    sensor.failure = .readerInUse
    #expect(try evaluator(world, folder, sensor: sensor).evaluate(request(world, .deviceOwnerAuthentication, Self.first)) == .success(.passcode))
    #expect(world.shown("error: Another").last == "error: Another program is using the fingerprint reader. Enter your passcode.")
    #expect(!world.prompter.transcript.contains { $0.contains("Place your finger") })
    #expect(sensor.closed == 1)
  }
}

/// Forwards to a scripted sensor, runs `hook` on the first wait, and counts the prompts closed (the reader released).
final class HookedSensor: BiometricSensor {
  let inner: ScriptedSensor
  let hook: () -> Void
  private var hooked = false
  private(set) var closed = 0
  /// What `startFailure` reports (a reader another program claimed).
  var failure: PromptStartFailure?
  var modality: Modality? { inner.modality }

  init(_ inner: ScriptedSensor, hook: @escaping () -> Void) {
    self.inner = inner
    self.hook = hook
  }

  func openPrompt(_ announcement: PromptAnnouncement) throws(LocalAuthError) {}
  func startFailure(for user: UserName) -> PromptStartFailure? { failure }
  func closePrompt(for user: UserName) { closed += 1 }

  func nextEvent(for user: UserName, deadline: WallTime) throws(LocalAuthError) -> SensorEvent {
    try nextEvent(for: user, deadline: deadline, cancellation: nil)
  }

  func nextEvent(for user: UserName, deadline: WallTime, cancellation: CancellationFlag?) throws(LocalAuthError) -> SensorEvent {
    if !hooked {
      hooked = true
      hook()
    }
    return try inner.nextEvent(for: user, deadline: deadline, cancellation: cancellation)
  }
}
