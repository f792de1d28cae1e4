import Glibc
import LocalAuthCore
import LocalAuthTestSupport
import Testing

/// What a power failure can leave of the writes that do not wait for the disk (SuccessNote.swift): a success note
/// renamed without fsync may be missing, empty, cut short, or an earlier note. Each of those, put on disk by hand
/// beside the flushed record, must load without an error, keep everything the user set, and read no more leniently
/// than the truth: no fewer failures, no later successes, no reuse window the truth has not.
@Suite(.serialized)
struct PowerLossTests {
  static let user = try! UserName("alice")
  static let purpose = ReusePurpose.service("sudo")

  /// A world with a record (passcode, a feature, an enrollment, two wrong fingers), flushed.
  final class World {
    let folder = TemporaryFolder("power-loss")
    let store: FileStateStore
    var notePath: String { folder.state + "/users/" + SuccessNote.name(of: PowerLossTests.user) }

    init() throws {
      store = FileStateStore(root: folder.state)
      try store.update(PowerLossTests.user) {
        $0.passcodeHash = "$y$j9T$salt$hash"
        $0.features = ["notes"]
        $0.domainState = "d1"
        $0.acknowledgedDomainState = "d1"
        $0.biometricFailures = 2
      }
    }

    /// A match at `seconds`: failures reset, success times and the reuse stamp moved on.
    func match(at seconds: Double) throws {
      try store.update(PowerLossTests.user) {
        $0.biometricFailures = 0
        $0.lastBiometricSuccess = WallTime(seconds: seconds)
        $0.lastSuccess = WallTime(seconds: seconds)
        $0.noteReuse(
          ReuseStamp(
            at: WallTime(seconds: seconds), bootID: "b1", domainState: "d1", requesterUID: 1000, scope: "session=2",
            purpose: PowerLossTests.purpose))
      }
    }

    /// The note's bytes now, or nil.
    func note() -> [UInt8]? {
      try? FileSyscalls.readTrustedFile(notePath, limit: StateCodec.maximumSize)
    }

    /// Puts `bytes` where the note is (nil: no note), as a power failure could have left it.
    func leave(_ bytes: [UInt8]?) {
      unlink(notePath)
      guard let bytes else { return }
      let fd = open(notePath, O_WRONLY | O_CREAT | O_EXCL, 0o600)
      #expect(fd >= 0)
      _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      close(fd)
    }
  }

