@testable import LocalAuthCore
import Testing

/// Rule 1 of docs/RULES.md: deviceOwnerAuthentication (policy 2) — biometrics first, then the passcode.
@Suite("Rule 1: deviceOwnerAuthentication")
struct Rule1DeviceOwnerTests {
  @Test("Rule 1: usable biometry is tried first and a genuine capture succeeds without a passcode prompt")
  func biometricsFirst() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.biometry))
    #expect(world.prompter.prompts.count == 1)  // only the priming passcode
    #expect(world.shown("info: ").last == "info: Place your finger on the sensor to unlock the test.")
  }

  @Test("Rule 1: no sensor goes straight to the passcode with no error")
  func noSensorGoesToPasscode() throws {
    let world = try TestWorld(sensorPresent: false)
    try world.setPasscode()
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(world.prompter.prompts == ["prompt: Enter Passcode: "])
    #expect(world.shown("error: ").isEmpty)
  }

  @Test("Rule 1: nothing enrolled goes straight to the passcode with no error")
  func notEnrolledGoesToPasscode() throws {
    let world = try TestWorld()
    try world.prime(enroll: false)
    world.present(world.genuine())
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(world.sensor.pending.count == 1)  // the sensor was never read
  }

  @Test("Rule 1: locked-out biometry goes straight to the passcode, which clears the lockout")
  func lockedOutGoesToPasscode() throws {
    let world = try TestWorld()
    try world.prime()
    try world.store.update(world.user) { $0.biometricFailures = 5 }
    world.present(world.genuine())
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(world.sensor.pending.count == 1)
    #expect(try world.record().biometricFailures == 0)
  }

  @Test("Rule 1: the fallback button switches to the passcode and never gives userFallback")
  func fallbackSwitchesToPasscode() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.impostor(), .fallback)
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(world.prompter.prompts.last == "prompt: Enter Passcode: ")
    #expect(world.sensor.pending.isEmpty)
  }

  @Test("Rule 1: a custom fallback title names the passcode prompt")
  func customFallbackTitle() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.impostor(), .fallback)
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluate(.deviceOwnerAuthentication, fallbackTitle: "Use Passcode") == .success(.passcode))
    #expect(world.prompter.prompts.last == "prompt: Use Passcode: ")
  }

  @Test("Rule 1: Touch ID failing three times reverts to the passcode")
  func exhaustedTouchIDRevertsToPasscode() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.impostor(), world.impostor(), world.impostor(), world.genuine())
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(world.sensor.pending.count == 1)  // the fourth capture was never read
    #expect(try world.record().biometricFailures == 0)  // the passcode success reset the count
  }

  @Test("Rule 1: Face ID failing twice reverts to the passcode")
  func exhaustedFaceIDRevertsToPasscode() throws {
    let world = try TestWorld(modality: .faceID)
    try world.prime()
    world.present(world.impostor(), world.impostor(), world.genuine())
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(world.sensor.pending.count == 1)
  }

  @Test("Rule 1: cancel during the biometric prompt ends with userCancel and no passcode prompt")
  func cancelGivesUserCancel() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(.cancel)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.userCancel, .none))
    #expect(world.prompter.prompts.count == 1)
  }

  @Test("Rule 1: cancel after failed attempts still ends with userCancel")
  func cancelAfterFailures() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.impostor(), .cancel)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.userCancel, .none))
    #expect(try world.record().biometricFailures == 1)
  }

  @Test("Rule 1: no passcode set gives passcodeNotSet before any prompt, even with a finger enrolled")
  func noPasscodeGivesPasscodeNotSet() throws {
    let world = try TestWorld()
    try world.enroll()
    world.present(world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.passcodeNotSet, .none))
    #expect(world.prompter.transcript.isEmpty)
    #expect(world.sensor.pending.count == 1)
  }

  @Test("Rule 1: a wrong passcode fails with authenticationFailed")
  func wrongPasscodeFails() throws {
    let world = try TestWorld(sensorPresent: false)
    try world.setPasscode()
    world.prompter.enqueue("9999")
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.authenticationFailed, .none))
    #expect(world.shown("error: ") == ["error: Wrong passcode."])
    #expect(try world.record().passcodeFailures == 1)
  }

  @Test("Rule 1: the passcode never appears in the log")
  func passcodeNotLogged() throws {
    let world = try TestWorld(sensorPresent: false)
    try world.setPasscode("secret-77")
    world.prompter.enqueue("wrong-88", "secret-77")
    _ = try world.evaluate(.deviceOwnerAuthentication)
    _ = try world.evaluate(.deviceOwnerAuthentication)
    #expect(!world.log.lines.contains { $0.contains("secret-77") || $0.contains("wrong-88") })
    #expect(try world.record().passcodeHash?.contains("secret-77") == false)
  }
}
