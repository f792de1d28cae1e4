import Glibc
import LocalAuthCore
import LocalAuthTestSupport
import LocalAuthTesting
import Testing

/// Each file operation fails in turn, and so do the sensor, the conversation and the clock: nothing may succeed.
@Suite(.serialized)
struct FaultInjectionTests {
  /// An evaluation that succeeds when nothing fails.
  struct Scenario: Sendable, CustomStringConvertible {
    let description: String
    let policy: AuthPolicy
    let sensorPresent: Bool
    let events: @Sendable (PrimedWorld) -> [SensorEvent]
    let answers: [String]
  }

  static let scenarios = [
    Scenario(description: "passcode, deviceOwnerAuthentication", policy: .deviceOwnerAuthentication, sensorPresent: false, events: { _ in [] }, answers: ["1234"]),
    Scenario(description: "finger, deviceOwnerAuthenticationWithBiometrics", policy: .deviceOwnerAuthenticationWithBiometrics, sensorPresent: true, events: { [$0.genuine()] }, answers: []),
    Scenario(description: "finger, deviceOwnerAuthentication", policy: .deviceOwnerAuthentication, sensorPresent: true, events: { [$0.genuine()] }, answers: []),
    Scenario(
      description: "wrong finger, then the right one, deviceOwnerAuthenticationWithBiometrics",
      policy: .deviceOwnerAuthenticationWithBiometrics, sensorPresent: true, events: { [$0.impostor(), $0.genuine()] }, answers: []),
    Scenario(
      description: "three wrong fingers, then the passcode, deviceOwnerAuthentication", policy: .deviceOwnerAuthentication,
      sensorPresent: true, events: { [$0.impostor(seed: 5), $0.impostor(seed: 6), $0.impostor(seed: 7)] }, answers: ["wrong", "1234"]),
  ]

  static func run(_ scenario: Scenario, _ world: PrimedWorld) throws -> EvaluationOutcome {
    // A second later than priming, so that a success changes the record and has to be written.
    world.clock.advance(by: 1)
    let sensor: BiometricSensor =
      scenario.sensorPresent ? ScriptedSensor(modality: .touchID, clock: world.clock, events: scenario.events(world)) : AbsentSensor()
    var outcome = try world.evaluator(sensor: sensor, prompter: ScriptedPrompter(answers: scenario.answers))
      .evaluate(world.request(scenario.policy))
    if outcome == .failure(.authenticationFailed, .none), scenario.answers.count > 1 {
      outcome = try world.evaluator(sensor: AbsentSensor(), prompter: ScriptedPrompter(answers: Array(scenario.answers.dropFirst())))
        .evaluate(world.request(scenario.policy))
    }
    return outcome
  }

  /// Calls of the fault injector under one folder: what they were, and which one to fail.
  final class Injection: @unchecked Sendable {
    let prefix: String
    var operations: [String] = []
    var failAt: Int?
    var code: Int32 = EIO

    init(prefix: String, failAt: Int? = nil, code: Int32 = EIO) {
      self.prefix = prefix
      self.failAt = failAt
      self.code = code
    }

    func install() {
      fileFaultInjector = { [self] operation, path in
        guard path.hasPrefix(prefix) else { return nil }
        operations.append(operation)
        return operations.count - 1 == failAt ? code : nil
      }
    }
  }

