/// The outcome of matching one sample against the enrolled templates.
public enum MatchDecision: Equatable, Sendable {
  /// The sample matched the named template.
  case match(template: String, score: Double)
  /// No template reached the threshold.
  case noMatch(bestScore: Double)
  /// The capture was too poor to match; the user should present again (does not count as a failure).
  case retry
}

/// Decides whether a sample matches the enrolled templates: a side effect of the evaluation like the sensor,
/// injected through `Dependencies` so that tests can script the decisions.
public protocol BiometricMatcher: AnyObject {
  /// Matches `sample` against `templates`.
  func decide(_ sample: BiometricSample, against templates: [BiometricTemplate]) -> MatchDecision
}

/// Scores samples against templates and decides with the modality's calibrated threshold.
public final class SimulatedMatcher: BiometricMatcher, Sendable {
  /// The outcome of matching one sample (`MatchDecision`).
  public typealias Decision = MatchDecision

  /// Creates a matcher.
  public init() {}

  /// The cosine similarity of two vectors (0 when their lengths differ, either is zero, or a value is not finite).
  ///
  /// Computed in full, not as the dot product the unit vectors of real captures would allow: a crafted sample
  /// of large values would otherwise score above the threshold, or overflow to infinity, against any template.
  package static func score(_ a: [Float], _ b: [Float]) -> Double {
    guard a.count == b.count, !a.isEmpty else { return 0 }
    var dot = 0.0
    var normA = 0.0
    var normB = 0.0
    for i in 0..<a.count {
      let x = Double(a[i])
      let y = Double(b[i])
      dot += x * y
      normA += x * x
      normB += y * y
    }
    let cosine = dot / (normA.squareRoot() * normB.squareRoot())
    return cosine.isFinite ? min(max(cosine, -1), 1) : 0
  }

  /// Matches `sample` against every template of the same modality.
  public func decide(_ sample: BiometricSample, against templates: [BiometricTemplate]) -> Decision {
    guard sample.quality >= BiometricSample.minimumUsableQuality,
      sample.features.count == MatcherCalibration.dimension
    else { return .retry }
    let threshold = MatcherCalibration.threshold(for: sample.modality)
    var best = -1.0
    for template in templates where template.modality == sample.modality {
      let score = Self.score(sample.features, template.features)
      if score >= threshold { return .match(template: template.name, score: score) }
      best = max(best, score)
    }
    return .noMatch(bestScore: best)
  }
}
