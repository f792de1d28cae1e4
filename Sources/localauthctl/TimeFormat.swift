import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// A time as ISO 8601 in UTC, to the second: "2026-11-22T09:20:03Z".
func formatTime(_ time: WallTime) -> String {
  // A well-formed record may hold any finite time (a delay until 1e300): time_t(_:) would trap beyond Int.
  guard time.seconds.isFinite, abs(time.seconds) < 1e15 else { return time.description }
  var seconds = time_t(time.seconds.rounded(.down))
  var parts = tm()
  guard gmtime_r(&seconds, &parts) != nil else { return time.description }
  func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
  return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
    + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
}

/// A time with how long ago or ahead it is: "2026-11-22T09:20:03Z (5 minutes ago)".
func formatTime(_ time: WallTime, relativeTo now: WallTime) -> String {
  let delta = now.since(time)
  if abs(delta) < 1 { return formatTime(time) + " (now)" }
  return formatTime(time) + (delta > 0 ? " (\(describeDuration(delta)) ago)" : " (in \(describeDuration(-delta)))")
}
