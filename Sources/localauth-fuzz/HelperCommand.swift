#if canImport(Glibc)
import Glibc
#endif
import LocalAuthCore
import LocalAuthTesting

/// The hidden subcommands ReliabilityTests run as separate processes.
enum HelperCommand {
  static let usage = """
    usage: localauth-fuzz writer STATE_DIR USER N        (N updates, 0 = until killed; prints each committed value)
           localauth-fuzz passcode STATE_DIR USER PASSCODE NOW HOLD_MS
                                                        (waits for EOF on stdin, then one deviceOwnerAuthentication)
           localauth-fuzz replay TARGET FILE...          (runs fuzz inputs without libFuzzer)
           localauth-fuzz mutate TARGET COUNT SEED       (random inputs through a target; prints the count)
    TARGET: options, state, helper or app
    """

  /// Runs a subcommand; returns the exit status.
  static func run(_ arguments: [String]) -> Int32 {
    guard let command = arguments.first else { return fail(usage) }
    let rest = Array(arguments.dropFirst())
    do {
      switch command {
      case "writer":
        guard rest.count == 3, let count = Int(rest[2]) else { return fail(usage) }
        try writer(root: rest[0], user: UserName(rest[1]), count: count)
      case "passcode":
        guard rest.count == 5, let now = Double(rest[3]), let hold = UInt32(rest[4]) else { return fail(usage) }
        try passcode(root: rest[0], user: UserName(rest[1]), passcode: rest[2], now: now, holdMilliseconds: hold)
      case "replay":
        guard rest.count >= 1, let target = FuzzTarget(rawValue: rest[0]) else { return fail(usage) }
        for path in rest.dropFirst() { target.run(try readInput(path)) }
        emit("replayed \(rest.count - 1) inputs")
      case "mutate":
        guard rest.count == 3, let target = FuzzTarget(rawValue: rest[0]), let count = Int(rest[1]),
          let seed = UInt64(rest[2])
        else { return fail(usage) }
        emit("tried \(RandomInputs.run(target, count: count, seed: seed)) inputs")
      default:
        return fail(usage)
      }
    } catch {
      emit("error \(error)")
      return 1
    }
    return 0
  }

  /// Loops FileStateStore.update, incrementing counters that must always agree, and prints each committed value.
  ///
  /// Between two updates the writer rests up to 0.5 ms, as separate PAM calls do: the lock's bounded wait polls
  /// (FileSyscalls.waitForLock), so a writer that took the lock again at once would starve the other writer of the
  /// same user past the wait on a loaded machine, and the test would measure that instead of crash safety.
  static func writer(root: String, user: UserName, count: Int) throws {
    let store = FileStateStore(root: root)
    var done = 0
    while count == 0 || done < count {
      if done > 0 { usleep(UInt32.random(in: 50...500)) }
      let value = try store.update(user) { record -> Int in
        let next = record.enrollmentGeneration + 1
        record.enrollmentGeneration = next
        record.biometricFailures = next
        record.passcodeFailures = next
        record.features = Set((0..<(next % 7)).map { "feature-\($0)" })
        return next
      }
      emit(String(value))
      done += 1
    }
  }

  /// One passcode evaluation through PolicyEvaluator; prints wrong, delayed, success or failure CODE.
  static func passcode(root: String, user: UserName, passcode: String, now: Double, holdMilliseconds: UInt32) throws {
    var gate = [UInt8](repeating: 0, count: 64)
    while gate.withUnsafeMutableBytes({ read(0, $0.baseAddress, $0.count) }) > 0 {}
    var settings = EvaluationSettings()
    settings.hasher = PasscodeHasher(cost: 1)
    let dependencies = Dependencies(
      clock: FixedClock(seconds: now), store: HoldingStore(FileStateStore(root: root), holdMilliseconds: holdMilliseconds),
      sensor: AbsentSensor(), prompter: ScriptedPrompter(answers: [passcode]), log: NullLog())
    let outcome = try PolicyEvaluator(dependencies: dependencies, settings: settings).evaluate(
      EvaluationRequest(user: user, policy: .deviceOwnerAuthentication, reason: "check the reliability of the state"))
    switch outcome {
    case .success: emit("success")
    case .failure(.authenticationFailed, .none): emit("wrong")
    case .failure(.authenticationFailed, .passcodeDelayed): emit("delayed")
    case .failure(let code, _): emit("failure \(code.name)")
    }
  }

  static func readInput(_ path: String) throws -> [UInt8] {
    guard let file = fopen(path, "rb") else { throw HelperError.cannotOpen(path) }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
      if count == 0 { return bytes }
      bytes += chunk[0..<count]
    }
  }

  /// Writes one line to stdout unbuffered, so that a SIGKILL loses nothing already printed.
  static func emit(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
      if n <= 0 { return }
      offset += n
    }
  }

  static func fail(_ message: String) -> Int32 {
    let bytes = Array((message + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    return 2
  }
}

/// Why the helper could not run.
enum HelperError: Error {
  /// An input file could not be opened.
  case cannotOpen(String)
}
