#if canImport(Glibc)
import Glibc
#endif

/// docs/RULES.md, "One finger request at a time": a finger prompt that starts within two seconds of another
/// process's prompt's end falls back to the passcode. A test whose next request (another pamtester, sudo or login)
/// must get the finger waits that out first.
enum RecentPrompt {
  /// Sleeps a little over the two-second window.
  static func waitOut() { usleep(2_100_000) }
}
