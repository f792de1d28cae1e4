/// How serious a log line is; maps to syslog priorities in the module.
public enum LogLevel: Int, Sendable, Comparable {
  case debug, info, notice, warning, error

  public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where the core writes its one-sentence log lines (syslog in the module, stderr in the CLI).
public protocol AuthLog: AnyObject, Sendable {
  /// Writes one plain sentence; it must never contain a secret.
  func log(_ level: LogLevel, _ message: String)
}

/// A log that drops everything.
public final class NullLog: AuthLog {
  /// Creates a log that drops everything.
  public init() {}
  public func log(_ level: LogLevel, _ message: String) {}
}
