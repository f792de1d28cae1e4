/// The fields of an app message: each a key byte, a 2-byte big-endian length and that many bytes.
///
/// Every app call and reply (docs/HELPER.md, "Apps") is an operation byte followed by fields. A field the
/// message does not define, a field given twice, a length that runs past the end, or a value over its limit is
/// refused as malformed, so a caller cannot slip anything in (a user name, a state folder) that the helper
/// would not otherwise take.
public struct AppFields: Equatable, Sendable {
  /// The fields in the order they were added.
  package private(set) var entries: [(key: UInt8, value: [UInt8])] = []

  /// No fields.
  public init() {}

  public static func == (a: AppFields, b: AppFields) -> Bool {
    a.entries.count == b.entries.count
      && zip(a.entries, b.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
  }

  /// Adds a field (a key already present is replaced).
  package mutating func set(_ key: UInt8, _ value: [UInt8]) {
    entries.removeAll { $0.key == key }
    entries.append((key, value))
  }

  /// Adds a text field.
  package mutating func set(_ key: UInt8, text: String) { set(key, Array(text.utf8)) }

  /// Adds a one-byte field.
  package mutating func set(_ key: UInt8, byte: UInt8) { set(key, [byte]) }

  /// Adds a flag: present means true.
  package mutating func set(_ key: UInt8, flag: Bool) { if flag { set(key, []) } }

  /// Adds a big-endian integer field (`WireIntegers`).
  package mutating func set<T: FixedWidthInteger>(_ key: UInt8, integer value: T) { set(key, WireIntegers.bytes(value)) }

  /// Adds a field when `value` is not nil.
  package mutating func set(_ key: UInt8, optionalText value: String?) { if let value { set(key, text: value) } }

  /// The bytes of `key`, or nil.
  package func bytes(_ key: UInt8) -> [UInt8]? { entries.first { $0.key == key }?.value }

  /// The text of `key`, or nil; text with control characters is malformed.
  package func text(_ key: UInt8) throws(HelperProtocolError) -> String? {
    guard let bytes = bytes(key) else { return nil }
    guard bytes.allSatisfy({ $0 >= 0x20 && $0 != 0x7f }) else { throw .malformed("a field with control characters") }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The one byte of `key`, or nil; any other length is malformed.
  package func byte(_ key: UInt8) throws(HelperProtocolError) -> UInt8? {
    guard let bytes = bytes(key) else { return nil }
    guard bytes.count == 1 else { throw .malformed("a one-byte field of \(bytes.count) bytes") }
    return bytes[0]
  }

  /// The big-endian integer of `key`, or nil; any length but the type's is malformed.
  package func integer<T: FixedWidthInteger>(_ key: UInt8, as type: T.Type) throws(HelperProtocolError) -> T? {
    guard let bytes = bytes(key) else { return nil }
    return try WireIntegers.value(type, of: bytes)
  }

  /// True when the flag `key` is present; a flag with a value is malformed.
  package func flag(_ key: UInt8) throws(HelperProtocolError) -> Bool {
    guard let bytes = bytes(key) else { return false }
    guard bytes.isEmpty else { throw .malformed("a flag with a value") }
    return true
  }

  /// The wire form.
  package func encode() -> [UInt8] {
    var out: [UInt8] = []
    for (key, value) in entries {
      out.append(key)
      WireIntegers.append(UInt16(truncatingIfNeeded: value.count), to: &out)
      out += value
    }
    return out
  }

  /// Parses fields, accepting only the keys in `allowed` with values of at most their limit.
  package static func decode(
    _ bytes: ArraySlice<UInt8>, allowed: [(key: UInt8, limit: Int)]
  ) throws(HelperProtocolError) -> AppFields {
    var fields = AppFields()
    var index = bytes.startIndex
    while index < bytes.endIndex {
      guard bytes.endIndex - index >= 3 else { throw .malformed("a truncated field") }
      let key = bytes[index]
      let length = Int(try WireIntegers.read(UInt16.self, from: bytes, at: index + 1))
      index += 3
      guard bytes.endIndex - index >= length else { throw .malformed("a field longer than its message") }
      guard let rule = allowed.first(where: { $0.key == key }) else { throw .malformed("an unknown field \(key)") }
      guard length <= rule.limit else { throw .malformed("field \(key) over its limit") }
      guard fields.bytes(key) == nil else { throw .malformed("field \(key) twice") }
      fields.entries.append((key, Array(bytes[index..<(index + length)])))
      index += length
    }
    return fields
  }
}
