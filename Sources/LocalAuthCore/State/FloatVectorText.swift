/// The text form of a feature vector in state files and presented sensor events: each Float as the 8 lowercase
/// hex digits of its IEEE 754 bit pattern, separated by commas ("3f000000,bf000000,…").
///
/// The round trip is exact and decoding needs neither Float(String) nor any allocation but the result's.
/// Decoding is strict: anything but exactly `dimension` groups of 8 lowercase hex digits is refused.
enum FloatVectorText {
  private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

  /// The text of `vector`.
  static func encode(_ vector: [Float]) -> String {
    guard !vector.isEmpty else { return "" }
    return String(unsafeUninitializedCapacity: vector.count * 9 - 1) { buffer in
      var at = 0
      for (index, value) in vector.enumerated() {
        if index > 0 {
          buffer[at] = UInt8(ascii: ",")
          at += 1
        }
        let bits = value.bitPattern
        var shift: UInt32 = 28
        for _ in 0..<8 {
          buffer[at] = digits[Int((bits >> shift) & 0xF)]
          at += 1
          shift &-= 4
        }
      }
      return at
    }
  }

  /// The vector in `text`, or nil unless it is exactly `dimension` well-formed groups.
  static func decode(_ text: Substring, dimension: Int) -> [Float]? {
    var copy = text
    return copy.withUTF8 { decode(bytes: $0, dimension: dimension) }
  }

  /// The vector in `text`, or nil unless it is exactly `dimension` well-formed groups.
  static func decode(_ text: String, dimension: Int) -> [Float]? {
    decode(Substring(text), dimension: dimension)
  }

  private static func decode(bytes: UnsafeBufferPointer<UInt8>, dimension: Int) -> [Float]? {
    guard dimension > 0, bytes.count == dimension * 9 - 1 else { return nil }
    var vector = [Float]()
    vector.reserveCapacity(dimension)
    var at = 0
    for index in 0..<dimension {
      if index > 0 {
        guard bytes[at] == UInt8(ascii: ",") else { return nil }
        at += 1
      }
      var bits: UInt32 = 0
      for _ in 0..<8 {
        let c = bytes[at]
        let nibble: UInt8
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = c &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = c &- UInt8(ascii: "a") &+ 10
        default: return nil
        }
        bits = bits << 4 | UInt32(nibble)
        at += 1
      }
      vector.append(Float(bitPattern: bits))
    }
    return vector
  }
}
