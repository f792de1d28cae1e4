import Foundation
import LocalAuthCore
import LocalAuthentication

/// A query or attribute dictionary, read the way Apple's keychain reads it.
struct KeychainCall {
  let attributes: [String: Any]
  let context: LAContext

  init(_ attributes: [String: Any]) {
    self.attributes = attributes
    context = attributes[kSecUseAuthenticationContext as String] as? LAContext ?? LAContext()
  }

  func string(_ key: CFString) -> String? { attributes[key as String] as? String }
  func flag(_ key: CFString) -> Bool { (self[key] as? Bool) ?? ((self[key] as? NSNumber)?.boolValue ?? false) }
  var data: Data? { self[kSecValueData] as? Data }

  /// The item class must be a generic password; anything else is errSecParam (the only class this keychain has).
  /// A reserved access group is refused as `Keychain.refuseReserved` says (`adding` for SecItemAdd).
  func checkClass(adding: Bool = false) throws(KeychainError) {
    guard let itemClass = string(kSecClass) else { throw .parameter("kSecClass is missing") }
    guard itemClass == kSecClassGenericPassword else { throw .parameter("only kSecClassGenericPassword items are supported") }
    if flag(kSecAttrSynchronizable) { throw .parameter("items are never synchronised off this device") }
    try Keychain.refuseReserved(string(kSecAttrAccessGroup), adding: adding)
  }

  var query: Keychain.Query {
    Keychain.Query(
      service: string(kSecAttrService), account: string(kSecAttrAccount), label: string(kSecAttrLabel),
      accessGroup: string(kSecAttrAccessGroup))
  }

  /// The context's environment and what it established; the operation prompt overrides its reason.
  func session() throws(KeychainError) -> (KeychainSession, Keychain) {
    let reason = string(kSecUseOperationPrompt) ?? context.localizedReason
    let session: KeychainSession
    switch context.keychainSession(reason: reason) {
    case .success(let made): session = made
    case .failure(let error):
      throw error.code == .notInteractive ? .interactionNotAllowed : .notAvailable("the context cannot be used: \(error.code)")
    }
    guard let keychain = session.dependencies.keychain else { throw .notAvailable("this environment has no keychain") }
    return (session, keychain)
  }
}

/// Runs a keychain call, turning its error into Apple's status.
private func run(_ body: () throws(LocalAuthError) -> Void) -> OSStatus {
  do {
    try body()
    return errSecSuccess
  } catch {
    return status(for: error)
  }
}

private func keychainErrors<T>(_ body: () throws(KeychainError) -> T) throws(LocalAuthError) -> T {
  do { return try body() } catch { throw .keychain(error) }
}

/// Adds an item. Needs no authentication, except an application password for `.applicationPassword` items
/// (from the context's `setCredential`, else asked).
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
  run { () throws(LocalAuthError) in
    let call = KeychainCall(attributes)
    try keychainErrors { () throws(KeychainError) in try call.checkClass(adding: true) }
    let control = attributes[kSecAttrAccessControl] as? SecAccessControl
    if control != nil && attributes[kSecAttrAccessible] != nil {
      throw .keychain(.parameter("kSecAttrAccessible and kSecAttrAccessControl are mutually exclusive"))
    }
    let accessibility: KeychainAccessibility
    if let control { accessibility = control.accessibility } else if let raw = call.string(kSecAttrAccessible) {
      guard let parsed = KeychainAccessibility(rawValue: raw) else { throw .keychain(.parameter("invalid protection")) }
      accessibility = parsed
    } else {
      accessibility = .whenUnlocked
    }
    guard let data = call.data else { throw .keychain(.parameter("kSecValueData is missing")) }
    if call.context.evaluatesThroughHelper {
      let item = try call.addThroughHelper(accessibility: accessibility, flags: control?.flags, data: data)
      result?.pointee = item as AnyObject
      return
    }
    let (session, keychain) = try keychainErrors { () throws(KeychainError) in try call.session() }
    let new = Keychain.NewItem(
      service: call.string(kSecAttrService) ?? "", account: call.string(kSecAttrAccount) ?? "",
      label: call.string(kSecAttrLabel) ?? "", accessGroup: call.string(kSecAttrAccessGroup) ?? "",
      accessibility: accessibility, flags: control?.flags, data: Array(data))
    let item = try session.operations(keychain).add(new, request: session.request, authorization: session.authorization)
    result?.pointee = attributeDictionary(item, data: nil) as AnyObject
  }
}

