/// A point in wall-clock time, in seconds since the Unix epoch.
public struct WallTime: Comparable, Hashable, Sendable, CustomStringConvertible {
  /// Seconds since 1970-01-01T00:00:00Z.
  package var seconds: Double

  /// Creates a time from seconds since the Unix epoch.
  public init(seconds: Double) { self.seconds = seconds }

  /// The epoch itself, used as "never" in records.
  package static let epoch = WallTime(seconds: 0)

  public static func < (lhs: WallTime, rhs: WallTime) -> Bool { lhs.seconds < rhs.seconds }

  /// This time moved by `interval` seconds.
  package func adding(_ interval: Double) -> WallTime { WallTime(seconds: seconds + interval) }

  /// Seconds from `earlier` to this time (negative when `earlier` is later).
  package func since(_ earlier: WallTime) -> Double { seconds - earlier.seconds }

  public var description: String { String(seconds) }
}

/// Formats a duration in seconds the way the prompts say it ("1 minute", "15 minutes", "1 hour").
package func describeDuration(_ seconds: Double) -> String {
  let whole = wholeSeconds(seconds)
  if whole >= 3600 {
    let hours = (whole + 3599) / 3600
    return hours == 1 ? "1 hour" : "\(hours) hours"
  }
  if whole >= 60 {
    let minutes = (whole + 59) / 60
    return minutes == 1 ? "1 minute" : "\(minutes) minutes"
  }
  return whole == 1 ? "1 second" : "\(max(whole, 0)) seconds"
}