  @Test(arguments: FaultInjectionTests.scenarios)
  func everyFileOperationFailingInTurnFailsClosed(_ scenario: Scenario) throws {
    defer { fileFaultInjector = nil }
    let folder = TemporaryFolder("faults")
    let world = try PrimedWorld(store: FileStateStore(root: folder.state))
    let trace = Injection(prefix: folder.path)
    trace.install()
    #expect(try Self.run(scenario, world).isSuccess, "\(scenario): the baseline does not succeed")
    fileFaultInjector = nil
    #expect(trace.operations.count >= 5, "\(scenario): only \(trace.operations.count) file operations traced")
    var thrown = 0
    for index in trace.operations.indices {
      let folder = TemporaryFolder("fault-\(index)")
      let store = FileStateStore(root: folder.state)
      let world = try PrimedWorld(store: store)
      let injection = Injection(prefix: folder.path, failAt: index, code: index % 2 == 0 ? EIO : ENOSPC)
      injection.install()
      let label = "\(scenario), \(trace.operations[index]) #\(index) failing"
      do {
        let outcome = try Self.run(scenario, world)
        Issue.record("\(label): returned \(outcome) instead of throwing")
        #expect(!outcome.isSuccess, "\(label): SUCCESS despite a failed file operation")
      } catch {
        if let error = stateError(error) {
          thrown += 1
          #expect(error.description.contains(folder.state), "\(label): the error does not name the file: \(error)")
        } else {
          Issue.record("\(label): not a StateError: \(error)")
        }
      }
      fileFaultInjector = nil
      // Nothing was lost or torn: the record still loads, with its passcode and finger.
      let record = try store.load(world.user)
      #expect(record?.passcodeHash != nil && record?.templates.count == 1, "\(label): the record was damaged")
    }
    #expect(thrown == trace.operations.count)
    report(
      "fault injection: \(scenario): \(trace.operations.count) file operations (\(Set(trace.operations).sorted().joined(separator: ", "))) failed in turn, \(thrown) StateErrors, 0 successes")
  }

  /// Records every file operation under a folder as "operation /path/below/it", until the injector is reset.
  final class OperationTrace: @unchecked Sendable {
    var calls: [String] = []

    init(under prefix: String) {
      fileFaultInjector = { [self] operation, path in
        if path.hasPrefix(prefix) { calls.append(operation + " " + String(path.dropFirst(prefix.count))) }
        return nil
      }
    }
  }

