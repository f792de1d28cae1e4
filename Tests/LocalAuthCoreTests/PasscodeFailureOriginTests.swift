@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// Wrong passcodes are noted in `recentFailures` with their origin, exactly as failed matches are (docs/RULES.md,
/// "Where failures come from"; issue 20, finding 4).
@Suite("Passcode failures record their origin")
struct PasscodeFailureOriginTests {
  /// bob's `su alice` on /dev/pts/2 from host.example.
  let origin = RequestOrigin(
    service: "su", tty: "/dev/pts/2", requesterUID: 1001, requesterName: "bob", remoteHost: "host.example", processID: 4307)

  func passcodeWorld() throws -> TestWorld {
    let world = try TestWorld(sensorPresent: false)
    try world.setPasscode()
    return world
  }

  func enter(_ world: TestWorld, _ guess: String) throws -> EvaluationOutcome {
    world.prompter.enqueue(guess)
    var request = world.request(.deviceOwnerAuthentication)
    request.origin = origin
    return try world.evaluator.evaluate(request)
  }

  @Test("a wrong passcode is noted with kind passcode, its time, and the requester, service, tty and remote host")
  func wrongPasscodeIsNoted() throws {
    let world = try passcodeWorld()
    let at = world.clock.now()
    #expect(try enter(world, "9999") == .failure(.authenticationFailed, .none))
    let failures = try world.record().recentFailures
    #expect(failures.count == 1)
    let entry = try #require(failures.first)
    #expect(entry.kind == .passcode)
    #expect(entry.at == at)
    #expect(entry.requesterUID == 1001)
    #expect(entry.service == "su")
    #expect(entry.tty == "/dev/pts/2")
    #expect(entry.remoteHost == "host.example")
    #expect(try world.record().passcodeFailures == 1)
  }

  @Test("the right passcode and a repeated identical wrong one (not counted) leave no entry; the last five are kept")
  func onlyCountedFailuresAreNoted() throws {
    let world = try passcodeWorld()
    let start = world.clock.now().seconds
    #expect(try enter(world, TestWorld.passcode) == .success(.passcode))
    #expect(try world.record().recentFailures.isEmpty)
    _ = try enter(world, "1111")
    world.clock.advance(by: 1)
    _ = try enter(world, "1111")  // repeated: not counted, so not noted either
    #expect(try world.record().recentFailures.count == 1)
    #expect(try world.record().passcodeFailures == 1)
    for guess in ["2222", "3333", "4444", "5555"] {
      world.clock.advance(by: 1)
      _ = try enter(world, guess)
    }
    world.clock.advance(by: 60)  // the fifth failure's delay
    _ = try enter(world, "6666")
    let failures = try world.record().recentFailures
    #expect(failures.count == FailureEntry.kept, "the oldest of six is dropped")
    #expect(failures.allSatisfy { $0.kind == .passcode && $0.requesterUID == 1001 && $0.service == "su" })
    #expect(failures.map { $0.at.seconds - start } == [2, 3, 4, 5, 65])
  }

  @Test("a passcode failure survives the state file's encoding with its origin")
  func noteRoundTrips() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let world = try TestWorld(sensorPresent: false, store: FileStateStore(root: folder.path))
    try world.setPasscode()
    _ = try enter(world, "9999")
    let reread = try #require(try FileStateStore(root: folder.path).load(world.user))
    #expect(reread.recentFailures.count == 1)
    #expect(reread.recentFailures.first?.kind == .passcode)
    #expect(reread.recentFailures.first?.tty == "/dev/pts/2")
    #expect(reread.recentFailures.first?.remoteHost == "host.example")
  }
}
