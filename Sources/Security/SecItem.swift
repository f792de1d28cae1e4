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

  /// The item class: a password class, or a key, certificate or identity class (which this keychain never holds;
  /// the caller answers for them). A reserved access group is refused as `Keychain.refuseReserved` says (`adding`
  /// for SecItemAdd).
  func checkClass(adding: Bool = false) throws(KeychainError) -> SecItemClassName {
    let named = try className(adding: adding)
    try Keychain.refuseReserved(string(kSecAttrAccessGroup), adding: adding)
    return named
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
/// (from the context's `setCredential`, else asked). Keys, certificates and identities are errSecUnimplemented.
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
  run { () throws(LocalAuthError) in
    let call = KeychainCall(attributes)
    guard case .password(let itemClass) = try keychainErrors({ () throws(KeychainError) in try call.checkClass(adding: true) }) else {
      throw .keychain(.unimplemented("only generic and internet passwords are kept"))
    }
    let stored = try keychainErrors { () throws(KeychainError) in try call.storedAttributes(itemClass, use: .add) }
    let control = attributes[kSecAttrAccessControl as String] as? SecAccessControl
    if control != nil && attributes[kSecAttrAccessible as String] != nil {
      throw .keychain(.parameter("kSecAttrAccessible and kSecAttrAccessControl are mutually exclusive"))
    }
    let accessibility: KeychainAccessibility
    if let control { accessibility = control.accessibility } else if let raw = call.string(kSecAttrAccessible) {
      guard let parsed = Security.accessibility(fromApple: raw) else { throw .keychain(.parameter("invalid protection")) }
      accessibility = parsed
    } else {
      accessibility = .whenUnlocked
    }
    guard let data = call.data else { throw .keychain(.parameter("kSecValueData is missing")) }
    if call.context.evaluatesThroughHelper {
      let item = try call.addThroughHelper(
        itemClass: itemClass, attributes: stored, accessibility: accessibility, flags: control?.flags, data: data)
      result?.pointee = item as AnyObject
      return
    }
    let (session, keychain) = try keychainErrors { () throws(KeychainError) in try call.session() }
    var new = Keychain.NewItem(
      service: call.string(kSecAttrService) ?? "", account: call.string(kSecAttrAccount) ?? "",
      label: call.string(kSecAttrLabel) ?? "", accessGroup: call.string(kSecAttrAccessGroup) ?? "",
      accessibility: accessibility, flags: control?.flags, data: Array(data))
    new.itemClass = itemClass
    new.attributes = stored
    let item = try session.operations(keychain).add(new, request: session.request, authorization: session.authorization)
    let dictionary = attributeDictionary(item, data: nil)
    let returns = [kSecReturnData, kSecReturnAttributes, kSecReturnPersistentRef].contains { call.flag($0) }
    let value = returns ? copyResult(attributes: dictionary, data: data, reference: Data(item.persistentReference), call: call) : dictionary
    result?.pointee = value.map { $0 as AnyObject }
  }
}

/// Finds items and returns their data, attributes or persistent references; reading data runs the evaluations the
/// item's access control needs (reusing what `kSecUseAuthenticationContext` already established). Keys,
/// certificates and identities are never found.
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
  run { () throws(LocalAuthError) in
    let call = KeychainCall(query)
    guard case .password(let itemClass) = try keychainErrors({ () throws(KeychainError) in try call.checkClass() }) else {
      throw .keychain(.itemNotFound)
    }
    let selection = try keychainErrors { () throws(KeychainError) in try call.query(itemClass) }
    let all = call.string(kSecMatchLimit) == kSecMatchLimitAll
    var ui = call.string(kSecUseAuthenticationUI) ?? (kSecUseAuthenticationUIAllow as String)
    if call.flag(kSecUseNoAuthenticationUI) { ui = kSecUseAuthenticationUIFail as String }
    if call.context.evaluatesThroughHelper {
      // Asked also without a result pointer: the status alone says whether an item matches.
      let found = try call.copyThroughHelper(selection, all: all, ui: ui)
      result?.pointee = found
      return
    }
    let (session, keychain) = try keychainErrors { () throws(KeychainError) in try call.session() }
    let returnData = call.flag(kSecReturnData)
    let mode: AppInterfaceMode = ui == kSecUseAuthenticationUIFail ? .fail : ui == kSecUseAuthenticationUISkip ? .skip : .allow
    var authorization = session.authorization
    // What the reads established stays with the context, also when a later item's evaluation failed.
    defer { if returnData { call.context.keepKeychainAuthorization(authorization) } }
    let found = try session.operations(keychain).copy(
      selection, returnData: returnData, all: all, mode: mode, request: session.request, authorization: &authorization)
    var values: [Any] = []
    for entry in found {
      let data = entry.data.map { Data($0) }
      let attributes = attributeDictionary(entry.item, data: nil)
      if let value = copyResult(attributes: attributes, data: data, reference: Data(entry.item.persistentReference), call: call) {
        values.append(value)
      }
    }
    guard !values.isEmpty else { return }
    result?.pointee = all ? values as AnyObject : values[0] as AnyObject
  }
}

