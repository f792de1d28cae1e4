/// How localauth-helper ended an authentication, as the module maps it to a PAM code (PAMResult).
///
/// The payload is a kind byte: 0 success (method), 1 failure (the LAError code as an Int32, then the detail),
/// 2 does-not-apply, 3 another user, 4 fault (`HelperFault`'s raw value: 1–7 in every wire version, 8 from version
/// 3 on, `HelperWire.sends`).
public enum HelperResult: Equatable, Sendable {
  /// The engine decided.
  case decided(AuthenticationResult)
  /// The caller asked for a user other than the one running it; nothing was read.
  case otherUser
  /// The helper could not decide.
  case fault(HelperFault)

  func encode() -> [UInt8] {
    switch self {
    case .decided(.evaluated(.success(let method))): [0, Self.methods.firstIndex(of: method).map(UInt8.init) ?? 0]
    case .decided(.evaluated(.failure(let code, let detail))): [1] + WireIntegers.bytes(Int32(code.rawValue)) + Self.encode(detail)
    case .decided(.doesNotApply(let feature)): [2, feature ? 1 : 0]
    case .otherUser: [3]
    case .fault(let fault): [4, fault.rawValue]
    }
  }

  static func decode(_ bytes: [UInt8]) throws(HelperProtocolError) -> HelperResult {
    let bad = HelperProtocolError.malformed("a result it could not be")
    guard let kind = bytes.first else { throw bad }
    switch (kind, bytes.count) {
    case (0, 2):
      guard Int(bytes[1]) < methods.count else { throw bad }
      return .decided(.evaluated(.success(methods[Int(bytes[1])])))
    case (1, 6...):
      guard let code = AuthErrorCode(rawValue: Int(try WireIntegers.read(Int32.self, from: bytes[...], at: 1))) else { throw bad }
      return .decided(.evaluated(.failure(code, try decodeDetail(Array(bytes[5...])))))
    case (2, 2):
      guard bytes[1] <= 1 else { throw bad }
      return .decided(.doesNotApply(featureNotEnabled: bytes[1] == 1))
    case (3, 1): return .otherUser
    case (4, 2):
      guard let fault = HelperFault(rawValue: bytes[1]) else { throw bad }
      return .fault(fault)
    default: throw bad
    }
  }

  /// The wire's numbering of methods and passcode requirements (by position here, never by a public enum's order).
  private static let methods: [AuthMethod] = [.biometry, .passcode, .reuse]
  private static let requirements: [PasscodeRequirement] = [.reboot, .idle, .passcodeAge, .enrollmentChange, .lockout]

  private static func encode(_ detail: FailureDetail) -> [UInt8] {
    switch detail {
    case .none: [0]
    case .passcodeDelayed(let until): [1] + WireIntegers.bytes(UInt64(max(0, min(until.seconds, 1e15))))
    case .biometryLockedOut(let failures): [2, UInt8(clamping: failures)]
    case .passcodeRequired(let why): [3, requirements.firstIndex(of: why).map(UInt8.init) ?? 0]
    case .remoteSession: [4]
    // 5 was a detail that no evaluation gave (facade mode is ModuleOutcome.featureNotEnabled): not reused.
    case .fallbackChosen: [6]
    case .requestNotVisible: [7]
    case .concurrentRequest: [8]
    }
  }

  private static func decodeDetail(_ bytes: [UInt8]) throws(HelperProtocolError) -> FailureDetail {
    let bad = HelperProtocolError.malformed("a failure detail it could not be")
    switch (bytes.first, bytes.count) {
    case (0, 1): return .none
    case (1, 9):
      let seconds = try WireIntegers.value(UInt64.self, of: bytes[1...])
      return .passcodeDelayed(until: WallTime(seconds: Double(seconds)))
    case (2, 2): return .biometryLockedOut(failures: Int(bytes[1]))
    case (3, 2):
      guard Int(bytes[1]) < requirements.count else { throw bad }
      return .passcodeRequired(requirements[Int(bytes[1])])
    case (4, 1): return .remoteSession
    case (6, 1): return .fallbackChosen
    case (7, 1): return .requestNotVisible
    case (8, 1): return .concurrentRequest
    default: throw bad
    }
  }
}

/// Why localauth-helper could not decide; each maps to one PAM code in PAMResult.
public enum HelperFault: UInt8, Equatable, Sendable, CaseIterable {
  /// The helper cannot read the state (it is not setuid root, or runs on a nosuid mount).
  case stateUnreadable = 1
  /// The state is damaged, unsafe or could not be written.
  case stateFailed = 2
  /// Another process held the user's lock past the bounded wait.
  case lockTimeout = 3
  /// The conversation failed at a prompt.
  case conversationFailed = 4
  /// The conversation asked to be called again (PAM_CONV_AGAIN).
  case conversationAgain = 5
  /// The system configuration file is invalid.
  case configuration = 6
  /// The caller broke the protocol, or the helper was run wrongly (a terminal on its standard input).
  case protocolViolation = 7
  /// The helper's real uid (its caller's) has no usable passwd entry, so there is no user to serve. Wire version 3
  /// (`HelperWire.sends`): an older peer is told `stateUnreadable` (an app) or `otherUser` (the module).
  case unknownUser = 8

  /// The fault behind an engine error, for the result message; the details stay in the helper's log.
  public init(_ error: LocalAuthError) {
    switch error {
    case .state(.permissionDenied): self = .stateUnreadable
    case .state(.lockTimeout): self = .lockTimeout
    case .state: self = .stateFailed
    case .prompt(.conversationAgain): self = .conversationAgain
    case .prompt: self = .conversationFailed
    case .config: self = .configuration
    case .usage, .administration, .touchDelivery, .helper, .keychain: self = .stateFailed
    }
  }

  /// A clause for the module's log line.
  public var description: String {
    switch self {
    case .stateUnreadable: "cannot read the state (is it installed setuid root, on a filesystem without nosuid?)"
    case .stateFailed: "found the state damaged, unsafe or unwritable"
    case .lockTimeout: "waited too long for the user's lock"
    case .conversationFailed: "lost the conversation"
    case .conversationAgain: "was asked to call the conversation again"
    case .configuration: "found the configuration file invalid"
    case .protocolViolation: "refused the request as malformed"
    case .unknownUser: "found no passwd entry for the uid that runs it"
    }
  }
}
