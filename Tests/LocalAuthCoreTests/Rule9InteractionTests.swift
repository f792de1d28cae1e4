@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// Rule 9 of docs/RULES.md: interactionNotAllowed, cancellation by the app, and the system cancel on a sensor
/// timeout.
@Suite("Rule 9: interaction, cancellation and timeouts")
struct Rule9InteractionTests {
  @Test("Rule 9: interaction not allowed gives notInteractive when a prompt would be needed", arguments: AuthPolicy.allCases)
  func notInteractive(policy: AuthPolicy) throws {
    let world = try TestWorld()
    try world.prime()
    let before = world.prompter.transcript.count
    world.present(world.genuine())
    #expect(try world.evaluator.evaluate(world.request(policy, interactionAllowed: false)) == .failure(.notInteractive, .none))
    #expect(world.prompter.transcript.count == before)
    #expect(world.sensor.pending.count == 1)
  }

  @Test("Rule 9: errors that need no UI come before notInteractive")
  func startErrorsFirst() throws {
    let world = try TestWorld()
    #expect(
      try world.evaluator.evaluate(world.request(.deviceOwnerAuthentication, interactionAllowed: false))
        == .failure(.passcodeNotSet, .none))
    #expect(
      try world.evaluator.evaluate(world.request(.deviceOwnerAuthenticationWithBiometrics, interactionAllowed: false))
        == .failure(.biometryNotEnrolled, .none))
    try world.prime()
    world.clock.reboot(to: "boot-2")
    #expect(
      try world.evaluator.evaluate(world.request(.deviceOwnerAuthenticationWithBiometrics, interactionAllowed: false))
        == .failure(.biometryLockout, .passcodeRequired(.reboot)))
    #expect(world.shown("error: ").isEmpty)  // no UI at all when interaction is not allowed
  }

  @Test("Rule 9: a cancellation flag set before the evaluation gives appCancel without any prompt")
  func cancelledBefore() throws {
    let world = try TestWorld()
    try world.prime()
    let flag = CancellationFlag()
    flag.cancel()
    let before = world.prompter.transcript.count
    #expect(
      try world.evaluator.evaluate(world.request(.deviceOwnerAuthentication, cancellation: flag)) == .failure(.appCancel, .none))
    #expect(world.prompter.transcript.count == before)
  }

  @Test("Rule 9: cancelling while the sensor waits ends the wait at once with appCancel")
  func cancelledDuringSensorWait() throws {
    let world = try TestWorld()
    try world.prime()
    let flag = CancellationFlag()
    let sensor = CancellingSensor(inner: world.sensor, flag: flag, cancelOnCall: 2)
    world.present(world.impostor())
    let deps = Dependencies(clock: world.clock, store: world.store, sensor: sensor, prompter: world.prompter, log: world.log)
    let start = world.clock.now()
    let outcome = try PolicyEvaluator(dependencies: deps, settings: world.settings)
      .evaluate(world.request(.deviceOwnerAuthentication, cancellation: flag))
    #expect(outcome == .failure(.appCancel, .none))
    #expect(world.clock.now() == start)  // no sensor timeout was waited out
    #expect(world.prompter.prompts.count == 1)  // no passcode prompt after the cancel
  }

  @Test("Rule 9: cancelling during Face ID's button wait gives appCancel")
  func cancelledDuringFaceIDButtons() throws {
    let world = try TestWorld(modality: .faceID)
    try world.prime()
    let flag = CancellationFlag()
    let sensor = CancellingSensor(inner: world.sensor, flag: flag, cancelOnCall: 3)
    world.present(world.impostor(), world.impostor())
    let deps = Dependencies(clock: world.clock, store: world.store, sensor: sensor, prompter: world.prompter, log: world.log)
    let outcome = try PolicyEvaluator(dependencies: deps, settings: world.settings)
      .evaluate(world.request(.deviceOwnerAuthenticationWithBiometrics, cancellation: flag))
    #expect(outcome == .failure(.appCancel, .none))
  }

  @Test("Rule 9: cancelling while the passcode is asked gives appCancel and the entry is not counted")
  func cancelledDuringPasscode() throws {
    let world = try TestWorld(sensorPresent: false)
    try world.setPasscode()
    let flag = CancellationFlag()
    let prompter = CancellingPrompter(flag: flag)
    let deps = Dependencies(clock: world.clock, store: world.store, sensor: world.sensor, prompter: prompter, log: world.log)
    let outcome = try PolicyEvaluator(dependencies: deps, settings: world.settings)
      .evaluate(world.request(.deviceOwnerAuthentication, cancellation: flag))
    #expect(outcome == .failure(.appCancel, .none))
    #expect(try world.record().passcodeFailures == 0)
  }

  @Test("Rule 9: a sensor wait that times out is a systemCancel under both policies", arguments: AuthPolicy.allCases)
  func timeoutIsSystemCancel(policy: AuthPolicy) throws {
    let world = try TestWorld()
    world.settings.sensorTimeout = 12
    try world.prime()
    let start = world.clock.now()
    #expect(try world.evaluator.evaluate(world.request(policy)) == .failure(.systemCancel, .none))
    #expect(world.clock.now().since(start) == 12)
    #expect(world.log.lines.contains("Biometric prompt for user alice timed out after 12 seconds."))
    #expect(world.prompter.prompts.count == 1)  // a timeout does not fall back to the passcode
  }

  @Test("Rule 9: each failed match restarts the sensor timeout")
  func timeoutRestartsAfterFailure() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.impostor())
    let start = world.clock.now()
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.systemCancel, .none))
    #expect(world.clock.now().since(start) == world.settings.sensorTimeout)
  }
}

/// Forwards to a scripted sensor and sets the cancellation flag on its `cancelOnCall`-th call.
final class CancellingSensor: BiometricSensor {
  let inner: ScriptedSensor
  let flag: CancellationFlag
  let cancelOnCall: Int
  private var calls = 0
  var modality: Modality? { inner.modality }

  init(inner: ScriptedSensor, flag: CancellationFlag, cancelOnCall: Int) {
    self.inner = inner
    self.flag = flag
    self.cancelOnCall = cancelOnCall
  }

  func nextEvent(for user: UserName, deadline: WallTime) throws(LocalAuthError) -> SensorEvent {
    try nextEvent(for: user, deadline: deadline, cancellation: nil)
  }

  func nextEvent(for user: UserName, deadline: WallTime, cancellation: CancellationFlag?) throws(LocalAuthError) -> SensorEvent {
    calls += 1
    if calls == cancelOnCall { flag.cancel() }
    return try inner.nextEvent(for: user, deadline: deadline, cancellation: cancellation)
  }
}

/// A prompter whose secret prompt is answered by the app cancelling (the user typed a wrong passcode meanwhile).
final class CancellingPrompter: AuthPrompter {
  let flag: CancellationFlag
  init(flag: CancellationFlag) { self.flag = flag }
  func info(_ text: String) throws(LocalAuthError) {}
  func error(_ text: String) throws(LocalAuthError) {}
  func secret(_ prompt: String) throws(LocalAuthError) -> SecretBytes {
    flag.cancel()
    return SecretBytes("0000")
  }
}
