@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// Issue 38, item 4: a graphical screen locker (i3lock, swaylock) answers the passcode prompt at once with what was
/// typed before Return, so the passcode is asked before the finger; only a locker the kernel vouches for
/// (`ScreenLocker`, docs/RULES.md, "Screen lockers: the typed passcode or the finger").
@Suite("Screen lockers: the typed passcode or the finger, whichever the user chose")
struct ScreenLockerTests {
  typealias FakeSystem = SystemProgramTests.FakeSystem

  static let lockerPrompt = "Enter your passcode, or press Enter to use your finger: "

  /// A primed world whose next request comes from screen locker i3lock.
  static func world() throws -> TestWorld {
    let world = try TestWorld()
    try world.prime()
    return world
  }

  static func lockerRequest(_ world: TestWorld) -> EvaluationRequest {
    var request = world.request(.deviceOwnerAuthentication)
    request.screenLocker = "i3lock"
    return request
  }

  // MARK: Which process is a locker

  @Test("a root-owned i3lock or swaylock in a system folder is a locker, named by its file")
  func systemLocker() {
    for path in ["/usr/bin/i3lock", "/usr/bin/swaylock"] {
      var fake = FakeSystem()
      fake.add(300, runs: path)
      let verdict = ScreenLocker.check(300, programs: ScreenLocker.defaultPrograms, system: fake.system)
      #expect(verdict.name == path.split(separator: "/").last.map(String.init), "\(verdict.reason)")
    }
  }

  @Test("a program called i3lock that is not a system program is no locker: the finger stays first")
  func fakeLocker() {
    var fake = FakeSystem()
    fake.add(300, runs: "/home/alice/bin/i3lock")
    var verdict = ScreenLocker.check(300, programs: ["i3lock"], system: fake.system)
    #expect(verdict.name == nil)
    #expect(verdict.reason.hasPrefix("locker_programs names i3lock, but process 300 runs /home/alice/bin/i3lock"), "\(verdict.reason)")

    // Root's path, but a file the user can write; or a library of the user's mapped into the real i3lock.
    fake = FakeSystem()
    fake.add(300, runs: "/usr/bin/i3lock")
    fake.statuses["/usr/bin/i3lock"] = SystemProgram.FileStatus(owner: 1000, mode: 0o100755, device: 1, inode: 77)
    fake.statuses["/proc/300/exe"] = fake.statuses["/usr/bin/i3lock"]
    #expect(ScreenLocker.check(300, programs: ["i3lock"], system: fake.system).name == nil)
    fake = FakeSystem()
    fake.add(300, runs: "/usr/bin/i3lock")
    fake.files["/proc/300/maps"]! += Array("7f000000-7f100000 r-xp 00000000 00:01 99    /home/alice/evil.so\n".utf8)
    verdict = ScreenLocker.check(300, programs: ["i3lock"], system: fake.system)
    #expect(verdict.name == nil)
    #expect(verdict.reason.contains("/home/alice/evil.so"), "\(verdict.reason)")
  }

  @Test("a system program that locker_programs does not name, or an empty list, is no locker")
  func notNamed() {
    var fake = FakeSystem()
    fake.add(300, runs: "/usr/bin/xsecurelock")
    let verdict = ScreenLocker.check(300, programs: ScreenLocker.defaultPrograms, system: fake.system)
    #expect(verdict.name == nil)
    #expect(verdict.reason == "process 300 runs /usr/bin/xsecurelock, which locker_programs does not name")
    fake = FakeSystem()
    fake.add(300, runs: "/usr/bin/i3lock")
    #expect(ScreenLocker.check(300, programs: [], system: fake.system).name == nil)
    #expect(ScreenLocker.check(300, programs: ["swaylock"], system: fake.system).name == nil)
    #expect(ScreenLocker.check(301, programs: ["i3lock"], system: fake.system).name == nil)  // gone
  }

  @Test("locker_programs parses; a bad name is an error; the report names it")
  func option() throws {
    #expect(Options().lockerPrograms == ["i3lock", "swaylock"])
    #expect(try OptionParser.parse(arguments: ["locker_programs=i3lock,waylock"], readFile: { _ in nil }).options.lockerPrograms == ["i3lock", "waylock"])
    #expect(try OptionParser.parse(arguments: ["locker_programs="], readFile: { _ in nil }).options.lockerPrograms == [])
    #expect(throws: ConfigError.self) { try OptionParser.parse(arguments: ["locker_programs=a b"], readFile: { _ in nil }) }
    #expect(Options().settingLines.contains("locker_programs=i3lock,swaylock"))
  }

  // MARK: The evaluation

