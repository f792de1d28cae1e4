/// The typed requests and replies of an app's LAContext calls (docs/HELPER.md, "Apps"): each names its fields, their
/// limits, how they are written and how they are read, once. The client builds one and sends `encode()`; the helper
/// reads it back with `init(decoding:)`, so a field cannot be written one way and read another.
///
/// The keychain's requests are in AppKeychainRequests.swift, the persisted rights' in AppRightRequests.swift.
package typealias AppFieldLimits = [(key: UInt8, limit: Int)]

/// The fields every prompting call carries: the reason, the titles, the reuse duration and how the app may interact.
/// The app never names a user, a state folder or a configuration: the helper takes those itself.
package struct AppPrompt: Equatable, Sendable {
  /// The reason shown on the prompt; nil when the call gave none (a keychain call then uses its own).
  package var reason: String?
  /// LAContext.localizedFallbackTitle.
  package var fallbackTitle: String?
  /// LAContext.localizedCancelTitle.
  package var cancelTitle: String?
  /// Seconds a recent match may be reused (`EvaluationRequest.maximumReuseDuration` at most); 0 is sent as no field.
  package var reuseSeconds: UInt16
  /// LAContext.interactionNotAllowed, or no dialog to show the prompt in.
  package var interactionNotAllowed: Bool
  /// The app shows the request in its own dialog (`LAContext.prompter`).
  package var ownInterface: Bool

  /// Describes a prompt.
  package init(
    reason: String? = nil, fallbackTitle: String? = nil, cancelTitle: String? = nil, reuseSeconds: UInt16 = 0,
    interactionNotAllowed: Bool = false, ownInterface: Bool = false
  ) {
    self.reason = reason
    self.fallbackTitle = fallbackTitle
    self.cancelTitle = cancelTitle
    self.reuseSeconds = reuseSeconds
    self.interactionNotAllowed = interactionNotAllowed
    self.ownInterface = ownInterface
  }

  /// The prompt's fields and their limits.
  static let limits: AppFieldLimits = [
    (AppCall.Key.reason, AppCall.textLimit), (AppCall.Key.fallbackTitle, AppCall.titleLimit),
    (AppCall.Key.cancelTitle, AppCall.titleLimit), (AppCall.Key.reuseSeconds, 2),
    (AppCall.Key.interactionNotAllowed, 0), (AppCall.Key.ownInterface, 0),
  ]

  /// Writes the prompt's fields.
  func encode(into fields: inout AppFields) {
    fields.set(AppCall.Key.reason, optionalText: reason)
    fields.set(AppCall.Key.fallbackTitle, optionalText: fallbackTitle)
    fields.set(AppCall.Key.cancelTitle, optionalText: cancelTitle)
    if reuseSeconds > 0 { fields.set(AppCall.Key.reuseSeconds, integer: reuseSeconds) }
    fields.set(AppCall.Key.interactionNotAllowed, flag: interactionNotAllowed)
    fields.set(AppCall.Key.ownInterface, flag: ownInterface)
  }

  /// Reads the prompt's fields.
  init(decoding fields: AppFields) throws(HelperProtocolError) {
    self.init(
      reason: try fields.text(AppCall.Key.reason), fallbackTitle: try fields.text(AppCall.Key.fallbackTitle),
      cancelTitle: try fields.text(AppCall.Key.cancelTitle),
      reuseSeconds: try fields.integer(AppCall.Key.reuseSeconds, as: UInt16.self) ?? 0,
      interactionNotAllowed: try fields.flag(AppCall.Key.interactionNotAllowed),
      ownInterface: try fields.flag(AppCall.Key.ownInterface))
  }
}

extension AppFields {
  /// The policy field; absent or unknown is malformed.
  func policy() throws(HelperProtocolError) -> AuthPolicy {
    guard let raw = try byte(AppCall.Key.policy), let policy = AuthPolicy(rawValue: Int(raw)) else {
      throw .malformed("a call without a known policy")
    }
    return policy
  }

  /// Writes the policy field.
  mutating func set(policy: AuthPolicy) { set(AppCall.Key.policy, byte: UInt8(policy.rawValue)) }
}

/// LAContext.canEvaluatePolicy (operation 1); the reply is an `AppBiometryReply`, done or refused.
package struct CanEvaluateRequest: Equatable, Sendable {
  /// The policy.
  package var policy: AuthPolicy
  /// Describes the call.
  package init(policy: AuthPolicy) { self.policy = policy }

  static let limits: AppFieldLimits = [(AppCall.Key.policy, 1)]

  /// The call.
  package func encode() -> AppCall {
    var fields = AppFields()
    fields.set(policy: policy)
    return AppCall(.canEvaluate, fields)
  }

  /// Reads the call's fields.
  package init(decoding call: AppCall) throws(HelperProtocolError) { policy = try call.fields.policy() }
}