  /// `loaded` asks at least as much of the user as `truth`, and holds what the user set.
  static func expectNoMoreLenient(_ loaded: UserRecord, than truth: UserRecord, _ label: String) {
    #expect(loaded.passcodeHash == truth.passcodeHash && loaded.features == truth.features, "\(label): the user's settings")
    #expect(loaded.domainState == truth.domainState, "\(label): the enrollment")
    #expect(loaded.biometricFailures >= truth.biometricFailures, "\(label): fewer failures than the truth")
    #expect(loaded.passcodeFailures >= truth.passcodeFailures, "\(label): fewer passcode failures than the truth")
    func notLater(_ a: WallTime?, _ b: WallTime?) -> Bool { a == nil || (b != nil && a! <= b!) }
    #expect(notLater(loaded.lastSuccess, truth.lastSuccess), "\(label): a later success than the truth")
    #expect(notLater(loaded.lastBiometricSuccess, truth.lastBiometricSuccess), "\(label): a later match than the truth")
    for stamp in loaded.reuseStamps {
      #expect(
        truth.reuseStamp(for: stamp.purpose).map { stamp.at <= $0.at } == true,
        "\(label): a reuse window the truth does not have")
    }
  }

  @Test("every note a power failure can leave after two matches reads no more leniently than the truth")
  func afterMatches() throws {
    let world = try World()
    let before = try #require(try world.store.load(Self.user))
    try world.match(at: 1_000)
    let first = try #require(world.note(), "a match writes a note")
    try world.match(at: 2_000)
    let second = try #require(world.note())
    let truth = try #require(try world.store.load(Self.user))
    #expect(truth.biometricFailures == 0 && truth.lastSuccess == WallTime(seconds: 2_000))
    #expect(truth.reuseStamp(for: Self.purpose)?.at == WallTime(seconds: 2_000))

    let outcomes: [(String, [UInt8]?)] = [
      ("no note", nil), ("an empty note", []), ("a note cut in half", Array(second.prefix(second.count / 2))),
      ("the earlier note", first), ("the last note", second),
    ]
    for (label, bytes) in outcomes {
      world.leave(bytes)
      let loaded = try #require(try world.store.load(Self.user), "\(label): the record is gone")
      Self.expectNoMoreLenient(loaded, than: truth, label)
      Self.expectNoMoreLenient(before, than: loaded, "\(label), the earlier state")
    }
    world.leave(nil)
    #expect(try world.store.load(Self.user) == before, "without its note the record is the state before the matches")
  }

  @Test("a note for an earlier record never brings back a window a flushed failure ended")
  func staleNoteAfterAFailure() throws {
    let world = try World()
    try world.match(at: 1_000)
    let stale = try #require(world.note())
    try world.store.update(Self.user) {
      $0.biometricFailures = 1
      $0.reuse = nil
    }
    #expect(world.note() == nil, "the whole write removes the note")
    let truth = try #require(try world.store.load(Self.user))
    #expect(truth.reuseStamps.isEmpty && truth.biometricFailures == 1)
    // The unlink was not flushed either: the old note may come back with the power. It names the old record.
    world.leave(stale)
    let loaded = try #require(try world.store.load(Self.user))
    #expect(loaded == truth, "a stale note changed the record: \(loaded)")
    // The next match writes a note for the new record over the stale one.
    try world.match(at: 3_000)
    #expect(try world.store.load(Self.user)?.reuseStamp(for: Self.purpose)?.at == WallTime(seconds: 3_000))
  }

  @Test("a note holds only what a success changes, never the passcode, the features or the prints")
  func noteHoldsOnlySuccessFields() throws {
    let world = try World()
    try world.match(at: 1_000)
    let text = String(decoding: try #require(world.note()), as: UTF8.self)
    #expect(!text.contains("passcode.hash") && !text.contains("feature ") && !text.contains("enrollment.domain-state"), "\(text)")
    #expect(text.contains("record.serial ") && text.contains("reuse 1000"), "\(text)")
  }

  @Test("a record written before notes existed (no serial) is written whole on its next success, then noted")
  func recordWithoutSerial() throws {
    let world = try World()
    let path = world.store.recordPath(Self.user)
    var record = try #require(try world.store.load(Self.user))
    record.biometricFailures = 3
    unlink(path)
    world.leave(StateCodec.encode(record))  // any file: written below as the record
    #expect(rename(world.notePath, path) == 0)
    try world.match(at: 1_000)
    #expect(world.note() == nil, "a success over a record without a serial wrote a note")
    var serial: String?
    let bytes = try #require(try FileSyscalls.readTrustedFile(path, limit: StateCodec.maximumSize))
    #expect(try StateCodec.decode(bytes, path: path, serial: &serial).biometricFailures == 0)
    #expect(serial?.utf8.count == 16)
    try world.match(at: 2_000)
    #expect(world.note() != nil)
    #expect(try world.store.load(Self.user)?.lastSuccess == WallTime(seconds: 2_000))
  }

  @Test("removing a user removes the note, and a note without its record is nothing")
  func removeTakesTheNote() throws {
    let world = try World()
    try world.match(at: 1_000)
    let note = try #require(world.note())
    try world.store.remove(Self.user)
    #expect(world.note() == nil)
    world.leave(note)
    #expect(try world.store.load(Self.user) == nil)
    #expect(try world.store.users().isEmpty, "the note was listed as a user")
  }
}
