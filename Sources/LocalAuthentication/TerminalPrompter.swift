import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// Linux-only: talks to the user on the controlling terminal; the passcode is read with echo off.
///
/// Every call opens the terminal afresh (O_NOCTTY, O_CLOEXEC), so a process without a controlling
/// terminal fails with `Failure.noTerminal`, which a context reports as `LAError.notInteractive`.
public final class TerminalPrompter: AuthPrompter, @unchecked Sendable {
  /// Why the terminal could not be used.
  public enum Failure: Error, Equatable, Sendable {
    /// The terminal cannot be opened (no controlling terminal).
    case noTerminal
    /// The input ended (Ctrl-D) before a line was complete; reported as `userCancel`.
    case endOfInput
    /// A read or write failed with this errno.
    case io(Int32)
  }

  /// The terminal device.
  public let path: String

  /// Creates a prompter on `path` (default: the controlling terminal).
  public init(path: String = "/dev/tty") { self.path = path }

  public func info(_ text: String) throws { try withTerminal { fd in try write(fd, text + "\n") } }

  public func error(_ text: String) throws { try withTerminal { fd in try write(fd, text + "\n") } }

  public func secret(_ prompt: String) throws -> SecretBytes {
    try withTerminal { fd in
      var saved = termios()
      let isTerminal = tcgetattr(fd, &saved) == 0
      if isTerminal {
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ECHONL)
        _ = tcsetattr(fd, TCSAFLUSH, &quiet)
      }
      defer { if isTerminal { _ = tcsetattr(fd, TCSAFLUSH, &saved) } }
      // Echo is off before the prompt appears, so nothing typed after it is ever echoed.
      try write(fd, prompt)
      return try readLine(fd)
    }
  }

  private func withTerminal<T>(_ body: (Int32) throws -> T) throws -> T {
    let fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard fd >= 0 else { throw Failure.noTerminal }
    defer { close(fd) }
    return try body(fd)
  }

  private func write(_ fd: Int32, _ text: String) throws {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress else { return 0 }
        return Glibc.write(fd, base + offset, buffer.count - offset)
      }
      if written < 0 {
        if errno == EINTR { continue }
        throw Failure.io(errno)
      }
      offset += written
    }
  }

  /// Reads bytes up to a newline; at most `SecretBytes.maximumLength + 1` are kept (longer input never matches).
  private func readLine(_ fd: Int32) throws -> SecretBytes {
    var line: [UInt8] = []
    line.reserveCapacity(SecretBytes.maximumLength + 1)
    var byte: UInt8 = 0
    while true {
      let count = read(fd, &byte, 1)
      if count < 0 {
        if errno == EINTR { continue }
        let code = errno
        wipe(&line)
        throw Failure.io(code)
      }
      if count == 0 {
        wipe(&line)
        throw Failure.endOfInput
      }
      if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
      if line.count <= SecretBytes.maximumLength { line.append(byte) }
    }
    byte = 0
    return SecretBytes(line)
  }

  private func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBufferPointer { buffer in
      for i in buffer.indices { buffer[i] = 0 }
    }
  }
}
