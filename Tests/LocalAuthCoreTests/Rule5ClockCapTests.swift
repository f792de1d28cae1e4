#if canImport(Glibc)
import Glibc
#endif
@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// Rule 5 and a clock that jumped: a stored passcode deadline never lies further ahead than the longest delay of
/// the schedule (1 hour); a record from the future is logged and corrected (issue 20, finding 7).
@Suite("Rule 5: a stored deadline is capped at the longest delay")
struct Rule5ClockCapTests {
  /// About 63 years: the forward jump that showed "Try again in 555556 hours".
  static let jump: Double = 2_000_000_000

  func passcodeWorld(store: StateStore = InMemoryStateStore()) throws -> TestWorld {
    let world = try TestWorld(sensorPresent: false, store: store)
    try world.setPasscode()
    return world
  }

  @Test("Rule 5: five failures while the clock ran decades ahead delay by at most 1 hour once it is right")
  func forwardJumpThenBack() throws {
    let world = try passcodeWorld()
    world.clock.advance(by: Self.jump)
    for guess in ["1111", "2222", "3333", "4444", "5555"] {
      world.prompter.enqueue(guess)
      _ = try world.evaluate(.deviceOwnerAuthentication)
    }
    #expect(try world.record().passcodeNextAllowed == world.clock.now().adding(60))
    world.clock.advance(by: -Self.jump)
    let now = world.clock.now()
    let prompts = world.prompter.prompts.count

    let outcome = try world.evaluate(.deviceOwnerAuthentication)
    #expect(outcome == .failure(.authenticationFailed, .passcodeDelayed(until: now.adding(3600))))
    #expect(world.prompter.prompts.count == prompts, "not asked while the capped delay runs")
    #expect(world.shown("error: ").last == "error: Passcode entry is disabled after repeated failures. Try again in 1 hour.")
    #expect(try world.record().passcodeNextAllowed == now.adding(3600), "the cap is written back")
    #expect(try world.record().recentFailures.allSatisfy { $0.at == now }, "failures dated in the future are set to now")
    let expected =
      "The passcode delay of user alice ended in the future (2000000060 seconds ahead of the clock); capped at 1 hour, "
      + "and its other times in the future (5 recent failures) set to now."
    #expect(world.log.lines.filter { $0.hasPrefix("The passcode delay") } == [expected])

    world.clock.advance(by: 3600)
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
  }

  @Test("Rule 5: a decoded record with a far-future deadline is capped, logged once, shown capped and corrected on disk")
  func decodedRecordFromTheFuture() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let store = FileStateStore(root: folder.path)
    let world = try passcodeWorld(store: store)
    let now = world.clock.now()
    var future = try world.record()
    future.passcodeFailures = 9
    future.passcodeNextAllowed = now.adding(Self.jump)
    future.lastSuccess = now.adding(Self.jump / 2)
    let path = store.recordPath(world.user)
    let bytes = StateCodec.encode(future)
    let fd = open(path, O_WRONLY | O_TRUNC)
    #expect(fd >= 0)
    #expect(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count)
    close(fd)

    let decoded = try #require(try FileStateStore(root: folder.path).load(world.user))
    #expect(decoded.passcodeNextAllowed == now.adding(Self.jump), "the file holds the deadline from the future")
    let report = StatusReport(
      user: world.user, record: decoded, sensor: nil, now: now, bootID: world.clock.bootID(), settings: world.settings,
      deviceOwnerError: nil, biometricsError: nil)
    #expect(report.passcodeNextAllowed == now.adding(3600), "status shows the capped deadline")
    #expect(report.lastSuccess == now)

    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.authenticationFailed, .passcodeDelayed(until: now.adding(3600))))
    #expect(
      world.log.lines.contains(
        "The passcode delay of user alice ended in the future (2000000000 seconds ahead of the clock); capped at 1 hour, "
          + "and its other times in the future (last success) set to now."), "\(world.log.lines)")
    let corrected = try #require(try FileStateStore(root: folder.path).load(world.user))
    #expect(corrected.passcodeNextAllowed == now.adding(3600))
    #expect(corrected.lastSuccess == now)
    #expect(corrected.passcodeFailures == 9, "only the times change")

    let logged = world.log.lines.count
    _ = try world.evaluate(.deviceOwnerAuthentication)
    #expect(!world.log.lines.dropFirst(logged).contains { $0.contains("in the future") }, "corrected once, logged once")
  }

  @Test("Rule 5: deadlines within the longest delay are kept; past-event times in the future alone are set to now")
  func withinTheCapAndOtherTimes() throws {
    let now = WallTime(seconds: 1_800_000_000)
    let alice = try UserName("alice")
    var record = UserRecord()
    record.passcodeNextAllowed = now.adding(3600)
    record.lastPasscodeSuccess = now.adding(3599)
    #expect(FutureTimes.cap(&record, now: now, longestDelay: 3600).isEmpty)
    #expect(record.passcodeNextAllowed == now.adding(3600) && record.lastPasscodeSuccess == now.adding(3599))

    record.lastPasscodeSuccess = now.adding(86400)
    record.reuse = ReuseStamp(at: now.adding(7200), bootID: "b", domainState: "d", requesterUID: 0, scope: "tty:x", purpose: .service("su"))
    let found = FutureTimes.cap(&record, now: now, longestDelay: 3600)
    #expect(record.lastPasscodeSuccess == now && record.reuse == nil && record.passcodeNextAllowed == now.adding(3600))
    #expect(
      found.sentence(user: alice, longestDelay: 3600)
        == "The record of user alice held times in the future (last passcode success, reuse window; up to 86400 seconds ahead of the clock); set to now.")

    record.passcodeNextAllowed = WallTime(seconds: .nan)
    #expect(FutureTimes.cap(&record, now: now, longestDelay: 3600).cappedDelay, "a deadline that is not a number is capped")
    #expect(record.passcodeNextAllowed == now.adding(3600))
  }
}
