import Glibc
import Testing

@testable import LocalAuthCore

/// The C fence's sockets (System/SocketSyscalls.swift): what HelperChannel and HelperProcess send and read through,
/// each failure as the errno the fence reports.
@Suite("System: sockets")
struct SocketSyscallsTests {
  private func pair() throws -> (Int32, Int32) { try Syscalls.socketPair().get() }

  @Test func bytesSentOnOneEndAreReceivedOnTheOther() throws {
    let (a, b) = try pair()
    defer { Syscalls.close(a); Syscalls.close(b) }
    #expect(throws: Never.self) { try Syscalls.sendAll(a, [1, 2, 3]).get() }
    var bytes = [UInt8](repeating: 0, count: 8)
    let count = try bytes.withUnsafeMutableBytes { try Syscalls.receive(b, into: $0).get() }
    #expect(Array(bytes.prefix(count)) == [1, 2, 3])
  }

  @Test func bothEndsAreClosedOnExec() throws {
    let (a, b) = try pair()
    defer { Syscalls.close(a); Syscalls.close(b) }
    #expect(fcntl(a, F_GETFD) & FD_CLOEXEC != 0)
    #expect(fcntl(b, F_GETFD) & FD_CLOEXEC != 0)
  }

  @Test func sendingToAPeerThatClosedIsABrokenPipeNotASignal() throws {
    let (a, b) = try pair()
    defer { Syscalls.close(a) }
    Syscalls.close(b)
    // Without MSG_NOSIGNAL the test process would be killed by SIGPIPE here.
    #expect(throws: Errno.brokenPipe) { try Syscalls.sendAll(a, [1]).get() }
  }

  @Test func readingAfterThePeerClosedReadsNothing() throws {
    let (a, b) = try pair()
    defer { Syscalls.close(a) }
    Syscalls.close(b)
    var bytes = [UInt8](repeating: 0, count: 4)
    #expect(try bytes.withUnsafeMutableBytes { try Syscalls.receive(a, into: $0).get() } == 0)
  }

  @Test func aSocketCallOnSomethingElseFailsWithItsErrno() throws {
    var fds: [Int32] = [-1, -1]
    try #require(pipe(&fds) == 0)
    defer { Syscalls.close(fds[0]); Syscalls.close(fds[1]) }
    #expect(throws: Errno(code: ENOTSOCK)) { try Syscalls.sendAll(fds[1], [1]).get() }
    #expect(throws: Errno(code: ENOTSOCK)) { try Syscalls.passCredentials(fds[0]).get() }
    var bytes = [UInt8](repeating: 0, count: 4)
    #expect(throws: Errno(code: ENOTSOCK)) { _ = try bytes.withUnsafeMutableBytes { try Syscalls.receive(fds[0], into: $0).get() } }
    #expect(throws: Errno(code: EBADF)) { try Syscalls.sendAll(-1, [1]).get() }
  }

  @Test func theKernelNamesTheSenderWhenCredentialsArePassed() throws {
    let (a, b) = try pair()
    defer { Syscalls.close(a); Syscalls.close(b) }
    try Syscalls.passCredentials(b).get()
    try Syscalls.sendAll(a, [7, 8]).get()
    var bytes = [UInt8](repeating: 0, count: 8)
    let (count, sender) = try bytes.withUnsafeMutableBytes { try Syscalls.receiveWithSender(b, into: $0).get() }
    #expect(Array(bytes.prefix(count)) == [7, 8])
    #expect(sender == SocketSender(pid: getpid(), uid: Int64(getuid())))
  }

  @Test func noSenderIsNamedWithoutPassedCredentials() throws {
    let (a, b) = try pair()
    defer { Syscalls.close(a); Syscalls.close(b) }
    try Syscalls.sendAll(a, [7]).get()
    var bytes = [UInt8](repeating: 0, count: 8)
    let (count, sender) = try bytes.withUnsafeMutableBytes { try Syscalls.receiveWithSender(b, into: $0).get() }
    #expect(count == 1)
    #expect(sender == SocketSender(pid: -1, uid: -1))
  }

  @Test func aHangUpIsSeenOnlyOnceThePeerClosed() throws {
    let (a, b) = try pair()
    defer { Syscalls.close(a) }
    #expect(!Syscalls.peerHungUp(a))
    try Syscalls.sendAll(b, [1]).get()
    #expect(!Syscalls.peerHungUp(a))
    Syscalls.close(b)
    #expect(Syscalls.peerHungUp(a))
  }
}
