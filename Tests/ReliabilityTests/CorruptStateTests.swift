import Glibc
import LocalAuthCore
import LocalAuthTestSupport
import LocalAuthTesting
import Testing

/// Corrupt, truncated, empty, oversized and future-version state files: a clear error naming the file, fail closed.
@Suite(.serialized)
struct CorruptStateTests {
  /// A record with every field set, so that truncations cut through every kind of line.
  static func fullRecord() throws -> UserRecord {
    let world = try PrimedWorld(store: InMemoryStateStore())
    var record = try #require(try world.store.load(world.user))
    record.passcodeFailures = 3
    record.lastWrongPasscodeHash = "$y$j9T$abc$def"
    record.passcodeNextAllowed = WallTime(seconds: 1_800_000_060.5)
    record.biometricFailures = 2
    record.lastBiometricSuccess = WallTime(seconds: 1_799_999_000)
    record.features = ["sudo", "login"]
    record.reuse = try StateCodec.decode(Array("localauth-state 1\nreuse 1800000000.0 boot-1 d1\nend\n".utf8), path: "x").reuse
    return record
  }

  @Test func theFormatCarriesAVersion() throws {
    let record = try Self.fullRecord()
    let bytes = StateCodec.encode(record)
    #expect(String(decoding: bytes.prefix(while: { $0 != 10 }), as: UTF8.self) == "\(StateCodec.magic) \(StateCodec.currentVersion)")
    #expect(try StateCodec.decode(bytes, path: "p") == record)
  }

  /// Writes `bytes` as alice's record, then checks load, update and both policies all fail with an error naming it.
  static func expectFailsClosed(_ bytes: [UInt8], _ label: String, reason: String? = nil) throws {
    let folder = TemporaryFolder("corrupt")
    let store = FileStateStore(root: folder.state)
    let user = try UserName("alice")
    try store.update(user) { $0.passcodeFailures = 1 }
    let path = store.recordPath(user)
    writeWhole(path, bytes)
    let before = snapshot(folder.path)
    func check(_ what: String, _ body: () throws -> Void) {
      do {
        try body()
        Issue.record("\(label): \(what) succeeded")
      } catch {
        guard let error = stateError(error) else {
          Issue.record("\(label): \(what): not a StateError: \(error)")
          return
        }
        #expect(error.description.contains(path), "\(label): \(what): the error does not name the file: \(error)")
        if let reason { #expect(error.description.contains(reason), "\(label): \(what): \(error)") }
      }
    }
    check("load") { _ = try store.load(user) }
    check("update") { try store.update(user) { $0.passcodeFailures = 0 } }
    for policy in AuthPolicy.allCases {
      let clock = ManualClock()
      let evaluator = PolicyEvaluator(
        dependencies: Dependencies(
          clock: clock, store: store, sensor: ScriptedSensor(clock: clock), prompter: ScriptedPrompter(answers: ["1234"]), log: NullLog()))
      check("evaluate \(policy.name)") { _ = try evaluator.evaluate(EvaluationRequest(user: user, policy: policy, reason: "test")) }
    }
    #expect(snapshot(folder.path) == before, "\(label): the corrupt file or its folder changed")
  }

  @Test func corruptFilesFailClosedWithTheirName() throws {
    let full = StateCodec.encode(try Self.fullRecord())
    try Self.expectFailsClosed([], "empty", reason: "empty")
    try Self.expectFailsClosed(Array("localauth-state 1".utf8), "header without newline", reason: "truncated")
    try Self.expectFailsClosed(Array("localauth-state 2\n".utf8), "future version", reason: "unsupported format version 2")
    try Self.expectFailsClosed(Array("localauth-state 0\n".utf8), "version 0", reason: "unsupported format version 0")
    try Self.expectFailsClosed(Array("localauth-state 99999999999999999999999\n".utf8), "huge version", reason: "unsupported format version")
    try Self.expectFailsClosed(Array("localauth-state one\n".utf8), "word version", reason: "unsupported format version")
    try Self.expectFailsClosed(Array("pam_faillock 1\n".utf8), "another file", reason: "header is missing")
    try Self.expectFailsClosed([0xEF, 0xBB, 0xBF] + full, "byte-order mark", reason: "header is missing")
    try Self.expectFailsClosed(Array(String(decoding: full, as: UTF8.self).replacingNewlines().utf8), "CRLF", reason: "corrupt")
    try Self.expectFailsClosed(full + [0], "trailing NUL", reason: "truncated")
    try Self.expectFailsClosed(Array(full.dropLast()) + [0xFF, 10], "invalid UTF-8", reason: "UTF-8")
    try Self.expectFailsClosed(full.dropLast(4) + full.dropFirst(18), "duplicated lines", reason: "duplicate key")
    try Self.expectFailsClosed(full + full.dropFirst(18), "text after the end line", reason: "after the end line")
    try Self.expectFailsClosed(
      [UInt8](repeating: UInt8(ascii: "a"), count: StateCodec.maximumSize + 1), "one byte too large", reason: "larger than")
    // Every truncation, inside a line or at a line boundary (the missing `end` line); every line boundary and
    // every 16th other cut also through the store and both policies.
    var truncations = 0
    var atLineBoundary = 0
    for length in 1..<full.count {
      let path = "/var/lib/localauth/users/alice"
      #expect(throws: StateError.corrupt(path: path, reason: "the file is truncated")) {
        try StateCodec.decode(Array(full.prefix(length)), path: path)
      }
      if full[length - 1] == 10 {
        try Self.expectFailsClosed(Array(full.prefix(length)), "cut after a line, \(length) bytes", reason: "truncated")
        atLineBoundary += 1
      } else if truncations % 16 == 0 {
        try Self.expectFailsClosed(Array(full.prefix(length)), "truncated to \(length) bytes", reason: "truncated")
      }
      truncations += 1
    }
    #expect(atLineBoundary == full.filter { $0 == 10 }.count - 1)
    report("corrupt state: \(truncations) truncations (\(atLineBoundary) at a line boundary) and 14 kinds of corrupt, empty, oversized or future-version files: each a StateError naming the file from load, update and both policies, file unchanged")
  }

