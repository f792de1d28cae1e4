/// One password item (generic or internet): its attributes in clear, its data sealed (AES-256-GCM over the attributes).
public struct KeychainItem: Equatable, Sendable {
  /// Where the item's key comes from.
  public enum KeySource: String, Sendable {
    /// The user's device key (sealed by the TPM, or a root-only key file).
    case device
    /// The device key and the user's passcode key pair: only the passcode opens it.
    case passcode
  }

  /// The file name's id: 32 hexadecimal digits, random.
  package var id: String
  /// kSecAttrService.
  package var service: String
  /// kSecAttrAccount.
  package var account: String
  /// kSecAttrLabel.
  package var label: String
  /// kSecAttrAccessGroup: a namespace, "" when the item was added without one (docs/KEYCHAIN.md, "Access groups").
  package var accessGroup: String = ""
  /// kSecClass.
  package var itemClass: KeychainItemClass = .genericPassword
  /// The other attributes Apple defines for the class (docs/KEYCHAIN.md, "Attributes").
  package var attributes = KeychainAttributes()
  /// kSecAttrAccessible.
  package var accessibility: KeychainAccessibility
  /// kSecAttrAccessControl's flags; nil when the item has no access control.
  package var flags: KeychainAccessFlags?
  /// The domain state when a biometryCurrentSet item was added.
  package var domainState: String?
  /// Where the key comes from.
  package var keySource: KeySource
  /// The ephemeral X25519 public key of a passcode-keyed item.
  package var ephemeralPublicKey: [UInt8] = []
  /// The yescrypt setting of an applicationPassword item's password.
  package var passwordSetting: String?
  /// When it was added and last changed (seconds since 1970).
  package var created: Int64
  /// When its data or attributes last changed.
  package var modified: Int64
  /// nonce ‖ ciphertext ‖ tag.
  package var sealed: [UInt8] = []

  /// The first line of every item file.
  static let header = "localauth-keychain-item 1"
  /// The largest item file accepted.
  package static let maximumFileSize = 64 * 1024
  /// The largest secret an item holds.
  package static let maximumDataSize = 16 * 1024

  /// An item that exists only to be evaluated (LAContext.evaluateAccessControl): the constraints, no data.
  package static func probe(
    accessibility: KeychainAccessibility, flags: KeychainAccessFlags, domainState: String?
  ) -> KeychainItem {
    KeychainItem(
      id: "", service: "", account: "", label: "", accessibility: accessibility, flags: flags, domainState: domainState,
      keySource: .device, created: 0, modified: 0)
  }
}

extension KeychainItem {
  /// The attribute lines (everything but the sealed data), which are also the cipher's associated data.
  func attributeText() -> String {
    var lines = [KeychainItem.header]
    lines.append("id " + id)
    lines.append("service " + hexEncode(Array(service.utf8)))
    lines.append("account " + hexEncode(Array(account.utf8)))
    lines.append("label " + hexEncode(Array(label.utf8)))
    // Written only when set, so the items added before access groups existed read and decrypt as they were.
    if !accessGroup.isEmpty { lines.append("group " + hexEncode(Array(accessGroup.utf8))) }
    // Likewise the class and the other attributes, written only when they differ from a plain generic password.
    if itemClass != .genericPassword { lines.append("class " + itemClass.rawValue) }
    lines += attributes.lines()
    lines.append("accessible " + accessibility.rawValue)
    lines.append("flags " + (flags.map { String($0.rawValue) } ?? "-"))
    lines.append("domain " + (domainState.map { hexEncode(Array($0.utf8)) } ?? "-"))
    lines.append("key " + keySource.rawValue)
    lines.append("ephemeral " + (ephemeralPublicKey.isEmpty ? "-" : hexEncode(ephemeralPublicKey)))
    lines.append("password " + (passwordSetting.map { hexEncode(Array($0.utf8)) } ?? "-"))
    lines.append("created " + String(created))
    lines.append("modified " + String(modified))
    return lines.joined(separator: "\n") + "\n"
  }

  /// The associated data that binds the sealed data to its owner, its file name and every attribute: an item
  /// copied to another user, renamed, or edited does not decrypt.
  func associatedData(owner: UserName) -> [UInt8] {
    Array(("owner " + owner.value + "\n" + attributeText()).utf8)
  }

  /// The file's bytes.
  func encoded() -> [UInt8] { Array((attributeText() + "sealed " + hexEncode(sealed) + "\n").utf8) }

