@testable import LocalAuthCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real clock's boot id: the kernel's when readable; otherwise a new one at every call, so that every
/// authentication is the first of a new boot (passcode required, no reuse window), never one constant boot.
@Suite("SystemClock: boot id")
struct BootIDTests {
  /// Writes `text` to a file in a fresh folder and returns the folder and the path.
  static func file(_ text: String) throws -> (TempFolder, String) {
    let folder = try TempFolder()
    let path = folder.path + "/boot_id"
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
    #expect(fd >= 0)
    _ = text.withCString { write(fd, $0, strlen($0)) }
    close(fd)
    return (folder, path)
  }

  @Test("a readable boot id is the file's text without its newline, the same at every call")
  func readableBootID() throws {
    let (folder, path) = try Self.file("0f7d6c1e-2b1a-4a51-9d0e-3c2b1a09f8e7\n")
    defer { folder.remove() }
    #expect(SystemClock.bootID(readingFrom: path) == "0f7d6c1e-2b1a-4a51-9d0e-3c2b1a09f8e7")
    #expect(SystemClock.bootID(readingFrom: path) == SystemClock.bootID(readingFrom: path))
  }

  @Test("an unreadable, empty or malformed boot id is a new random one at every call", arguments: ["missing", "", "\n", "not a boot id\n"])
  func unreadableBootIDIsNewEachTime(_ content: String) throws {
    let (folder, written) = try Self.file(content)
    defer { folder.remove() }
    let path = content == "missing" ? folder.path + "/no-such-file" : written
    let ids = (0..<20).map { _ in SystemClock.bootID(readingFrom: path) }
    #expect(Set(ids).count == ids.count, "\(ids)")
    #expect(ids.allSatisfy { $0.hasPrefix("unreadable-") && !$0.contains(" ") && $0 != "unknown-boot" }, "\(ids)")
  }

  @Test("with an unreadable boot id the passcode is always required after a restart, even right after it was entered")
  func unreadableBootIDNeverMatchesARecordedOne() throws {
    let path = "/nonexistent/localauth/boot_id"
    var record = UserRecord()
    record.lastPasscodeBootID = SystemClock.bootID(readingFrom: path)  // the passcode success records this boot
    let now = WallTime(seconds: 1_800_000_000)
    record.lastPasscodeSuccess = now
    record.lastSuccess = now
    let requirement = BiometryStatus.passcodeRequirement(
      record: record, now: now, bootID: SystemClock.bootID(readingFrom: path), settings: EvaluationSettings())
    #expect(requirement == .reboot)
  }

  @Test("the real clock reads the kernel's boot id on Linux, one value per process")
  func kernelBootID() {
    let clock = SystemClock()
    if SystemClock.readBootID(at: SystemClock.bootIDPath) != nil {
      #expect(clock.bootID() == clock.bootID())
      #expect(!clock.bootID().hasPrefix("unreadable-"))
    }
  }
}