  @Test("a passcode typed before Return is checked at once: accepted, the finger never asked, no time passes")
  func typedPasscode() throws {
    let world = try Self.world()
    world.present(world.genuine())
    world.prompter.enqueue(TestWorld.passcode)
    let before = world.clock.uptime()
    let asked = world.prompter.prompts.count
    #expect(try world.evaluator.evaluate(Self.lockerRequest(world)) == .success(.passcode))
    #expect(Array(world.prompter.prompts.dropFirst(asked)) == ["prompt: " + Self.lockerPrompt])
    #expect(world.sensor.pending.count == 1)  // the sensor was never read
    #expect(world.clock.uptime() == before)
    #expect(!world.prompter.transcript.contains { $0.contains("Place your finger") })
    #expect(world.log.lines.contains { $0.contains("Screen locker i3lock of user alice answered with a typed passcode") })
    #expect(!world.log.lines.contains { $0.contains(TestWorld.passcode) })
  }

  @Test("a wrong passcode typed before Return fails at once and is counted and delayed as any passcode")
  func wrongPasscode() throws {
    let world = try Self.world()
    world.settings.delaySchedule = DelaySchedule(delays: [60])
    world.present(world.genuine())
    world.prompter.enqueue("0000")
    #expect(try world.evaluator.evaluate(Self.lockerRequest(world)) == .failure(.authenticationFailed, .none))
    let record = try world.record()
    #expect(record.passcodeFailures == 1)
    #expect(record.passcodeNextAllowed != nil)
    #expect(world.shown("error: ").last?.hasPrefix("error: Wrong passcode. Try again in") == true)
    #expect(world.sensor.pending.count == 1)

    // While the delay runs a typed passcode is refused uncounted; an empty Return still gets the finger.
    world.prompter.enqueue(TestWorld.passcode)
    let delayed = try world.evaluator.evaluate(Self.lockerRequest(world))
    if case .failure(.authenticationFailed, .passcodeDelayed) = delayed {} else { Issue.record("not delayed: \(delayed)") }
    #expect(try world.record().passcodeFailures == 1)
    world.prompter.enqueue("")
    #expect(try world.evaluator.evaluate(Self.lockerRequest(world)) == .success(.biometry))
  }

  @Test("an empty Return asks for the finger, and a touch unlocks; the locker prompt was asked once")
  func emptyThenFinger() throws {
    let world = try Self.world()
    world.present(world.genuine())
    world.prompter.enqueue("")
    let asked = world.prompter.prompts.count
    #expect(try world.evaluator.evaluate(Self.lockerRequest(world)) == .success(.biometry))
    #expect(Array(world.prompter.prompts.dropFirst(asked)) == ["prompt: " + Self.lockerPrompt])
    #expect(world.prompter.transcript.contains { $0.contains("Place your finger on the sensor") })
    #expect(try world.record().passcodeFailures == 0)
    #expect(world.prompter.parallelRequests == 0)
  }

  @Test("an empty Return, then three wrong fingers: the passcode prompt, per policy")
  func emptyThenThreeMisses() throws {
    let world = try Self.world()
    world.present(world.impostor(), world.impostor(), world.impostor())
    world.prompter.enqueue("", TestWorld.passcode)
    let asked = world.prompter.prompts.count
    #expect(try world.evaluator.evaluate(Self.lockerRequest(world)) == .success(.passcode))
    #expect(Array(world.prompter.prompts.dropFirst(asked)) == ["prompt: " + Self.lockerPrompt, "prompt: Enter Passcode: "])
    #expect(try world.record().biometricFailures == 0)  // the passcode cleared them
  }

  @Test("with the login password as the passcode the prompt says password; with confirm, the empty Return is the confirmation")
  func accountAndConfirm() throws {
    let world = try Self.world()
    world.present(world.genuine())
    world.prompter.enqueue("")
    var request = Self.lockerRequest(world)
    request.confirm = true
    let asked = world.prompter.prompts.count
    #expect(try world.evaluator.evaluate(request) == .success(.biometry))
    #expect(Array(world.prompter.prompts.dropFirst(asked)) == ["prompt: " + Self.lockerPrompt])
    #expect(LockerAnswer.prompt(.touchID, passcode: .account) == "Enter your password, or press Enter to use your finger: ")
    #expect(LockerAnswer.prompt(.faceID, passcode: .separate) == "Enter your passcode, or press Enter to use your face: ")
  }

  @Test("any other caller keeps the finger first: no passcode prompt before it")
  func otherCallers() throws {
    let world = try Self.world()
    world.present(world.genuine())
    let asked = world.prompter.prompts.count
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.biometry))
    #expect(world.prompter.prompts.count == asked)
  }

  @Test("under biometrics only the locker prompt is never asked")
  func biometricsOnly() throws {
    let world = try Self.world()
    world.present(world.genuine())
    var request = world.request(.deviceOwnerAuthenticationWithBiometrics)
    request.screenLocker = "i3lock"
    let asked = world.prompter.prompts.count
    #expect(try world.evaluator.evaluate(request) == .success(.biometry))
    #expect(world.prompter.prompts.count == asked)
  }
}