/// Changes the items the query selects: their data and any attribute Apple lets an update change, the primary key,
/// the accessibility and the access control included (docs/KEYCHAIN.md, "Updates"). New data needs no
/// authentication; other changes re-seal the item's data, so its access control is satisfied first, as a read
/// would. A change that makes two items alike is errSecDuplicateItem.
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
  run { () throws(LocalAuthError) in
    let call = KeychainCall(query)
    guard case .password(let itemClass) = try keychainErrors({ () throws(KeychainError) in try call.checkClass() }) else {
      throw .keychain(.itemNotFound)
    }
    let selection = try keychainErrors { () throws(KeychainError) in try call.query(itemClass) }
    let changes = try keychainErrors { () throws(KeychainError) in try KeychainCall(attributesToUpdate).changes(itemClass) }
    if call.context.evaluatesThroughHelper { return try call.updateThroughHelper(selection, changes: changes) }
    let (session, keychain) = try keychainErrors { () throws(KeychainError) in try call.session() }
    var authorization = session.authorization
    defer { if changes.data == nil { call.context.keepKeychainAuthorization(authorization) } }
    try session.operations(keychain).update(selection, changes: changes, request: session.request, authorization: &authorization)
  }
}

/// Deletes the items the query selects (errSecItemNotFound when none). Needs no authentication. Keys,
/// certificates and identities: errSecItemNotFound (there are none).
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
  run { () throws(LocalAuthError) in
    let call = KeychainCall(query)
    guard case .password(let itemClass) = try keychainErrors({ () throws(KeychainError) in try call.checkClass() }) else {
      throw .keychain(.itemNotFound)
    }
    let selection = try keychainErrors { () throws(KeychainError) in try call.query(itemClass) }
    if call.context.evaluatesThroughHelper { return try call.deleteThroughHelper(selection) }
    let (session, keychain) = try keychainErrors { () throws(KeychainError) in try call.session() }
    try session.operations(keychain).delete(selection, user: session.user)
  }
}

extension KeychainCall {
  /// SecItemUpdate's attributes to update as the core's changes.
  func changes(_ itemClass: KeychainItemClass) throws(KeychainError) -> Keychain.Changes {
    var changes = Keychain.Changes(
      service: string(kSecAttrService), account: string(kSecAttrAccount), label: string(kSecAttrLabel),
      accessGroup: string(kSecAttrAccessGroup), attributes: try storedAttributes(itemClass, use: .update),
      data: data.map { Array($0) })
    let control = attributes[kSecAttrAccessControl as String] as? SecAccessControl
    if attributes[kSecAttrAccessControl as String] != nil && control == nil {
      throw .parameter("kSecAttrAccessControl is not a SecAccessControl")
    }
    if let raw = string(kSecAttrAccessible) {
      guard let parsed = accessibility(fromApple: raw) else { throw .parameter("invalid protection") }
      if let control, control.accessibility != parsed {
        throw .parameter("kSecAttrAccessible and kSecAttrAccessControl disagree")
      }
      changes.accessibility = parsed
    }
    if let control {
      changes.accessibility = control.accessibility
      changes.flags = .some(control.flags)
    }
    return changes
  }
}

/// An item's attributes as SecItemCopyMatching returns them (kSecReturnAttributes).
func attributeDictionary(_ item: KeychainItem, data: Data?) -> [String: Any] {
  var attributes: [String: Any] = [
    kSecClass as String: item.itemClass.rawValue, kSecAttrService as String: item.service, kSecAttrAccount as String: item.account,
    kSecAttrLabel as String: item.label, kSecAttrAccessGroup as String: item.accessGroup, kSecAttrAccessible as String: item.accessibility.rawValue,
    kSecAttrCreationDate as String: Date(timeIntervalSince1970: TimeInterval(item.created)),
    kSecAttrModificationDate as String: Date(timeIntervalSince1970: TimeInterval(item.modified)),
  ]
  if let flags = item.flags {
    attributes[kSecAttrAccessControl] = SecAccessControl(accessibility: item.accessibility, flags: flags)
  }
  appleAttributes(item.attributes, into: &attributes)
  if let data { attributes[kSecValueData] = data }
  return attributes
}
