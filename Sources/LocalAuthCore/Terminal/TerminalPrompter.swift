/// The one terminal prompter, for LocalAuthentication's system context and localauthctl: lines and prompts on
/// the controlling terminal, the passcode read with echo off.
///
/// Every call opens the terminal afresh (O_NOCTTY, O_CLOEXEC), so a process without a controlling terminal
/// fails with `PromptError.noTerminal` (LAError.notInteractive for a context). While a passcode is read, echo,
/// line buffering and terminal signals are off (restored on every exit path); Backspace and Ctrl-U edit, Ctrl-C
/// is the Cancel button (`PromptError.interrupted`), Ctrl-D on an empty line ends the input.
///
/// With `standardInputFallback`, a standard input that is not a terminal (a pipe or a file) is read instead, one
/// line per answer, with prompts and lines on standard error: how scripts give localauthctl a passcode. The same
/// holds when there is no controlling terminal to open.
public final class TerminalPrompter: AuthPrompter, @unchecked Sendable {
  /// The terminal device.
  package let path: String
  /// True when a standard input that is not a terminal is read instead of the terminal.
  package let standardInputFallback: Bool

  /// Creates a prompter on `path` (default: the controlling terminal).
  public init(path: String = "/dev/tty", standardInputFallback: Bool = false) {
    self.path = path
    self.standardInputFallback = standardInputFallback
  }

  /// False when answers come from a pipe or a file rather than a person (only with `standardInputFallback`).
  package var isInteractive: Bool { !readsStandardInput }

  private var readsStandardInput: Bool { standardInputFallback && !Syscalls.isTerminal(0) }

  public func info(_ text: String) throws(LocalAuthError) { try show(text) }

  public func error(_ text: String) throws(LocalAuthError) { try show(text) }

  public func secret(_ prompt: String) throws(LocalAuthError) -> SecretBytes {
    do { return try withChannel { input, output throws(PromptError) in try readSecret(prompt, input, output) } } catch {
      throw .prompt(error)
    }
  }

  private func show(_ text: String) throws(LocalAuthError) {
    do { try withChannel { _, output throws(PromptError) in try write(output, text + "\n") } } catch { throw .prompt(error) }
  }

  /// The descriptors to read answers from and write to: the terminal, or standard input and error.
  private func withChannel<T>(_ body: (Int32, Int32) throws(PromptError) -> T) throws(PromptError) -> T {
    if readsStandardInput { return try body(0, 2) }
    let opened = try? Syscalls.openTerminal(path).get()
    // A terminal on standard input that is not the controlling one (no session): ask there.
    if opened == nil && standardInputFallback { return try body(0, 2) }
    guard let fd = opened else { throw PromptError.noTerminal }
    defer { Syscalls.close(fd) }
    return try body(fd, fd)
  }

  private func readSecret(_ prompt: String, _ input: Int32, _ output: Int32) throws(PromptError) -> SecretBytes {
    let saved = TerminalSettings(of: input)
    let isTerminal = saved != nil
    // Byte-at-a-time input without echo or terminal signals: Ctrl-C arrives as a byte (the Cancel button)
    // instead of killing the process with echo off; the line editing below replaces the terminal's.
    _ = saved?.enterQuietMode(input)
    defer { saved?.restore(input) }
    // Echo is off before the prompt appears, so nothing typed after it is ever echoed.
    try write(output, prompt)
    let secret = try readLine(input, editing: isTerminal)
    if isTerminal { try? write(output, "\n") }
    return secret
  }

  private func write(_ fd: Int32, _ text: String) throws(PromptError) {
    if case .failure(let error) = Syscalls.writeAll(fd, Array(text.utf8)) { throw PromptError.io(error.code) }
  }

  /// Reads bytes up to a newline. At a terminal (`editing`): Backspace and Ctrl-U edit, Ctrl-C cancels, Ctrl-D
  /// on an empty line ends the input. From a pipe or file: the line as it is (without "\r"), and a last line
  /// without a newline still counts. At most `SecretBytes.maximumLength + 1` bytes are kept (longer never matches).
  private func readLine(_ fd: Int32, editing: Bool) throws(PromptError) -> SecretBytes {
    var line: [UInt8] = []
    // The whole cap at once: a growing array would leave unwiped copies of the typed prefix on the heap.
    line.reserveCapacity(SecretBytes.maximumLength + 1)
    var byte: UInt8 = 0
    defer { byte = 0 }
    while true {
      let count: Int
      switch withUnsafeMutableBytes(of: &byte, { Syscalls.read(fd, into: $0) }) {
      case .success(let read): count = read
      case .failure(let error):
        wipe(&line)
        throw PromptError.io(error.code)
      }
      if count == 0 {
        if !editing && !line.isEmpty { return finished(line) }
        wipe(&line)
        throw PromptError.endOfInput
      }
      switch byte {
      case UInt8(ascii: "\n"): return finished(line)
      case UInt8(ascii: "\r") where editing: return SecretBytes(line)
      case 0x03 where editing:
        wipe(&line)
        throw PromptError.interrupted
      case 0x04 where editing:
        if line.isEmpty { throw PromptError.endOfInput }
      case 0x7F where editing, 0x08 where editing:
        // Remove the last character, with its UTF-8 continuation bytes.
        while let last = line.last, last & 0xC0 == 0x80 { line[line.count - 1] = 0; line.removeLast() }
        if !line.isEmpty { line[line.count - 1] = 0; line.removeLast() }
      case 0x15 where editing:
        wipe(&line)
        line.removeAll(keepingCapacity: true)
      case 0..<0x20 where editing:
        continue
      default:
        if line.count <= SecretBytes.maximumLength { line.append(byte) }
      }
    }
  }

  /// A line read from a pipe or file, without a Windows line end's "\r".
  private func finished(_ line: [UInt8]) -> SecretBytes {
    var line = line
    if line.last == UInt8(ascii: "\r") { line[line.count - 1] = 0; line.removeLast() }
    return SecretBytes(line)
  }

  private func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBufferPointer { buffer in
      for i in buffer.indices { buffer[i] = 0 }
    }
  }
}
