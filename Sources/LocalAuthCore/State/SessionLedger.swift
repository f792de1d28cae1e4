/// The module's own record of how each login session of this boot was opened: remotely (sshd) or at the machine.
///
/// A login session is the kernel's audit session (/proc/PID/sessionid), which pam_loginuid starts at login and
/// every process of the session inherits through setsid, double forks, script, tmux and nohup; a user cannot
/// change it. pam_localauth's session line, which runs after pam_loginuid in sshd's, login's and the display
/// managers' stacks (common-session), writes one byte here for the session it opens, in the process that opened
/// it. So a process left running after its SSH connection ended is still known to come from SSH.
///
/// The file `<runtime folder>/sessions` is root's (0600), on tmpfs, and starts with a header naming the boot it
/// belongs to (session ids start again at each boot). Session `N` is the byte at `headerSize + N`: 0 when nothing
/// was recorded, "L" for a session opened at the machine, "R" for a remote one. A byte is only ever raised from
/// 0 to "L" or "R", or from "L" to "R": a session recorded remote stays remote. The file is sparse, so a busy
/// server's millions of logins cost a few pages.
public struct SessionLedger: Sendable {
  /// How a login session was opened.
  public enum Entry: UInt8, Equatable, Sendable {
    /// Opened at the machine (a console, a display manager).
    case local = 0x4C  // "L"
    /// Opened from the network (sshd, or any opening the remote detection calls remote).
    case remote = 0x52  // "R"
  }

  /// What the ledger says of one session.
  public enum Lookup: Equatable, Sendable {
    /// No ledger for this boot: the session line has not run since boot, so nothing can be said.
    case noLedger
    /// The ledger exists and holds nothing for the session: it was opened without the session line (before it
    /// was installed, or by a stack that lacks it, such as cron's).
    case unrecorded
    /// The session's entry.
    case recorded(Entry)
  }

  /// The runtime folder (Options.runtimeRoot).
  package let root: String
  /// The boot the ledger must belong to.
  package let bootID: String

  /// The bytes before session 0's byte.
  static let headerSize = 64
  /// The largest session id recorded; higher ids are left unrecorded (billions of logins in one boot).
  package static let maximumSession: UInt32 = 1 << 26

  /// A ledger in `root` for the boot `bootID`.
  public init(root: String, bootID: String) {
    self.root = root
    self.bootID = bootID
  }

  /// The ledger file.
  package var path: String { root + "/sessions" }

  /// The header for this boot: magic, version and boot id, padded with spaces and ended by a newline.
  var header: [UInt8] {
    var bytes = Array("localauth-sessions 1 \(bootID)".utf8.prefix(Self.headerSize - 1))
    while bytes.count < Self.headerSize - 1 { bytes.append(UInt8(ascii: " ")) }
    bytes.append(UInt8(ascii: "\n"))
    return bytes
  }

  /// What the ledger says of `session`. A ledger that is not root's, is writable by others, has another boot's
  /// header or cannot be read counts as no ledger (the caller then relies on the other signals).
  package func lookUp(_ session: UInt32) -> Lookup {
    guard session <= Self.maximumSession,
      let fd = try? FileSyscalls.openNoFollow(path, flags: FileSyscalls.Access.readOnly)
    else { return .noLedger }
    defer { Syscalls.close(fd) }
    guard let status = try? FileSyscalls.status(of: fd, path: path), status.isRegular, status.linkCount == 1,
      (try? FileSyscalls.checkTrusted(status, path: path)) != nil, readHeader(fd) == header
    else { return .noLedger }
    guard let byte = readByte(fd, at: Int64(Self.headerSize) + Int64(session)), let entry = Entry(rawValue: byte) else {
      return .unrecorded
    }
    return .recorded(entry)
  }

  /// Records how `session` was opened; a remote entry is never lowered to local. Creates the runtime folder and
  /// the ledger (or starts it again when it belongs to another boot), under an exclusive lock.
  package func record(_ session: UInt32, as entry: Entry) throws(StateError) {
    guard session <= Self.maximumSession else { return }
    try FileSyscalls.checkTrustedAncestors(of: root, role: "the runtime folder")
    try FileSyscalls.ensureDirectory(root)
    let lock = try FileSyscalls.lockExclusive(path)
    defer { lock.release() }
    guard let fd = try FileSyscalls.openNoFollow(path, flags: FileSyscalls.Access.readWrite) else {
      throw .io(path: path, operation: "open", errno: noEntryErrno)
    }
    defer { Syscalls.close(fd) }
    if readHeader(fd) != header {
      if case .failure(let error) = Syscalls.truncate(fd, to: 0) {
        throw .io(path: path, operation: "write", errno: error.code)
      }
      try writeAll(fd, header, at: 0)
    }
    let offset = Int64(Self.headerSize) + Int64(session)
    let current = readByte(fd, at: offset) ?? 0
    if current == Entry.remote.rawValue || current == entry.rawValue { return }
    try writeAll(fd, [entry.rawValue], at: offset)
  }

  private func readHeader(_ fd: Int32) -> [UInt8]? {
    var bytes = [UInt8](repeating: 0, count: Self.headerSize)
    let read = bytes.withUnsafeMutableBytes { Syscalls.read(fd, into: $0, at: 0) }
    return (try? read.get()) == Self.headerSize ? bytes : nil
  }

  /// The byte at `offset`; nil past the end or when it cannot be read.
  private func readByte(_ fd: Int32, at offset: Int64) -> UInt8? {
    var byte: UInt8 = 0
    let read = withUnsafeMutableBytes(of: &byte) { Syscalls.read(fd, into: $0, at: offset) }
    return (try? read.get()) == 1 ? byte : nil
  }

  private func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: Int64) throws(StateError) {
    switch Syscalls.write(fd, bytes, at: offset) {
    case .success(true): return
    // A short write sets no errno: the one left by an earlier call is reported, as before.
    case .success(false): throw .io(path: path, operation: "write", errno: Errno.current.code)
    case .failure(let error): throw .io(path: path, operation: "write", errno: error.code)
    }
  }
}
