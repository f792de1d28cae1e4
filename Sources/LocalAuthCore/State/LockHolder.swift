/// The process that holds a flock, as /proc/locks and /proc/PID/comm tell it, for messages that say who blocks whom.
public struct LockHolder: Equatable, Sendable, CustomStringConvertible {
  /// The holder's process id, in this process's pid namespace.
  package var pid: Int32
  /// The holder's command name (/proc/PID/comm), with anything but printable ASCII replaced; nil when unreadable.
  package var command: String?

  /// Creates a holder description.
  public init(pid: Int32, command: String?) {
    self.pid = pid
    self.command = command
  }

  /// "pid 1234 (su)", or "pid 1234" when the command could not be read.
  public var description: String {
    command.map { "pid \(pid) (\($0))" } ?? "pid \(pid)"
  }

  /// The process holding a flock on the file open as `fd`; nil when no visible process holds one.
  ///
  /// /proc/locks names a lock's file by device and inode ("1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF",
  /// major and minor in hex); lines with "->" are waiters, not holders. A holder in another pid namespace
  /// shows as pid 0 or -1 and is left out.
  package static func find(forLockedFile fd: Int32) -> LockHolder? {
    guard case .success(let status) = Syscalls.status(of: fd) else { return nil }
    return find(device: status.device, inode: status.inode)
  }

  /// The process holding a flock on the file at `path` (not followed if it is a link); nil when none is seen.
  package static func find(forLockAt path: String) -> LockHolder? {
    guard case .success(let status) = Syscalls.status(ofPath: path), status.kind == .regular else { return nil }
    return find(device: status.device, inode: status.inode)
  }

  static func find(device: UInt64, inode: UInt64) -> LockHolder? {
    let key = fileKey(device: device, inode: inode)
    guard let bytes = try? readSmallFile("/proc/locks", limit: 1 << 20) else { return nil }
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
      guard let pid = holderPID(line, key: key) else { continue }
      return LockHolder(pid: pid, command: command(of: pid))
    }
    return nil
  }

  /// The pid of a /proc/locks line when it is a FLOCK held (not awaited) on the file `key`.
  static func holderPID(_ line: Substring, key: String) -> Int32? {
    let fields = line.split(separator: " ", omittingEmptySubsequences: true)
    // A waiter's line reads "1: -> FLOCK ...", so fields[1] is "->" and it is skipped here.
    guard fields.count >= 6, fields[1] == "FLOCK", fields[5] == key else { return nil }
    guard let pid = Int32(fields[4]), pid > 0 else { return nil }
    return pid
  }

  /// "MAJOR:MINOR:INODE" as /proc/locks prints it: major and minor in two-digit hex, the inode in decimal.
  static func fileKey(device: UInt64, inode: UInt64) -> String {
    // glibc's gnu_dev_major and gnu_dev_minor, which Swift cannot call (they are macros or inline).
    let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff))
    let minor = (device & 0xff) | ((device >> 12) & ~UInt64(0xff))
    return hex2(major) + ":" + hex2(minor) + ":" + String(inode)
  }

  private static func hex2(_ value: UInt64) -> String {
    let text = String(value, radix: 16)
    return text.count < 2 ? "0" + text : text
  }

  /// /proc/PID/comm without its newline; characters a process could use to forge a log line become "?".
  static func command(of pid: Int32) -> String? {
    guard let bytes = try? readSmallFile("/proc/\(pid)/comm", limit: 64) else { return nil }
    let text = String(decoding: bytes.map { (0x20...0x7e).contains($0) || $0 == 0x0a ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
    let name = text.trimmingWhitespace()
    return name.isEmpty ? nil : name
  }
}
