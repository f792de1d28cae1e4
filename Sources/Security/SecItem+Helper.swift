import Foundation
import LocalAuthCore
import LocalAuthentication

/// The keychain calls of a process that is not root's: the item files, keys and access control stay on the
/// privileged side (localauth-helper, through the context's session); the data comes back only after the item's
/// access control is satisfied, and only to this process (docs/KEYCHAIN.md, "Apps run by ordinary users").
extension KeychainCall {
  /// A query as call fields.
  func queryFields(_ query: Keychain.Query) -> AppFields {
    var fields = AppFields()
    fields.set(AppCall.Key.service, optionalText: query.service)
    fields.set(AppCall.Key.account, optionalText: query.account)
    fields.set(AppCall.Key.label, optionalText: query.label)
    fields.set(AppCall.Key.accessGroup, optionalText: query.accessGroup)
    fields.set(AppCall.Key.itemClass, optionalText: query.itemClass?.rawValue)
    if !query.attributes.isEmpty { fields.set(AppCall.Key.attributes, query.attributes.encode()) }
    fields.set(AppCall.Key.caseInsensitive, flag: query.caseInsensitive)
    if let id = query.id, let itemClass = query.itemClass {
      // A reference to another class names no item; sent as one that matches nothing.
      fields.set(AppCall.Key.reference, Array(itemClass.rawValue.utf8) + (hexDecode(id) ?? [UInt8](repeating: 0, count: 16)))
    }
    return fields
  }

  /// Every text attribute must fit the protocol, and the attribute lists their limit; a longer one is errSecParam
  /// (as an invalid attribute is).
  func checkTexts(_ lists: [KeychainAttributes] = []) throws(LocalAuthError) {
    for key in [kSecAttrService, kSecAttrAccount, kSecAttrLabel, kSecAttrAccessGroup, kSecUseOperationPrompt] {
      if let text = string(key), text.utf8.count > AppCall.textLimit {
        throw .keychain(.parameter("\(key) is longer than \(AppCall.textLimit) bytes"))
      }
    }
    for list in lists where list.encode().count > AppCall.attributesLimit {
      throw .keychain(.parameter("the attributes take more than \(AppCall.attributesLimit) bytes"))
    }
  }

  func addThroughHelper(
    itemClass: KeychainItemClass, attributes stored: KeychainAttributes, accessibility: KeychainAccessibility,
    flags: KeychainAccessFlags?, data: Data
  ) throws(LocalAuthError) -> Any? {
    try checkTexts([stored])
    guard data.count <= KeychainItem.maximumDataSize else { throw .keychain(.parameter("the data is larger than 16 KiB")) }
    var query = Keychain.Query(
      service: string(kSecAttrService) ?? "", account: string(kSecAttrAccount) ?? "", label: string(kSecAttrLabel) ?? "",
      accessGroup: string(kSecAttrAccessGroup))
    query.itemClass = itemClass
    query.attributes = stored
    var fields = queryFields(query)
    fields.set(AppCall.Key.accessibility, text: accessibility.rawValue)
    if let flags { fields.set(AppCall.Key.accessFlags, integer: UInt64(flags.rawValue)) }
    fields.set(AppCall.Key.data, Array(data))
    let answer = try context.keychainCall(.keychainAdd, fields, reason: string(kSecUseOperationPrompt))
    guard let item = answer.items.first else { return [String: Any]() }
    let dictionary = attributes(of: item)
    let returns = [kSecReturnData, kSecReturnAttributes, kSecReturnPersistentRef].contains { flag($0) }
    return returns ? copyResult(attributes: dictionary, data: data, reference: reference(of: item), call: self) : dictionary
  }

  func copyThroughHelper(_ query: Keychain.Query, all: Bool, ui: String) throws(LocalAuthError) -> AnyObject? {
    try checkTexts([query.attributes])
    var fields = queryFields(query)
    fields.set(AppCall.Key.returnData, flag: flag(kSecReturnData))
    fields.set(AppCall.Key.returnAttributes, flag: flag(kSecReturnAttributes))
    fields.set(AppCall.Key.matchAll, flag: all)
    let mode: AppInterfaceMode = ui == kSecUseAuthenticationUIFail ? .fail : ui == kSecUseAuthenticationUISkip ? .skip : .allow
    fields.set(AppCall.Key.interface, byte: mode.rawValue)
    let answer = try context.keychainCall(.keychainCopy, fields, reason: string(kSecUseOperationPrompt))
    var values: [Any] = []
    for item in answer.items {
      let data = item.fields.bytes(AppCall.Key.data).map { Data($0) }
      var dictionary = attributes(of: item)
      dictionary[kSecValueData as String] = nil
      if let value = copyResult(attributes: dictionary, data: data, reference: reference(of: item), call: self) {
        values.append(value)
      }
    }
    guard !values.isEmpty else { return nil }
    return all ? values as AnyObject : values[0] as AnyObject
  }

