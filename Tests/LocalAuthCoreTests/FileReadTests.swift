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

  /// A regular file read to exactly fstat's size ends there, with no second read to see the end: shown on a
  /// non-blocking pipe kept open, where a second read fails with EAGAIN instead of returning the end.
  @Test func aReadOfExactlyTheKnownSizeEndsWithoutAnotherRead() throws {
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    defer { close(ends[0]); close(ends[1]) }
    #expect(fcntl(ends[0], F_SETFL, O_NONBLOCK) == 0)
    let bytes = (0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
    #expect(bytes.withUnsafeBytes { Glibc.write(ends[1], $0.baseAddress, $0.count) } == bytes.count)
    #expect(try FileSyscalls.readAll(ends[0], path: "pipe", limit: 10_000, expectedSize: 1_000, regularFile: true) == bytes)
    #expect(bytes.withUnsafeBytes { Glibc.write(ends[1], $0.baseAddress, $0.count) } == bytes.count)
    #expect(throws: StateError.io(path: "pipe", operation: "read", errno: EAGAIN)) {
      try FileSyscalls.readAll(ends[0], path: "pipe", limit: 10_000, expectedSize: 1_000)
    }
  }

  /// A file that grew or shrank after its fstat (a wrong size) is still read to its real end.
  @Test(arguments: [0, 10, 999, 1_001, 4_000])
  func aWrongKnownSizeIsReadOnToTheEnd(_ size: Int) throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let path = folder.path + "/data"
    let bytes = (0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
    try Self.write(bytes, to: path)
    let fd = open(path, O_RDONLY)
    #expect(fd >= 0)
    defer { close(fd) }
    #expect(try FileSyscalls.readAll(fd, path: path, limit: 10_000, expectedSize: size, regularFile: true) == bytes)
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
