/// A parallel prompt on the controlling terminal: echo, line buffering and terminal signals off while it is open,
/// poll(2) on the terminal and the sensor's descriptor together, the typed line kept in memory and wiped.
///
/// Backspace and DEL remove a character, Ctrl-U the line, Enter finishes it; Ctrl-C, and Ctrl-D on an empty
/// line, are the Cancel button. `close()` restores the terminal's settings with TCSAFLUSH, so nothing typed and
/// not read (after a match, say) is left for the shell.
package final class TerminalEntry: ParallelEntry {
  private let fd: Int32
  private let saved: TerminalSettings
  private var line: [UInt8] = []
  private var prompt: String
  /// True while the prompt is the last thing on the terminal's current line.
  private var promptShown = false
  private var closed = false

  /// Opens the controlling terminal, when it is the one `standardInput` refers to (the application's
  /// conversation reads it: login, su, sudo), with echo off; nil otherwise. `prompt` is shown at the first wait.
  package static func open(prompt: String, standardInput: Int32 = 0) -> TerminalEntry? {
    // tcgetpgrp succeeds only on the caller's controlling terminal (ENOTTY for any other terminal or a pipe).
    guard Syscalls.isControllingTerminal(standardInput), case .success(let fd) = Syscalls.openTerminal("/dev/tty")
    else { return nil }
    guard let saved = TerminalSettings(of: fd) else {
      Syscalls.close(fd)
      return nil
    }
    let entry = TerminalEntry(fd: fd, saved: saved, prompt: prompt)
    guard saved.enterQuietMode(fd) else {
      entry.close()
      return nil
    }
    return entry
  }

  private init(fd: Int32, saved: TerminalSettings, prompt: String) {
    self.fd = fd
    self.saved = saved
    self.prompt = prompt
    // The whole cap at once: a growing array would leave unwiped copies of the typed prefix on the heap.
    line.reserveCapacity(SecretBytes.maximumLength + 1)
  }

  deinit { close() }

  package func next(waitingOn descriptor: Int32, until deadline: Double) throws(LocalAuthError) -> ParallelInput {
    guard !closed else { return .cancelled }
    if !promptShown { showPrompt() }
    while true {
      let left = deadline - SystemClock().uptime()
      guard left > 0 else { return .timedOut }
      let events: (first: PollEvents, second: PollEvents)
      switch Syscalls.poll(fd, descriptor, milliseconds: Int32(min(left, 3600) * 1000) + 1) {
      case .success(let ready): events = ready
      case .failure(let error) where error == .interrupted: continue
      case .failure(let error): throw .prompt(.io(error.code))
      }
      // The sensor first: a match then wins over a line finished at the same moment, and never both succeed.
      if descriptor >= 0, events.second.any { return .sensorReady }
      if events.first.readable {
        if let input = try readAvailable() { return input }
      } else if events.first.any {
        throw .prompt(.endOfInput)  // the terminal hung up
      }
    }
  }

  /// Reads what the terminal has and edits the line; the input when a line was finished or cancelled.
  private func readAvailable() throws(LocalAuthError) -> ParallelInput? {
    var chunk = [UInt8](repeating: 0, count: 64)
    defer { for i in chunk.indices { chunk[i] = 0 } }
    let count: Int
    switch chunk.withUnsafeMutableBytes({ Syscalls.read(fd, into: $0, retryOnInterrupt: false) }) {
    case .success(let read): count = read
    case .failure(let error) where error == .interrupted || error == .wouldBlock: return nil
    case .failure(let error): throw .prompt(.io(error.code))
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

  package func reprompt(_ prompt: String) throws(LocalAuthError) {
    self.prompt = prompt
    lineDone()
    showPrompt()
  }

  /// Ends the prompt's line before someone else writes to the terminal (a "Try again." through the
  /// conversation); the prompt is shown again at the next wait.
  package func lineDone() {
    guard promptShown, !closed else { return }
    write("\n")
    promptShown = false
  }

  package func close() {
    guard !closed else { return }
    lineDone()
    closed = true
    wipeLine()
    saved.restore(fd)
    Syscalls.close(fd)
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
      let result = bytes.withUnsafeBytes { Syscalls.write(fd, from: UnsafeRawBufferPointer(rebasing: $0[offset...])) }
      guard case .success(let written) = result, written > 0 else { return }
      offset += written
    }
  }
}
