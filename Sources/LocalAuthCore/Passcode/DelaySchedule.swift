/// Apple's escalating passcode delays (docs/RULES.md, rule 5): after the Nth consecutive failure, the next
/// attempt must wait 1–4: none, 5: 1 min, 6: 5 min, 7–8: 15 min, 9 and more: 1 h.
public struct DelaySchedule: Equatable, Sendable {
  /// The delays in seconds, indexed by failure count minus one; the last entry repeats.
  package var delays: [Double]

  /// Apple's table.
  package static let apple = DelaySchedule(delays: [0, 0, 0, 0, 60, 300, 900, 900, 3600])

  /// Creates a schedule from per-failure delays.
  public init(delays: [Double]) { self.delays = delays }

  /// The wait before the next attempt after `failures` consecutive failures.
  package func delay(afterFailures failures: Int) -> Double {
    guard failures > 0, let last = delays.last else { return 0 }
    return failures <= delays.count ? delays[failures - 1] : last
  }
}
