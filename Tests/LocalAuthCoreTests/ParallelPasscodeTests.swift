@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// `parallel_passcode` (issue 23, section 2): one prompt takes the finger or the typed passcode, whichever comes
/// first, and Apple's rules stay whole (docs/RULES.md, rules 3, 4 and 6).
@Suite("Parallel passcode: the passcode typed while the finger waits")
struct ParallelPasscodeTests {
  /// A primed world with `parallel_passcode` on and a scripted parallel prompt playing `steps`.
  static func world(_ steps: [ScriptedEntry.Step], modality: Modality = .touchID) throws -> (TestWorld, ScriptedEntry) {
    let world = try TestWorld(modality: modality)
    try world.prime()
    world.settings.parallelPasscode = true
    let entry = ScriptedEntry(clock: world.clock, steps: steps)
    world.prompter.parallelEntry = entry
    return (world, entry)
  }

  @Test("A finger while nothing is typed ends the evaluation at once; the prompt names both ways")
  func fingerAlone() throws {
    let (world, entry) = try Self.world([])
    world.present(world.genuine())
    let asked = world.prompter.prompts.count
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.biometry))
    #expect(entry.prompts == ["Place your finger or enter your passcode: "])
    #expect(entry.closed)
    #expect(world.prompter.prompts.count == asked)  // no conversation prompt was asked
  }

  @Test("A finger while half a passcode is typed: success, the half-typed passcode discarded and never checked")
  func fingerWhileTyping() throws {
    let (world, entry) = try Self.world([.type("12"), .sensor, .type("34"), .enter])
    world.present(world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.biometry))
    #expect(entry.closed && entry.discarded == "12")
    #expect(entry.pending == [.type("34"), .enter])
    #expect(try world.record().passcodeFailures == 0)
  }

  @Test("A passcode typed with no finger is the passcode step: accepted, the sensor never read")
  func passcodeAlone() throws {
    let (world, entry) = try Self.world([.type(TestWorld.passcode), .enter])
    world.present(world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(world.sensor.pending.count == 1)
    #expect(entry.closed && entry.discarded.isEmpty)
    #expect(world.log.lines.contains { $0.contains("Passcode accepted for user alice.") })
  }

  @Test("A wrong passcode typed in the parallel prompt is counted and delayed exactly as the passcode step")
  func wrongPasscodeCounted() throws {
    let (world, _) = try Self.world([.type("0000"), .enter])
    world.settings.delaySchedule = DelaySchedule(delays: [60])
    world.present(world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.authenticationFailed, .none))
    let record = try world.record()
    #expect(record.passcodeFailures == 1)
    #expect(record.passcodeNextAllowed != nil)
    #expect(world.shown("error: ").last?.hasPrefix("error: Wrong passcode. Try again in") == true)
    #expect(world.sensor.pending.count == 1)  // one attempt, one verdict: the finger is not asked after it
  }

  @Test("Then the finger in the next evaluation succeeds; while the passcode delay runs only the finger is offered")
  func wrongThenFinger() throws {
    let (world, entry) = try Self.world([.type("0000"), .enter])
    world.settings.delaySchedule = DelaySchedule(delays: [60])
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.authenticationFailed, .none))
    #expect(world.prompter.parallelRequests == 1)
    world.present(world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.biometry))
    #expect(world.prompter.parallelRequests == 1)  // delayed: no parallel prompt was opened
    #expect(entry.pending.isEmpty)
  }

  @Test("Three misses while typing: the prompt becomes the passcode prompt (the fallback title), keeping what was typed")
  func threeMissesWhileTyping() throws {
    let (world, entry) = try Self.world([.type("12"), .sensor, .sensor, .sensor, .type("34"), .enter])
    world.present(world.impostor(), world.impostor(), world.impostor())
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(entry.prompts == ["Place your finger or enter your passcode: ", "Enter Passcode: "])
    #expect(try world.record().biometricFailures == 0)  // reset by the passcode
    #expect(world.shown("error: ").filter { $0 == "error: Try again." }.count == 2)
  }

  @Test("The fifth consecutive miss locks biometry; the passcode typed then unlocks it")
  func lockoutWhileTyping() throws {
    let (world, entry) = try Self.world([.type("12"), .sensor, .type("34"), .enter])
    try world.store.modify(world.user) { (r: inout UserRecord) throws(LocalAuthError) in r.biometricFailures = 4 }
    world.present(world.impostor())
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(world.shown("error: ").contains("error: Too many failed attempts; biometry is locked until the passcode is entered."))
    #expect(entry.prompts.last == "Enter Passcode: ")
  }

  @Test("Enter on an empty line is not a passcode: the finger keeps waiting, nothing is counted")
  func emptyEnter() throws {
    let (world, entry) = try Self.world([.enter, .sensor])
    world.present(world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.biometry))
    #expect(entry.pending.isEmpty)
    #expect(try world.record().passcodeFailures == 0)
  }

  @Test("Ctrl-C in the parallel prompt is the Cancel button (userCancel), nothing counted")
  func cancel() throws {
    let (world, entry) = try Self.world([.type("12"), .cancel])
    world.present(world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.userCancel, .none))
    #expect(entry.closed && entry.discarded == "12")
    #expect(try world.record().passcodeFailures == 0)
  }

  @Test("No finger and no Enter within the timeout: systemCancel, as the finger's wait alone")
  func timeout() throws {
    let (world, _) = try Self.world([.type("12")])
    let start = world.clock.uptime()
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .failure(.systemCancel, .none))
    #expect(world.clock.uptime() - start <= world.settings.sensorTimeout + 0.2)
  }

  @Test("The passcode-only cases open no parallel prompt: after a reboot the passcode is asked as today")
  func passcodeOnlyCases() throws {
    let (world, _) = try Self.world([.type("9999"), .enter])
    world.clock.reboot(to: "boot-2")
    world.prompter.enqueue(TestWorld.passcode)
    let asked = world.prompter.prompts.count
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(world.prompter.parallelRequests == 0)
    #expect(world.prompter.prompts.count == asked + 1 && world.prompter.prompts.last == "prompt: Enter Passcode: ")
  }

  @Test("Off by default, and with a prompter that cannot run one the steps run one after another")
  func offAndUnavailable() throws {
    let (world, entry) = try Self.world([.type(TestWorld.passcode), .enter])
    world.settings.parallelPasscode = false
    world.present(world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.biometry))
    #expect(world.prompter.parallelRequests == 0 && !entry.closed)
    world.settings.parallelPasscode = true
    world.prompter.parallelEntry = nil
    world.present(world.impostor(), world.impostor(), world.impostor())
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluate(.deviceOwnerAuthentication) == .success(.passcode))
    #expect(world.prompter.parallelRequests == 1)
  }

  @Test("The option parses as a flag and is reported by check-config")
  func option() throws {
    #expect(try OptionParser.parse(arguments: ["parallel_passcode"], readFile: { _ in nil }).options.evaluation.parallelPasscode)
    #expect(Options().settingLines.contains("parallel_passcode=no"))
    #expect(Options().evaluation.parallelPasscode == false)
  }
}
