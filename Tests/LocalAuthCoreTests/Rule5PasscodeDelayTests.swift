@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// Rule 5 of docs/RULES.md: Apple's escalating passcode delays, enforced before the check and persisted.
@Suite("Rule 5: passcode delays")
struct Rule5PasscodeDelayTests {
  /// A world with no sensor, so policy 2 goes straight to the passcode.
  func passcodeWorld(store: StateStore = InMemoryStateStore(), clock: ManualClock = ManualClock()) throws -> TestWorld {
    let world = try TestWorld(sensorPresent: false, store: store, clock: clock)
    try world.setPasscode()
    return world
  }

  func enterWrong(_ world: TestWorld, _ guess: String) throws -> EvaluationOutcome {
    world.prompter.enqueue(guess)
    return try world.evaluate(.deviceOwnerAuthentication)
  }

  @Test("Rule 5: failures 1–4 bring no delay")
  func noDelayForFirstFour() throws {
    let world = try passcodeWorld()
    for guess in ["1111", "2222", "3333", "4444"] {
      #expect(try enterWrong(world, guess) == .failure(.authenticationFailed, .none))
      #expect(try world.record().passcodeNextAllowed == nil)
    }
    #expect(try world.record().passcodeFailures == 4)
    #expect(world.shown("error: ").allSatisfy { $0 == "error: Wrong passcode." })
  }

  @Test("Rule 5: delays escalate 5 → 60 s, 6 → 300 s, 7–8 → 900 s, 9+ → 3600 s")
  func delaysEscalate() throws {
    let world = try passcodeWorld()
    let expected: [Double] = [0, 0, 0, 0, 60, 300, 900, 900, 3600, 3600, 3600]
    for (index, delay) in expected.enumerated() {
      #expect(try enterWrong(world, "90\(index + 10)") == .failure(.authenticationFailed, .none))
      let record = try world.record()
      #expect(record.passcodeFailures == index + 1)
      if delay == 0 {
        #expect(record.passcodeNextAllowed == nil)
      } else {
        #expect(record.passcodeNextAllowed == world.clock.now().adding(delay))
        world.clock.advance(by: delay)
      }
    }
    #expect(world.shown("error: ")[4] == "error: Wrong passcode. Try again in 1 minute.")
    #expect(world.shown("error: ")[5] == "error: Wrong passcode. Try again in 5 minutes.")
    #expect(world.shown("error: ")[8] == "error: Wrong passcode. Try again in 1 hour.")
  }

  @Test("Rule 5: a delay in force refuses before the passcode is asked for or checked, even the right one")
  func delayEnforcedBeforeCheck() throws {
    let world = try passcodeWorld()
    for guess in ["1111", "2222", "3333", "4444", "5555"] { _ = try enterWrong(world, guess) }
    let until = world.clock.now().adding(60)
    let prompts = world.prompter.prompts.count
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.authenticationFailed, .passcodeDelayed(until: until)))
    #expect(world.prompter.prompts.count == prompts)  // not even asked
    #expect(world.shown("error: ").last == "error: Passcode entry is disabled after repeated failures. Try again in 1 minute.")
    #expect(try world.record().passcodeFailures == 5)
    world.clock.advance(by: 59)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.authenticationFailed, .passcodeDelayed(until: until)))
    world.clock.advance(by: 1)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    let record = try world.record()
    #expect(record.passcodeFailures == 0 && record.passcodeNextAllowed == nil && record.lastWrongPasscodeHash == nil)
  }

  @Test("Rule 5: the delay is checked again under the lock, so a concurrent failure cannot be raced")
  func delayCheckedUnderLock() throws {
    let world = try passcodeWorld()
    let until = world.clock.now().adding(300)
    try world.store.update(world.user) { $0.passcodeNextAllowed = until }
    let check = PasscodeCheck(dependencies: world.dependencies, settings: world.settings, request: world.request(.deviceOwnerAuthentication))
    #expect(try check.check(SecretBytes(TestWorld.passcode)) == .delayed(until: until))
  }

  @Test("Rule 5: delays persist in a FileStateStore across processes and reboots")
  func delaysPersistAcrossProcesses() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let clock = ManualClock()
    let first = try passcodeWorld(store: FileStateStore(root: folder.path), clock: clock)
    for guess in ["1111", "2222", "3333", "4444", "5555"] {
      _ = try enterWrong(first, guess)
      clock.advance(by: first.settings.delaySchedule.delay(afterFailures: try first.record().passcodeFailures))
    }
    _ = try enterWrong(first, "6666")
    let until = clock.now().adding(300)
    clock.reboot(to: "boot-2")
    let second = try TestWorld(sensorPresent: false, store: FileStateStore(root: folder.path), clock: clock)
    second.prompter.enqueue(TestWorld.passcode)
    #expect(try second.evaluate(.deviceOwnerAuthentication) == .failure(.authenticationFailed, .passcodeDelayed(until: until)))
    #expect(second.prompter.prompts.isEmpty)
    #expect(try second.record().passcodeFailures == 6)
    clock.advance(by: 300)
    #expect(try second.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
  }

  @Test("Rule 5: a repeated identical wrong passcode counts once")
  func repeatedWrongCountsOnce() throws {
    let world = try passcodeWorld()
    for _ in 0..<6 { #expect(try enterWrong(world, "1111") == .failure(.authenticationFailed, .none)) }
    #expect(try world.record().passcodeFailures == 1)
    #expect(try world.record().passcodeNextAllowed == nil)
    _ = try enterWrong(world, "2222")
    _ = try enterWrong(world, "1111")  // not consecutive any more: counts again
    #expect(try world.record().passcodeFailures == 3)
    #expect(world.log.lines.filter { $0.contains("repeated entry not counted") }.count == 5)
  }

  @Test("Rule 5: repeating the wrong passcode after a delay ran out neither counts nor delays again")
  func repeatedAfterDelay() throws {
    let world = try passcodeWorld()
    for guess in ["1111", "2222", "3333", "4444", "5555"] { _ = try enterWrong(world, guess) }
    world.clock.advance(by: 60)
    #expect(try enterWrong(world, "5555") == .failure(.authenticationFailed, .none))
    #expect(world.shown("error: ").last == "error: Wrong passcode.")
    #expect(try world.record().passcodeFailures == 5)
    #expect(try enterWrong(world, "6666") == .failure(.authenticationFailed, .none))
    #expect(world.shown("error: ").last == "error: Wrong passcode. Try again in 5 minutes.")
  }

  @Test("Rule 5: an empty passcode entry is not counted")
  func emptyEntryNotCounted() throws {
    let world = try passcodeWorld()
    #expect(try enterWrong(world, "") == .failure(.authenticationFailed, .none))
    #expect(try world.record().passcodeFailures == 0)
  }

  @Test("Rule 5: a passcode over the 511-byte limit counts as wrong and is never hashed into the record")
  func overlongPasscodeIsWrong() throws {
    let world = try passcodeWorld()
    #expect(try enterWrong(world, String(repeating: "7", count: 600)) == .failure(.authenticationFailed, .none))
    #expect(try world.record().passcodeFailures == 1)
    #expect(try world.record().lastWrongPasscodeHash == nil)
  }

  @Test("Rule 5: the passcode is never hashed or compared when no passcode is set")
  func notSetUnderLock() throws {
    let world = try TestWorld(sensorPresent: false)
    let check = PasscodeCheck(dependencies: world.dependencies, settings: world.settings, request: world.request(.deviceOwnerAuthentication))
    #expect(try check.check(SecretBytes("1234")) == .notSet)
  }
}
