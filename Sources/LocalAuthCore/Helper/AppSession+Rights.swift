/// An app's LARightStore calls, served on this session (docs/KEYCHAIN.md, "Persisted rights"): the key pair is
/// made here and its private half never leaves; a secret, a signature or a shared secret is sent back only when
/// what this session's evaluations established satisfies the right's access control, and no call prompts. Replacing
/// or removing a stored right needs the same (issue 27, finding 10).
extension AppSession {
  /// A right store call, on this session's authorization.
  func rightCall(_ call: AppCall) throws(LocalAuthError) -> AppReply {
    guard let keychain = dependencies.keychain else { throw .keychain(.notAvailable("this system has no keychain")) }
    let store = RightStore(keychain: keychain, dependencies: dependencies, settings: options.evaluation)
    let fields = call.fields
    if call.operation == .rightRemoveAll {
      try store.removeAll(for: user, authorization: authorization)
      return .done(AppFields())
    }
    let identifier = try wire { () throws(HelperProtocolError) -> String in
      guard let text = try fields.text(AppCall.Key.identifier) else { throw .malformed("a right call without an identifier") }
      return text
    }
    switch call.operation {
    case .rightSave:
      let requirement = try wire { () throws(HelperProtocolError) -> RightRequirement in
        guard let raw = try fields.byte(AppCall.Key.requirement), let requirement = RightRequirement(rawValue: raw) else {
          throw .malformed("a right without a known requirement")
        }
        return requirement
      }
      let right = try store.save(identifier, requirement: requirement, secret: fields.bytes(AppCall.Key.secret), for: user, authorization: authorization)
      log.log(.info, "App \(application) (pid \(callerPID)) of user \(user) saved the persisted right \(identifier).")
      return .done(AppSession.fields(of: right))
    case .rightFetch:
      return .done(AppSession.fields(of: try store.right(identifier, for: user)))
    case .rightRemove:
      try store.remove(identifier, for: user, authorization: authorization)
      return .done(AppFields())
    case .rightSecret:
      var data = try store.secret(identifier, for: user, authorization: authorization)
      defer { wipe(&data) }
      var item = AppFields()
      item.set(AppCall.Key.data, data)
      try channel.sendItem(AppItem(fields: item))
      return .done(AppFields())
    case .rightSign:
      let raw = try wire { () throws(HelperProtocolError) in try fields.byte(AppCall.Key.algorithm) }
      guard let algorithm = raw.flatMap({ RightKeyAlgorithm(rawValue: $0) }) else {
        throw .helper(.broken(.malformed("a signature without a known algorithm")))
      }
      let signature = try store.sign(
        identifier, algorithm: algorithm, data: fields.bytes(AppCall.Key.data) ?? [], for: user, authorization: authorization)
      var reply = AppFields()
      reply.set(AppReply.Key.output, signature)
      return .done(reply)
    default:
      let shared = try store.exchange(
        identifier, peerPublicKey: fields.bytes(AppCall.Key.peerKey) ?? [], for: user, authorization: authorization)
      defer { shared.wipe() }
      var reply = AppFields()
      reply.set(AppReply.Key.output, shared.bytes)
      return .done(reply)
    }
  }

  /// What the app learns of a stored right: its requirement, public key, bound enrolment and whether a secret exists.
  static func fields(of right: PersistedRight) -> AppFields {
    var fields = AppFields()
    fields.set(AppReply.Key.requirement, byte: right.requirement.rawValue)
    fields.set(AppReply.Key.publicKey, right.publicKey)
    fields.set(AppReply.Key.domainState, optionalText: right.domainState)
    fields.set(AppReply.Key.hasSecret, flag: right.hasSecret)
    return fields
  }
}