/// Finds items and returns their data or attributes; reading data runs the evaluations the item's access
/// control needs (reusing what `kSecUseAuthenticationContext` already established).
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
  run { () throws(LocalAuthError) in
    let call = KeychainCall(query)
    try keychainErrors { () throws(KeychainError) in try call.checkClass() }
    if call.flag(kSecReturnRef) || call.flag(kSecReturnPersistentRef) {
      throw .keychain(.parameter("references are not supported; ask for kSecReturnData or kSecReturnAttributes"))
    }
    let all = call.string(kSecMatchLimit) == kSecMatchLimitAll
    let ui = call.string(kSecUseAuthenticationUI) ?? kSecUseAuthenticationUIAllow
    if call.context.evaluatesThroughHelper {
      result?.pointee = try call.copyThroughHelper(all: all, ui: ui)
      return
    }
    let (session, keychain) = try keychainErrors { () throws(KeychainError) in try call.session() }
    let returnData = call.flag(kSecReturnData)
    let mode: AppInterfaceMode = ui == kSecUseAuthenticationUIFail ? .fail : ui == kSecUseAuthenticationUISkip ? .skip : .allow
    var authorization = session.authorization
    // What the reads established stays with the context, also when a later item's evaluation failed.
    defer { if returnData { call.context.keepKeychainAuthorization(authorization) } }
    let found = try session.operations(keychain).copy(
      call.query, returnData: returnData, all: all, mode: mode, request: session.request, authorization: &authorization)
    var values: [Any] = []
    for entry in found {
      let data = entry.data.map { Data($0) }
      if call.flag(kSecReturnAttributes) {
        values.append(attributeDictionary(entry.item, data: data))
      } else if let data {
        values.append(data)
      }
    }
    guard !values.isEmpty else { return }
    result?.pointee = all ? values as AnyObject : values[0] as AnyObject
  }
}

/// Changes the data (and label) of the items the query selects. Needs no authentication.
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
  run { () throws(LocalAuthError) in
    let call = KeychainCall(query)
    try keychainErrors { () throws(KeychainError) in try call.checkClass() }
    let changes = KeychainCall(attributesToUpdate)
    if attributesToUpdate[kSecAttrAccessControl] != nil || attributesToUpdate[kSecAttrAccessible] != nil {
      throw .keychain(.parameter("the access control of an item cannot be changed; delete and add it again"))
    }
    if call.context.evaluatesThroughHelper {
      return try call.updateThroughHelper(data: changes.data, label: changes.string(kSecAttrLabel))
    }
    let (session, keychain) = try keychainErrors { () throws(KeychainError) in try call.session() }
    try session.operations(keychain).update(
      call.query, user: session.user, data: changes.data.map { Array($0) }, label: changes.string(kSecAttrLabel),
      authorization: session.authorization)
  }
}

/// Deletes the items the query selects (errSecItemNotFound when none). Needs no authentication.
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
  run { () throws(LocalAuthError) in
    let call = KeychainCall(query)
    try keychainErrors { () throws(KeychainError) in try call.checkClass() }
    if call.context.evaluatesThroughHelper { return try call.deleteThroughHelper() }
    let (session, keychain) = try keychainErrors { () throws(KeychainError) in try call.session() }
    try session.operations(keychain).delete(call.query, user: session.user)
  }
}

/// An item's attributes as SecItemCopyMatching returns them (kSecReturnAttributes).
func attributeDictionary(_ item: KeychainItem, data: Data?) -> [String: Any] {
  var attributes: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: item.service, kSecAttrAccount as String: item.account,
    kSecAttrLabel as String: item.label, kSecAttrAccessGroup as String: item.accessGroup, kSecAttrAccessible as String: item.accessibility.rawValue,
    kSecAttrCreationDate as String: Date(timeIntervalSince1970: TimeInterval(item.created)),
    kSecAttrModificationDate as String: Date(timeIntervalSince1970: TimeInterval(item.modified)),
  ]
  if let flags = item.flags {
    attributes[kSecAttrAccessControl] = SecAccessControl(accessibility: item.accessibility, flags: flags)
  }
  if let data { attributes[kSecValueData] = data }
  return attributes
}