  func updateThroughHelper(_ query: Keychain.Query, changes: Keychain.Changes) throws(LocalAuthError) {
    try checkTexts([query.attributes, changes.attributes])
    for text in [changes.label, changes.service, changes.account, changes.accessGroup] {
      if let text, text.utf8.count > AppCall.textLimit { throw .keychain(.parameter("an attribute is longer than \(AppCall.textLimit) bytes")) }
    }
    if let data = changes.data, data.count > KeychainItem.maximumDataSize {
      throw .keychain(.parameter("the data is larger than 16 KiB"))
    }
    var fields = queryFields(query)
    if let data = changes.data { fields.set(AppCall.Key.newData, data) }
    fields.set(AppCall.Key.newLabel, optionalText: changes.label)
    fields.set(AppCall.Key.newService, optionalText: changes.service)
    fields.set(AppCall.Key.newAccount, optionalText: changes.account)
    fields.set(AppCall.Key.newAccessGroup, optionalText: changes.accessGroup)
    if !changes.attributes.isEmpty { fields.set(AppCall.Key.newAttributes, changes.attributes.encode()) }
    fields.set(AppCall.Key.newAccessibility, optionalText: changes.accessibility?.rawValue)
    if let flags = changes.flags { fields.set(AppCall.Key.newAccessFlags, flags.map { WireIntegers.bytes(UInt64($0.rawValue)) } ?? []) }
    _ = try context.keychainCall(.keychainUpdate, fields, reason: string(kSecUseOperationPrompt))
  }

  func deleteThroughHelper(_ query: Keychain.Query) throws(LocalAuthError) {
    try checkTexts([query.attributes])
    _ = try context.keychainCall(.keychainDelete, queryFields(query), reason: nil)
  }

  /// An item's persistent reference.
  func reference(of item: AppItem) -> Data { Data(item.fields.bytes(AppCall.Key.reference) ?? []) }

  /// An item's attributes (and data) as SecItemCopyMatching returns them.
  func attributes(of item: AppItem) -> [String: Any] {
    let text = { (key: UInt8) in (try? item.fields.text(key)).flatMap { $0 } ?? "" }
    var attributes: [String: Any] = [
      kSecClass as String: (try? item.fields.text(AppCall.Key.itemClass)).flatMap { $0 } ?? kSecClassGenericPassword,
      kSecAttrService as String: text(AppCall.Key.service),
      kSecAttrAccount as String: text(AppCall.Key.account), kSecAttrLabel as String: text(AppCall.Key.label),
      kSecAttrAccessGroup as String: text(AppCall.Key.accessGroup), kSecAttrAccessible as String: text(AppCall.Key.accessibility),
      kSecAttrCreationDate as String: Date(timeIntervalSince1970: TimeInterval(Int64(bitPattern: item.integer(AppItem.Key.created) ?? 0))),
      kSecAttrModificationDate as String: Date(timeIntervalSince1970: TimeInterval(Int64(bitPattern: item.integer(AppItem.Key.modified) ?? 0))),
    ]
    if let raw = item.integer(AppCall.Key.accessFlags),
      let accessibility = KeychainAccessibility(rawValue: text(AppCall.Key.accessibility))
    {
      attributes[kSecAttrAccessControl] = SecAccessControl(accessibility: accessibility, flags: KeychainAccessFlags(rawValue: UInt(raw)))
    }
    let stored = item.fields.bytes(AppCall.Key.attributes).flatMap { KeychainAttributes.decode($0) } ?? KeychainAttributes()
    appleAttributes(stored, into: &attributes)
    if let data = item.fields.bytes(AppCall.Key.data) { attributes[kSecValueData] = Data(data) }
    return attributes
  }
}
