/// The keychain fields of an app's calls, read on the helper's side: the query (class, attributes, case, persistent
/// reference) and an update's changes (docs/HELPER.md, "Apps").
extension AppFields {
  /// The item class field; nil when absent.
  func itemClass() throws(HelperProtocolError) -> KeychainItemClass? {
    guard let raw = try text(AppCall.Key.itemClass) else { return nil }
    guard let parsed = KeychainItemClass(rawValue: raw) else { throw .malformed("an unknown item class") }
    return parsed
  }

  /// An encoded attribute list; empty when absent.
  func attributes(_ key: UInt8) throws(HelperProtocolError) -> KeychainAttributes {
    guard let bytes = bytes(key) else { return KeychainAttributes() }
    guard let decoded = KeychainAttributes.decode(bytes) else { throw .malformed("an invalid attribute list") }
    return decoded
  }

  /// The query the fields describe.
  func keychainQuery() throws(HelperProtocolError) -> Keychain.Query {
    var query = Keychain.Query(
      service: try text(AppCall.Key.service), account: try text(AppCall.Key.account),
      label: try text(AppCall.Key.label), accessGroup: try text(AppCall.Key.accessGroup))
    query.itemClass = try itemClass()
    query.attributes = try attributes(AppCall.Key.attributes)
    query.caseInsensitive = try flag(AppCall.Key.caseInsensitive)
    if let reference = bytes(AppCall.Key.reference) {
      guard let (itemClass, id) = KeychainItem.parseReference(reference) else { throw .malformed("an invalid persistent reference") }
      if query.itemClass != nil && query.itemClass != itemClass { query.id = "-" } else { query.id = id }
      query.itemClass = itemClass
    }
    return query
  }

  /// An update's changes.
  func keychainChanges() throws(HelperProtocolError) -> Keychain.Changes {
    var changes = Keychain.Changes(
      service: try text(AppCall.Key.newService), account: try text(AppCall.Key.newAccount),
      label: try text(AppCall.Key.newLabel), accessGroup: try text(AppCall.Key.newAccessGroup),
      attributes: try attributes(AppCall.Key.newAttributes), data: bytes(AppCall.Key.newData))
    if let raw = try text(AppCall.Key.newAccessibility) {
      guard let parsed = KeychainAccessibility(rawValue: raw) else { throw .malformed("an unknown accessibility") }
      changes.accessibility = parsed
    }
    if let raw = bytes(AppCall.Key.newAccessFlags) {
      changes.flags = .some(raw.isEmpty ? nil : KeychainAccessFlags(rawValue: UInt(try WireIntegers.value(UInt64.self, of: raw))))
    }
    return changes
  }
}
