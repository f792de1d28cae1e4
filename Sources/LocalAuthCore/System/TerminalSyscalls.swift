import CSyscalls

// Part of the C fence (Syscalls.swift): the terminal, for the prompts that read a passcode from it.

extension Syscalls {
  /// True when `fd` is a terminal (isatty(3)).
  static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

  /// True when `fd` is the caller's controlling terminal: tcgetpgrp succeeds only there (ENOTTY for any other
  /// terminal or a pipe).
  static func isControllingTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 && tcgetpgrp(fd) >= 0 }

  /// The terminal's name (ttyname(3)) when `fd` is one; nil otherwise.
  static func terminalName(_ fd: Int32) -> String? {
    guard isatty(fd) == 1, let name = ttyname(fd) else { return nil }
    return String(cString: name)
  }

  /// Opens a terminal device to read and write, without making it the controlling terminal (O_NOCTTY) or
  /// passing it to programs run later (O_CLOEXEC); the errno when it cannot be opened.
  static func openTerminal(_ path: String) -> Result<Int32, Errno> {
    let fd = csyscalls_open(path, O_RDWR | O_NOCTTY | O_CLOEXEC, 0)
    return fd >= 0 ? .success(fd) : .failure(.current)
  }
}

/// A terminal's settings as they were, to put back, and the quiet mode a passcode is read in.
struct TerminalSettings {
  private var saved: termios

  /// The settings of the terminal `fd`; nil when it is not a terminal (tcgetattr fails).
  init?(of fd: Int32) {
    var saved = termios()
    guard tcgetattr(fd, &saved) == 0 else { return nil }
    self.saved = saved
  }

  /// Byte-at-a-time input without echo, line buffering or terminal signals (Ctrl-C arrives as a byte, Ctrl-Z
  /// is ignored), set with TCSAFLUSH; false when the terminal refused it.
  func enterQuietMode(_ fd: Int32) -> Bool {
    var quiet = saved
    quiet.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
    withUnsafeMutableBytes(of: &quiet.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    return tcsetattr(fd, TCSAFLUSH, &quiet) == 0
  }

  /// Puts the saved settings back with TCSAFLUSH, so that nothing typed and not read is left for the shell.
  func restore(_ fd: Int32) {
    var saved = saved
    _ = tcsetattr(fd, TCSAFLUSH, &saved)
  }
}