/// LAContext.evaluatePolicy (operation 2); the reply is an evaluation with an `EvaluationReply`.
package struct EvaluateRequest: Equatable, Sendable {
  /// The policy.
  package var policy: AuthPolicy
  /// The reason, titles, reuse and interaction.
  package var prompt: AppPrompt
  /// Describes the call.
  package init(policy: AuthPolicy, prompt: AppPrompt) {
    self.policy = policy
    self.prompt = prompt
  }

  static let limits: AppFieldLimits = [(AppCall.Key.policy, 1)] + AppPrompt.limits

  /// The call: the policy, then the prompt.
  package func encode() -> AppCall {
    var fields = AppFields()
    fields.set(policy: policy)
    prompt.encode(into: &fields)
    return AppCall(.evaluate, fields)
  }

  /// Reads the call's fields.
  package init(decoding call: AppCall) throws(HelperProtocolError) {
    policy = try call.fields.policy()
    prompt = try AppPrompt(decoding: call.fields)
  }
}

/// LAContext.setCredential(_:type:) (operation 8): the application password, or none to clear it.
package struct ApplicationPasswordRequest: Equatable, Sendable {
  /// The password's bytes, or nil to clear it.
  package var password: [UInt8]?
  /// Describes the call.
  package init(password: [UInt8]?) { self.password = password }

  static let limits: AppFieldLimits = [(AppCall.Key.password, SecretBytes.maximumLength)]

  /// The call.
  package func encode() -> AppCall {
    var fields = AppFields()
    if let password { fields.set(AppCall.Key.password, password) }
    return AppCall(.setApplicationPassword, fields)
  }

  /// Reads the call's fields.
  package init(decoding call: AppCall) { password = call.fields.bytes(AppCall.Key.password) }
}

/// BiometricAuthenticationFacade's flag of one feature (operation 10): read, or set; the reply is a `FeatureReply`.
package struct FeatureRequest: Equatable, Sendable {
  /// The feature's name ("" when the call named none, which the helper refuses).
  package var name: String
  /// nil to read the flag; true to enable, false to disable (which needs this session's evaluation).
  package var enable: Bool?
  /// Describes the call.
  package init(name: String, enable: Bool? = nil) {
    self.name = name
    self.enable = enable
  }

  static let limits: AppFieldLimits = [(AppCall.Key.feature, 64), (AppCall.Key.enable, 1)]

  /// The call: the name, then the enable byte (1 enable, 0 disable) when setting.
  package func encode() -> AppCall {
    var fields = AppFields()
    fields.set(AppCall.Key.feature, text: name)
    if let enable { fields.set(AppCall.Key.enable, byte: enable ? 1 : 0) }
    return AppCall(.feature, fields)
  }

  /// Reads the call's fields; an enable byte other than 1 disables.
  package init(decoding call: AppCall) throws(HelperProtocolError) {
    name = try call.fields.text(AppCall.Key.feature) ?? ""
    enable = try call.fields.byte(AppCall.Key.enable).map { $0 == 1 }
  }
}

/// The reply of canEvaluate (done or refused) and of domainState (operation 3): the biometry type and, when known,
/// the domain state.
package struct AppBiometryReply: Equatable, Sendable {
  /// LABiometryType's raw value (0 none).
  package var biometryType: UInt8
  /// The enrolment's domain state, or nil.
  package var domainState: String?
  /// Describes the reply.
  package init(biometryType: UInt8, domainState: String? = nil) {
    self.biometryType = biometryType
    self.domainState = domainState
  }

  /// The reply's fields.
  package func encode() -> AppFields {
    var fields = AppFields()
    fields.set(AppReply.Key.biometryType, byte: biometryType)
    fields.set(AppReply.Key.domainState, optionalText: domainState)
    return fields
  }

  /// Reads the reply's fields; a field that cannot be read counts as absent (no biometry, no state).
  package init(decoding fields: AppFields) {
    biometryType = ((try? fields.byte(AppReply.Key.biometryType)) ?? nil) ?? 0
    domainState = (try? fields.text(AppReply.Key.domainState)) ?? nil
  }
}

/// What a successful evaluation's reply carries: whether it captured the domain state (a biometric evaluation), and
/// that state.
package struct EvaluationReply: Equatable, Sendable {
  /// True when the app's context now holds `domainState` as its evaluated domain state.
  package var captured: Bool
  /// The domain state captured.
  package var domainState: String?
  /// Describes the reply.
  package init(captured: Bool = false, domainState: String? = nil) {
    self.captured = captured
    self.domainState = domainState
  }

  /// The reply's fields (none when nothing was captured).
  package func encode() -> AppFields {
    var fields = AppFields()
    fields.set(AppReply.Key.captured, flag: captured)
    if captured { fields.set(AppReply.Key.domainState, optionalText: domainState) }
    return fields
  }

  /// Reads the reply's fields; a field that cannot be read counts as absent.
  package init(decoding fields: AppFields) {
    captured = (try? fields.flag(AppReply.Key.captured)) ?? false
    domainState = captured ? ((try? fields.text(AppReply.Key.domainState)) ?? nil) : nil
  }
}

/// A feature call's reply: whether the feature is enabled now.
package struct FeatureReply: Equatable, Sendable {
  /// The flag.
  package var enabled: Bool
  /// Describes the reply.
  package init(enabled: Bool) { self.enabled = enabled }

  /// The reply's fields.
  package func encode() -> AppFields {
    var fields = AppFields()
    fields.set(AppReply.Key.enabled, flag: enabled)
    return fields
  }

  /// Reads the reply's fields; a field that cannot be read counts as not enabled.
  package init(decoding fields: AppFields) { enabled = (try? fields.flag(AppReply.Key.enabled)) ?? false }
}
