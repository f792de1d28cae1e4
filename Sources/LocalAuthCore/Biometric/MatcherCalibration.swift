/// The simulated matcher's geometry and its thresholds, derived from Apple's false-match rates.
///
/// Identities are independent uniformly random directions in `dimension`-space and sensor noise is
/// isotropic, so an impostor's cosine score against any template is distributed exactly like the cosine
/// of two independent random unit vectors, with density proportional to (1 − x²)^((d − 3) / 2).
/// The threshold is the score whose upper tail holds Apple's false-match rate.
package enum MatcherCalibration {
  /// The length of feature vectors.
  package static let dimension = 128

  /// The match threshold for a modality: P(impostor score ≥ threshold) equals Apple's figure.
  /// Computed by `threshold(forFalseMatchRate:)`; stored so the module does no numerics per call.
  package static func threshold(for modality: Modality) -> Double {
    switch modality {
    case .touchID: 0.3533459
    case .faceID: 0.4044302
    }
  }

  /// The exact probability that an impostor's cosine score is at least `t`.
  package static func impostorTail(_ t: Double, dimension d: Int = dimension) -> Double {
    let exponent = Double(d - 3) / 2
    let density: (Double) -> Double = { x in power(max(0, 1 - x * x), exponent) }
    return simpson(density, from: t, to: 1, steps: 20_000) / simpson(density, from: -1, to: 1, steps: 40_000)
  }

  /// Solves impostorTail(t) = rate for t by bisection.
  package static func threshold(forFalseMatchRate rate: Double, dimension d: Int = dimension) -> Double {
    var low = 0.0
    var high = 1.0
    for _ in 0..<60 {
      let mid = (low + high) / 2
      if impostorTail(mid, dimension: d) > rate { low = mid } else { high = mid }
    }
    return (low + high) / 2
  }

  private static func simpson(_ f: (Double) -> Double, from a: Double, to b: Double, steps: Int) -> Double {
    let n = steps % 2 == 0 ? steps : steps + 1
    let h = (b - a) / Double(n)
    var sum = f(a) + f(b)
    for i in 1..<n { sum += f(a + Double(i) * h) * (i % 2 == 0 ? 2 : 4) }
    return sum * h / 3
  }
}
