import CSyscalls

/// localauth-helper's answer to one app call (after any prompts and `AppItem`s), and what the app learns.
public enum AppReply: Equatable, Sendable {
  /// The call succeeded; `fields` carry its values (`Key`).
  case done(AppFields)
  /// An evaluation ended: success or failure as the engine decided, with `fields` (a captured domain state).
  case evaluation(EvaluationOutcome, AppFields)
  /// canEvaluatePolicy's answer: the policy cannot be evaluated, for this reason (with the biometry type).
  case refused(AuthErrorCode, AppFields)
  /// A keychain operation failed.
  case keychain(KeychainError)
  /// The helper could not decide (the details stay in its log).
  case fault(HelperFault)

  /// Reply field keys (above AppCall's, so that an item's attributes and a reply's values never collide).
  public enum Key {
    public static let biometryType: UInt8 = 40
    public static let domainState: UInt8 = 41
    public static let captured: UInt8 = 42
    public static let enabled: UInt8 = 43
    /// A persisted right's public key (04 ‖ X ‖ Y).
    public static let publicKey: UInt8 = 44
    /// A persisted right's requirement (`RightRequirement`).
    public static let requirement: UInt8 = 45
    /// Present when a secret was saved with the right.
    public static let hasSecret: UInt8 = 46
    /// A signature or a shared secret.
    public static let output: UInt8 = 47
    static let result: UInt8 = 50
    static let code: UInt8 = 51
    static let keychainKind: UInt8 = 52
    static let keychainText: UInt8 = 53
    static let fault: UInt8 = 54
  }

  static let allowed: [(key: UInt8, limit: Int)] = [
    (Key.biometryType, 1), (Key.domainState, 256), (Key.captured, 0), (Key.enabled, 0), (Key.publicKey, 65),
    (Key.requirement, 1), (Key.hasSecret, 0), (Key.output, 128), (Key.result, 16),
    (Key.code, 1), (Key.keychainKind, 1), (Key.keychainText, AppCall.textLimit), (Key.fault, 1),
  ]

  func encode() -> [UInt8] {
    switch self {
    case .done(let fields): return [0] + fields.encode()
    case .evaluation(let outcome, var fields):
      fields.set(Key.result, HelperResult.decided(.evaluated(outcome)).encode())
      return [1] + fields.encode()
    case .refused(let code, var fields):
      fields.set(Key.code, byte: UInt8(AuthErrorCode.allCases.firstIndex(of: code) ?? 0))
      return [2] + fields.encode()
    case .keychain(let error):
      var fields = AppFields()
      let (kind, text) = Self.kind(of: error)
      fields.set(Key.keychainKind, byte: kind)
      fields.set(Key.keychainText, optionalText: text.map { String(decoding: Array($0.utf8.prefix(AppCall.textLimit)), as: UTF8.self) })
      return [3] + fields.encode()
    case .fault(let fault):
      var fields = AppFields()
      fields.set(Key.fault, byte: fault.rawValue)
      return [4] + fields.encode()
    }
  }

  static func decode(_ payload: [UInt8]) throws(HelperProtocolError) -> AppReply {
    guard let kind = payload.first else { throw .malformed("an empty reply") }
    var fields = try AppFields.decode(payload[1...], allowed: allowed)
    let bad = HelperProtocolError.malformed("a reply it could not be")
    switch kind {
    case 0: return .done(fields)
    case 1:
      guard let bytes = fields.bytes(Key.result), case .decided(.evaluated(let outcome)) = try HelperResult.decode(bytes)
      else { throw bad }
      fields = fields.removing(Key.result)
      return .evaluation(outcome, fields)
    case 2:
      guard let index = try fields.byte(Key.code), Int(index) < AuthErrorCode.allCases.count else { throw bad }
      return .refused(AuthErrorCode.allCases[Int(index)], fields.removing(Key.code))
    case 3:
      guard let kind = try fields.byte(Key.keychainKind) else { throw bad }
      return .keychain(try error(kind: kind, text: try fields.text(Key.keychainText) ?? ""))
    case 4:
      guard let raw = try fields.byte(Key.fault), let fault = HelperFault(rawValue: raw) else { throw bad }
      return .fault(fault)
    default: throw bad
    }
  }

