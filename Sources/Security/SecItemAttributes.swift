import Foundation
import LocalAuthCore

// The item classes and attributes of Apple's password items beyond the core ones (SecItem.h), with Apple's own
// string values, and how they map to the core's stored attributes (docs/KEYCHAIN.md, "Attributes").

/// An internet password.
nonisolated(unsafe) public let kSecClassInternetPassword: CFString = "inet"
/// A certificate (not held here: queries find nothing, adds are errSecUnimplemented).
nonisolated(unsafe) public let kSecClassCertificate: CFString = "cert"
/// A cryptographic key (not held here: queries find nothing, adds are errSecUnimplemented).
nonisolated(unsafe) public let kSecClassKey: CFString = "keys"
/// An identity (not held here: queries find nothing, adds are errSecUnimplemented).
nonisolated(unsafe) public let kSecClassIdentity: CFString = "idnt"

/// The creator, a four-character code (CFNumber).
nonisolated(unsafe) public let kSecAttrCreator: CFString = "crtr"
/// The type, a four-character code (CFNumber).
nonisolated(unsafe) public let kSecAttrType: CFString = "type"
/// A user-visible description of the kind of item.
nonisolated(unsafe) public let kSecAttrDescription: CFString = "desc"
/// A user-editable comment.
nonisolated(unsafe) public let kSecAttrComment: CFString = "icmt"
/// Whether the item is hidden from keychain browsers (CFBoolean).
nonisolated(unsafe) public let kSecAttrIsInvisible: CFString = "invi"
/// Whether the item is a negative entry, holding no valid password (CFBoolean).
nonisolated(unsafe) public let kSecAttrIsNegative: CFString = "nega"
/// Application-defined data (CFData), generic passwords only.
nonisolated(unsafe) public let kSecAttrGeneric: CFString = "gena"
/// The server's domain name or address (internet passwords).
nonisolated(unsafe) public let kSecAttrServer: CFString = "srvr"
/// The security domain (internet passwords).
nonisolated(unsafe) public let kSecAttrSecurityDomain: CFString = "sdmn"
/// The protocol, a kSecAttrProtocol* value (internet passwords).
nonisolated(unsafe) public let kSecAttrProtocol: CFString = "ptcl"
/// The authentication scheme, a kSecAttrAuthenticationType* value (internet passwords).
nonisolated(unsafe) public let kSecAttrAuthenticationType: CFString = "atyp"
/// The port (CFNumber; internet passwords).
nonisolated(unsafe) public let kSecAttrPort: CFString = "port"
/// The path (internet passwords).
nonisolated(unsafe) public let kSecAttrPath: CFString = "path"
/// kSecAttrSynchronizable's value that matches synchronizable and other items alike (queries only).
nonisolated(unsafe) public let kSecAttrSynchronizableAny: CFString = "syna"
/// Readable always (deprecated by Apple); stored as kSecAttrAccessibleAfterFirstUnlock.
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = "dk"
/// Readable always, never exported (deprecated by Apple); stored as kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly.
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"
/// Use the data-protection keychain (macOS); accepted and ignored: this keychain is the only one.
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "nleg"
/// Do not show authentication UI (deprecated by Apple): as kSecUseAuthenticationUIFail.
nonisolated(unsafe) public let kSecUseNoAuthenticationUI: CFString = "u_NoAuthUI"
/// A persistent reference (CFData) in a query, or in a result dictionary.
nonisolated(unsafe) public let kSecValuePersistentRef: CFString = "v_PersistentRef"
/// A reference in a query or a result (Apple returns references only for keys, certificates and identities).
nonisolated(unsafe) public let kSecValueRef: CFString = "v_Ref"
/// Compare text attributes ignoring case (CFBoolean).
nonisolated(unsafe) public let kSecMatchCaseInsensitive: CFString = "m_CaseInsensitive"

