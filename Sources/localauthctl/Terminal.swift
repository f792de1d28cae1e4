import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// The terminal settings to put back if a signal interrupts an echo-off read (set only during such a read).
nonisolated(unsafe) private var echoRestore: (fd: Int32, settings: termios)?

/// Puts the terminal's echo back, then dies of the signal as it would have.
private func restoreAndReraise(_ signal: Int32) {
  if let saved = echoRestore {
    var settings = saved.settings
    tcsetattr(saved.fd, TCSANOW, &settings)
    _ = write(saved.fd, "\n", 1)
  }
  Glibc.signal(signal, SIG_DFL)
  raise(signal)
}

/// Where the CLI asks for secrets: the controlling terminal with echo off, or standard input when it is
/// not a terminal (a pipe or a file, one line per answer, prompts on standard error).
final class Terminal {
  /// The descriptor answers are read from.
  let input: Int32
  /// The descriptor prompts and messages are written to.
  let output: Int32
  /// True when a person types at a terminal (echo can be turned off).
  let isInteractive: Bool
  private let ownsDescriptor: Bool

  private init(input: Int32, output: Int32, isInteractive: Bool, ownsDescriptor: Bool) {
    self.input = input
    self.output = output
    self.isInteractive = isInteractive
    self.ownsDescriptor = ownsDescriptor
  }

  deinit { if ownsDescriptor { close(input) } }

  /// Opens /dev/tty when standard input is a terminal; otherwise reads standard input and writes to stderr.
  static func open() -> Terminal {
    guard isatty(0) == 1 else { return Terminal(input: 0, output: 2, isInteractive: false, ownsDescriptor: false) }
    let fd = Glibc.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
    if fd >= 0 { return Terminal(input: fd, output: fd, isInteractive: true, ownsDescriptor: true) }
    return Terminal(input: 0, output: 2, isInteractive: true, ownsDescriptor: false)
  }

  /// Writes text as it is.
  func write(_ text: String) {
    var text = text
    text.withUTF8 { buffer in
      guard let base = buffer.baseAddress else { return }
      var offset = 0
      while offset < buffer.count {
        let n = Glibc.write(output, base + offset, buffer.count - offset)
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
      }
    }
  }

  /// Shows `prompt` and reads one answer with echo off (at a terminal); nil at end of input.
  func readSecret(prompt: String) throws -> SecretBytes? {
    var saved = termios()
    guard isInteractive, tcgetattr(input, &saved) == 0 else {
      write(prompt)
      return try readLine()
    }
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK)
    quiet.c_lflag |= tcflag_t(ECHONL)
    echoRestore = (input, saved)
    let previous = [SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGTSTP].map { ($0, signal($0, restoreAndReraise)) }
    defer {
      tcsetattr(input, TCSAFLUSH, &saved)
      echoRestore = nil
      for (sig, handler) in previous { signal(sig, handler) }
    }
    // Echo goes off before the prompt appears, so nothing typed in answer to it is ever echoed.
    tcsetattr(input, TCSAFLUSH, &quiet)
    write(prompt)
    return try readLine()
  }

  /// Reads one line (without its newline); nil at end of input with nothing read.
  ///
  /// At most `SecretBytes.maximumLength + 1` bytes are kept, so an overlong answer is refused by the core
  /// rather than silently cut; the rest of the line is discarded.
  func readLine() throws -> SecretBytes? {
    let cap = SecretBytes.maximumLength + 1
    var bytes: [UInt8] = []
    // The whole cap at once: a growing array would leave unwiped copies of the typed prefix on the heap.
    bytes.reserveCapacity(cap)
    var byte: UInt8 = 0
    var sawAny = false
    while true {
      let n = Glibc.read(input, &byte, 1)
      if n < 0 {
        if errno == EINTR { continue }
        for i in bytes.indices { bytes[i] = 0 }
        throw PromptError.conversationFailed
      }
      if n == 0 { break }
      sawAny = true
      if byte == UInt8(ascii: "\n") { break }
      if bytes.count < cap { bytes.append(byte) }
    }
    byte = 0
    guard sawAny else { return nil }
    if bytes.last == UInt8(ascii: "\r") { bytes[bytes.count - 1] = 0; bytes.removeLast() }
    return SecretBytes(bytes)
  }
}
