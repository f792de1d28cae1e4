import CSyscalls

/// A parallel prompt on the controlling terminal: echo, line buffering and terminal signals off while it is open,
/// poll(2) on the terminal and the sensor's descriptor together, the typed line kept in memory and wiped.
///
/// Backspace and DEL remove a character, Ctrl-U the line, Enter finishes it; Ctrl-C, and Ctrl-D on an empty
/// line, are the Cancel button. `close()` restores the terminal's settings with TCSAFLUSH, so nothing typed and
/// not read (after a match, say) is left for the shell.
public final class TerminalEntry: ParallelEntry {
  private let fd: Int32
  private var saved: termios
  private var line: [UInt8] = []
  private var prompt: String
  /// True while the prompt is the last thing on the terminal's current line.
  private var promptShown = false
  private var closed = false

  /// Opens the controlling terminal, when it is the one `standardInput` refers to (the application's
  /// conversation reads it: login, su, sudo), with echo off; nil otherwise. `prompt` is shown at the first wait.
  public static func open(prompt: String, standardInput: Int32 = 0) -> TerminalEntry? {
    // tcgetpgrp succeeds only on the caller's controlling terminal (ENOTTY for any other terminal or a pipe).
    guard isatty(standardInput) == 1, tcgetpgrp(standardInput) >= 0 else { return nil }
    let fd = csyscalls_open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC, 0)
    guard fd >= 0 else { return nil }
    var saved = termios()
    guard tcgetattr(fd, &saved) == 0 else {
      CSyscalls.close(fd)
      return nil
    }
    let entry = TerminalEntry(fd: fd, saved: saved, prompt: prompt)
    guard entry.enterRawMode() else {
      entry.close()
      return nil
    }
    return entry
  }

  private init(fd: Int32, saved: termios, prompt: String) {
    self.fd = fd
    self.saved = saved
    self.prompt = prompt
    // The whole cap at once: a growing array would leave unwiped copies of the typed prefix on the heap.
    line.reserveCapacity(SecretBytes.maximumLength + 1)
  }

  deinit { close() }

  /// Byte-at-a-time input without echo or terminal signals: Ctrl-C arrives as a byte (Cancel), Ctrl-Z is ignored.
  private func enterRawMode() -> Bool {
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
    withUnsafeMutableBytes(of: &quiet.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    return tcsetattr(fd, TCSAFLUSH, &quiet) == 0
  }

  public func next(waitingOn descriptor: Int32, until deadline: Double) throws(LocalAuthError) -> ParallelInput {
    guard !closed else { return .cancelled }
    if !promptShown { showPrompt() }
    var entries = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
    while true {
      let left = deadline - SystemClock().uptime()
      guard left > 0 else { return .timedOut }
      entries[0].revents = 0
      entries[1].revents = 0
      let ready = poll(&entries, descriptor >= 0 ? 2 : 1, Int32(min(left, 3600) * 1000) + 1)
      if ready < 0 {
        if currentErrno == EINTR { continue }
        throw .prompt(.io(currentErrno))
      }
      // The sensor first: a match then wins over a line finished at the same moment, and never both succeed.
      if descriptor >= 0, entries[1].revents != 0 { return .sensorReady }
      if entries[0].revents & Int16(POLLIN) != 0 {
        if let input = try readAvailable() { return input }
      } else if entries[0].revents != 0 {
        throw .prompt(.endOfInput)  // the terminal hung up
      }
    }
  }

  /// Reads what the terminal has and edits the line; the input when a line was finished or cancelled.
  private func readAvailable() throws(LocalAuthError) -> ParallelInput? {
    var chunk = [UInt8](repeating: 0, count: 64)
    defer { for i in chunk.indices { chunk[i] = 0 } }
    let count = chunk.withUnsafeMutableBytes { buffer in read(fd, buffer.baseAddress!, buffer.count) }
    if count < 0 {
      if currentErrno == EINTR || currentErrno == EAGAIN { return nil }
      throw .prompt(.io(currentErrno))
    }
    if count == 0 { throw .prompt(.endOfInput) }
    for byte in chunk[0..<count] {
      switch byte {
      case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
        let secret = SecretBytes(line)
        line = []
        line.reserveCapacity(SecretBytes.maximumLength + 1)
        lineDone()
        return .secret(secret)
      case 0x03:
        return .cancelled
      case 0x04:
        if line.isEmpty { return .cancelled }
      case 0x7F, 0x08:
        // Remove the last character, with its UTF-8 continuation bytes.
        while let last = line.last, last & 0xC0 == 0x80 { line[line.count - 1] = 0; line.removeLast() }
        if !line.isEmpty { line[line.count - 1] = 0; line.removeLast() }
      case 0x15:
        wipeLine()
      case 0..<0x20:
        continue
      default:
        if line.count <= SecretBytes.maximumLength { line.append(byte) }
      }
    }
    return nil
  }

  public func reprompt(_ prompt: String) throws(LocalAuthError) {
    self.prompt = prompt
    lineDone()
    showPrompt()
  }

  /// Ends the prompt's line before someone else writes to the terminal (a "Try again." through the
  /// conversation); the prompt is shown again at the next wait.
  public func lineDone() {
    guard promptShown, !closed else { return }
    write("\n")
    promptShown = false
  }

  public func close() {
    guard !closed else { return }
    lineDone()
    closed = true
    wipeLine()
    _ = tcsetattr(fd, TCSAFLUSH, &saved)
    CSyscalls.close(fd)
  }

  private func showPrompt() {
    write(prompt)
    promptShown = true
  }

  private func wipeLine() {
    for i in line.indices { line[i] = 0 }
    line.removeAll(keepingCapacity: true)
  }

  /// Writes to the terminal; a failed write is not retried (the prompt is a courtesy, the wait still bounded).
  private func write(_ text: String) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes { b in CSyscalls.write(fd, b.baseAddress! + offset, b.count - offset) }
      if written < 0 && currentErrno == EINTR { continue }
      guard written > 0 else { return }
      offset += written
    }
  }
}
