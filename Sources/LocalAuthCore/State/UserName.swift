/// A user name checked to be safe as a file name before it reaches any path.
public struct UserName: Hashable, Sendable, CustomStringConvertible {
  /// The longest name accepted, in bytes.
  package static let maximumLength = 256

  /// The validated name.
  package let value: String

  /// Validates `raw`: non-empty, at most 256 bytes, no '/', no leading '.', no control characters.
  public init(_ raw: String) throws(StateError) {
    let bytes = Array(raw.utf8)
    guard !bytes.isEmpty else { throw .invalidUserName(reason: "it is empty") }
    guard bytes.count <= Self.maximumLength else {
      throw .invalidUserName(reason: "it is longer than \(Self.maximumLength) bytes")
    }
    guard !bytes.contains(UInt8(ascii: "/")) else { throw .invalidUserName(reason: "it contains '/'") }
    guard bytes.first != UInt8(ascii: ".") else { throw .invalidUserName(reason: "it starts with '.'") }
    guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
      throw .invalidUserName(reason: "it contains control characters")
    }
    guard String(validating: bytes, as: UTF8.self) != nil else {
      throw .invalidUserName(reason: "it is not valid UTF-8")
    }
    value = raw
  }

  public var description: String { value }
}
