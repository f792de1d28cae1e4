@testable import LocalAuthCore
import Testing

/// The on-disk record format and the file store.
@Suite("State: codec and file store")
struct StateCodecTests {
  func fullRecord() -> UserRecord {
    var rng = SplitMix64(seed: 3)
    let simulator = BiometricSimulator(worldSeed: 9)
    var record = UserRecord()
    record.passcodeHash = "$y$j9T$abc$def"
    record.passcodeFailures = 6
    record.lastWrongPasscodeHash = "$y$j9T$abc$xyz"
    record.passcodeNextAllowed = WallTime(seconds: 1_800_000_300.25)
    record.lastPasscodeSuccess = WallTime(seconds: 1_799_999_000)
    record.lastPasscodeBootID = "0b1d-boot"
    record.biometricFailures = 4
    record.lastBiometricSuccess = WallTime(seconds: 1_799_999_500.5)
    record.lastSuccess = WallTime(seconds: 1_799_999_600)
    record.enrollmentGeneration = 3
    record.domainState = "aa11"
    record.acknowledgedDomainState = "bb22"
    record.reuse = ReuseStamp(
      at: WallTime(seconds: 1_799_999_500.5), bootID: "0b1d-boot", domainState: "aa11", requesterUID: 1000, scope: "tty:/dev/pts/3",
      purpose: .service("sudo"))
    record.noteFailure(
      FailureEntry(
        at: WallTime(seconds: 1_799_999_400), kind: .passcode,
        origin: RequestOrigin(service: "su", tty: "/dev/pts/3", requesterUID: 1001, remoteHost: "")))
    record.features = ["payments", "notes.private"]
    record.templates = [
      simulator.enroll(owner: "alice", item: "right-index", modality: .touchID, at: WallTime(seconds: 1_700_000_000), using: &rng),
      simulator.enroll(owner: "alice", item: "left_thumb", modality: .touchID, at: WallTime(seconds: 1_700_000_100), using: &rng),
    ]
    return record
  }

  @Test("State: a full record survives encode and decode unchanged")
  func roundTrip() throws {
    let record = fullRecord()
    let bytes = StateCodec.encode(record)
    #expect(try StateCodec.decode(bytes, path: "t") == record)
    #expect(try StateCodec.decode(StateCodec.encode(UserRecord()), path: "t") == UserRecord())
    #expect(String(decoding: bytes.prefix(18), as: UTF8.self) == "localauth-state 1\n")
  }

  @Test("State: corrupt files fail closed with a reason")
  func corruptFailsClosed() {
    func decode(_ text: String) -> StateError? {
      do { _ = try StateCodec.decode(Array(text.utf8), path: "f"); return nil } catch { return error }
    }
    #expect(decode("") == .corrupt(path: "f", reason: "the file is empty"))
    #expect(decode("localauth-state 1") == .corrupt(path: "f", reason: "the file is truncated"))
    #expect(decode("localauth-state 1\n") == .corrupt(path: "f", reason: "the file is truncated"))
    #expect(
      decode("localauth-state 1\nend\nbiometry.failures 1\nend\n")
        == .corrupt(path: "f", reason: "line 2: text after the end line"))
    #expect(decode("localauth-state 2\n") == .unsupportedVersion(path: "f", found: "2"))
    #expect(decode("something 1\n") == .corrupt(path: "f", reason: "the header is missing"))
    #expect(decode("localauth-state 1\nbogus 1\nend\n") == .corrupt(path: "f", reason: "line 2: unknown key bogus"))
    #expect(
      decode("localauth-state 1\nbiometry.failures 1\nbiometry.failures 2\nend\n")
        == .corrupt(path: "f", reason: "line 3: duplicate key biometry.failures"))
    #expect(decode("localauth-state 1\nbiometry.failures -1\nend\n") == .corrupt(path: "f", reason: "line 2: bad count"))
    #expect(decode("localauth-state 1\nsuccess.last nan\nend\n") == .corrupt(path: "f", reason: "line 2: bad time"))
  }

  @Test("State: a record cut at any line boundary is refused as truncated, not read with fewer fields")
  func truncationAtEveryLineBoundaryIsRefused() {
    let bytes = StateCodec.encode(fullRecord())
    #expect(bytes.suffix(4) == Array("end\n".utf8))
    var cuts = 0
    for length in 1..<bytes.count where bytes[length - 1] == UInt8(ascii: "\n") {
      #expect(throws: StateError.corrupt(path: "t", reason: "the file is truncated")) {
        try StateCodec.decode(Array(bytes.prefix(length)), path: "t")
      }
      cuts += 1
    }
    #expect(cuts == bytes.filter { $0 == UInt8(ascii: "\n") }.count - 1)
    #expect(cuts >= 17)
  }

  @Test("State: two FileStateStore instances over one folder see one truth")
  func fileStoreSharedTruth() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let a = FileStateStore(root: folder.path)
    let b = FileStateStore(root: folder.path)
    let alice = try UserName("alice")
    #expect(try a.load(alice) == nil)
    try a.update(alice) { $0.biometricFailures += 1 }
    try b.update(alice) { $0.biometricFailures += 1 }
    #expect(try a.load(alice)?.biometricFailures == 2)
    #expect(try b.users() == [alice])
    try b.remove(alice)
    #expect(try a.load(alice) == nil)
  }

  @Test("State: concurrent updates through two FileStateStore instances lose nothing")
  func concurrentUpdatesLoseNothing() async throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let alice = try UserName("alice")
    let root = folder.path
    try FileStateStore(root: root).update(alice) { $0.biometricFailures = 0 }
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<2 {
        group.addTask {
          let store = FileStateStore(root: root)  // its own descriptors, like another process
          for _ in 0..<100 { _ = try? store.update(alice) { $0.biometricFailures += 1 } }
        }
      }
    }
    #expect(try FileStateStore(root: root).load(alice)?.biometricFailures == 200)
  }

  @Test("State: a failing update body writes nothing")
  func failingUpdateWritesNothing() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let store = FileStateStore(root: folder.path)
    let alice = try UserName("alice")
    try store.update(alice) { $0.passcodeFailures = 1 }
    let refusal = LocalAuthError.administration(.notEnrolled("thumb"))
    #expect(throws: refusal) {
      try store.update(alice) { (record: inout UserRecord) throws(LocalAuthError) in
        record.passcodeFailures = 9
        throw refusal
      }
    }
    #expect(try store.load(alice)?.passcodeFailures == 1)
  }
}

