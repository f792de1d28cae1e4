import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// docs/RULES.md, "One finger request at a time": a finger prompt that starts within two seconds of another
/// process's prompt's end falls back to the passcode. A test whose next request (another pamtester, sudo or login)
/// must get the finger waits that out first.
enum RecentPrompt {
  /// Sleeps a little over the two-second window.
  static func waitOut() { usleep(2_100_000) }

  /// When a run in each world (by its folder) last ended.
  nonisolated(unsafe) private static var lastEnded: [String: Double] = [:]
  private static let lock = NSLock()

  /// Runs `body` (one process that may ask for the finger) in the world at `folder`, first waiting out what is left of
  /// the two-second window after the previous such run there ended.
  static func paced<T>(_ folder: String, _ body: () throws -> T) rethrows -> T {
    let now = Date().timeIntervalSince1970
    let last = lock.withLock { lastEnded[folder] }
    if let last, now - last < 2.1 { usleep(useconds_t((2.1 - (now - last)) * 1_000_000)) }
    defer { lock.withLock { lastEnded[folder] = Date().timeIntervalSince1970 } }
    return try body()
  }
}
