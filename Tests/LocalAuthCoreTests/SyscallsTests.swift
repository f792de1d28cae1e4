import Glibc
import Testing

@testable import LocalAuthCore

/// The C fence (Sources/LocalAuthCore/System/): one EINTR loop, and no core file outside System/ importing
/// CSyscalls or CPeerCredentials.
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

  /// The fence holds: the core files that import CSyscalls (libc) or CPeerCredentials (the sockets' senders) are
  /// System/'s.
  @Test func onlySystemFilesImportTheCLibrary() throws {
    let file = #filePath
    let core = String(file[..<file.firstRange(of: "/Tests/")!.lowerBound]) + "/Sources/LocalAuthCore"
    var outside: [String] = []
    // Every file of the core's folder and of its subfolders (Evaluation/Intent too), System/ left out.
    var folders = [""]
    while let folder = folders.popLast() {
      for name in try FileSyscalls.listDirectory(core + folder) {
        let relative = folder + "/" + name
        if relative != "/System", (try? Syscalls.status(ofPath: core + relative).get())?.kind == .directory {
          folders.append(relative)
        }
        guard name.hasSuffix(".swift") else { continue }
        let lines = String(decoding: try readSmallFile(core + relative, limit: 1 << 20), as: UTF8.self)
          .split(separator: "\n")
        if lines.contains("import CSyscalls") || lines.contains("import CPeerCredentials") {
          outside.append(String(relative.dropFirst()))
        }
      }
    }
    #expect(outside == [])
  }
}
