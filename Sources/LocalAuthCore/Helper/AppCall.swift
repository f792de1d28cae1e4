/// One request of an app to localauth-helper: an operation and its fields (docs/HELPER.md, "Apps").
///
/// Which fields an operation takes, with each field's limit, is fixed by its typed request (`EvaluateRequest`,
/// `KeychainCopyRequest`, `AppRightRequest`, …), which the client encodes and the helper decodes; nothing names a
/// user, a state folder or a configuration: the helper takes the user from its real uid and everything else from
/// the system.
public struct AppCall: Equatable, Sendable {
  /// What the app asks for.
  public enum Operation: UInt8, Sendable, CaseIterable {
    /// LAContext.canEvaluatePolicy: policy.
    case canEvaluate = 1
    /// LAContext.evaluatePolicy: policy, reason, titles, reuse, interaction, own UI.
    case evaluate = 2
    /// LAContext.domainState: nothing.
    case domainState = 3
    /// SecItemAdd: attributes, access control, data.
    case keychainAdd = 4
    /// SecItemCopyMatching: query, what to return, UI mode, reason.
    case keychainCopy = 5
    /// SecItemUpdate: query, new data or label.
    case keychainUpdate = 6
    /// SecItemDelete: query.
    case keychainDelete = 7
    /// LAContext.setCredential(_:type:): the application password, or none to clear it.
    case setApplicationPassword = 8
    /// LAContext.endReuseWindow: nothing.
    case endReuseWindow = 9
    /// BiometricAuthenticationFacade: a feature's flag, read or (with `enable`) set.
    case feature = 10
    /// LARightStore.saveRight: identifier, requirement, secret; the helper makes the key pair.
    case rightSave = 11
    /// LARightStore.right(forIdentifier:): identifier.
    case rightFetch = 12
    /// LARightStore.removeRight: identifier.
    case rightRemove = 13
    /// LARightStore.removeAllRights: nothing.
    case rightRemoveAll = 14
    /// LASecret.loadData: identifier; opened with this session's evaluations only, never with a prompt.
    case rightSecret = 15
    /// LAPrivateKey.sign: identifier, algorithm, data; the signature comes back, never the key.
    case rightSign = 16
    /// LAPrivateKey.exchangeKeys: identifier, the peer's public key; the shared secret comes back.
    case rightExchange = 17
  }

  /// Field keys (one list, so that no two fields share a key).
  public enum Key {
    package static let policy: UInt8 = 1
    package static let reason: UInt8 = 2
    package static let fallbackTitle: UInt8 = 3
    package static let cancelTitle: UInt8 = 4
    package static let reuseSeconds: UInt8 = 5
    package static let interactionNotAllowed: UInt8 = 6
    package static let ownInterface: UInt8 = 7
    package static let service: UInt8 = 10
    package static let account: UInt8 = 11
    package static let label: UInt8 = 12
    package static let accessGroup: UInt8 = 13
    package static let accessibility: UInt8 = 14
    package static let accessFlags: UInt8 = 15
    package static let data: UInt8 = 16
    package static let returnData: UInt8 = 17
    package static let returnAttributes: UInt8 = 18
    package static let matchAll: UInt8 = 19
    package static let interface: UInt8 = 20
    package static let newData: UInt8 = 21
    package static let newLabel: UInt8 = 22
    package static let feature: UInt8 = 23
    package static let enable: UInt8 = 24
    package static let password: UInt8 = 25
    package static let identifier: UInt8 = 26
    package static let requirement: UInt8 = 27
    package static let secret: UInt8 = 28
    package static let algorithm: UInt8 = 29
    package static let peerKey: UInt8 = 30
    /// kSecClass ("genp" or "inet").
    package static let itemClass: UInt8 = 31
    /// The other attributes, one encoded list (`KeychainAttributes.encode`).
    package static let attributes: UInt8 = 32
    /// kSecMatchCaseInsensitive.
    package static let caseInsensitive: UInt8 = 33
    /// kSecValuePersistentRef.
    package static let reference: UInt8 = 34
    /// SecItemUpdate's new attributes, one encoded list.
    package static let newAttributes: UInt8 = 35
    package static let newService: UInt8 = 36
    package static let newAccount: UInt8 = 37
    package static let newAccessGroup: UInt8 = 38
    package static let newAccessibility: UInt8 = 39
    /// The new access control's flags (8 bytes), or empty to remove it.
    package static let newAccessFlags: UInt8 = 40
  }

  /// The longest encoded attribute list.
  package static let attributesLimit = 2048

  /// The longest text field (an attribute, a reason).
  package static let textLimit = 512

  /// The longest fallback or cancel title.
  package static let titleLimit = 128

  /// The operation.
  package var operation: Operation
  /// Its fields.
  package var fields: AppFields

  /// Describes a call.
  public init(_ operation: Operation, _ fields: AppFields = AppFields()) {
    self.operation = operation
    self.fields = fields
  }

  /// The fields `operation` accepts, with their limits: each operation's typed request names them
  /// (AppRequests.swift, AppKeychainRequests.swift, AppRightRequests.swift).
  static func allowed(_ operation: Operation) -> AppFieldLimits {
    switch operation {
    case .canEvaluate: CanEvaluateRequest.limits
    case .evaluate: EvaluateRequest.limits
    case .domainState, .endReuseWindow: []
    case .keychainAdd: KeychainAddRequest.limits
    case .keychainCopy: KeychainCopyRequest.limits
    case .keychainUpdate: KeychainUpdateRequest.limits
    case .keychainDelete: KeychainDeleteRequest.limits
    case .setApplicationPassword: ApplicationPasswordRequest.limits
    case .feature: FeatureRequest.limits
    case .rightSave, .rightFetch, .rightRemove, .rightRemoveAll, .rightSecret, .rightSign, .rightExchange:
      AppRightRequest.limits(operation)
    }
  }

  /// The payload: the operation byte, then the fields.
  func encode() -> [UInt8] { [operation.rawValue] + fields.encode() }

  static func decode(_ payload: [UInt8]) throws(HelperProtocolError) -> AppCall {
    guard let first = payload.first, let operation = Operation(rawValue: first) else {
      throw .malformed("an unknown app operation")
    }
    return AppCall(operation, try AppFields.decode(payload[1...], allowed: allowed(operation)))
  }
}

/// How a keychain read may interact (kSecUseAuthenticationUI).
public enum AppInterfaceMode: UInt8, Sendable {
  /// Prompt when needed (kSecUseAuthenticationUIAllow).
  case allow = 0
  /// Fail with errSecInteractionNotAllowed instead of prompting (kSecUseAuthenticationUIFail).
  case fail = 1
  /// Skip the items that would need a prompt (kSecUseAuthenticationUISkip).
  case skip = 2
}
