import Foundation
import LocalAuthCore
import LocalAuthentication

/// The keychain calls of a process that is not root's: the item files, keys and access control stay on the
/// privileged side (localauth-helper, through the context's session); the data comes back only after the item's
/// access control is satisfied, and only to this process (docs/KEYCHAIN.md, "Apps run by ordinary users").
extension KeychainCall {
  /// The query's attributes as call fields.
  var queryFields: AppFields {
    var fields = AppFields()
    fields.set(AppCall.Key.service, optionalText: string(kSecAttrService))
    fields.set(AppCall.Key.account, optionalText: string(kSecAttrAccount))
    fields.set(AppCall.Key.label, optionalText: string(kSecAttrLabel))
    fields.set(AppCall.Key.accessGroup, optionalText: string(kSecAttrAccessGroup))
    return fields
  }

  /// Every text attribute must fit the protocol; a longer one is errSecParam (as an invalid attribute is).
  func checkTexts() throws(LocalAuthError) {
    for key in [kSecAttrService, kSecAttrAccount, kSecAttrLabel, kSecAttrAccessGroup, kSecUseOperationPrompt] {
      if let text = string(key), text.utf8.count > AppCall.textLimit {
        throw .keychain(.parameter("\(key) is longer than \(AppCall.textLimit) bytes"))
      }
    }
  }

  func addThroughHelper(
    accessibility: KeychainAccessibility, flags: KeychainAccessFlags?, data: Data
  ) throws(LocalAuthError) -> [String: Any] {
    try checkTexts()
    guard data.count <= KeychainItem.maximumDataSize else { throw .keychain(.parameter("the data is larger than 16 KiB")) }
    var fields = queryFields
    fields.set(AppCall.Key.accessibility, text: accessibility.rawValue)
    if let flags { fields.set(AppCall.Key.accessFlags, AppItem.bigEndian(UInt64(flags.rawValue))) }
    fields.set(AppCall.Key.data, Array(data))
    let answer = try context.keychainCall(.keychainAdd, fields, reason: string(kSecUseOperationPrompt))
    return answer.items.first.map { attributes(of: $0) } ?? [:]
  }

  func copyThroughHelper(all: Bool, ui: String) throws(LocalAuthError) -> AnyObject? {
    try checkTexts()
    var fields = queryFields
    fields.set(AppCall.Key.returnData, flag: flag(kSecReturnData))
    fields.set(AppCall.Key.returnAttributes, flag: flag(kSecReturnAttributes))
    fields.set(AppCall.Key.matchAll, flag: all)
    let mode: AppInterfaceMode = ui == kSecUseAuthenticationUIFail ? .fail : ui == kSecUseAuthenticationUISkip ? .skip : .allow
    fields.set(AppCall.Key.interface, byte: mode.rawValue)
    let answer = try context.keychainCall(.keychainCopy, fields, reason: string(kSecUseOperationPrompt))
    var values: [Any] = []
    for item in answer.items {
      let data = item.fields.bytes(AppCall.Key.data).map { Data($0) }
      if flag(kSecReturnAttributes) {
        values.append(attributes(of: item))
      } else if let data {
        values.append(data)
      }
    }
    guard !values.isEmpty else { return nil }
    return all ? values as AnyObject : values[0] as AnyObject
  }

  func updateThroughHelper(data: Data?, label: String?) throws(LocalAuthError) {
    try checkTexts()
    if let label, label.utf8.count > AppCall.textLimit { throw .keychain(.parameter("the label is too long")) }
    if let data, data.count > KeychainItem.maximumDataSize { throw .keychain(.parameter("the data is larger than 16 KiB")) }
    var fields = queryFields
    if let data { fields.set(AppCall.Key.newData, Array(data)) }
    fields.set(AppCall.Key.newLabel, optionalText: label)
    _ = try context.keychainCall(.keychainUpdate, fields, reason: string(kSecUseOperationPrompt))
  }

  func deleteThroughHelper() throws(LocalAuthError) {
    try checkTexts()
    _ = try context.keychainCall(.keychainDelete, queryFields, reason: nil)
  }

  /// An item's attributes (and data) as SecItemCopyMatching returns them.
  func attributes(of item: AppItem) -> [String: Any] {
    let text = { (key: UInt8) in (try? item.fields.text(key)).flatMap { $0 } ?? "" }
    var attributes: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: text(AppCall.Key.service),
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
    if let data = item.fields.bytes(AppCall.Key.data) { attributes[kSecValueData] = Data(data) }
    return attributes
  }
}
