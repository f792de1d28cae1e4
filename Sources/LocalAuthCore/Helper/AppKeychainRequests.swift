/// The typed requests of an app's keychain calls (operations 4–7, docs/HELPER.md, "Apps"): the query (class,
/// attributes, case, persistent reference), the prompt, and each call's own fields, with their limits, written by the
/// Security product and read by the helper from this one description.
extension Keychain.Query {
  /// The query's fields and their limits.
  static let limits: AppFieldLimits = [
    (AppCall.Key.service, AppCall.textLimit), (AppCall.Key.account, AppCall.textLimit),
    (AppCall.Key.label, AppCall.textLimit), (AppCall.Key.accessGroup, AppCall.textLimit), (AppCall.Key.itemClass, 4),
    (AppCall.Key.attributes, AppCall.attributesLimit), (AppCall.Key.caseInsensitive, 0), (AppCall.Key.reference, 20),
  ]

  /// Writes the query's fields; an id is sent as a persistent reference (class and id) when the class is known.
  func encode(into fields: inout AppFields) {
    fields.set(AppCall.Key.service, optionalText: service)
    fields.set(AppCall.Key.account, optionalText: account)
    fields.set(AppCall.Key.label, optionalText: label)
    fields.set(AppCall.Key.accessGroup, optionalText: accessGroup)
    fields.set(AppCall.Key.itemClass, optionalText: itemClass?.rawValue)
    if !attributes.isEmpty { fields.set(AppCall.Key.attributes, attributes.encode()) }
    fields.set(AppCall.Key.caseInsensitive, flag: caseInsensitive)
    if let id, let itemClass {
      // A reference to another class names no item; sent as one that matches nothing.
      fields.set(AppCall.Key.reference, Array(itemClass.rawValue.utf8) + (hexDecode(id) ?? [UInt8](repeating: 0, count: 16)))
    }
  }

  /// Reads the query's fields; a persistent reference of another class than the query's matches nothing.
  init(decoding fields: AppFields) throws(HelperProtocolError) {
    self.init(
      service: try fields.text(AppCall.Key.service), account: try fields.text(AppCall.Key.account),
      label: try fields.text(AppCall.Key.label), accessGroup: try fields.text(AppCall.Key.accessGroup))
    if let raw = try fields.text(AppCall.Key.itemClass) {
      guard let parsed = KeychainItemClass(rawValue: raw) else { throw .malformed("an unknown item class") }
      itemClass = parsed
    }
    attributes = try fields.attributes(AppCall.Key.attributes)
    caseInsensitive = try fields.flag(AppCall.Key.caseInsensitive)
    if let reference = fields.bytes(AppCall.Key.reference) {
      guard let (referenced, id) = KeychainItem.parseReference(reference) else {
        throw .malformed("an invalid persistent reference")
      }
      self.id = itemClass != nil && itemClass != referenced ? "-" : id
      itemClass = referenced
    }
  }
}

extension AppFields {
  /// An encoded attribute list; empty when absent.
  func attributes(_ key: UInt8) throws(HelperProtocolError) -> KeychainAttributes {
    guard let bytes = bytes(key) else { return KeychainAttributes() }
    guard let decoded = KeychainAttributes.decode(bytes) else { throw .malformed("an invalid attribute list") }
    return decoded
  }

  /// An accessibility field, or nil.
  func accessibility(_ key: UInt8) throws(HelperProtocolError) -> KeychainAccessibility? {
    guard let raw = try text(key) else { return nil }
    guard let parsed = KeychainAccessibility(rawValue: raw) else { throw .malformed("an unknown accessibility") }
    return parsed
  }
}

