/// The class of a keychain item (kSecClass): the two password classes this keychain holds.
public enum KeychainItemClass: String, Sendable, CaseIterable {
  /// kSecClassGenericPassword.
  case genericPassword = "genp"
  /// kSecClassInternetPassword.
  case internetPassword = "inet"
}

/// One attribute value beyond the core ones: text, an integer (numbers, four-character codes and booleans), or bytes.
public enum KeychainAttributeValue: Equatable, Sendable {
  /// A string (kSecAttrDescription, kSecAttrServer, kSecAttrProtocol…).
  case text(String)
  /// A number (kSecAttrPort, kSecAttrCreator, kSecAttrType; booleans as 0 and 1).
  case number(Int64)
  /// Bytes (kSecAttrGeneric).
  case bytes([UInt8])
}

/// An item's attributes beyond service, account, label and access group, by Apple's four-letter names
/// (docs/KEYCHAIN.md, "Attributes"), kept sorted by name; an attribute never set is absent.
public struct KeychainAttributes: Equatable, Sendable {
  /// One attribute.
  public struct Entry: Equatable, Sendable {
    /// Apple's name ("desc", "srvr"…).
    package var name: String
    /// Its value.
    package var value: KeychainAttributeValue
  }

  /// What kind of value an attribute holds.
  public enum Kind: UInt8, Sendable {
    case text = 0x74  // "t"
    case number = 0x6E  // "n"
    case bytes = 0x62  // "b"
  }

  /// The most bytes an item's attributes take encoded (so that an item file stays under its limit).
  package static let maximumSize = 2048

  /// The attributes, sorted by name.
  package private(set) var entries: [Entry] = []

  /// No attributes.
  public init() {}

  /// kSecAttrSynchronizable's name; an item without it is not synchronizable (0).
  package static let synchronizable = "sync"

  /// Every attribute this keychain stores beyond the core ones, with its kind (Apple's SecItem.h names).
  package static let known: [(name: String, kind: Kind)] = [
    ("atyp", .text), ("crtr", .number), ("desc", .text), ("gena", .bytes), ("icmt", .text), ("invi", .number),
    ("nega", .number), ("path", .text), ("port", .number), ("ptcl", .text), ("sdmn", .text), ("srvr", .text),
    ("sync", .number), ("type", .number),
  ]

  /// The kind of a known attribute; nil for any other name.
  package static func kind(of name: String) -> Kind? { known.first { $0.name == name }?.kind }

  /// The attributes only an internet password has.
  package static let internetOnly = ["atyp", "path", "port", "ptcl", "sdmn", "srvr"]

  /// The attributes of Apple's primary key beyond service, account and access group: sync for both classes, and
  /// the server, security domain, protocol, authentication type, port and path for an internet password.
  package static func uniqueNames(_ itemClass: KeychainItemClass) -> [String] {
    itemClass == .genericPassword ? ["sync"] : ["atyp", "path", "port", "ptcl", "sdmn", "srvr", "sync"]
  }

  /// The value named `name`, or nil.
  package subscript(name: String) -> KeychainAttributeValue? {
    get { entries.first { $0.name == name }?.value }
    set {
      entries.removeAll { $0.name == name }
      guard let newValue else { return }
      let index = entries.firstIndex { $0.name > name } ?? entries.count
      entries.insert(Entry(name: name, value: newValue), at: index)
    }
  }

  /// Sets every attribute of `other` over these.
  package mutating func merge(_ other: KeychainAttributes) {
    for entry in other.entries { self[entry.name] = entry.value }
  }

  /// True when no attribute is set.
  package var isEmpty: Bool { entries.isEmpty }

  /// The value an item has for `name` when matching: what was set, and 0 for an unset sync.
  package func matchValue(_ name: String) -> KeychainAttributeValue? {
    self[name] ?? (name == KeychainAttributes.synchronizable ? .number(0) : nil)
  }

