import Glibc
import Testing

@testable import LocalAuthCore

/// The C fence (Sources/LocalAuthCore/System/): one EINTR loop, and no core file outside System/ (and Helper/,
/// not yet moved) importing CSyscalls.
@Suite("System: the C fence")
struct SyscallsTests {
  @Test func aCallInterruptedBySignalsIsRunAgainUntilItFinishes() throws {
    var calls = 0
    let result = valueOrErrno { () -> Int32 in
      calls += 1
      if calls < 3 {
        errno = EINTR
        return -1
      }
      return 7
    }
    #expect(calls == 3)
    #expect(try result.get() == 7)
  }

  @Test func anInterruptedCallIsNotRunAgainWhenTheCallerSaysSo() {
    var calls = 0
    let result = valueOrErrno(retryOnInterrupt: false) { () -> Int in
      calls += 1
      errno = EINTR
      return -1
    }
    #expect(calls == 1)
    #expect(throws: Errno.interrupted) { try result.get() }
  }

  @Test func anotherErrnoIsReportedAtOnce() {
    var calls = 0
    let result = valueOrErrno { () -> Int32 in
      calls += 1
      errno = EACCES
      return -1
    }
    #expect(calls == 1)
    #expect(throws: Errno(code: EACCES)) { try result.get() }
  }

  @Test func aDeniedCallIsPermissionDeniedAndAnotherIsIO() {
    #expect(throws: StateError.permissionDenied(path: "/p")) {
      try Result<Int32, Errno>.failure(Errno(code: EPERM)).stateError("open", "/p")
    }
    #expect(throws: StateError.io(path: "/p", operation: "open", errno: EIO)) {
      try Result<Int32, Errno>.failure(Errno(code: EIO)).stateError("open", "/p")
    }
  }

  /// The fence holds: the core files that import CSyscalls are System/'s, and Helper/'s not yet moved.
  @Test func onlySystemFilesImportTheCLibrary() throws {
    let file = #filePath
    let core = String(file[..<file.firstRange(of: "/Tests/")!.lowerBound]) + "/Sources/LocalAuthCore"
    var outside: [String] = []
    for folder in try FileSyscalls.listDirectory(core) where folder != "System" && folder != "Helper" {
      for name in try FileSyscalls.listDirectory(core + "/" + folder) where name.hasSuffix(".swift") {
        let text = String(decoding: try readSmallFile(core + "/" + folder + "/" + name, limit: 1 << 20), as: UTF8.self)
        if text.split(separator: "\n").contains("import CSyscalls") { outside.append(folder + "/" + name) }
      }
    }
    #expect(outside == [])
  }
}
