import Glibc
import LocalAuthTestSupport
import Testing

@testable import LocalAuthCore

/// The C fence's processes (System/ProcessSyscalls.swift): how HelperProcess starts, reaps and kills the helper,
/// and the installation check before it.
@Suite("System: processes")
struct ProcessSyscallsTests {
  @Test func aMissingProgramIsNotStartedAndSaysWhy() {
    #expect(throws: Errno.noEntry) { try Syscalls.spawn("/nonexistent/localauth-helper", input: 0).get() }
  }

  @Test func aStartedProgramReadsTheGivenInputAndIsReapedWhenItExits() throws {
    let (ours, theirs) = try Syscalls.socketPair().get()
    let pid = try Syscalls.spawn("/bin/cat", input: theirs).get()
    Syscalls.close(theirs)
    // cat reads its standard input, our socket, until we close our end.
    #expect(try Syscalls.reap(pid, waiting: false).get() == false)
    Syscalls.close(ours)
    #expect(try Syscalls.reap(pid, waiting: true).get() == true)
    #expect(throws: Errno(code: ECHILD)) { try Syscalls.reap(pid, waiting: false).get() }
  }

  @Test func aKilledProgramIsReaped() throws {
    let (ours, theirs) = try Syscalls.socketPair().get()
    defer { Syscalls.close(ours) }
    let pid = try Syscalls.spawn("/bin/cat", input: theirs).get()
    Syscalls.close(theirs)
    try Syscalls.forceKill(pid).get()
    #expect(try Syscalls.reap(pid, waiting: true).get() == true)
  }

  @Test func killingNoProcessFailsWithItsErrno() {
    // Above any pid_max Linux allows (2^22).
    #expect(throws: Errno(code: ESRCH)) { try Syscalls.forceKill(Int32.max).get() }
  }

  @Test(.enabled(if: getuid() == 0, "the file must be root's")) func theHelperMustBeARootOwnedSetUserIDRegularFileNobodyElseWrites() throws {
    let temporary = TemporaryFolder("process")
    defer { withExtendedLifetime(temporary) {} }
    let folder = temporary.path
    let path = folder + "/helper"
    #expect(HelperProcess.installationProblem(path) == "it does not exist")
    #expect(HelperProcess.installationProblem(folder) == "it is not a regular file")
    let fd = open(path, O_WRONLY | O_CREAT, 0o755)
    try #require(fd >= 0)
    close(fd)
    try #require(chmod(path, 0o755) == 0)
    #expect(HelperProcess.installationProblem(path) == "it is not set-user-ID (install it with mode 4755)")
    try #require(chmod(path, 0o4775) == 0)
    #expect(HelperProcess.installationProblem(path) == "it is writable by group or others")
    try #require(chmod(path, 0o4755) == 0)
    #expect(HelperProcess.installationProblem(path) == nil)
    try #require(chown(path, 4242, 0) == 0)
    #expect(HelperProcess.installationProblem(path) == "it is owned by uid 4242, not root")
  }

  @Test func aHelperThatCannotBeUsedIsNotStarted() {
    #expect(throws: HelperCallError.unusable(path: "/nonexistent/helper", reason: "it does not exist")) {
      try HelperProcess.start("/nonexistent/helper")
    }
  }
}