  /// Decodes an item file; `name` is its id (the file name), which must match the content.
  static func decode(_ bytes: [UInt8], id expected: String) -> KeychainItem? {
    let text = String(decoding: bytes, as: UTF8.self)
    var fields: [String: String] = [:]
    let lines = text.fields(separatedBy: UInt8(ascii: "\n"))
    guard lines.first.map(String.init) == header else { return nil }
    for line in lines.dropFirst() where !line.isEmpty {
      guard let space = line.firstIndex(ofByte: UInt8(ascii: " ")) else { return nil }
      let key = String(line[..<space])
      guard fields[key] == nil else { return nil }
      fields[key] = String(line[line.index(after: space)...])
    }
    func textField(_ key: String) -> String? { fields[key].flatMap { hexDecode($0) }.map { String(decoding: $0, as: UTF8.self) } }
    func optionalText(_ key: String) -> String?? {
      guard let raw = fields[key] else { return nil }
      if raw == "-" { return .some(nil) }
      guard let bytes = hexDecode(raw) else { return nil }
      return .some(String(decoding: bytes, as: UTF8.self))
    }
    guard fields["id"] == expected, let service = textField("service"), let account = textField("account"),
      let label = textField("label"), let accessibility = fields["accessible"].flatMap({ KeychainAccessibility(rawValue: $0) }),
      let rawFlags = fields["flags"], let domain = optionalText("domain"),
      let keySource = fields["key"].flatMap({ KeySource(rawValue: $0) }), let rawEphemeral = fields["ephemeral"],
      let password = optionalText("password"), let created = fields["created"].flatMap({ Int64($0) }),
      let modified = fields["modified"].flatMap({ Int64($0) }), let sealed = fields["sealed"].flatMap({ hexDecode($0) })
    else { return nil }
    let flags: KeychainAccessFlags?
    if rawFlags == "-" { flags = nil } else {
      guard let value = UInt(rawFlags) else { return nil }
      flags = KeychainAccessFlags(rawValue: value)
    }
    let ephemeral: [UInt8]
    if rawEphemeral == "-" { ephemeral = [] } else {
      guard let bytes = hexDecode(rawEphemeral), bytes.count == 32 else { return nil }
      ephemeral = bytes
    }
    var group = ""
    if fields["group"] != nil {
      guard let named = textField("group"), !named.isEmpty else { return nil }
      group = named
    }
    var itemClass = KeychainItemClass.genericPassword
    if let raw = fields["class"] {
      guard let named = KeychainItemClass(rawValue: raw), named != .genericPassword else { return nil }
      itemClass = named
    }
    var attributes = KeychainAttributes()
    for (key, value) in fields where key.hasPrefix("attr-") {
      guard attributes.read(name: String(key.dropFirst(5)), line: value) else { return nil }
    }
    return KeychainItem(
      id: expected, service: service, account: account, label: label, accessGroup: group, itemClass: itemClass,
      attributes: attributes, accessibility: accessibility, flags: flags,
      domainState: domain, keySource: keySource, ephemeralPublicKey: ephemeral, passwordSetting: password,
      created: created, modified: modified, sealed: sealed)
  }
}

extension KeychainItem {
  /// Apple's primary key of the item (KeychainIndex's key): class, service, account, access group, sync, and for
  /// an internet password the server, security domain, protocol, authentication type, port and path. A plain
  /// generic password keeps the key items had before classes and sync existed.
  package static func uniqueKey(
    itemClass: KeychainItemClass, service: String, account: String, accessGroup: String, attributes: KeychainAttributes
  ) -> String {
    let base = hexEncode(Array(service.utf8)) + "/" + hexEncode(Array(account.utf8)) + "/" + hexEncode(Array(accessGroup.utf8))
    guard itemClass != .genericPassword || attributes.isSynchronizable else { return base }
    var unique = KeychainAttributes()
    for name in KeychainAttributes.uniqueNames(itemClass) { unique[name] = attributes.matchValue(name) }
    return base + "/" + itemClass.rawValue + "/" + hexEncode(unique.encode())
  }

  /// This item's primary key.
  package var uniqueKey: String {
    KeychainItem.uniqueKey(itemClass: itemClass, service: service, account: account, accessGroup: accessGroup, attributes: attributes)
  }

  /// kSecValuePersistentRef: the class's four letters and the id's 16 bytes; stable for the item's life.
  package var persistentReference: [UInt8] { Array(itemClass.rawValue.utf8) + (hexDecode(id) ?? []) }

  /// The class and id a persistent reference names; nil when it is not one.
  package static func parseReference(_ bytes: [UInt8]) -> (KeychainItemClass, String)? {
    guard bytes.count == 20, let itemClass = KeychainItemClass(rawValue: String(decoding: bytes[0..<4], as: UTF8.self)) else {
      return nil
    }
    return (itemClass, hexEncode(Array(bytes[4...])))
  }
}

/// Lower-case hexadecimal digits of `bytes`.
package func hexEncode(_ bytes: [UInt8]) -> String {
  let digits = Array("0123456789abcdef".utf8)
  var out: [UInt8] = []
  out.reserveCapacity(bytes.count * 2)
  for byte in bytes {
    out.append(digits[Int(byte >> 4)])
    out.append(digits[Int(byte & 0x0F)])
  }
  return String(decoding: out, as: UTF8.self)
}

/// The bytes of hexadecimal text (either case); nil when it is not an even number of hex digits.
package func hexDecode<S: StringProtocol>(_ text: S) -> [UInt8]? {
  let digits = Array(text.utf8)
  guard digits.count % 2 == 0 else { return nil }
  func value(_ d: UInt8) -> UInt8? {
    switch d {
    case 0x30...0x39: d - 0x30
    case 0x61...0x66: d - 0x61 + 10
    case 0x41...0x46: d - 0x41 + 10
    default: nil
    }
  }
  var out: [UInt8] = []
  out.reserveCapacity(digits.count / 2)
  var i = 0
  while i < digits.count {
    guard let high = value(digits[i]), let low = value(digits[i + 1]) else { return nil }
    out.append(high << 4 | low)
    i += 2
  }
  return out
}
