import LocalAuthCore

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

