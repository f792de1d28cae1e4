import Foundation
import LocalAuthCore
import LocalAuthentication

/// The keychain calls of a process that is not root's: the item files, keys and access control stay on the
/// privileged side (localauth-helper, through the context's session); the data comes back only after the item's
/// access control is satisfied, and only to this process (docs/KEYCHAIN.md, "Apps run by ordinary users").
extension KeychainCall {
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
    let answer = try context.keychainCall(reason: string(kSecUseOperationPrompt)) {
      KeychainAddRequest(query: query, prompt: $0, accessibility: accessibility, flags: flags, data: Array(data)).encode()
    }
    guard let item = answer.items.first else { return [String: Any]() }
    let dictionary = attributes(of: item)
    let returns = [kSecReturnData, kSecReturnAttributes, kSecReturnPersistentRef].contains { flag($0) }
    return returns ? copyResult(attributes: dictionary, data: data, reference: reference(of: item), call: self) : dictionary
  }

  func copyThroughHelper(_ query: Keychain.Query, all: Bool, ui: String) throws(LocalAuthError) -> AnyObject? {
    try checkTexts([query.attributes])
    let mode: AppInterfaceMode = ui == kSecUseAuthenticationUIFail ? .fail : ui == kSecUseAuthenticationUISkip ? .skip : .allow
    let (returnData, returnAttributes) = (flag(kSecReturnData), flag(kSecReturnAttributes))
    let answer = try context.keychainCall(reason: string(kSecUseOperationPrompt)) {
      KeychainCopyRequest(
        query: query, prompt: $0, returnData: returnData, returnAttributes: returnAttributes, matchAll: all, mode: mode
      ).encode()
    }
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
    _ = try context.keychainCall(reason: string(kSecUseOperationPrompt)) {
      KeychainUpdateRequest(query: query, prompt: $0, changes: changes).encode()
    }
  }

  func deleteThroughHelper(_ query: Keychain.Query) throws(LocalAuthError) {
    try checkTexts([query.attributes])
    _ = try context.keychainCall(reason: nil) { _ in KeychainDeleteRequest(query: query).encode() }
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
