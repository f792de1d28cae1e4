#if canImport(Glibc)
import Glibc
#endif
@testable import LocalAuthCore
import Testing

/// The simulated sensor's matcher, its calibration against Apple's false-match rates, and enrollment.
@Suite("Simulated biometrics: matcher and calibration")
struct MatcherTests {
  @Test("Matcher: threshold(for:) equals threshold(forFalseMatchRate:) of Apple's figure within 1e-4", arguments: Modality.allCases)
  func storedThresholds(modality: Modality) {
    let solved = MatcherCalibration.threshold(forFalseMatchRate: modality.publishedFalseMatchRate)
    #expect(abs(MatcherCalibration.threshold(for: modality) - solved) < 1e-4)
  }

  @Test("Matcher: the impostor tail at the stored threshold is Apple's rate within 2 %", arguments: Modality.allCases)
  func impostorTailMatchesApple(modality: Modality) {
    let tail = MatcherCalibration.impostorTail(MatcherCalibration.threshold(for: modality))
    let rate = modality.publishedFalseMatchRate
    #expect(abs(tail - rate) / rate < 0.02, "tail \(tail) vs \(rate)")
  }

  @Test("Matcher: the impostor tail is a probability: 1/2 at 0, 1 at -1, 0 at 1")
  func tailSanity() {
    #expect(abs(MatcherCalibration.impostorTail(0) - 0.5) < 1e-6)
    #expect(abs(MatcherCalibration.impostorTail(-1) - 1) < 1e-6)
    #expect(MatcherCalibration.impostorTail(1) < 1e-12)
  }

  @Test("Matcher: Touch ID's published rate is 1 in 50,000 and Face ID's 1 in 1,000,000; limits 5 fingers and 2 faces")
  func modalityFigures() {
    #expect(Modality.touchID.publishedFalseMatchRate == 1.0 / 50_000)
    #expect(Modality.faceID.publishedFalseMatchRate == 1.0 / 1_000_000)
    #expect(Modality.touchID.maximumEnrolled == 5 && Modality.faceID.maximumEnrolled == 2)
    #expect(Modality.touchID.failuresPerPrompt == 3 && Modality.faceID.failuresPerPrompt == 2)
    #expect(Modality.touchID.biometryTypeRawValue == 1 && Modality.faceID.biometryTypeRawValue == 2)
  }

  @Test("Matcher: genuine normal-quality captures match and impostors do not, over 400 seeded trials", arguments: Modality.allCases)
  func genuineAndImpostorTrials(modality: Modality) {
    let simulator = BiometricSimulator(worldSeed: 2024)
    var rng = SplitMix64(seed: 11)
    let matcher = SimulatedMatcher()
    var genuineMatches = 0
    var impostorMatches = 0
    let trials = 400
    for i in 0..<trials {
      let owner = "user\(i % 20)"
      let template = simulator.enroll(owner: owner, item: "item", modality: modality, at: .epoch, using: &rng)
      let identity = simulator.identity(owner: owner, item: "item", modality: modality)
      let quality = Double.random(in: 0.6...1.0, using: &rng)
      if case .match = matcher.decide(simulator.capture(identity, modality: modality, quality: quality, using: &rng), against: [template]) {
        genuineMatches += 1
      }
      let stranger = simulator.identity(owner: "stranger\(i)", item: "item", modality: modality)
      if case .match = matcher.decide(simulator.capture(stranger, modality: modality, quality: 0.9, using: &rng), against: [template]) {
        impostorMatches += 1
      }
    }
    #expect(Double(genuineMatches) >= 0.98 * Double(trials), "genuine matches \(genuineMatches)/\(trials)")
    #expect(impostorMatches == 0)
  }

  @Test("Matcher: another finger of the same person is an impostor too")
  func otherFingerIsImpostor() {
    let simulator = BiometricSimulator(worldSeed: 5)
    var rng = SplitMix64(seed: 5)
    let template = simulator.enroll(owner: "alice", item: "right-index", modality: .touchID, at: .epoch, using: &rng)
    let thumb = simulator.identity(owner: "alice", item: "left-thumb", modality: .touchID)
    let decision = SimulatedMatcher().decide(
      simulator.capture(thumb, modality: .touchID, quality: 1, using: &rng), against: [template])
    guard case .noMatch(let best) = decision else {
      Issue.record("expected noMatch, got \(decision)")
      return
    }
    #expect(best < MatcherCalibration.threshold(for: .touchID))
  }

