@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// docs/RULES.md, "Visibility holds for the whole wait": a request judged visible when it began is asked again
/// while the finger is awaited (at most every half second), before a match is granted and before a reuse; one
/// that stopped being visible is withdrawn as a hidden request is.
@Suite("Visibility holds for the whole wait")
struct VisibilityWatchTests {
  static let reason = "process 42 (sudo) is not in the foreground of pts/1"

  /// A recheck that answers visible until `clock` reaches `until`, then `reason`; it counts its calls.
  final class Recheck {
    let clock: ManualClock
    let until: WallTime
    private(set) var calls: [WallTime] = []
    init(_ clock: ManualClock, visibleFor seconds: Double) {
      self.clock = clock
      until = clock.now().adding(seconds)
    }
    func callAsFunction() -> String? {
      calls.append(clock.now())
      return clock.now() >= until ? VisibilityWatchTests.reason : nil
    }
  }

  @Test("Visibility: a request that stops being visible mid-wait is withdrawn (policy 2: the passcode; policy 1: requestNotVisible)", arguments: AuthPolicy.allCases)
  func withdrawnMidWait(policy: AuthPolicy) throws {
    let world = try TestWorld()
    try world.prime()
    world.prompter.enqueue(TestWorld.passcode)
    let recheck = Recheck(world.clock, visibleFor: 1.2)
    var request = world.request(policy)
    request.visibilityRecheck = { recheck() }
    let start = world.clock.now()
    let asked = world.prompter.prompts.count
    let outcome = try world.evaluator.evaluate(request)
    if policy == .deviceOwnerAuthentication {
      #expect(outcome == .success(.passcode))
      #expect(world.shown("error: This request").last == "error: This request is no longer shown where you can see it; enter your passcode.")
      #expect(world.prompter.prompts.count == asked + 1)  // the passcode was asked
    } else {
      #expect(outcome == .failure(.biometryNotAvailable, .requestNotVisible))
      #expect(world.shown("error: This request").last == "error: This request is no longer shown where you can see it.")
    }
    // Withdrawn at the first recheck past 1.2 s (every half second), not at the 30 s sensor timeout.
    #expect(world.clock.now().since(start) == 1.5)
    #expect(recheck.calls.count == 3)
    #expect(world.log.lines.filter { $0.hasPrefix("Withdrew the finger prompt for user alice: \(Self.reason)") }.count == 1)
  }

  @Test("Visibility: a request still visible keeps waiting and its match is granted")
  func stillVisibleMatches() throws {
    let world = try TestWorld()
    try world.prime()
    let recheck = Recheck(world.clock, visibleFor: 1000)
    var request = world.request(.deviceOwnerAuthenticationWithBiometrics)
    request.visibilityRecheck = { recheck() }
    world.present(world.genuine())
    #expect(try world.evaluator.evaluate(request) == .success(.biometry))
    #expect(recheck.calls.count == 1)  // before the grant
  }

  @Test("Visibility: a match seen once the request is no longer visible is not granted")
  func matchRefusedAtGrant() throws {
    let world = try TestWorld()
    try world.prime()
    let recheck = Recheck(world.clock, visibleFor: 0)
    var request = world.request(.deviceOwnerAuthenticationWithBiometrics)
    request.visibilityRecheck = { recheck() }
    world.present(world.genuine())
    #expect(try world.evaluator.evaluate(request) == .failure(.biometryNotAvailable, .requestNotVisible))
    #expect(try world.record().lastBiometricSuccess == nil)
    #expect(try world.record().biometricFailures == 0)
  }

  @Test("Visibility: a reuse is refused when the request is no longer visible at the end", arguments: AuthPolicy.allCases)
  func reuseRefused(policy: AuthPolicy) throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.genuine())
    #expect(try world.evaluator.evaluate(world.request(.deviceOwnerAuthenticationWithBiometrics, reuse: 30)) == .success(.biometry))
    world.clock.advance(by: 5)
    var visible = world.request(policy, reuse: 30)
    visible.visibilityRecheck = { nil }
    #expect(try world.evaluator.evaluate(visible) == .success(.reuse))
    var gone = world.request(policy, reuse: 30)
    gone.visibilityRecheck = { Self.reason }
    world.prompter.enqueue(TestWorld.passcode)
    let start = world.clock.now()
    let outcome = try world.evaluator.evaluate(gone)
    if policy == .deviceOwnerAuthentication {
      #expect(outcome == .success(.passcode))
    } else {
      #expect(outcome == .failure(.biometryNotAvailable, .requestNotVisible))
    }
    #expect(world.clock.now() == start)  // no finger was asked either
    #expect(world.log.lines.contains { $0.hasPrefix("Refused to reuse a biometric match for user alice: \(Self.reason)") })
  }

  @Test("Visibility: the recheck answers the new verdict's reason, or the change of the terminals' foreground")
  func verdictChange() {
    var first = RequestVisibility.Verdict(isVisible: true, reason: "process 42 (sudo) is in the foreground of pts/1")
    first.watchState = [42, 40]
    var same = first
    same.reason = "another wording"
    #expect(EvaluationRequestBuilder.visibilityChange(since: first, now: same) == nil)
    var moved = first
    moved.watchState = [77, 40]
    #expect(EvaluationRequestBuilder.visibilityChange(since: first, now: moved) == "the foreground of its terminals changed since the request began")
    let hidden = RequestVisibility.Verdict(isVisible: false, reason: Self.reason)
    #expect(EvaluationRequestBuilder.visibilityChange(since: first, now: hidden) == Self.reason)
  }
}
