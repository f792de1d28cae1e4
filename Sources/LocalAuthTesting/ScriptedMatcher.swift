import LocalAuthCore

/// A matcher that gives scripted decisions in order (then `noMatch`), and records how often it was asked,
/// for tests that need a match or a miss without arranging a simulated world where scores fall right.
public final class ScriptedMatcher: BiometricMatcher, @unchecked Sendable {
  private let lock = Mutex()
  private var decisions: [MatchDecision]
  /// How many samples were decided.
  public private(set) var calls = 0

  /// Creates a matcher that answers with `decisions`, in order.
  public init(_ decisions: [MatchDecision] = []) { self.decisions = decisions }

  /// Adds decisions.
  public func enqueue(_ more: MatchDecision...) { lock.withLock { decisions += more } }

  public func decide(_ sample: BiometricSample, against templates: [BiometricTemplate]) -> MatchDecision {
    lock.withLock {
      calls += 1
      return decisions.isEmpty ? .noMatch(bestScore: 0) : decisions.removeFirst()
    }
  }
}
