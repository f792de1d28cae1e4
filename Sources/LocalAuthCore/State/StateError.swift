/// Failures of the state folder: each names the file and says why, and each fails closed.
public enum StateError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A user name that cannot name a state file (the name itself is not repeated: it may be a mistyped secret).
  case invalidUserName(reason: String)
  /// A file or folder has an unsafe owner, mode or type.
  case insecure(path: String, reason: String)
  /// A file could not be parsed.
  case corrupt(path: String, reason: String)
  /// A file carries a format version this release does not know.
  case unsupportedVersion(path: String, found: String)
  /// The caller may not read or write the state (not running as root).
  case permissionDenied(path: String)
  /// A system call failed.
  case io(path: String, operation: String, errno: Int32)
  /// A file is larger than any valid state file.
  case tooLarge(path: String, limit: Int)
  /// Another process held the lock longer than the bounded wait (`FileSyscalls.lockWaitSeconds`); the holder
  /// is named when /proc shows it.
  case lockTimeout(path: String, seconds: Int, holder: LockHolder?)

  /// The reason alone, as a clause without the path ("it is a symbolic link"), for messages that name the file.
  package var clause: String {
    switch self {
    case .invalidUserName(let reason): reason
    case .insecure(_, let reason): reason
    case .corrupt(_, let reason): reason
    case .unsupportedVersion(_, let found): "it has unsupported format version \(found)"
    case .permissionDenied: "permission denied"
    case .io(_, let operation, let code): "\(operation) failed: \(errnoDescription(code))"
    case .tooLarge(_, let limit): "it is larger than \(limit) bytes"
    case .lockTimeout(_, let seconds, let holder):
      "it stayed locked for \(seconds) seconds by \(holder.map { $0.description } ?? "another process")"
    }
  }

  public var description: String {
    switch self {
    case .invalidUserName(let reason): "The user name is not acceptable: \(reason)."
    case .insecure(let path, let reason): "The state file \(path) is insecure: \(reason)."
    case .corrupt(let path, let reason): "The state file \(path) is corrupt: \(reason)."
    case .unsupportedVersion(let path, let found): "The state file \(path) has unsupported format version \(found)."
    case .permissionDenied(let path): "Permission denied reading the state at \(path); run as root."
    case .io(let path, let operation, let code): "Failed to \(operation) \(path): \(errnoDescription(code))."
    case .tooLarge(let path, let limit): "The state file \(path) is larger than \(limit) bytes."
    case .lockTimeout(let path, let seconds, let holder):
      "Timed out after \(seconds) seconds waiting for \(Self.lockName(path)) held by "
        + "\(holder.map { $0.description } ?? "another process")."
    }
  }

  /// "the state lock of user alice" for `<root>/locks/alice`, else "the lock <path>".
  static func lockName(_ path: String) -> String {
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count >= 2, parts[parts.count - 2] == "locks", let user = parts.last, !user.isEmpty else {
      return "the lock \(path)"
    }
    return "the state lock of user \(user)"
  }
}
