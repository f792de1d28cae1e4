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

/// A log that keeps its lines in memory, for tests and for the CLI's explanations.
public final class MemoryLog: AuthLog, @unchecked Sendable {
  private let lock = Mutex()
  private var stored: [(LogLevel, String)] = []

  /// Creates an empty log.
  public init() {}

  public func log(_ level: LogLevel, _ message: String) { lock.withLock { stored.append((level, message)) } }

  /// Every line logged so far, oldest first.
  public var lines: [String] { lock.withLock { stored.map(\.1) } }

  /// The lines logged at `level` or above.
  public func lines(atLeast level: LogLevel) -> [String] { lock.withLock { stored.filter { $0.0 >= level }.map(\.1) } }
}

/// A log that drops everything.
public final class NullLog: AuthLog {
  /// Creates a log that drops everything.
  public init() {}
  public func log(_ level: LogLevel, _ message: String) {}
}
