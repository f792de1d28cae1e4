/// Makes realistic simulated captures: each (owner, item) pair is a fixed random identity, and every
/// capture adds sensor noise that grows as quality falls. The matcher never sees who presented.
package struct BiometricSimulator: Sendable {
  /// A per-installation secret that makes identities unpredictable without access to the state folder.
  package var worldSeed: UInt64

  /// Creates a simulator for an installation's world seed.
  package init(worldSeed: UInt64) { self.worldSeed = worldSeed }

  /// The identity direction of `owner`'s `item` (a finger or an appearance) for `modality`.
  package func identity(owner: String, item: String, modality: Modality) -> [Float] {
    var rng = SplitMix64(seed: Self.hash("\(modality.rawValue)\u{0}\(owner)\u{0}\(item)", seed: worldSeed))
    return Self.normalized((0..<MatcherCalibration.dimension).map { _ in Float(rng.nextGaussian()) })
  }

  /// The noise magnitude, relative to the identity's length, for a capture of `quality` (0...1).
  package static func noiseLevel(quality: Double) -> Double {
    0.35 + 2.6 * (1 - min(max(quality, 0), 1))
  }

  /// A capture quality as people produce it: mostly good placements, occasionally a partial one.
  package static func typicalQuality<R: RandomNumberGenerator>(using rng: inout R) -> Double {
    Double.random(in: 0..<1, using: &rng) < 0.98
      ? Double.random(in: 0.6...1.0, using: &rng) : Double.random(in: 0.2...0.4, using: &rng)
  }

  /// One capture of an identity at `quality`.
  package func capture<R: RandomNumberGenerator>(
    _ identity: [Float], modality: Modality, quality: Double, using rng: inout R
  ) -> BiometricSample {
    let sigma = Self.noiseLevel(quality: quality) / Double(identity.count).squareRoot()
    let noisy = identity.map { $0 + Float(sigma * rng.nextGaussian()) }
    return BiometricSample(modality: modality, quality: quality, features: Self.normalized(noisy))
  }

  /// An enrollment template: the normalized mean of `count` good captures of `owner`'s `item`.
  package func enroll<R: RandomNumberGenerator>(
    owner: String, item: String, modality: Modality, at time: WallTime, captures count: Int = 8, using rng: inout R
  ) -> BiometricTemplate {
    let identity = identity(owner: owner, item: item, modality: modality)
    var sum = [Float](repeating: 0, count: identity.count)
    for _ in 0..<count {
      let sample = capture(identity, modality: modality, quality: Double.random(in: 0.8...1.0, using: &rng), using: &rng)
      for i in 0..<sum.count { sum[i] += sample.features[i] }
    }
    return BiometricTemplate(name: item, modality: modality, features: Self.normalized(sum), enrolledAt: time)
  }

  /// The vector scaled to unit length.
  package static func normalized(_ v: [Float]) -> [Float] {
    var sum: Float = 0
    for x in v { sum += x * x }
    let length = sum.squareRoot()
    return length > 0 ? v.map { $0 / length } : v
  }

  /// FNV-1a over the UTF-8 bytes, mixed with a seed.
  static func hash(_ text: String, seed: UInt64) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
    for byte in text.utf8 {
      h ^= UInt64(byte)
      h = h &* 0x100_0000_01b3
    }
    return h
  }
}

/// A small, fast, seedable generator (SplitMix64), as in swift-argument-parser's `roll` example.
package struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// Creates a generator from a seed.
  package init(seed: UInt64) { state = seed }

  /// The next pseudo-random value.
  package mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

extension RandomNumberGenerator {
  /// A standard normal variate (Box–Muller).
  package mutating func nextGaussian() -> Double {
    let u1 = Double.random(in: Double.leastNonzeroMagnitude..<1, using: &self)
    let u2 = Double.random(in: 0..<1, using: &self)
    return (-2 * naturalLogarithm(u1)).squareRoot() * cosine(2 * Double.pi * u2)
  }
}