  @Test("Matcher: a capture below quality 0.2 asks for a retry instead of matching")
  func poorQualityRetry() {
    let simulator = BiometricSimulator(worldSeed: 5)
    var rng = SplitMix64(seed: 6)
    let template = simulator.enroll(owner: "alice", item: "f", modality: .touchID, at: .epoch, using: &rng)
    let identity = simulator.identity(owner: "alice", item: "f", modality: .touchID)
    let poor = simulator.capture(identity, modality: .touchID, quality: 0.19, using: &rng)
    #expect(SimulatedMatcher().decide(poor, against: [template]) == .retry)
    var bad = simulator.capture(identity, modality: .touchID, quality: 0.9, using: &rng)
    bad.features.removeLast()
    #expect(SimulatedMatcher().decide(bad, against: [template]) == .retry)
  }

  @Test("Matcher: a crafted sample of large or zero values scores by its direction, never past the threshold by size")
  func largeValuesDoNotMatch() {
    // A template whose direction is 0.32 (cosine) from the all-equal vector: below Touch ID's 0.353.
    let raw = (0..<MatcherCalibration.dimension).map { Float($0 % 2 == 0 ? 1 : -0.5) }
    let length = raw.map { $0 * $0 }.reduce(0, +).squareRoot()
    let template = BiometricTemplate(name: "f", modality: .touchID, features: raw.map { $0 / length }, enrolledAt: .epoch)
    for value: Float in [1, 1e3, 1e20, 3e38, 0] {
      let sample = BiometricSample(
        modality: .touchID, quality: 1, features: [Float](repeating: value, count: MatcherCalibration.dimension))
      guard case .noMatch(let best) = SimulatedMatcher().decide(sample, against: [template]) else {
        Issue.record("a sample of \(value)s matched")
        continue
      }
      #expect(best < MatcherCalibration.threshold(for: .touchID), "\(value): \(best)")
      #expect(best.isFinite)
    }
    // A genuine direction still matches whatever its length.
    let scaled = BiometricSample(modality: .touchID, quality: 1, features: template.features.map { $0 * 1000 })
    guard case .match("f", let score) = SimulatedMatcher().decide(scaled, against: [template]) else {
      Issue.record("the template's own direction did not match")
      return
    }
    #expect(abs(score - 1) < 1e-6)
  }

  @Test("Matcher: a sample is matched only against templates of its own modality")
  func modalityMustAgree() {
    let simulator = BiometricSimulator(worldSeed: 5)
    var rng = SplitMix64(seed: 7)
    var face = simulator.enroll(owner: "alice", item: "f", modality: .touchID, at: .epoch, using: &rng)
    face.modality = .faceID
    let identity = simulator.identity(owner: "alice", item: "f", modality: .touchID)
    let sample = simulator.capture(identity, modality: .touchID, quality: 1, using: &rng)
    #expect(SimulatedMatcher().decide(sample, against: [face]) == .noMatch(bestScore: -1))
  }

  @Test("Simulator: identities depend on the world seed, and captures are unit vectors of 128 dimensions")
  func simulatorShape() {
    let a = BiometricSimulator(worldSeed: 1).identity(owner: "alice", item: "f", modality: .touchID)
    let b = BiometricSimulator(worldSeed: 2).identity(owner: "alice", item: "f", modality: .touchID)
    #expect(a.count == MatcherCalibration.dimension)
    #expect(a != b)
    #expect(a == BiometricSimulator(worldSeed: 1).identity(owner: "alice", item: "f", modality: .touchID))
    var rng = SplitMix64(seed: 1)
    let sample = BiometricSimulator(worldSeed: 1).capture(a, modality: .touchID, quality: 0.5, using: &rng)
    let length = sample.features.reduce(Float(0)) { $0 + $1 * $1 }.squareRoot()
    #expect(abs(length - 1) < 1e-4)
    #expect(BiometricSimulator.noiseLevel(quality: 1) < BiometricSimulator.noiseLevel(quality: 0.3))
  }

  @Test("Simulator: enrollment allows 5 fingers for Touch ID and 2 appearances for Face ID")
  func enrollmentLimits() throws {
    for modality in Modality.allCases {
      let world = try TestWorld(modality: modality)
      for n in 0..<modality.maximumEnrolled { try world.enroll("item-\(n)") }
      #expect(throws: LocalAuthError.administration(.enrollmentFull(modality))) { try world.enroll("one-too-many") }
      #expect(try world.record().templates.count == modality.maximumEnrolled)
    }
  }

  @Test("Simulator: SplitMix64 is deterministic for a seed")
  func splitMix() {
    var a = SplitMix64(seed: 42)
    var b = SplitMix64(seed: 42)
    #expect((0..<5).map { _ in a.next() } == (0..<5).map { _ in b.next() })
  }
}
