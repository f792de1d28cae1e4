/// localauth-helper's answer to one app call (after any prompts and `AppItem`s), and what the app learns.
///
/// The payload is a kind byte (0 done, 1 evaluation, 2 refused, 3 keychain, 4 fault), then fields: a refusal's code
/// is its LAError raw value and a keychain failure its OSStatus, both Int32, so no public enum's order is on the wire.
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

  /// Reply field keys. They start at 40, which is also AppCall's `newAccessFlags`: a call's field and a reply's
  /// never meet in one message, since each direction decodes only the keys it allows (`allowed`), and an item's
  /// attributes use AppCall's keys below 40. A later version of the wire (HelperWire; 3 added only a fault) may move
  /// `biometryType` so that every key has one meaning; until then the number is the wire, and changing it would
  /// break linked apps.
  public enum Key {
    package static let biometryType: UInt8 = 40
    package static let domainState: UInt8 = 41
    package static let captured: UInt8 = 42
    package static let enabled: UInt8 = 43
    /// A persisted right's public key (04 ‖ X ‖ Y).
    package static let publicKey: UInt8 = 44
    /// A persisted right's requirement (`RightRequirement`).
    package static let requirement: UInt8 = 45
    /// Present when a secret was saved with the right.
    package static let hasSecret: UInt8 = 46
    /// A signature or a shared secret.
    package static let output: UInt8 = 47
    static let result: UInt8 = 50
    /// A refusal's LAError code (Int32, Apple's signed raw value).
    static let code: UInt8 = 51
    // 52 was version 1's private keychain error numbering: not reused.
    static let keychainText: UInt8 = 53
    static let fault: UInt8 = 54
    /// A keychain failure's OSStatus (Int32).
    static let status: UInt8 = 55
  }

  static let allowed: [(key: UInt8, limit: Int)] = [
    (Key.biometryType, 1), (Key.domainState, 256), (Key.captured, 0), (Key.enabled, 0), (Key.publicKey, 65),
    (Key.requirement, 1), (Key.hasSecret, 0), (Key.output, 128), (Key.result, 16),
    (Key.code, 4), (Key.status, 4), (Key.keychainText, AppCall.textLimit), (Key.fault, 1),
  ]

  func encode() -> [UInt8] {
    switch self {
    case .done(let fields): return [0] + fields.encode()
    case .evaluation(let outcome, var fields):
      fields.set(Key.result, HelperResult.decided(.evaluated(outcome)).encode())
      return [1] + fields.encode()
    case .refused(let code, var fields):
      fields.set(Key.code, integer: Int32(code.rawValue))
      return [2] + fields.encode()
    case .keychain(let error):
      var fields = AppFields()
      fields.set(Key.status, integer: error.status)
      fields.set(Key.keychainText, optionalText: Self.text(of: error).map { String(decoding: Array($0.utf8.prefix(AppCall.textLimit)), as: UTF8.self) })
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
      guard let raw = try fields.integer(Key.code, as: Int32.self), let code = AuthErrorCode(rawValue: Int(raw)) else { throw bad }
      return .refused(code, fields.removing(Key.code))
    case 3:
      guard let status = try fields.integer(Key.status, as: Int32.self) else { throw bad }
      return .keychain(try error(status: status, text: try fields.text(Key.keychainText) ?? ""))
    case 4:
      guard let raw = try fields.byte(Key.fault), let fault = HelperFault(rawValue: raw) else { throw bad }
      return .fault(fault)
    default: throw bad
    }
  }

  /// The sentence a keychain failure carries; the path and errno of a storage failure stay in the helper's log (the
  /// app learns errSecIO).
  private static func text(of error: KeychainError) -> String? {
    switch error {
    case .parameter(let why), .notAvailable(let why), .missingEntitlement(let why), .allocate(let why),
      .unimplemented(let why):
      why
    case .duplicateItem, .itemNotFound, .authenticationFailed, .userCanceled, .interactionNotAllowed, .storage: nil
    }
  }

  /// The keychain failure an OSStatus names (`KeychainError.status` is the one table); any other status is malformed.
  private static func error(status: Int32, text: String) throws(HelperProtocolError) -> KeychainError {
    let known: [KeychainError] = [
      .parameter(text), .duplicateItem, .itemNotFound, .authenticationFailed, .userCanceled, .interactionNotAllowed,
      .notAvailable(text), .storage(.io(path: "the keychain", operation: "a keychain operation in localauth-helper", errno: Errno.inputOutput.code)),
      .missingEntitlement(text), .allocate(text), .unimplemented(text),
    ]
    guard let error = known.first(where: { $0.status == status }) else { throw .malformed("an unknown keychain status") }
    return error
  }
}

extension AppFields {
  /// The same fields without `key`.
  package func removing(_ key: UInt8) -> AppFields {
    var result = AppFields()
    for entry in entries where entry.key != key { result.set(entry.key, entry.value) }
    return result
  }
}

/// One keychain item a read found: its attributes (AppCall's attribute keys) and, when asked for, its data.
public struct AppItem: Equatable, Sendable {
  /// Item field keys beyond AppCall's attribute keys.
  public enum Key {
    package static let created: UInt8 = 60
    package static let modified: UInt8 = 61
  }

  /// The attributes and data.
  package var fields: AppFields

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
  package func integer(_ key: UInt8) -> UInt64? { (try? fields.integer(key, as: UInt64.self)) ?? nil }
}