  @Test func aHugeFileIsRefusedWithoutReadingIt() throws {
    let folder = TemporaryFolder("huge")
    let store = FileStateStore(root: folder.state)
    let user = try UserName("alice")
    try store.update(user) { $0.passcodeFailures = 1 }
    let fd = open(store.recordPath(user), O_WRONLY | O_TRUNC)
    #expect(ftruncate(fd, 1 << 32) == 0)
    close(fd)
    let began = monotonicSeconds()
    #expect(throws: LocalAuthError.state(.tooLarge(path: store.recordPath(user), limit: StateCodec.maximumSize))) { try store.load(user) }
    #expect(monotonicSeconds() - began < 1)
  }

  @Test func randomBytesAreRefusedInBoundedTime() throws {
    var rng = SplitMix64(seed: 2026)
    let path = "/var/lib/localauth/users/alice"
    let full = StateCodec.encode(try Self.fullRecord())
    var refused = 0
    var decoded = 0
    let began = monotonicSeconds()
    let count = 20_000
    for index in 0..<count {
      var bytes: [UInt8]
      if index % 2 == 0 {
        bytes = (0..<Int(rng.next() % 2048)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
      } else {
        bytes = full
        for _ in 0..<(1 + Int(rng.next() % 4)) {
          bytes[Int(rng.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: rng.next())
        }
      }
      do {
        let record = try StateCodec.decode(bytes, path: path)
        #expect(try StateCodec.decode(StateCodec.encode(record), path: path) == record)
        decoded += 1
      } catch {
        #expect(error.description.contains(path))
        refused += 1
      }
    }
    let elapsed = monotonicSeconds() - began
    #expect(elapsed < 30, "decoding \(count) inputs took \(elapsed) s")
    report("corrupt state: \(count) random or mutated state files decoded in \(formatSeconds(elapsed)) s: \(refused) refused naming the file, \(decoded) still well-formed (round trip exact), 0 crashes")
  }

  @Test func absurdButWellFormedValuesDoNotTrap() throws {
    let world = try PrimedWorld(store: InMemoryStateStore())
    var absurd = try #require(try world.store.load(world.user))
    absurd.passcodeFailures = 999_999_999
    absurd.passcodeNextAllowed = WallTime(seconds: 1e300)
    absurd.lastSuccess = WallTime(seconds: 1e300)
    absurd.lastBiometricSuccess = .epoch
    let record = try StateCodec.decode(StateCodec.encode(absurd), path: "p")
    #expect(record == absurd)
    try world.store.update(world.user) { $0 = record }
    // The passcode stays delayed, capped at the longest delay (1 hour: a deadline of 1e300 is a clock gone wrong,
    // docs/RULES.md rule 5), the messages do not trap, and a real finger still works.
    let delayed = try world.evaluator(sensor: AbsentSensor(), prompter: ScriptedPrompter(answers: ["1234"]))
      .evaluate(world.request(.deviceOwnerAuthentication))
    #expect(delayed == .failure(.authenticationFailed, .passcodeDelayed(until: world.clock.now().adding(3600))))
    let finger = try world.evaluator(
      sensor: ScriptedSensor(modality: .touchID, clock: world.clock, events: [world.genuine()]), prompter: ScriptedPrompter()
    ).evaluate(world.request(.deviceOwnerAuthenticationWithBiometrics))
    #expect(finger == .success(.biometry))
  }
}

extension String {
  /// The text with every "\n" written as "\r\n".
  func replacingNewlines() -> String {
    split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
  }
}
