import LocalAuthCore

/// A clock stopped at a time given on the command line, so that processes agree on "now".
final class FixedClock: AuthClock, @unchecked Sendable {
  let time: WallTime

  init(seconds: Double) { time = WallTime(seconds: seconds) }

  func now() -> WallTime { time }
  func bootID() -> String { "reliability-boot" }
  func sleep(_ seconds: Double) {}
}
