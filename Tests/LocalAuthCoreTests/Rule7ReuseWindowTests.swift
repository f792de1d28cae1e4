@testable import LocalAuthCore
import Testing

/// Rule 7 of docs/RULES.md: the reuse window (touchIDAuthenticationAllowableReuseDuration).
@Suite("Rule 7: reuse window")
struct Rule7ReuseWindowTests {
  /// A primed world whose user just matched a finger.
  func matchedWorld() throws -> TestWorld {
    let world = try TestWorld()
    try world.prime()
    world.present(world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics) == .success(.biometry))
    return world
  }

  /// Asserts a fresh scan is needed: with nothing queued, the sensor waits out its timeout (systemCancel).
  func expectScanNeeded(_ world: TestWorld, _ request: EvaluationRequest) throws {
    let start = world.clock.now()
    #expect(try world.evaluator.evaluate(request) == .failure(.systemCancel, .none))
    #expect(world.clock.now().since(start) == world.settings.sensorTimeout)
  }

  @Test("Rule 7: a match within the window is accepted without a new scan, under both policies", arguments: AuthPolicy.allCases)
  func reusedWithinWindow(policy: AuthPolicy) throws {
    let world = try matchedWorld()
    world.clock.advance(by: 25)
    let start = world.clock.now()
    #expect(try world.evaluator.evaluate(world.request(policy, reuse: 30)) == .success(.reuse))
    #expect(world.clock.now() == start)  // the sensor was not read
    #expect(world.prompter.transcript.last?.hasPrefix("info: Place your finger") == true)  // from the first match only
  }

  @Test("Rule 7: the window serves only the requester, login session, terminal session and terminal it was opened for")
  func scopedToRequesterAndTerminal() throws {
    let world = try TestWorld()
    try world.prime()
    let alice = RequestOrigin(
      service: "sudo", tty: "/dev/pts/1", requesterUID: 1000, requesterName: world.user.value, loginSession: "4",
      sessionLeader: "812@5000")
    var opened = world.request(.deviceOwnerAuthenticationWithBiometrics)
    opened.origin = alice
    world.present(world.genuine())
    #expect(try world.evaluator.evaluate(opened) == .success(.biometry))
    #expect(try world.record().reuse?.requesterUID == 1000)
    #expect(try world.record().reuse?.scope == "session=4,leader=812@5000,tty=/dev/pts/1")
    // bob, on his own terminal, running `su alice -c sudo`: neither his uid nor his terminal match. alice's own
    // later terminal that got the number pts/1 again (another leader), an SSH login's pts/1 (another login
    // session), and a request whose leader could not be read do not match either.
    var unreadable = alice
    unreadable.reuseAllowed = false
    for other in [
      RequestOrigin(service: "su", tty: "/dev/pts/2", requesterUID: 1001, requesterName: "bob", loginSession: "4", sessionLeader: "812@5000"),
      RequestOrigin(service: "sudo", tty: "/dev/pts/2", requesterUID: 1000, requesterName: world.user.value, loginSession: "4", sessionLeader: "812@5000"),
      RequestOrigin(service: "su", tty: "/dev/pts/1", requesterUID: 1001, requesterName: "bob", loginSession: "4", sessionLeader: "812@5000"),
      RequestOrigin(service: "sudo", tty: "/dev/pts/1", requesterUID: 1000, requesterName: world.user.value, loginSession: "4", sessionLeader: "813@5100"),
      RequestOrigin(service: "sudo", tty: "/dev/pts/1", requesterUID: 1000, requesterName: world.user.value, loginSession: "9", sessionLeader: "812@5000"),
      unreadable,
    ] {
      var request = world.request(.deviceOwnerAuthenticationWithBiometrics, reuse: 300)
      request.origin = other
      try expectScanNeeded(world, request)
    }
    var same = world.request(.deviceOwnerAuthenticationWithBiometrics, reuse: 300)
    same.origin = alice
    #expect(try world.evaluator.evaluate(same) == .success(.reuse))
  }

  @Test("Rule 7: the window ends after its duration")
  func expiresAfterDuration() throws {
    let world = try matchedWorld()
    world.clock.advance(by: 31)
    try expectScanNeeded(world, world.request(.deviceOwnerAuthenticationWithBiometrics, reuse: 30))
  }

  @Test("Rule 7: the default duration 0 never reuses")
  func zeroNeverReuses() throws {
    let world = try matchedWorld()
    try expectScanNeeded(world, world.request(.deviceOwnerAuthenticationWithBiometrics))
  }

  @Test("Rule 7: the window is capped at 300 seconds")
  func cappedAt300() throws {
    let world = try matchedWorld()
    world.clock.advance(by: 300)
    #expect(try world.evaluator.evaluate(world.request(.deviceOwnerAuthentication, reuse: 3600)) == .success(.reuse))
    world.clock.advance(by: 1)
    try expectScanNeeded(world, world.request(.deviceOwnerAuthenticationWithBiometrics, reuse: 3600))
    #expect(EvaluationRequest.maximumReuseDuration == 300)
  }

  @Test("Rule 7: a match is never reused for another user")
  func neverAcrossUsers() throws {
    let world = try matchedWorld()
    let bob = try UserName("bob")
    try world.setPasscode(for: bob)
    try world.enroll(for: bob)
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluator.evaluate(world.request(.deviceOwnerAuthentication, user: bob)) == .success(.passcode))
    try expectScanNeeded(world, world.request(.deviceOwnerAuthenticationWithBiometrics, reuse: 300, user: bob))
  }

  @Test("Rule 7: a passcode-only success opens no window")
  func notAfterPasscodeOnly() throws {
    let world = try TestWorld()
    try world.prime()
    #expect(try world.record().reuse == nil)
    try expectScanNeeded(world, world.request(.deviceOwnerAuthenticationWithBiometrics, reuse: 300))
  }

  @Test("Rule 7: endReuseWindow ends the window (logout ends it)")
  func endedExplicitly() throws {
    let world = try matchedWorld()
    try world.evaluator.endReuseWindow(for: world.user)
    #expect(try world.record().reuse == nil)
    try expectScanNeeded(world, world.request(.deviceOwnerAuthenticationWithBiometrics, reuse: 300))
  }

  @Test("Rule 7: a reboot ends the window")
  func endedByReboot() throws {
    let world = try matchedWorld()
    world.settings.passcodeAfterReboot = false  // isolate the reuse rule from rule 6
    world.clock.reboot(to: "boot-2")
    try expectScanNeeded(world, world.request(.deviceOwnerAuthenticationWithBiometrics, reuse: 300))
  }

  @Test("Rule 7: an enrollment change ends the window")
  func endedByEnrollmentChange() throws {
    let world = try matchedWorld()
    world.settings.passcodeAfterEnrollmentChange = false  // isolate the reuse rule from rule 6
    try world.enroll("left-index")
    try expectScanNeeded(world, world.request(.deviceOwnerAuthenticationWithBiometrics, reuse: 300))
  }

  @Test("Rule 7: a stamp from before an enrollment change is not honoured even if left in the record")
  func staleStampIgnored() throws {
    let world = try matchedWorld()
    world.settings.passcodeAfterEnrollmentChange = false
    let stamp = try world.record().reuse
    try world.enroll("left-index")
    try world.store.update(world.user) { $0.reuse = stamp }
    try expectScanNeeded(world, world.request(.deviceOwnerAuthenticationWithBiometrics, reuse: 300))
  }

  @Test("Rule 7: a lockout ends the window")
  func endedByLockout() throws {
    let world = try matchedWorld()
    try world.store.update(world.user) { $0.biometricFailures = 5 }
    #expect(
      try world.evaluator.evaluate(world.request(.deviceOwnerAuthenticationWithBiometrics, reuse: 300))
        == .failure(.biometryLockout, .biometryLockedOut(failures: 5)))
  }

  @Test("Rule 7: a remote session never reuses a match")
  func neverRemote() throws {
    let world = try matchedWorld()
    var request = world.request(.deviceOwnerAuthenticationWithBiometrics, reuse: 300)
    request.remote = true
    #expect(try world.evaluator.evaluate(request) == .failure(.biometryNotAvailable, .remoteSession))
  }

  @Test("Rule 7: reuse needs no interaction, so it succeeds when interaction is not allowed")
  func reuseWithoutInteraction() throws {
    let world = try matchedWorld()
    let request = world.request(.deviceOwnerAuthentication, reuse: 60, interactionAllowed: false)
    #expect(try world.evaluator.evaluate(request) == .success(.reuse))
  }
}
