import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// Linux-only: talks to the user on the controlling terminal; the passcode is read with echo off.
///
/// Every call opens the terminal afresh (O_NOCTTY, O_CLOEXEC), so a process without a controlling
/// terminal fails with `PromptError.noTerminal`, which a context reports as `LAError.notInteractive`.
/// While the passcode is read, echo, line buffering and terminal signals are off (restored on every exit
/// path); Backspace and Ctrl-U edit, Ctrl-C acts as the Cancel button, Ctrl-D on an empty line ends the input.
public final class TerminalPrompter: AuthPrompter, @unchecked Sendable {
  /// The terminal device.
  public let path: String

  /// Creates a prompter on `path` (default: the controlling terminal).
  public init(path: String = "/dev/tty") { self.path = path }

  public func info(_ text: String) throws(LocalAuthError) { try prompting { () throws(PromptError) in try withTerminal { fd throws(PromptError) in try write(fd, text + "\n") } } }

  public func error(_ text: String) throws(LocalAuthError) { try prompting { () throws(PromptError) in try withTerminal { fd throws(PromptError) in try write(fd, text + "\n") } } }

  public func secret(_ prompt: String) throws(LocalAuthError) -> SecretBytes {
    try prompting { () throws(PromptError) in try readSecret(prompt) }
  }

  /// Runs `body`, passing on its failure as the core's prompt error.
  private func prompting<T>(_ body: () throws(PromptError) -> T) throws(LocalAuthError) -> T {
    do { return try body() } catch { throw .prompt(error) }
  }

  private func readSecret(_ prompt: String) throws(PromptError) -> SecretBytes {
    try withTerminal { fd throws(PromptError) in
      var saved = termios()
      let isTerminal = tcgetattr(fd, &saved) == 0
      if isTerminal {
        // Byte-at-a-time input without echo or terminal signals: Ctrl-C arrives as a byte (the Cancel button)
        // instead of killing the process with echo off; the line editing below replaces the terminal's.
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
        withUnsafeMutableBytes(of: &quiet.c_cc) { cc in
          cc[Int(VMIN)] = 1
          cc[Int(VTIME)] = 0
        }
        _ = tcsetattr(fd, TCSAFLUSH, &quiet)
      }
      defer { if isTerminal { _ = tcsetattr(fd, TCSAFLUSH, &saved) } }
      // Echo is off before the prompt appears, so nothing typed after it is ever echoed.
      try write(fd, prompt)
      let secret = try readLine(fd)
      try? write(fd, "\n")
      return secret
    }
  }

  private func withTerminal<T>(_ body: (Int32) throws(PromptError) -> T) throws(PromptError) -> T {
    let fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard fd >= 0 else { throw PromptError.noTerminal }
    defer { close(fd) }
    return try body(fd)
  }

  private func write(_ fd: Int32, _ text: String) throws(PromptError) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress else { return 0 }
        return Glibc.write(fd, base + offset, buffer.count - offset)
      }
      if written < 0 {
        if errno == EINTR { continue }
        throw PromptError.io(errno)
      }
      offset += written
    }
  }

  /// Reads bytes up to a newline with minimal line editing (Backspace, Ctrl-U); Ctrl-C cancels, Ctrl-D on an
  /// empty line ends the input. At most `SecretBytes.maximumLength + 1` bytes are kept (longer never matches).
  private func readLine(_ fd: Int32) throws(PromptError) -> SecretBytes {
    var line: [UInt8] = []
    line.reserveCapacity(SecretBytes.maximumLength + 1)
    var byte: UInt8 = 0
    defer { byte = 0 }
    while true {
      let count = read(fd, &byte, 1)
      if count < 0 {
        if errno == EINTR { continue }
        let code = errno
        wipe(&line)
        throw PromptError.io(code)
      }
      if count == 0 {
        wipe(&line)
        throw PromptError.endOfInput
      }
      switch byte {
      case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
        return SecretBytes(line)
      case 0x03:
        wipe(&line)
        throw PromptError.interrupted
      case 0x04:
        if line.isEmpty { throw PromptError.endOfInput }
      case 0x7F, 0x08:
        // Remove the last character, with its UTF-8 continuation bytes.
        while let last = line.last, last & 0xC0 == 0x80 { line[line.count - 1] = 0; line.removeLast() }
        if !line.isEmpty { line[line.count - 1] = 0; line.removeLast() }
      case 0x15:
        wipe(&line)
        line.removeAll(keepingCapacity: true)
      case 0..<0x20:
        continue
      default:
        if line.count <= SecretBytes.maximumLength { line.append(byte) }
      }
    }
  }

  private func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBufferPointer { buffer in
      for i in buffer.indices { buffer[i] = 0 }
    }
  }
}
