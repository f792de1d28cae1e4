import LocalAuthCore

/// The engine's log on standard error, for `evaluate --verbose`.
final class StandardErrorLog: AuthLog {
  func log(_ level: LogLevel, _ message: String) { printError("[\(level)] \(message)") }
}
