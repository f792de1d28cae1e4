/// The simulated world's secret: a random number in `<state>/world-seed`, created on first use.
package enum WorldSeed {
  /// Reads the seed, creating it if missing.
  package static func load(stateRoot: String) throws(StateError) -> UInt64 {
    try FileSyscalls.ensureDirectory(stateRoot)
    let path = stateRoot + "/world-seed"
    if let bytes = try FileSyscalls.readTrustedFile(path, limit: 64) {
      let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
      guard let seed = UInt64(text, radix: 16) else { throw .corrupt(path: path, reason: "not a hexadecimal number") }
      return seed
    }
    var rng = SystemRandomNumberGenerator()
    let seed = rng.next() as UInt64
    try FileSyscalls.atomicWrite(Array((String(seed, radix: 16) + "\n").utf8), directory: stateRoot, name: "world-seed")
    return seed
  }
}
