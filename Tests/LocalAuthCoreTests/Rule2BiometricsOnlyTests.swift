@testable import LocalAuthCore
import Testing

/// Rule 2 of docs/RULES.md: deviceOwnerAuthenticationWithBiometrics (policy 1) — biometry only.
@Suite("Rule 2: deviceOwnerAuthenticationWithBiometrics")
struct Rule2BiometricsOnlyTests {
  @Test("Rule 2: a genuine capture succeeds by biometry")
  func genuineSucceeds() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .success(.biometry))
    #expect(try world.record().lastBiometricSuccess == world.clock.now())
  }

  @Test("Rule 2: no sensor gives biometryNotAvailable without a prompt")
  func noSensor() throws {
    let world = try TestWorld(sensorPresent: false)
    try world.setPasscode()
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.biometryNotAvailable, .none))
    #expect(world.prompter.transcript.isEmpty)
  }

  @Test("Rule 2: a remote session gives biometryNotAvailable")
  func remoteSession() throws {
    let world = try TestWorld()
    try world.prime()
    var request = world.request(.deviceOwnerAuthenticationWithBiometrics)
    request.remote = true
    #expect(try world.evaluator.evaluate(request) == .failure(.biometryNotAvailable, .remoteSession))
  }

  @Test("Rule 2: nothing enrolled gives biometryNotEnrolled")
  func notEnrolled() throws {
    let world = try TestWorld()
    try world.prime(enroll: false)
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.biometryNotEnrolled, .none))
  }

  @Test("Rule 2: a face enrolled on a fingerprint machine gives biometryNotEnrolled")
  func otherModalityEnrolled() throws {
    let world = try TestWorld(modality: .touchID)
    try world.prime(enroll: false)
    let face = world.simulator.enroll(owner: "alice", item: "face", modality: .faceID, at: world.clock.now(), using: &world.rng)
    try world.admin.enroll(face, for: world.user)
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.biometryNotEnrolled, .none))
  }

  @Test("Rule 2: locked-out biometry gives biometryLockout without reading the sensor")
  func lockedOut() throws {
    let world = try TestWorld()
    try world.prime()
    try world.store.update(world.user) { $0.biometricFailures = 5 }
    world.present(world.genuine())
    #expect(
      try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.biometryLockout, .biometryLockedOut(failures: 5)))
    #expect(world.sensor.pending.count == 1)
  }

  @Test("Rule 2: the fallback button gives userFallback")
  func fallbackGivesUserFallback() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.impostor(), .fallback)
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.userFallback, .fallbackChosen))
    #expect(world.prompter.prompts.count == 1)  // no passcode prompt: the app handles the fallback
  }

  @Test("Rule 2: cancel gives userCancel")
  func cancelGivesUserCancel() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(.cancel)
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.userCancel, .none))
  }

  @Test("Rule 2: no passcode set gives passcodeNotSet even with usable biometry")
  func passcodeNotSet() throws {
    let world = try TestWorld()
    try world.enroll()
    world.present(world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.passcodeNotSet, .none))
    #expect(world.sensor.pending.count == 1)
  }

  @Test("Rule 2: unusable biometry is reported before a missing passcode")
  func unusableBeforePasscodeNotSet() throws {
    let world = try TestWorld()
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.biometryNotEnrolled, .none))
    let bare = try TestWorld(sensorPresent: false)
    #expect(try bare.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.biometryNotAvailable, .none))
  }
}
