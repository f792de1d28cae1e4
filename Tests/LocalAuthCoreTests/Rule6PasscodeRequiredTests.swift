@testable import LocalAuthCore
import Testing

/// Rule 6 of docs/RULES.md: when the passcode is required instead of biometry, each rule configurable.
@Suite("Rule 6: passcode required instead of biometry")
struct Rule6PasscodeRequiredTests {
  /// Asserts that biometry is refused with `why`: policy 1 fails, policy 2 asks for the passcode first.
  func expectPasscodeRequired(_ world: TestWorld, _ why: PasscodeRequirement) throws {
    world.present(world.genuine())
    #expect(
      try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.biometryLockout, .passcodeRequired(why)))
    #expect(world.shown("error: ").last == "error: " + why.message)
    #expect(try world.evaluator.biometryStatus(for: world.user) == .unusable(.biometryLockout, .passcodeRequired(why)))
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(world.shown("info: ").last == "info: " + why.message)
    // The passcode satisfied the rule: the queued finger now works.
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .success(.biometry))
  }

  func expectBiometryWorks(_ world: TestWorld) throws {
    world.present(world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .success(.biometry))
  }

  @Test("Rule 6: the passcode is required after a reboot")
  func afterReboot() throws {
    let world = try TestWorld()
    try world.prime()
    try expectBiometryWorks(world)
    world.clock.reboot(to: "boot-2")
    try expectPasscodeRequired(world, .reboot)
  }

  @Test("Rule 6: the passcode is required before the first biometric use after it is set")
  func firstUseNeedsPasscode() throws {
    let world = try TestWorld()
    try world.setPasscode()
    try world.enroll()
    try expectPasscodeRequired(world, .reboot)
  }

  @Test("Rule 6: the reboot rule can be disabled")
  func rebootRuleDisabled() throws {
    let world = try TestWorld()
    world.settings.passcodeAfterReboot = false
    try world.prime()
    world.clock.reboot(to: "boot-2")
    try expectBiometryWorks(world)
  }

  @Test("Rule 6: the passcode is required after 48 hours without any successful authentication")
  func afterIdle() throws {
    let world = try TestWorld()
    try world.prime()
    world.clock.advance(by: 48 * 3600)
    try expectBiometryWorks(world)  // exactly 48 h is still within the limit
    world.clock.advance(by: 48 * 3600 + 1)
    try expectPasscodeRequired(world, .idle)
  }

  @Test("Rule 6: the idle rule can be disabled")
  func idleRuleDisabled() throws {
    let world = try TestWorld()
    world.settings.idleLimit = 0
    try world.prime()
    world.clock.advance(by: 100 * 3600)
    try expectBiometryWorks(world)
  }

  @Test("Rule 6: the passcode is required when unused for 156 hours and biometry unused for 4 hours")
  func afterPasscodeAge() throws {
    let world = try TestWorld()
    try world.prime()
    for _ in 0..<6 {  // daily biometric unlocks keep the 48-hour rule satisfied
      world.clock.advance(by: 24 * 3600)
      try expectBiometryWorks(world)
    }
    world.clock.advance(by: 9 * 3600)  // 153 h: biometry now
    try expectBiometryWorks(world)
    world.clock.advance(by: 3 * 3600 + 1)  // 156 h + 1 s, biometry 3 h ago: still fine
    try expectBiometryWorks(world)
    world.clock.advance(by: 4 * 3600 + 1)  // biometry 4 h + 1 s ago
    try expectPasscodeRequired(world, .passcodeAge)
  }

  @Test("Rule 6: the 156 h / 4 h rule can be disabled")
  func passcodeAgeRuleDisabled() throws {
    let world = try TestWorld()
    world.settings.passcodeMaxAge = 0
    try world.prime()
    for _ in 0..<8 {
      world.clock.advance(by: 24 * 3600)
      try expectBiometryWorks(world)
    }
    world.clock.advance(by: 5 * 3600)
    try expectBiometryWorks(world)
  }

  @Test("Rule 6: the passcode is required after an enrollment change (add or remove)")
  func afterEnrollmentChange() throws {
    let world = try TestWorld()
    try world.prime()
    try world.enroll("left-index")
    try expectPasscodeRequired(world, .enrollmentChange)
    try world.admin.unenroll("left-index", for: world.user)
    try expectPasscodeRequired(world, .enrollmentChange)
  }

  @Test("Rule 6: the enrollment-change rule can be disabled")
  func enrollmentRuleDisabled() throws {
    let world = try TestWorld()
    world.settings.passcodeAfterEnrollmentChange = false
    try world.prime()
    try world.enroll("left-index")
    try expectBiometryWorks(world)
  }

  @Test("Rule 6: canEvaluate does not report a passcode requirement; evaluation does")
  func canEvaluateIgnoresRequirement() throws {
    let world = try TestWorld()
    try world.prime()
    world.clock.reboot(to: "boot-2")
    #expect(try world.evaluator.canEvaluate(.deviceOwnerAuthenticationWithBiometrics, for: world.user) == nil)
    #expect(
      try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .failure(.biometryLockout, .passcodeRequired(.reboot)))
  }
}