/// Every record the encoder can write decodes to itself, over the whole range of every field: times before 1970
/// and far ahead, any count from 0, every failure kind and origin, with and without a reuse window.
@Suite("State: codec round trip over every field's range")
struct StateCodecRangeTests {
  /// A finite time from anywhere in Double's range, with the edges drawn often.
  static func time(_ rng: inout SplitMix64) -> WallTime {
    let edges: [Double] = [
      0, -0.0, -1, -1e-300, 1e-300, -86_400 * 365 * 100, 4_102_444_800, -Double.greatestFiniteMagnitude,
      Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude, -Double.leastNormalMagnitude,
    ]
    if rng.next() % 3 == 0 { return WallTime(seconds: edges[Int(rng.next() % UInt64(edges.count))]) }
    var bits: Double
    repeat { bits = Double(bitPattern: rng.next()) } while !bits.isFinite
    return WallTime(seconds: bits)
  }

  static func count(_ rng: inout SplitMix64) -> Int {
    switch rng.next() % 3 {
    case 0: Int(rng.next() % 10)
    case 1: Int.max
    default: Int(rng.next() >> 1)
    }
  }

  static func token(_ rng: inout SplitMix64) -> String { String(rng.next(), radix: 36) }

  @Test("State: 2,000 random records round-trip, clocks before 1970 included")
  func randomRecordsRoundTrip() throws {
    var rng = SplitMix64(seed: 0xC0DEC)
    for round in 0..<2000 {
      var r = UserRecord()
      if rng.next() % 2 == 0 { r.passcodeHash = "$y$j9T$" + Self.token(&rng) }
      r.passcodeFailures = Self.count(&rng)
      if rng.next() % 2 == 0 { r.lastWrongPasscodeHash = "$y$j9T$" + Self.token(&rng) }
      if rng.next() % 2 == 0 { r.passcodeNextAllowed = Self.time(&rng) }
      if rng.next() % 2 == 0 { r.lastPasscodeSuccess = Self.time(&rng) }
      if rng.next() % 2 == 0 { r.lastPasscodeBootID = Self.token(&rng) }
      r.biometricFailures = Self.count(&rng)
      if rng.next() % 2 == 0 { r.lastBiometricSuccess = Self.time(&rng) }
      if rng.next() % 2 == 0 { r.lastSuccess = Self.time(&rng) }
      r.enrollmentGeneration = Self.count(&rng)
      if rng.next() % 2 == 0 { r.domainState = Self.token(&rng) }
      if rng.next() % 2 == 0 { r.acknowledgedDomainState = Self.token(&rng) }
      if rng.next() % 2 == 0 {
        r.reuse = ReuseStamp(
          at: Self.time(&rng), bootID: Self.token(&rng), domainState: Self.token(&rng),
          requesterUID: UInt32(truncatingIfNeeded: rng.next()), scope: rng.next() % 2 == 0 ? "" : "tty:/dev/pts/\(rng.next() % 99)",
          purpose: rng.next() % 2 == 0 ? .sessionUnlock : .app("/usr/bin/app\(rng.next() % 9)"))
      }
      for _ in 0..<Int(rng.next() % 7) {
        let origin = RequestOrigin(
          service: rng.next() % 4 == 0 ? "" : "su", tty: rng.next() % 2 == 0 ? "" : "/dev/tty\(rng.next() % 9)",
          requesterUID: UInt32(truncatingIfNeeded: rng.next()), remoteHost: rng.next() % 2 == 0 ? "" : "192.0.2.\(rng.next() % 250)")
        r.noteFailure(FailureEntry(at: Self.time(&rng), kind: rng.next() % 2 == 0 ? .passcode : .biometric, origin: origin))
      }
      let decoded = try StateCodec.decode(StateCodec.encode(r), path: "round \(round)")
      #expect(decoded == r, "round \(round)")
      if decoded != r { break }
    }
  }

