import Glibc
import Testing

@testable import LocalAuthCore

/// Whole-file reads: sized from fstat, growing past a wrong size hint, and never past the limit.
@Suite("State: whole-file reads")
struct FileReadTests {
  static func write(_ bytes: [UInt8], to path: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    #expect(fd >= 0)
    defer { close(fd) }
    #expect(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count)
  }

  @Test(arguments: [0, 1, 255, 256, 10_000, 70_000])
  func aFileIsReadWholeWhateverTheSizeHint(_ size: Int) throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let path = folder.path + "/data"
    let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    try Self.write(bytes, to: path)
    #expect(try readSmallFile(path, limit: 100_000) == bytes)  // hint 255: grows by doubling
    #expect(try FileSyscalls.readTrustedFile(path, limit: 100_000) == bytes)  // hint from fstat
  }

  @Test func moreThanTheLimitIsRefused() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let path = folder.path + "/data"
    try Self.write([UInt8](repeating: 0x41, count: 5_001), to: path)
    #expect(throws: StateError.tooLarge(path: path, limit: 5_000)) { try readSmallFile(path, limit: 5_000) }
    #expect(throws: StateError.tooLarge(path: path, limit: 5_000)) { try FileSyscalls.readTrustedFile(path, limit: 5_000) }
    #expect(try readSmallFile(path, limit: 5_001).count == 5_001)
  }
}
