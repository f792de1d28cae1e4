import Foundation
import LocalAuthCore

/// A simulated world in which the tests' wrong fingers are far from the right ones.
///
/// Every state folder gets a random world seed on first use, and a stranger's finger then matches with Apple's
/// chance of 1 in 50,000 per touch: across the suites' wrong-finger touches, a failure every few thousand runs.
/// This writes instead the first seed under which each impostor's finger scores below 0.1 against the owner's
/// (the match threshold is near 0.36, and a capture's noise moves the score by a few hundredths), so a wrong
/// finger can never match and the tests are deterministic.
enum FixedWorld {
  /// Writes `<stateDir>/world-seed` for `owner` and `impostors` presenting `finger`.
  static func write(stateDir: String, owner: String, impostors: [String], finger: String = "right-index") throws {
    var seed: UInt64 = 1
    while true {
      let simulator = BiometricSimulator(worldSeed: seed)
      let own = simulator.identity(owner: owner, item: finger, modality: .touchID)
      let far = impostors.allSatisfy { impostor in
        SimulatedMatcher.score(own, simulator.identity(owner: impostor, item: finger, modality: .touchID)) < 0.1
      }
      if far { break }
      seed += 1
    }
    let path = stateDir + "/world-seed"
    try (String(seed, radix: 16) + "\n").write(toFile: path, atomically: false, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
  }
}
