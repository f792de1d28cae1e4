import CSyscalls
import LocalAuthCore

/// The helper's log: syslog's authpriv facility under its own fixed name (not argv[0], which the caller sets).
final class HelperSyslog: AuthLog, @unchecked Sendable {
  /// openlog keeps the pointer: it must live as long as the process.
  init() { openlog(strdup("localauth-helper"), LOG_PID, LOG_AUTHPRIV) }

  func log(_ level: LogLevel, _ message: String) {
    if level == .debug { return }
    let priority: Int32 =
      switch level {
      case .debug, .info: LOG_INFO
      case .notice: LOG_NOTICE
      case .warning: LOG_WARNING
      case .error: LOG_ERR
      }
    csyscalls_syslog(priority, message)
  }
}