  /// True when sync is set to something else than 0.
  package var isSynchronizable: Bool { matchValue(KeychainAttributes.synchronizable) != .number(0) }

  /// The value's bytes as written (text as UTF-8, a number in decimal).
  static func valueBytes(_ value: KeychainAttributeValue) -> (Kind, [UInt8]) {
    switch value {
    case .text(let text): return (.text, Array(text.utf8))
    case .number(let number): return (.number, Array(String(number).utf8))
    case .bytes(let bytes): return (.bytes, bytes)
    }
  }

  static func value(kind: Kind, _ bytes: [UInt8]) -> KeychainAttributeValue? {
    switch kind {
    case .text: return .text(String(decoding: bytes, as: UTF8.self))
    case .number: return Int64(String(decoding: bytes, as: UTF8.self)).map { .number($0) }
    case .bytes: return .bytes(bytes)
    }
  }

  /// The item file's lines, one per attribute: `attr-<name> <kind> <hex>`.
  func lines() -> [String] {
    entries.map { entry in
      let (kind, bytes) = KeychainAttributes.valueBytes(entry.value)
      return "attr-" + entry.name + " " + String(decoding: [kind.rawValue], as: UTF8.self) + " " + hexEncode(bytes)
    }
  }

  /// Reads an item file's attribute line (`name` without its "attr-"); nil for an unknown name, a wrong kind or
  /// bad hex.
  mutating func read(name: String, line: String) -> Bool {
    let utf8 = Array(line.utf8)
    guard let kind = KeychainAttributes.kind(of: name), utf8.count >= 2, utf8[0] == kind.rawValue, utf8[1] == 0x20,
      let bytes = hexDecode(String(decoding: utf8[2...], as: UTF8.self)),
      let value = KeychainAttributes.value(kind: kind, bytes), self[name] == nil
    else { return false }
    self[name] = value
    return true
  }

  /// The wire form (the app protocol): for each attribute, a length byte and the name, the kind, a two-byte length
  /// and the value.
  package func encode() -> [UInt8] {
    var out: [UInt8] = []
    for entry in entries {
      let (kind, bytes) = KeychainAttributes.valueBytes(entry.value)
      let name = Array(entry.name.utf8)
      out.append(UInt8(truncatingIfNeeded: name.count))
      out += name
      out.append(kind.rawValue)
      WireIntegers.append(UInt16(truncatingIfNeeded: bytes.count), to: &out)
      out += bytes
    }
    return out
  }

  /// Decodes the wire form; nil for an unknown name, a wrong kind, a name given twice or a truncated entry.
  /// `extraNames` are further names the caller accepts, as text.
  package static func decode(_ bytes: [UInt8], extraNames: [String] = []) -> KeychainAttributes? {
    var attributes = KeychainAttributes()
    var index = 0
    while index < bytes.count {
      let nameLength = Int(bytes[index])
      guard index + 1 + nameLength + 3 <= bytes.count else { return nil }
      let name = String(decoding: bytes[(index + 1)..<(index + 1 + nameLength)], as: UTF8.self)
      index += 1 + nameLength
      let expected = kind(of: name) ?? (extraNames.contains(name) ? .text : nil)
      guard let expected, bytes[index] == expected.rawValue else { return nil }
      guard let length = (try? WireIntegers.read(UInt16.self, from: bytes[...], at: index + 1)).map(Int.init) else { return nil }
      index += 3
      guard index + length <= bytes.count, attributes[name] == nil,
        let value = value(kind: expected, Array(bytes[index..<(index + length)]))
      else { return nil }
      attributes[name] = value
      index += length
    }
    return attributes
  }
}

/// Text equality, ignoring ASCII case when `caseInsensitive` (kSecMatchCaseInsensitive).
func textEqual(_ a: String, _ b: String, caseInsensitive: Bool) -> Bool {
  guard caseInsensitive else { return a == b }
  func folded(_ text: String) -> [UInt8] { text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 } }
  return folded(a) == folded(b)
}
