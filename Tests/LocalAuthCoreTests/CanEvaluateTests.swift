@testable import LocalAuthCore
import Testing

/// canEvaluatePolicy's answers ("canEvaluatePolicy" in docs/RULES.md, *derived*): static requirements only, no
/// prompt, no sensor read.
@Suite("canEvaluate")
struct CanEvaluateTests {
  @Test("canEvaluate: policy 2 needs only a passcode")
  func deviceOwner() throws {
    let world = try TestWorld(sensorPresent: false)
    #expect(try world.evaluator.canEvaluate(.deviceOwnerAuthentication, for: world.user) == .passcodeNotSet)
    try world.setPasscode()
    #expect(try world.evaluator.canEvaluate(.deviceOwnerAuthentication, for: world.user) == nil)
  }

  @Test("canEvaluate: policy 2 ignores a biometric lockout")
  func deviceOwnerIgnoresLockout() throws {
    let world = try TestWorld()
    try world.prime()
    try world.store.update(world.user) { $0.biometricFailures = 9 }
    #expect(try world.evaluator.canEvaluate(.deviceOwnerAuthentication, for: world.user) == nil)
  }

  @Test("canEvaluate: policy 1 reports not available, not enrolled, lockout, passcode not set")
  func biometricsOnly() throws {
    let bare = try TestWorld(sensorPresent: false)
    try bare.setPasscode()
    #expect(try bare.evaluator.canEvaluate(.deviceOwnerAuthenticationWithBiometrics, for: bare.user) == .biometryNotAvailable)

    let world = try TestWorld()
    #expect(try world.evaluator.canEvaluate(.deviceOwnerAuthenticationWithBiometrics, for: world.user) == .biometryNotEnrolled)
    try world.enroll()
    #expect(try world.evaluator.canEvaluate(.deviceOwnerAuthenticationWithBiometrics, for: world.user) == .passcodeNotSet)
    try world.setPasscode()
    #expect(try world.evaluator.canEvaluate(.deviceOwnerAuthenticationWithBiometrics, for: world.user) == nil)
    #expect(
      try world.evaluator.canEvaluate(.deviceOwnerAuthenticationWithBiometrics, for: world.user, remote: true)
        == .biometryNotAvailable)
    try world.store.update(world.user) { $0.biometricFailures = 5 }
    #expect(try world.evaluator.canEvaluate(.deviceOwnerAuthenticationWithBiometrics, for: world.user) == .biometryLockout)
    #expect(world.prompter.transcript.isEmpty)
  }

  @Test("canEvaluate: an unknown user has no passcode")
  func unknownUser() throws {
    let world = try TestWorld()
    let nobody = try UserName("nobody-here")
    #expect(try world.evaluator.canEvaluate(.deviceOwnerAuthentication, for: nobody) == .passcodeNotSet)
    #expect(try world.store.load(nobody) == nil)  // asking creates no record
  }

  @Test("canEvaluate: biometryStatus reports the modality when usable")
  func biometryStatusUsable() throws {
    let world = try TestWorld(modality: .faceID)
    try world.prime()
    #expect(try world.evaluator.biometryStatus(for: world.user) == .usable(.faceID))
  }
}