// kSecAttrProtocol values.
nonisolated(unsafe) public let kSecAttrProtocolFTP: CFString = "ftp "
nonisolated(unsafe) public let kSecAttrProtocolFTPAccount: CFString = "ftpa"
nonisolated(unsafe) public let kSecAttrProtocolHTTP: CFString = "http"
nonisolated(unsafe) public let kSecAttrProtocolIRC: CFString = "irc "
nonisolated(unsafe) public let kSecAttrProtocolNNTP: CFString = "nntp"
nonisolated(unsafe) public let kSecAttrProtocolPOP3: CFString = "pop3"
nonisolated(unsafe) public let kSecAttrProtocolSMTP: CFString = "smtp"
nonisolated(unsafe) public let kSecAttrProtocolSOCKS: CFString = "sox "
nonisolated(unsafe) public let kSecAttrProtocolIMAP: CFString = "imap"
nonisolated(unsafe) public let kSecAttrProtocolLDAP: CFString = "ldap"
nonisolated(unsafe) public let kSecAttrProtocolAppleTalk: CFString = "atlk"
nonisolated(unsafe) public let kSecAttrProtocolAFP: CFString = "afp "
nonisolated(unsafe) public let kSecAttrProtocolTelnet: CFString = "teln"
nonisolated(unsafe) public let kSecAttrProtocolSSH: CFString = "ssh "
nonisolated(unsafe) public let kSecAttrProtocolFTPS: CFString = "ftps"
nonisolated(unsafe) public let kSecAttrProtocolHTTPS: CFString = "htps"
nonisolated(unsafe) public let kSecAttrProtocolHTTPProxy: CFString = "htpx"
nonisolated(unsafe) public let kSecAttrProtocolHTTPSProxy: CFString = "htsx"
nonisolated(unsafe) public let kSecAttrProtocolFTPProxy: CFString = "ftpx"
nonisolated(unsafe) public let kSecAttrProtocolSMB: CFString = "smb "
nonisolated(unsafe) public let kSecAttrProtocolRTSP: CFString = "rtsp"
nonisolated(unsafe) public let kSecAttrProtocolRTSPProxy: CFString = "rtsx"
nonisolated(unsafe) public let kSecAttrProtocolDAAP: CFString = "daap"
nonisolated(unsafe) public let kSecAttrProtocolEPPC: CFString = "eppc"
nonisolated(unsafe) public let kSecAttrProtocolIPP: CFString = "ipp "
nonisolated(unsafe) public let kSecAttrProtocolNNTPS: CFString = "ntps"
nonisolated(unsafe) public let kSecAttrProtocolLDAPS: CFString = "ldps"
nonisolated(unsafe) public let kSecAttrProtocolTelnetS: CFString = "tels"
nonisolated(unsafe) public let kSecAttrProtocolIMAPS: CFString = "imps"
nonisolated(unsafe) public let kSecAttrProtocolIRCS: CFString = "ircs"
nonisolated(unsafe) public let kSecAttrProtocolPOP3S: CFString = "pops"

// kSecAttrAuthenticationType values.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeNTLM: CFString = "ntlm"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeMSN: CFString = "msna"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDPA: CFString = "dpaa"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeRPA: CFString = "rpaa"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDefault: CFString = "dflt"

/// What kSecClass names.
enum SecItemClassName {
  /// A password class this keychain holds.
  case password(KeychainItemClass)
  /// A key, certificate or identity: never held here.
  case unsupported
}

/// The accessibility a kSecAttrAccessible value stands for (the deprecated Always classes as AfterFirstUnlock).
func accessibility(fromApple raw: String) -> KeychainAccessibility? {
  if raw == kSecAttrAccessibleAlways { return .afterFirstUnlock }
  if raw == kSecAttrAccessibleAlwaysThisDeviceOnly { return .afterFirstUnlockThisDeviceOnly }
  return KeychainAccessibility(rawValue: raw)
}

extension KeychainCall {
  /// A number attribute (CFNumber or CFBoolean), nil when absent or not a number.
  func number(_ key: CFString) -> Int64? { number(key as String) }

  /// A number attribute by its text key (KeychainAttributes' names).
  func number(_ key: String) -> Int64? {
    switch attributes[key] {
    case let value as Bool: value ? 1 : 0
    case let value as Int: Int64(value)
    case let value as Int32: Int64(value)
    case let value as UInt32: Int64(value)
    case let value as Int64: value
    case let value as UInt16: Int64(value)
    case let value as NSNumber: value.int64Value
    default: nil
    }
  }

  /// A text attribute by its text key (KeychainAttributes' names).
  func string(_ key: String) -> String? { attributes[key] as? String }

  /// kSecClass. A query (`adding` false) that names its item only by kSecValuePersistentRef takes the class the
  /// reference names, as Apple's keychain finds such an item (Valet's `migrateObjects(from:)` fetches each item by
  /// its reference alone); SecItemAdd still needs kSecClass.
  func className(adding: Bool) throws(KeychainError) -> SecItemClassName {
    if string(kSecClass) == nil, !adding, let data = attributes[kSecValuePersistentRef] as? Data,
      let (named, _) = KeychainItem.parseReference(Array(data))
    {
      return .password(named)
    }
    guard let raw = string(kSecClass) else { throw .parameter("kSecClass is missing") }
    if raw == kSecClassGenericPassword { return .password(.genericPassword) }
    if raw == kSecClassInternetPassword { return .password(.internetPassword) }
    if raw == kSecClassKey || raw == kSecClassCertificate || raw == kSecClassIdentity { return .unsupported }
    throw .parameter("kSecClass \(raw) is not an item class")
  }

