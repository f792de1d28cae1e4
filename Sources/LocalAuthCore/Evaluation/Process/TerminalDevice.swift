/// Terminal devices as the kernel numbers and names them.
package enum TerminalDevice {
  /// The terminal's name for a `tty_nr` device number (Linux's encoding: minor bits 0–7 and 20–31, major 8–19):
  /// "pts/3", "tty2", "ttyS0", or "terminal MAJOR:MINOR".
  package static func name(_ device: Int32) -> String {
    let value = UInt32(bitPattern: device)
    let major = (value >> 8) & 0xFFF
    let minor = (value & 0xFF) | ((value >> 12) & 0xFFF00)
    if major >= 136 && major <= 143 { return "pts/\((major - 136) * 256 + minor)" }
    if major == 4 && minor < 64 { return "tty\(minor)" }
    if major == 4 { return "ttyS\(minor - 64)" }
    return "terminal \(major):\(minor)"
  }

  /// N for "pts/N".
  package static func ptsIndex(_ terminal: String) -> Int? {
    guard terminal.hasPrefix("pts/") else { return nil }
    return Int(terminal.dropFirst("pts/".count))
  }

  /// True for the multiplexing device (devpts's own `ptmx` through a bind mount included).
  package static func isMaster(_ target: String) -> Bool { target == "/dev/ptmx" || target == "/dev/pts/ptmx" }

  /// True when a descriptor's target is the terminal named `terminal` ("pts/3", "tty2").
  package static func isTerminal(_ target: String, named terminal: String) -> Bool { target == "/dev/" + terminal }
}
