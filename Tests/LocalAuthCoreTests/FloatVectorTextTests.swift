@testable import LocalAuthCore
import Testing

/// The hex text form of feature vectors in state files and queued sensor events.
@Suite("State: feature vector text")
struct FloatVectorTextTests {
  @Test("Vectors: the hex form round-trips every bit and reads as documented")
  func exactRoundTrip() throws {
    let values: [Float] = [0.5, -0.5, 0, -0.0, 1, -1, .leastNonzeroMagnitude, 0.1, -0.333_333_34]
    let text = FloatVectorText.encode(values)
    #expect(text.hasPrefix("3f000000,bf000000,00000000,80000000,3f800000,bf800000,00000001,3dcccccd,"))
    let back = try #require(FloatVectorText.decode(text, dimension: values.count))
    #expect(back.map(\.bitPattern) == values.map(\.bitPattern))
  }

  @Test("Vectors: malformed text is refused, never half read")
  func malformedRefused() {
    #expect(FloatVectorText.decode("3f000000,bf000000", dimension: 2) != nil)
    #expect(FloatVectorText.decode("3f000000,bf000000", dimension: 3) == nil)
    #expect(FloatVectorText.decode("3F000000,bf000000", dimension: 2) == nil)
    #expect(FloatVectorText.decode("3f000000;bf000000", dimension: 2) == nil)
    #expect(FloatVectorText.decode("3f00000,0bf000000", dimension: 2) == nil)
    #expect(FloatVectorText.decode("0.5,-0.5", dimension: 2) == nil)
    #expect(FloatVectorText.decode("", dimension: 0) == nil)
  }

  @Test("State: a template that is not finite, out of range or of the wrong length is corruption")
  func templateValidation() {
    func line(_ groups: [String]) -> [UInt8] {
      Array("localauth-state 1\ntemplate touchID 1.0 right-index \(groups.joined(separator: ","))\nend\n".utf8)
    }
    let dimension = MatcherCalibration.dimension
    let good = [String](repeating: "3d000000", count: dimension)
    #expect((try? StateCodec.decode(line(good), path: "t"))?.templates.first?.features.count == dimension)
    for bad in ["7fc00000", "7f800000", "3f800001", "bf8ccccd"] {
      var groups = good
      groups[7] = bad
      #expect(throws: StateError.corrupt(path: "t", reason: "line 2: bad template value")) {
        try StateCodec.decode(line(groups), path: "t")
      }
    }
    #expect(throws: StateError.corrupt(path: "t", reason: "line 2: bad template length")) {
      try StateCodec.decode(line(Array(good.dropLast())), path: "t")
    }
  }
}