/// SecItemAdd (operation 4): the new item; the reply is the stored item (one `AppItem`), then done.
package struct KeychainAddRequest: Sendable {
  /// The item's service, account, label, access group, class and attributes (no id).
  package var query: Keychain.Query
  /// The reason, titles and interaction, for an item whose access control asks for an evaluation.
  package var prompt: AppPrompt
  /// kSecAttrAccessible; nil is `.whenUnlocked`.
  package var accessibility: KeychainAccessibility?
  /// The access control's flags, or nil for none.
  package var flags: KeychainAccessFlags?
  /// The item's data (`KeychainItem.maximumDataSize` at most).
  package var data: [UInt8]

  /// Describes the call.
  package init(
    query: Keychain.Query, prompt: AppPrompt, accessibility: KeychainAccessibility?, flags: KeychainAccessFlags?,
    data: [UInt8]
  ) {
    self.query = query
    self.prompt = prompt
    self.accessibility = accessibility
    self.flags = flags
    self.data = data
  }

  static let limits: AppFieldLimits = Keychain.Query.limits + AppPrompt.limits + [
    (AppCall.Key.accessibility, 64), (AppCall.Key.accessFlags, 8), (AppCall.Key.data, KeychainItem.maximumDataSize),
  ]

  /// The call: the prompt, the query, then the item's own fields.
  package func encode() -> AppCall {
    var fields = AppFields()
    prompt.encode(into: &fields)
    query.encode(into: &fields)
    fields.set(AppCall.Key.accessibility, optionalText: accessibility?.rawValue)
    if let flags { fields.set(AppCall.Key.accessFlags, integer: UInt64(flags.rawValue)) }
    fields.set(AppCall.Key.data, data)
    return AppCall(.keychainAdd, fields)
  }

  /// Reads the call's fields; an add without data is malformed.
  package init(decoding call: AppCall) throws(HelperProtocolError) {
    let fields = call.fields
    guard let data = fields.bytes(AppCall.Key.data) else { throw .malformed("an add without data") }
    self.init(
      query: try Keychain.Query(decoding: fields), prompt: try AppPrompt(decoding: fields),
      accessibility: try fields.accessibility(AppCall.Key.accessibility),
      flags: try fields.integer(AppCall.Key.accessFlags, as: UInt64.self).map { KeychainAccessFlags(rawValue: UInt($0)) },
      data: data)
  }

  /// The item to store.
  package var newItem: Keychain.NewItem {
    var new = Keychain.NewItem(
      service: query.service ?? "", account: query.account ?? "", label: query.label ?? "",
      accessGroup: query.accessGroup ?? "", accessibility: accessibility ?? .whenUnlocked, flags: flags, data: data)
    new.itemClass = query.itemClass ?? .genericPassword
    new.attributes = query.attributes
    return new
  }
}

/// SecItemCopyMatching (operation 5): the query and what to return; the reply is the items found, then done.
package struct KeychainCopyRequest: Sendable {
  /// Which items.
  package var query: Keychain.Query
  /// The reason, titles and interaction.
  package var prompt: AppPrompt
  /// kSecReturnData.
  package var returnData: Bool
  /// kSecReturnAttributes (the helper sends the attributes either way).
  package var returnAttributes: Bool
  /// kSecMatchLimitAll.
  package var matchAll: Bool
  /// kSecUseAuthenticationUI.
  package var mode: AppInterfaceMode

  /// Describes the call.
  package init(
    query: Keychain.Query, prompt: AppPrompt, returnData: Bool, returnAttributes: Bool, matchAll: Bool,
    mode: AppInterfaceMode
  ) {
    self.query = query
    self.prompt = prompt
    self.returnData = returnData
    self.returnAttributes = returnAttributes
    self.matchAll = matchAll
    self.mode = mode
  }

  static let limits: AppFieldLimits = Keychain.Query.limits + AppPrompt.limits + [
    (AppCall.Key.returnData, 0), (AppCall.Key.returnAttributes, 0), (AppCall.Key.matchAll, 0), (AppCall.Key.interface, 1),
  ]

  /// The call: the prompt, the query, then what to return.
  package func encode() -> AppCall {
    var fields = AppFields()
    prompt.encode(into: &fields)
    query.encode(into: &fields)
    fields.set(AppCall.Key.returnData, flag: returnData)
    fields.set(AppCall.Key.returnAttributes, flag: returnAttributes)
    fields.set(AppCall.Key.matchAll, flag: matchAll)
    fields.set(AppCall.Key.interface, byte: mode.rawValue)
    return AppCall(.keychainCopy, fields)
  }

  /// Reads the call's fields; no UI mode is `.allow`.
  package init(decoding call: AppCall) throws(HelperProtocolError) {
    let fields = call.fields
    guard let mode = AppInterfaceMode(rawValue: try fields.byte(AppCall.Key.interface) ?? 0) else {
      throw .malformed("an unknown interface mode")
    }
    self.init(
      query: try Keychain.Query(decoding: fields), prompt: try AppPrompt(decoding: fields),
      returnData: try fields.flag(AppCall.Key.returnData), returnAttributes: try fields.flag(AppCall.Key.returnAttributes),
      matchAll: try fields.flag(AppCall.Key.matchAll), mode: mode)
  }
}

