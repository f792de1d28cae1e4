/// The helper wire's integers: big-endian, fixed width, written and read here only (docs/HELPER.md, "Schema").
///
/// Every length, code, count and time on the wire (the frame header, a field's length, an OSStatus, an LAError
/// code, a date, access flags, a keychain attribute's length) goes through these functions, as NIO's ByteBuffer
/// integer API does for its users: a read checks its bounds and throws instead of trapping.
package enum WireIntegers {
  /// Appends `value` big-endian (`T.bitWidth / 8` bytes).
  package static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
    var shift = T.bitWidth - 8
    while shift >= 0 {
      bytes.append(UInt8(truncatingIfNeeded: value >> shift))
      shift -= 8
    }
  }

  /// `value` big-endian.
  package static func bytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(T.bitWidth / 8)
    append(value, to: &out)
    return out
  }

  /// The `T` at `index` of `bytes`; fewer than its size left there is malformed.
  package static func read<T: FixedWidthInteger>(
    _ type: T.Type, from bytes: ArraySlice<UInt8>, at index: Int
  ) throws(HelperProtocolError) -> T {
    let size = T.bitWidth / 8
    guard index >= bytes.startIndex, index <= bytes.endIndex, bytes.endIndex - index >= size else {
      throw .malformed("a truncated \(size)-byte integer")
    }
    var value = UInt64(0)
    for offset in 0..<size { value = value << 8 | UInt64(bytes[index + offset]) }
    return T(truncatingIfNeeded: value)
  }

  /// The `T` that `bytes` hold exactly; any other length is malformed.
  package static func value<T: FixedWidthInteger>(_ type: T.Type, of bytes: ArraySlice<UInt8>) throws(HelperProtocolError) -> T {
    guard bytes.count == T.bitWidth / 8 else { throw .malformed("a \(T.bitWidth / 8)-byte integer of \(bytes.count) bytes") }
    return try read(type, from: bytes, at: bytes.startIndex)
  }

  /// The `T` that `bytes` hold exactly; any other length is malformed.
  package static func value<T: FixedWidthInteger>(_ type: T.Type, of bytes: [UInt8]) throws(HelperProtocolError) -> T {
    try value(type, of: bytes[...])
  }
}