  @Test("State: a reuse stamp written before windows were scoped is read as no window")
  func unscopedStampIsNoWindow() throws {
    let text = "localauth-state 1\nreuse 1800000000 boot-1 aa11\nend\n"
    #expect(try StateCodec.decode(Array(text.utf8), path: "t").reuse == nil)
  }

  @Test("State: a reuse stamp without a purpose (written before matches served their purpose) is read as no window")
  func stampWithoutPurposeIsNoWindow() throws {
    let text = "localauth-state 1\nreuse 1800000000 boot-1 aa11 1000 session=4,leader=812@5000,tty=/dev/pts/1\nend\n"
    let record = try StateCodec.decode(Array(text.utf8), path: "t")
    #expect(record.reuse == nil && record.reuseStamps.isEmpty)
  }

  @Test("State: four stamps of four purposes round-trip, each with its purpose; the oldest is dropped beyond four")
  func fourPurposesRoundTrip() throws {
    var record = UserRecord()
    let purposes: [ReusePurpose] = [.sessionUnlock, .service("sudo"), .service("su"), .app("/home/alice/bin/notes")]
    for (index, purpose) in purposes.enumerated() {
      record.noteReuse(
        ReuseStamp(
          at: WallTime(seconds: 1_800_000_000 + Double(index)), bootID: "boot-1", domainState: "aa11", requesterUID: 1000,
          scope: "session=4,leader=812@5000,tty=/dev/pts/1", purpose: purpose))
    }
    let bytes = StateCodec.encode(record)
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(text.contains("reuse 1800000000.0 boot-1 aa11 1000 session=4,leader=812@5000,tty=/dev/pts/1 unlock\n"))
    #expect(text.contains(" service:sudo\n") && text.contains(" service:su\n") && text.contains(" app:/home/alice/bin/notes\n"))
    let decoded = try StateCodec.decode(bytes, path: "t")
    #expect(decoded == record)
    #expect(decoded.reuseStamps.map(\.purpose) == purposes)
    // A newer sudo match replaces sudo's; a fifth purpose drops the oldest (the session unlock).
    record.noteReuse(ReuseStamp(at: WallTime(seconds: 1_800_000_010), bootID: "boot-1", domainState: "aa11", requesterUID: 1000, scope: "s", purpose: .service("sudo")))
    record.noteReuse(ReuseStamp(at: WallTime(seconds: 1_800_000_011), bootID: "boot-1", domainState: "aa11", requesterUID: 1000, scope: "s", purpose: .service("login2")))
    #expect(record.reuseStamps.map(\.purpose) == [.service("su"), .app("/home/alice/bin/notes"), .service("sudo"), .service("login2")])
    #expect(try StateCodec.decode(StateCodec.encode(record), path: "t") == record)
  }

  @Test("State: a bad purpose, a duplicate purpose or a fifth stamp is corruption")
  func badPurposesAreCorrupt() throws {
    let line = "reuse 1800000000 boot-1 aa11 1000 session=4,leader=812@5000,tty=/dev/pts/1 "
    for body in [
      line + "sudo", line + "service:", line + "bogus:x", line + "service:sudo\n" + line + "service:sudo",
      [line + "unlock", line + "service:a", line + "service:b", line + "app:/x", line + "service:c"].joined(separator: "\n"),
    ] {
      #expect(throws: StateError.self) { try StateCodec.decode(Array("localauth-state 1\n\(body)\nend\n".utf8), path: "t") }
    }
  }

  @Test("State: an app path with a space or a long name is one purpose in memory and on disk")
  func appPathNormalized() throws {
    var record = UserRecord()
    let spaced = ReusePurpose.app("/home/alice/my apps/" + String(repeating: "n", count: 300))
    for at in [1_800_000_000.0, 1_800_000_001] {
      record.noteReuse(ReuseStamp(at: WallTime(seconds: at), bootID: "b", domainState: "d", requesterUID: 1000, scope: "s", purpose: spaced))
      record = try StateCodec.decode(StateCodec.encode(record), path: "t")
    }
    #expect(record.reuseStamps.count == 1)
    #expect(record.reuseStamps.first?.purpose.token.utf8.count == "app:".utf8.count + 200)
  }
}
