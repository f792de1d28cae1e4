import CPeerCredentials
import CSyscalls

/// One end of the socket between pam_localauth and localauth-helper: whole messages, each read within a bound.
///
/// Writes use MSG_NOSIGNAL, so a peer that went away gives EPIPE instead of a SIGPIPE that would kill the
/// application hosting the module (the module installs no signal handler).
public struct HelperChannel: Sendable {
  /// The socket.
  public let fd: Int32
  /// When set, every byte read must come from this process, by the kernel's word (SCM_CREDENTIALS): an app's
  /// session serves the process that started it, not one its descriptor was passed to (docs/HELPER.md, "Apps").
  public var sender: Int32?

  /// A channel over a connected stream socket.
  public init(fd: Int32, sender: Int32? = nil) {
    self.fd = fd
    self.sender = sender
  }

  /// Sends one message whole.
  public func send(_ message: HelperMessage) throws(HelperProtocolError) {
    var bytes = message.encode()
    defer { wipe(&bytes) }
    var sent = 0
    while sent < bytes.count {
      let count = bytes.withUnsafeBytes { buffer in
        CSyscalls.send(fd, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
      }
      if count < 0 {
        if currentErrno == EINTR { continue }
        throw currentErrno == EPIPE || currentErrno == ECONNRESET ? .closed : .io(currentErrno)
      }
      sent += count
    }
  }

  /// Receives one message, waiting at most `seconds` for all of it.
  public func receive(within seconds: Int) throws(HelperProtocolError) -> HelperMessage {
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
  public func close() { _ = CSyscalls.close(fd) }

  private func read(_ count: Int, deadline: Int64, bound: Int) throws(HelperProtocolError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
      let left = deadline - Self.monotonicMilliseconds()
      guard left > 0 else { throw .timedOut(seconds: bound) }
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32(min(left, Int64(Int32.max))))
      if ready < 0 {
        if currentErrno == EINTR { continue }
        throw .io(currentErrno)
      }
      if ready == 0 { throw .timedOut(seconds: bound) }
      var from: pid_t = -1
      var uid: Int64 = -1
      let got = bytes.withUnsafeMutableBytes { buffer in
        sender == nil
          ? CSyscalls.recv(fd, buffer.baseAddress! + filled, count - filled, 0)
          : cpeer_receive(fd, buffer.baseAddress! + filled, count - filled, 0, &from, &uid)
      }
      if got < 0 {
        if currentErrno == EINTR || currentErrno == EAGAIN { continue }
        throw currentErrno == ECONNRESET ? .closed : .io(currentErrno)
      }
      if got == 0 { throw .closed }
      if let sender, from != sender || uid != Int64(getuid()) {
        throw .malformed(from < 0 ? "bytes without the sender's credentials" : "bytes from another process (pid \(from))")
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
  static func monotonicMilliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
  }
}
