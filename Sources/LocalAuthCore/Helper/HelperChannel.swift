/// One end of the socket between pam_localauth and localauth-helper: whole messages, each read within a bound.
///
/// Writes use MSG_NOSIGNAL, so a peer that went away gives EPIPE instead of a SIGPIPE that would kill the
/// application hosting the module (the module installs no signal handler).
public struct HelperChannel: Sendable {
  /// The socket.
  package let fd: Int32
  /// When set, every byte read must come from this process, by the kernel's word (SCM_CREDENTIALS): an app's
  /// session serves the process that started it, not one its descriptor was passed to (docs/HELPER.md, "Apps").
  package var sender: Int32?

  /// A channel over a connected stream socket.
  public init(fd: Int32, sender: Int32? = nil) {
    self.fd = fd
    self.sender = sender
  }

  /// Sends one message whole.
  package func send(_ message: HelperMessage) throws(HelperProtocolError) {
    var bytes = message.encode()
    defer { wipe(&bytes) }
    guard case .failure(let error) = Syscalls.sendAll(fd, bytes) else { return }
    throw error == .brokenPipe || error == .connectionReset ? .closed : .io(error.code)
  }

  /// Receives one message, waiting at most `seconds` for all of it.
  package func receive(within seconds: Int) throws(HelperProtocolError) -> HelperMessage {
    let deadline = Self.monotonicMilliseconds() + Int64(seconds) * 1000
    let header = try read(3, deadline: deadline, bound: seconds)
    guard let length = HelperMessage.payloadLength(header: header) else {
      throw .malformed("a message over \(HelperMessage.maximumPayload) bytes")
    }
    var payload = try read(length, deadline: deadline, bound: seconds)
    defer { wipe(&payload) }
    return try HelperMessage.decode(tag: header[0], payload: payload)
  }

  /// Closes the socket.
  package func close() { Syscalls.close(fd) }

  private func read(_ count: Int, deadline: Int64, bound: Int) throws(HelperProtocolError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
      let left = deadline - Self.monotonicMilliseconds()
      guard left > 0 else { throw .timedOut(seconds: bound) }
      switch Syscalls.poll(fd, -1, milliseconds: Int32(min(left, Int64(Int32.max)))) {
      case .success(let events): if !events.first.any { throw .timedOut(seconds: bound) }
      case .failure(let error):
        if error == .interrupted { continue }
        throw .io(error.code)
      }
      let received = bytes.withUnsafeMutableBytes { buffer in
        let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<count])
        return sender == nil
          ? Syscalls.receive(fd, into: rest).map { ($0, SocketSender(pid: -1, uid: -1)) }
          : Syscalls.receiveWithSender(fd, into: rest)
      }
      let got: Int
      let from: SocketSender
      switch received {
      case .success(let read): (got, from) = read
      case .failure(let error):
        if error == .interrupted || error == .wouldBlock { continue }
        throw error == .connectionReset ? .closed : .io(error.code)
      }
      if got == 0 { throw .closed }
      if let sender, from.pid != sender || from.uid != Int64(Syscalls.realUserID) {
        throw .malformed(from.pid < 0 ? "bytes without the sender's credentials" : "bytes from another process (pid \(from.pid))")
      }
      filled += got
    }
    return bytes
  }

  private func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBufferPointer { buffer in
      for index in buffer.indices { buffer[index] = 0 }
    }
  }

  /// CLOCK_MONOTONIC in milliseconds: bounds are about elapsed time, which a clock change must not stretch.
  static func monotonicMilliseconds() -> Int64 { Syscalls.monotonicMilliseconds() }
}