  /// How a dictionary's attributes are used.
  enum Use { case add, query, update }

  /// The stored attributes this dictionary sets (beyond service, account, label and access group), for an item of
  /// `itemClass`; a query allows kSecAttrSynchronizableAny. A value of the wrong type is errSecParam, as is an
  /// internet password's attribute on a generic password.
  func storedAttributes(_ itemClass: KeychainItemClass, use: Use) throws(KeychainError) -> KeychainAttributes {
    let query = use == .query
    var stored = KeychainAttributes()
    for (name, kind) in KeychainAttributes.known where attributes[name] != nil {
      if itemClass == .genericPassword && KeychainAttributes.internetOnly.contains(name) {
        throw .parameter("\(name) is an attribute of internet passwords")
      }
      if name == KeychainAttributes.synchronizable {
        if query && string(kSecAttrSynchronizable) == kSecAttrSynchronizableAny { continue }
        guard let value = number(kSecAttrSynchronizable) else { throw .parameter("kSecAttrSynchronizable is not a boolean") }
        // Only a synchronizable item stores it (an unset sync is 0), so other items keep their primary key.
        if value != 0 { stored[name] = .number(1) } else if use != .add { stored[name] = .number(0) }
        continue
      }
      switch kind {
      case .text:
        guard let text = string(name) else { throw .parameter("\(name) is not a string") }
        stored[name] = .text(text)
      case .number:
        guard let value = number(name) else { throw .parameter("\(name) is not a number") }
        stored[name] = .number(value)
      case .bytes:
        guard let data = attributes[name] as? Data else { throw .parameter("\(name) is not data") }
        stored[name] = .bytes(Array(data))
      }
    }
    // A query without kSecAttrSynchronizable selects the items that are not synchronizable, as Apple's does.
    if query && attributes[kSecAttrSynchronizable] == nil { stored[KeychainAttributes.synchronizable] = .number(0) }
    return stored
  }

  /// The query the dictionary describes, for items of `itemClass`.
  func query(_ itemClass: KeychainItemClass) throws(KeychainError) -> Keychain.Query {
    var query = Keychain.Query(
      service: string(kSecAttrService), account: string(kSecAttrAccount), label: string(kSecAttrLabel),
      accessGroup: string(kSecAttrAccessGroup))
    query.itemClass = itemClass
    query.attributes = try storedAttributes(itemClass, use: .query)
    query.caseInsensitive = flag(kSecMatchCaseInsensitive)
    if let reference = attributes[kSecValuePersistentRef] {
      guard let data = reference as? Data, let (named, id) = KeychainItem.parseReference(Array(data)) else {
        throw .parameter("kSecValuePersistentRef is not a persistent reference")
      }
      // A reference names one item; the class must agree, and sync does not narrow it.
      query.id = named == itemClass ? id : "-"
      query.attributes[KeychainAttributes.synchronizable] = nil
    }
    return query
  }
}

/// The attributes of `item` beyond the core ones, as Apple's dictionaries hold them.
func appleAttributes(_ stored: KeychainAttributes, into dictionary: inout [String: Any]) {
  for entry in stored.entries {
    switch entry.value {
    case .text(let text): dictionary[entry.name] = text
    case .number(let number):
      let boolean = entry.name == "invi" || entry.name == "nega" || entry.name == "sync"
      dictionary[entry.name] = boolean ? (number != 0) as Any : Int(number) as Any
    case .bytes(let bytes): dictionary[entry.name] = Data(bytes)
    }
  }
  if dictionary[kSecAttrSynchronizable] == nil { dictionary[kSecAttrSynchronizable] = false }
}

/// What SecItemCopyMatching returns for one item: a dictionary when the attributes or more than one kind of result
/// are asked for, else the data or the persistent reference alone (kSecReturnRef is ignored for passwords, as on
/// Apple's systems, which return references only for keys, certificates and identities).
func copyResult(attributes: [String: Any], data: Data?, reference: Data, call: KeychainCall) -> Any? {
  let wantsAttributes = call.flag(kSecReturnAttributes)
  let wantsData = call.flag(kSecReturnData)
  let wantsReference = call.flag(kSecReturnPersistentRef)
  if wantsAttributes || (wantsData && wantsReference) {
    var dictionary = wantsAttributes ? attributes : [:]
    dictionary[kSecValueData] = wantsData ? data : nil
    if wantsReference { dictionary[kSecValuePersistentRef] = reference }
    return dictionary
  }
  if wantsData { return data }
  if wantsReference { return reference }
  return nil
}