  @Test func aWriteIsTemporaryFileFsyncRenameFolderFsync() throws {
    defer { fileFaultInjector = nil }
    let folder = TemporaryFolder("order")
    let store = FileStateStore(root: folder.state)
    let user = try UserName("alice")
    try store.update(user) { $0.passcodeFailures = 1 }
    let trace = OperationTrace(under: folder.state)
    try store.update(user) { $0.passcodeFailures = 2 }
    fileFaultInjector = nil
    let tail = Array(trace.calls.drop(while: { $0 != "lock /locks/alice" }))
    #expect(
      tail == [
        "lock /locks/alice", "open /users/alice", "stat /users/alice", "read /users/alice", "open /users/..success.alice",
        "open /users/.alice.tmp", "write /users/.alice.tmp", "fsync /users/.alice.tmp", "rename /users/alice",
        "open /users", "fsync /users",
      ], "\(trace.calls)")
    report("crash safety: an update is, in order: " + tail.joined(separator: ", ") + " (paths under the state folder)")
  }

  /// A write that only records a success (RecordDurability.swift) is the success note, renamed into place without
  /// any flush (SuccessNote.swift); the next failure is the whole record, both flushes, and the note goes.
  @Test func aSuccessWriteIsANoteWithoutFlushes() throws {
    defer { fileFaultInjector = nil }
    let folder = TemporaryFolder("success-order")
    let store = FileStateStore(root: folder.state)
    let user = try UserName("alice")
    try store.update(user) {
      $0.passcodeHash = "$y$j9T$salt$hash"
      $0.biometricFailures = 2
    }
    let trace = OperationTrace(under: folder.state)
    try store.update(user) {
      $0.biometricFailures = 0
      $0.lastBiometricSuccess = WallTime(seconds: 1_000)
      $0.lastSuccess = WallTime(seconds: 1_000)
    }
    let success = Array(trace.calls.drop(while: { $0 != "lock /locks/alice" }))
    trace.calls = []
    try store.update(user) { $0.biometricFailures = 1 }
    let failure = Array(trace.calls.drop(while: { $0 != "lock /locks/alice" }))
    fileFaultInjector = nil
    #expect(
      Array(success.suffix(3)) == ["open /users/..success-new.alice", "write /users/..success-new.alice", "rename /users/..success.alice"],
      "\(success)")
    #expect(!success.contains { $0.hasPrefix("fsync") }, "\(success)")
    #expect(
      Array(failure.suffix(6)) == [
        "write /users/.alice.tmp", "fsync /users/.alice.tmp", "rename /users/alice", "open /users", "fsync /users",
        "unlink /users/..success.alice",
      ], "\(failure)")
    #expect(try store.load(user)?.biometricFailures == 1 && store.load(user)?.lastSuccess == WallTime(seconds: 1_000))
    #expect(access(folder.state + "/users/..success.alice", F_OK) != 0, "the note was left after the whole write")
    report(
      "crash safety: a success ends with " + success.suffix(3).joined(separator: ", ") + " (no fsync); a failure with "
        + failure.suffix(6).joined(separator: ", "))
  }

  @Test func storeOperationsFailingInTurnLoseNothing() throws {
    defer { fileFaultInjector = nil }
    // Every operation of the store itself, including remove (unlink) and users (list), fails in turn.
    let actions: [(String, (FileStateStore, UserName) throws -> Void)] = [
      ("update", { store, user in try store.update(user) { $0.passcodeFailures += 1 } }),
      ("update of a new user", { store, _ in try store.update(UserName("bob")) { $0.biometricFailures = 1 } }),
      ("load", { store, user in _ = try store.load(user) }),
      ("remove", { store, user in try store.remove(user) }),
      ("users", { store, _ in _ = try store.users() }),
    ]
    var runs = 0
    var covered: Set<String> = []
    for (name, action) in actions {
      let folder = TemporaryFolder("store-trace")
      let world = try PrimedWorld(store: FileStateStore(root: folder.state))
      let trace = Injection(prefix: folder.path)
      trace.install()
      try action(world.store as! FileStateStore, world.user)
      fileFaultInjector = nil
      covered.formUnion(trace.operations)
      for index in trace.operations.indices {
        let folder = TemporaryFolder("store-fault")
        let store = FileStateStore(root: folder.state)
        let world = try PrimedWorld(store: store)
        let before = try store.load(world.user)
        Injection(prefix: folder.path, failAt: index).install()
        #expect(throws: LocalAuthError.self, "\(name): \(trace.operations[index]) #\(index) failing did not throw") {
          try action(store, world.user)
        }
        fileFaultInjector = nil
        let after = try store.load(world.user)
        #expect(after == before || after == nil || after?.passcodeFailures == (before?.passcodeFailures ?? 0) + 1, "\(name): torn")
        runs += 1
      }
    }
    #expect(covered.isSuperset(of: ["open", "stat", "read", "write", "fsync", "rename", "lock", "unlink", "mkdir", "list"]), "\(covered)")
    report("fault injection: store operations: \(runs) runs, each of \(covered.sorted().joined(separator: ", ")) failing in turn: all StateError, nothing torn")
  }

  @Test func sensorFaultsFailClosed() throws {
    let world = try PrimedWorld(store: InMemoryStateStore())
    let garbage: [BiometricSample] = [
      BiometricSample(modality: .touchID, quality: 0.9, features: []),
      BiometricSample(modality: .touchID, quality: 0.9, features: [Float](repeating: .nan, count: 64)),
      BiometricSample(modality: .touchID, quality: 0.9, features: [Float](repeating: .infinity, count: 64)),
      BiometricSample(modality: .touchID, quality: 0.9, features: [Float](repeating: 0, count: 64)),
      BiometricSample(modality: .touchID, quality: 0.9, features: [Float](repeating: 1, count: 3)),
      BiometricSample(modality: .touchID, quality: .nan, features: [Float](repeating: 0.1, count: 64)),
      BiometricSample(modality: .touchID, quality: .infinity, features: [Float](repeating: 0.1, count: 64)),
      BiometricSample(modality: .touchID, quality: -1, features: [Float](repeating: 0.1, count: 64)),
      BiometricSample(modality: .faceID, quality: 0.9, features: [Float](repeating: 0.1, count: 64)),
    ]
    var runs = 0
    for policy in AuthPolicy.allCases {
      #expect(throws: injectedSensorFault) {
        try world.evaluator(sensor: ThrowingSensor(), prompter: ScriptedPrompter(answers: ["1234"])).evaluate(world.request(policy))
      }
      runs += 1
      for sample in garbage {
        let sensor = ScriptedSensor(modality: .touchID, clock: world.clock, events: [.sample(sample), .sample(sample), .sample(sample)])
        let outcome = try world.evaluator(sensor: sensor, prompter: ScriptedPrompter(answers: ["wrong"])).evaluate(world.request(policy))
        #expect(!outcome.isSuccess, "\(policy.name): a garbage sample \(sample.features.prefix(2)) q=\(sample.quality) succeeded")
        runs += 1
      }
    }
    report("fault injection: sensor: \(runs) evaluations with a failing sensor or garbage captures (NaN, infinite, empty, wrong size, wrong modality): 0 successes")
  }

  @Test func conversationFaultsFailClosed() throws {
    var runs = 0
    // Failures of the conversation where it is used: prompts on the passcode path, messages on the finger path.
    for fault in [FaultyPrompter.Fault.secretFails, .secretAgain] {
      let world = try PrimedWorld(store: InMemoryStateStore())
      let expected: LocalAuthError = .prompt(fault == .secretAgain ? .conversationAgain : .conversationFailed)
      #expect(throws: expected) {
        try world.evaluator(sensor: AbsentSensor(), prompter: FaultyPrompter(fault: fault, answer: Array("1234".utf8)))
          .evaluate(world.request(.deviceOwnerAuthentication))
      }
      runs += 1
    }
    for policy in AuthPolicy.allCases {
      let world = try PrimedWorld(store: InMemoryStateStore())
      #expect(throws: LocalAuthError.prompt(.conversationFailed)) {
        try world.evaluator(
          sensor: ScriptedSensor(modality: .touchID, clock: world.clock, events: [world.genuine()]),
          prompter: FaultyPrompter(fault: .infoThrows, answer: Array("1234".utf8))
        ).evaluate(world.request(policy))
      }
      #expect(throws: LocalAuthError.prompt(.conversationFailed)) {
        try world.evaluator(
          sensor: ScriptedSensor(modality: .touchID, clock: world.clock, events: [world.impostor(), world.genuine()]),
          prompter: FaultyPrompter(fault: .errorThrows, answer: Array("1234".utf8))
        ).evaluate(world.request(policy))
      }
      runs += 2
    }
    // Hostile answers: none of them is the passcode, whatever a C string or a lenient decoder would make of it.
    let answers: [[UInt8]] = [
      [], Array("1234".utf8) + [0], [0] + Array("1234".utf8), Array("12".utf8) + [0] + Array("34".utf8),
      [UInt8](repeating: UInt8(ascii: "1"), count: 1 << 20), Array("1234".utf8) + [0xFF], [0xFF, 0xFE] + Array("1234".utf8),
      Array("1234\n".utf8), Array(" 1234".utf8), Array("1234".utf8) + [UInt8](repeating: 0, count: 600),
    ]
    for answer in answers {
      let world = try PrimedWorld(store: InMemoryStateStore())
      let outcome = try world.evaluator(sensor: AbsentSensor(), prompter: FaultyPrompter(answer: answer))
        .evaluate(world.request(.deviceOwnerAuthentication))
      #expect(!outcome.isSuccess, "a hostile answer of \(answer.count) bytes succeeded")
      runs += 1
    }
    report("fault injection: conversation: \(runs) evaluations with failing prompts or hostile answers (empty, 1 MiB, NUL, invalid UTF-8): 0 successes")
  }

  /// A primed user who matched a finger at `start` (reuse window) and then typed five wrong passcodes (delay).
  static func delayedWorld() throws -> PrimedWorld {
    let world = try PrimedWorld(store: InMemoryStateStore())
    let sensor = ScriptedSensor(modality: .touchID, clock: world.clock, events: [world.genuine()])
    #expect(try world.evaluator(sensor: sensor, prompter: ScriptedPrompter())
      .evaluate(world.request(.deviceOwnerAuthenticationWithBiometrics)) == .success(.biometry))
    for attempt in 0..<5 {
      _ = try world.evaluator(sensor: AbsentSensor(), prompter: ScriptedPrompter(answers: ["wrong-\(attempt)"]))
        .evaluate(world.request(.deviceOwnerAuthentication))
    }
    return world
  }

  @Test func clockFaultsFailClosed() throws {
    var runs = 0
    let start = ManualClock().now()
    let boot = ManualClock().bootID()
    let broken: [(String, StuckClock)] = [
      ("clock_gettime failed (epoch)", StuckClock(.epoch, boot: boot)),
      ("clock set back a day", StuckClock(start.adding(-86_400), boot: boot)),
      ("clock not a number", StuckClock(WallTime(seconds: .nan), boot: boot)),
      ("clock at minus infinity", StuckClock(WallTime(seconds: -.infinity), boot: boot)),
      ("boot id unreadable", StuckClock(start.adding(1), boot: "unknown-boot")),
      ("boot id empty", StuckClock(start.adding(1), boot: "")),
    ]
    for (label, clock) in broken {
      // The right passcode during the delay: refused (a new boot does not lift the delay either).
      var world = try Self.delayedWorld()
      let delayed = try world.evaluator(sensor: AbsentSensor(), prompter: ScriptedPrompter(answers: ["1234"]), clock: clock)
        .evaluate(world.request(.deviceOwnerAuthentication))
      #expect(!delayed.isSuccess, "\(label): the passcode delay was skipped")
      // The reuse window with no new capture: not honoured when the time is wrong or the boot changed.
      world = try Self.delayedWorld()
      let reused = try world.evaluator(sensor: ScriptedSensor(modality: .touchID, clock: clock), prompter: ScriptedPrompter(), clock: clock)
        .evaluate(world.request(.deviceOwnerAuthenticationWithBiometrics, reuse: 60))
      #expect(!reused.isSuccess, "\(label): the reuse window was honoured")
      runs += 2
      if label.hasPrefix("boot") {
        // A finger after an unknown boot: the passcode is required first.
        world = try Self.delayedWorld()
        let finger = try world.evaluator(
          sensor: ScriptedSensor(modality: .touchID, clock: clock, events: [world.genuine()]), prompter: ScriptedPrompter(), clock: clock
        ).evaluate(world.request(.deviceOwnerAuthenticationWithBiometrics))
        #expect(!finger.isSuccess, "\(label): biometry was accepted after an unknown boot")
        runs += 1
      }
    }
    // Controls: with a sound clock the same requests succeed, so the checks above can fail.
    var world = try Self.delayedWorld()
    #expect(try world.evaluator(sensor: ScriptedSensor(modality: .touchID, clock: world.clock), prompter: ScriptedPrompter())
      .evaluate(world.request(.deviceOwnerAuthenticationWithBiometrics, reuse: 60)) == .success(.reuse))
    world = try Self.delayedWorld()
    world.clock.advance(by: 61)
    #expect(try world.evaluator(sensor: AbsentSensor(), prompter: ScriptedPrompter(answers: ["1234"]))
      .evaluate(world.request(.deviceOwnerAuthentication)) == .success(.passcode))
    report("fault injection: clock: \(runs) evaluations with a failed, backward, NaN or infinite clock or an unreadable boot id: 0 successes")
  }
}