/// SecItemUpdate (operation 6): the query and the changes; the reply is done.
package struct KeychainUpdateRequest: Sendable {
  /// Which items.
  package var query: Keychain.Query
  /// The reason, titles and interaction (an update without new data reads the item first).
  package var prompt: AppPrompt
  /// What changes.
  package var changes: Keychain.Changes

  /// Describes the call.
  package init(query: Keychain.Query, prompt: AppPrompt, changes: Keychain.Changes) {
    self.query = query
    self.prompt = prompt
    self.changes = changes
  }

  static let limits: AppFieldLimits = Keychain.Query.limits + AppPrompt.limits + [
    (AppCall.Key.newData, KeychainItem.maximumDataSize), (AppCall.Key.newLabel, AppCall.textLimit),
    (AppCall.Key.newAttributes, AppCall.attributesLimit), (AppCall.Key.newService, AppCall.textLimit),
    (AppCall.Key.newAccount, AppCall.textLimit), (AppCall.Key.newAccessGroup, AppCall.textLimit),
    (AppCall.Key.newAccessibility, 64), (AppCall.Key.newAccessFlags, 8),
  ]

  /// The call: the prompt, the query, then the changes; removing the access control is an empty flags field.
  package func encode() -> AppCall {
    var fields = AppFields()
    prompt.encode(into: &fields)
    query.encode(into: &fields)
    if let data = changes.data { fields.set(AppCall.Key.newData, data) }
    fields.set(AppCall.Key.newLabel, optionalText: changes.label)
    fields.set(AppCall.Key.newService, optionalText: changes.service)
    fields.set(AppCall.Key.newAccount, optionalText: changes.account)
    fields.set(AppCall.Key.newAccessGroup, optionalText: changes.accessGroup)
    if !changes.attributes.isEmpty { fields.set(AppCall.Key.newAttributes, changes.attributes.encode()) }
    fields.set(AppCall.Key.newAccessibility, optionalText: changes.accessibility?.rawValue)
    if let flags = changes.flags {
      fields.set(AppCall.Key.newAccessFlags, flags.map { WireIntegers.bytes(UInt64($0.rawValue)) } ?? [])
    }
    return AppCall(.keychainUpdate, fields)
  }

  /// Reads the call's fields.
  package init(decoding call: AppCall) throws(HelperProtocolError) {
    let fields = call.fields
    var changes = Keychain.Changes(
      service: try fields.text(AppCall.Key.newService), account: try fields.text(AppCall.Key.newAccount),
      label: try fields.text(AppCall.Key.newLabel), accessGroup: try fields.text(AppCall.Key.newAccessGroup),
      attributes: try fields.attributes(AppCall.Key.newAttributes), data: fields.bytes(AppCall.Key.newData))
    changes.accessibility = try fields.accessibility(AppCall.Key.newAccessibility)
    if let raw = fields.bytes(AppCall.Key.newAccessFlags) {
      changes.flags = .some(raw.isEmpty ? nil : KeychainAccessFlags(rawValue: UInt(try WireIntegers.value(UInt64.self, of: raw))))
    }
    self.init(query: try Keychain.Query(decoding: fields), prompt: try AppPrompt(decoding: fields), changes: changes)
  }
}

/// SecItemDelete (operation 7): the query only (a delete never prompts); the reply is done.
package struct KeychainDeleteRequest: Sendable {
  /// Which items.
  package var query: Keychain.Query
  /// Describes the call.
  package init(query: Keychain.Query) { self.query = query }

  static let limits: AppFieldLimits = Keychain.Query.limits

  /// The call.
  package func encode() -> AppCall {
    var fields = AppFields()
    query.encode(into: &fields)
    return AppCall(.keychainDelete, fields)
  }

  /// Reads the call's fields.
  package init(decoding call: AppCall) throws(HelperProtocolError) { query = try Keychain.Query(decoding: call.fields) }
}