  private static func kind(of error: KeychainError) -> (UInt8, String?) {
    switch error {
    case .parameter(let why): (0, why)
    case .duplicateItem: (1, nil)
    case .itemNotFound: (2, nil)
    case .authenticationFailed: (3, nil)
    case .userCanceled: (4, nil)
    case .interactionNotAllowed: (5, nil)
    case .notAvailable(let why): (6, why)
    // The path and errno stay in the helper's log; the app learns that storage failed (errSecIO).
    case .storage: (7, nil)
    case .missingEntitlement(let why): (8, why)
    case .allocate(let why): (9, why)
    case .unimplemented(let why): (10, why)
    }
  }

  private static func error(kind: UInt8, text: String) throws(HelperProtocolError) -> KeychainError {
    switch kind {
    case 0: return .parameter(text)
    case 1: return .duplicateItem
    case 2: return .itemNotFound
    case 3: return .authenticationFailed
    case 4: return .userCanceled
    case 5: return .interactionNotAllowed
    case 6: return .notAvailable(text)
    case 7: return .storage(.io(path: "the keychain", operation: "a keychain operation in localauth-helper", errno: EIO))
    case 8: return .missingEntitlement(text)
    case 9: return .allocate(text)
    case 10: return .unimplemented(text)
    default: throw .malformed("an unknown keychain error")
    }
  }
}

extension AppFields {
  /// The same fields without `key`.
  public func removing(_ key: UInt8) -> AppFields {
    var result = AppFields()
    for entry in entries where entry.key != key { result.set(entry.key, entry.value) }
    return result
  }
}

/// One keychain item a read found: its attributes (AppCall's attribute keys) and, when asked for, its data.
public struct AppItem: Equatable, Sendable {
  /// Item field keys beyond AppCall's attribute keys.
  public enum Key {
    public static let created: UInt8 = 60
    public static let modified: UInt8 = 61
  }

  /// The attributes and data.
  public var fields: AppFields

  /// Describes an item.
  public init(fields: AppFields) { self.fields = fields }

  /// The item's attributes, with `data` when given.
  public init(_ item: KeychainItem, data: [UInt8]?) {
    var fields = AppFields()
    fields.set(AppCall.Key.service, text: item.service)
    fields.set(AppCall.Key.account, text: item.account)
    fields.set(AppCall.Key.label, text: item.label)
    fields.set(AppCall.Key.accessGroup, text: item.accessGroup)
    fields.set(AppCall.Key.accessibility, text: item.accessibility.rawValue)
    if let flags = item.flags { fields.set(AppCall.Key.accessFlags, integer: UInt64(flags.rawValue)) }
    fields.set(Key.created, integer: item.created)
    fields.set(Key.modified, integer: item.modified)
    if item.itemClass != .genericPassword { fields.set(AppCall.Key.itemClass, text: item.itemClass.rawValue) }
    if !item.attributes.isEmpty { fields.set(AppCall.Key.attributes, item.attributes.encode()) }
    fields.set(AppCall.Key.reference, item.persistentReference)
    if let data { fields.set(AppCall.Key.data, data) }
    self.fields = fields
  }

  static let allowed: [(key: UInt8, limit: Int)] = [
    (AppCall.Key.service, AppCall.textLimit), (AppCall.Key.account, AppCall.textLimit),
    (AppCall.Key.label, AppCall.textLimit), (AppCall.Key.accessGroup, AppCall.textLimit),
    (AppCall.Key.accessibility, 64), (AppCall.Key.accessFlags, 8), (Key.created, 8), (Key.modified, 8),
    (AppCall.Key.data, KeychainItem.maximumDataSize), (AppCall.Key.itemClass, 4),
    (AppCall.Key.attributes, AppCall.attributesLimit), (AppCall.Key.reference, 20),
  ]

  /// The value of an 8-byte big-endian field, or nil.
  public func integer(_ key: UInt8) -> UInt64? { (try? fields.integer(key, as: UInt64.self)) ?? nil }
}
