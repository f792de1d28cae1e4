@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// Rule 3 of docs/RULES.md: attempts per prompt, fallback visibility, and the lockout after five consecutive
/// failures.
@Suite("Rule 3: attempts and lockout")
struct Rule3AttemptsTests {
  @Test("Rule 3: Touch ID ends a prompt after three failed matches with authenticationFailed")
  func touchIDThreePerPrompt() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.impostor(), world.impostor(), world.impostor(), world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.authenticationFailed, .none))
    #expect(world.sensor.pending.count == 1)
    #expect(try world.record().biometricFailures == 3)
    #expect(world.shown("error: ").filter { $0 == "error: Try again." }.count == 2)
  }

  @Test("Rule 3: the injected matcher decides: a retry is not a failure, two misses are, then a match")
  func scriptedMatcher() throws {
    let world = try TestWorld()
    try world.prime()
    let matcher = ScriptedMatcher([.retry, .noMatch(bestScore: 0.2), .noMatch(bestScore: 0.3), .match(template: TestWorld.item, score: 0.9)])
    world.matcher = matcher
    // Four captures of the user's own finger: only the script says which match.
    world.present(world.genuine(), world.genuine(), world.genuine(), world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .success(.biometry))
    #expect(matcher.calls == 4)
    #expect(world.shown("error: ").filter { $0 == "error: Try again." }.count == 2)
    #expect(try world.record().biometricFailures == 0)
  }

  @Test("Rule 3: Face ID offers the fallback after two failed matches and stops matching")
  func faceIDFallbackAfterTwo() throws {
    let world = try TestWorld(modality: .faceID)
    try world.prime()
    world.present(world.impostor(), world.impostor(), world.genuine(), .fallback)
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.userFallback, .fallbackChosen))
    #expect(try world.record().biometricFailures == 2)  // the genuine capture after the second failure was ignored
    #expect(world.shown("info: ").last == "info: Face not recognized. Choose \"Cancel\" or \"Enter Password\".")
  }

  @Test("Rule 3: Face ID's buttons after two failures: Cancel gives userCancel, no press gives systemCancel")
  func faceIDButtonsCancelAndTimeout() throws {
    let world = try TestWorld(modality: .faceID)
    try world.prime()
    world.present(world.impostor(), world.impostor(), .cancel)
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.userCancel, .none))
    world.present(world.impostor(), world.impostor())
    let start = world.clock.now()
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.systemCancel, .none))
    #expect(world.clock.now().since(start) == world.settings.sensorTimeout)
  }

  @Test("Rule 3: Face ID with the fallback hidden ends after two failed matches with authenticationFailed")
  func faceIDHiddenFallback() throws {
    let world = try TestWorld(modality: .faceID)
    try world.prime()
    world.present(world.impostor(), world.impostor(), .fallback)
    #expect(
      try world.evaluate(.deviceOwnerAuthenticationWithBiometrics, fallbackTitle: "") == .failure(.authenticationFailed, .none))
    #expect(world.sensor.pending == [.fallback])
  }

  @Test("Rule 3: the Touch ID fallback button is hidden before the first failure and shown after it")
  func touchIDFallbackAppearsAfterFirstFailure() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(.fallback, world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .success(.biometry))
    #expect(world.log.lines.contains { $0.hasPrefix("Ignored a fallback press for user alice") })
    world.present(world.impostor(), .fallback)
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.userFallback, .fallbackChosen))
  }

  @Test("Rule 3: under policy 2 a fallback press before the first failure is ignored too")
  func deviceOwnerFallbackHiddenAtFirst() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(.fallback, world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.biometry))
    #expect(world.prompter.prompts.count == 1)
  }

  @Test("Rule 3: the Face ID fallback is not shown after only one failure")
  func faceIDFallbackHiddenAfterOne() throws {
    let world = try TestWorld(modality: .faceID)
    try world.prime()
    world.present(world.impostor(), .fallback, world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .success(.biometry))
  }

  @Test("Rule 3: poor-quality captures ask for a retry, are not counted and do not reveal the fallback")
  func poorQualityIsRetry() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.poor(), world.poor(), world.poor(), world.poor(), .fallback, world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .success(.biometry))
    #expect(world.shown("error: ").filter { $0 == "error: Place your finger on the sensor again." }.count == 4)
    #expect(try world.record().biometricFailures == 0)
  }

  @Test("Rule 3: a successful match resets the consecutive failure count")
  func successResetsCount() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.impostor(), world.impostor(), world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .success(.biometry))
    #expect(try world.record().biometricFailures == 0)
  }

  @Test("Rule 3: five consecutive failed matches lock biometry across evaluations")
  func lockoutAcrossEvaluations() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.impostor(), world.impostor(), world.impostor())
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.authenticationFailed, .none))
    world.present(world.impostor(), world.impostor(), world.genuine())
    #expect(
      try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.biometryLockout, .biometryLockedOut(failures: 5)))
    #expect(world.sensor.pending.count == 1)
    #expect(world.shown("error: ").last == "error: Too many failed attempts; biometry is locked until the passcode is entered.")
    // Still locked: the sensor is not read at all, and a genuine finger cannot unlock it.
    #expect(
      try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.biometryLockout, .biometryLockedOut(failures: 5)))
    #expect(world.sensor.pending.count == 1)
    #expect(try world.evaluator.canEvaluate(.deviceOwnerAuthenticationWithBiometrics, for: world.user) == .biometryLockout)
  }

  @Test("Rule 3: a successful passcode entry clears the biometric lockout")
  func passcodeClearsLockout() throws {
    let world = try TestWorld()
    try world.prime()
    try world.store.update(world.user) { $0.biometricFailures = 7 }
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    world.sensor.enqueue(world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .success(.biometry))
  }

  @Test("Rule 3: a wrong passcode does not clear the biometric lockout")
  func wrongPasscodeKeepsLockout() throws {
    let world = try TestWorld()
    try world.prime()
    try world.store.update(world.user) { $0.biometricFailures = 5 }
    world.prompter.enqueue("0000")
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.authenticationFailed, .none))
    #expect(try world.evaluator.canEvaluate(.deviceOwnerAuthenticationWithBiometrics, for: world.user) == .biometryLockout)
  }

  @Test("Rule 3: under policy 2 the fifth failure switches to the passcode")
  func lockoutUnderDeviceOwnerGoesToPasscode() throws {
    let world = try TestWorld()
    try world.prime()
    try world.store.update(world.user) { $0.biometricFailures = 4 }
    world.present(world.impostor(), world.genuine())
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(world.sensor.pending.count == 1)
  }

  @Test("Rule 3: five consecutive failed matches are counted across processes (two stores over one folder)")
  func lockoutAcrossProcesses() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let clock = ManualClock()
    let first = try TestWorld(store: FileStateStore(root: folder.path), clock: clock, seed: 1)
    let second = try TestWorld(store: FileStateStore(root: folder.path), clock: clock, seed: 2)
    try first.prime()
    first.present(first.impostor(), first.impostor(), first.impostor())
    #expect(try first.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.authenticationFailed, .none))
    #expect(try second.record().biometricFailures == 3)
    second.present(second.impostor(), second.impostor())
    #expect(
      try second.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.biometryLockout, .biometryLockedOut(failures: 5)))
    first.present(first.genuine())
    #expect(
      try first.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.biometryLockout, .biometryLockedOut(failures: 5)))
    // The passcode entered in the second process unlocks biometry for the first.
    second.prompter.enqueue(TestWorld.passcode)
    #expect(try second.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(try first.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .success(.biometry))
  }

  @Test("Rule 3: a lockout reached by another process while a prompt waits wins over a later match")
  func lockoutDuringPromptWins() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let clock = ManualClock()
    let world = try TestWorld(store: FileStateStore(root: folder.path), clock: clock)
    try world.prime()
    let other = FileStateStore(root: folder.path)
    let user = world.user
    let racing = RacingSensor(event: world.genuine()) { () throws(LocalAuthError) in
      try other.update(user) { $0.biometricFailures = 5 }
    }
    let deps = Dependencies(clock: clock, store: world.store, sensor: racing, prompter: world.prompter, log: world.log)
    let outcome = try PolicyEvaluator(dependencies: deps, settings: world.settings)
      .evaluate(world.request(.deviceOwnerAuthenticationWithBiometrics))
    #expect(outcome == .failure(.biometryLockout, .biometryLockedOut(failures: 5)))
    #expect(try world.record().biometricFailures == 5)
    #expect(try world.record().reuse == nil)
  }
}

/// A sensor that runs `meanwhile` (another process's work) before delivering its one event.
final class RacingSensor: BiometricSensor {
  let modality: Modality? = .touchID
  private var event: SensorEvent?
  private let meanwhile: () throws(LocalAuthError) -> Void

  init(event: SensorEvent, meanwhile: @escaping () throws(LocalAuthError) -> Void) {
    self.event = event
    self.meanwhile = meanwhile
  }

  func nextEvent(for user: UserName, deadline: WallTime) throws(LocalAuthError) -> SensorEvent {
    guard let next = event else { return .timeout }
    event = nil
    try meanwhile()
    return next
  }
}
