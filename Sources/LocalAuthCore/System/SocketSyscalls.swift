import CPeerCredentials
import CSyscalls

// Part of the C fence (Syscalls.swift): the Unix stream sockets between pam_localauth, an app and
// localauth-helper, and the kernel's word on who sent their bytes (SO_PASSCRED, SCM_CREDENTIALS).

/// Who sent bytes read from a socket, by the kernel's word; -1 for each when no credentials came with them.
struct SocketSender: Equatable {
  /// The sender's process id.
  var pid: Int32
  /// The sender's user id.
  var uid: Int64
}

extension Syscalls {
  /// The process at the other end of the Unix socket `pid` holds as descriptor `fd` (SO_PEERCRED on a copy taken
  /// with pidfd_getfd, closed at once); nil when it is no connected Unix socket or cannot be asked.
  static func socketPeer(of pid: Int32, descriptor fd: Int32) -> Int32? {
    let peer = cpeer_socket_peer_pid(pid, fd)
    return peer > 0 ? peer : nil
  }

  /// A connected pair of Unix stream sockets, both close-on-exec (socketpair(2)).
  static func socketPair() -> Result<(Int32, Int32), Errno> {
    var fds: [Int32] = [-1, -1]
    let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    return valueOrErrno { socketpair(AF_UNIX, type, 0, &fds) }.map { _ in (fds[0], fds[1]) }
  }

  /// Asks the kernel to attach the sender's credentials to every message `fd` receives from now on (SO_PASSCRED).
  static func passCredentials(_ fd: Int32) -> Result<Void, Errno> {
    valueOrErrno { cpeer_pass_credentials(fd) }.map { _ in () }
  }

  /// send(2) from `buffer` with MSG_NOSIGNAL, so that a peer that went away gives EPIPE, not a SIGPIPE that would
  /// kill the application hosting the module; the count sent.
  static func send(_ fd: Int32, from buffer: UnsafeRawBufferPointer) -> Result<Int, Errno> {
    valueOrErrno { CSyscalls.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
  }

  /// Sends all of `bytes`, send after send; the errno of the first failed send.
  static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Result<Void, Errno> {
    var sent = 0
    while sent < bytes.count {
      let result = bytes.withUnsafeBytes { send(fd, from: UnsafeRawBufferPointer(rebasing: $0[sent...])) }
      switch result {
      case .success(let count): sent += count
      case .failure(let error): return .failure(error)
      }
    }
    return .success(())
  }

  /// recv(2) into `buffer`; the count read (0 when the peer closed its end).
  static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
    valueOrErrno { recv(fd, buffer.baseAddress, buffer.count, 0) }
  }

  /// recvmsg(2) into `buffer` with the sender's credentials (`passCredentials`); the count read and who sent the
  /// bytes. Descriptors passed along (SCM_RIGHTS) are closed at once.
  static func receiveWithSender(
    _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer
  ) -> Result<(count: Int, sender: SocketSender), Errno> {
    var pid: pid_t = -1
    var uid: Int64 = -1
    return valueOrErrno { cpeer_receive(fd, buffer.baseAddress, buffer.count, 0, &pid, &uid) }
      .map { ($0, SocketSender(pid: pid, uid: uid)) }
  }

  /// True when the other end of the socket `fd` closed or shut down its end (poll(2) at once; nothing is read).
  static func peerHungUp(_ fd: Int32) -> Bool {
    // A Unix socket whose peer closed, or shut down both directions, polls as POLLHUP.
    var entry = pollfd(fd: fd, events: Int16(POLLHUP), revents: 0)
    guard case .success(let ready) = valueOrErrno({ CSyscalls.poll(&entry, 1, 0) }), ready > 0 else { return false }
    return entry.revents & (Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)) != 0
  }
}
