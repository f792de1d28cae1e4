/// An app's LARightStore calls, served on this session (docs/KEYCHAIN.md, "Persisted rights"): the key pair is
/// made here and its private half never leaves; a secret, a signature or a shared secret is sent back only when
/// what this session's evaluations established satisfies the right's access control, and no call prompts. Replacing
/// or removing a stored right needs the same (issue 27, finding 10).
extension AppSession {
  /// A right store call, on this session's authorization.
  func rightCall(_ call: AppCall) throws(LocalAuthError) -> AppReply {
    guard let keychain = dependencies.keychain else { throw .keychain(.notAvailable("this system has no keychain")) }
    let store = RightStore(keychain: keychain, dependencies: dependencies, settings: options.evaluation)
    switch try wire({ () throws(HelperProtocolError) in try AppRightRequest(decoding: call) }) {
    case .removeAll:
      try store.removeAll(for: user, authorization: authorization)
    case .save(let identifier, let requirement, let secret):
      let right = try store.save(identifier, requirement: requirement, secret: secret, for: user, authorization: authorization)
      log.log(.info, "App \(application) (pid \(callerPID)) of user \(user) saved the persisted right \(identifier).")
      return .done(right.replyFields())
    case .fetch(let identifier):
      return .done(try store.right(identifier, for: user).replyFields())
    case .remove(let identifier):
      try store.remove(identifier, for: user, authorization: authorization)
    case .secret(let identifier):
      var data = try store.secret(identifier, for: user, authorization: authorization)
      defer { wipe(&data) }
      var item = AppFields()
      item.set(AppCall.Key.data, data)
      try channel.sendItem(AppItem(fields: item))
    case .sign(let identifier, let algorithm, let data):
      let signature = try store.sign(identifier, algorithm: algorithm, data: data, for: user, authorization: authorization)
      return .done(RightOutputReply(output: signature).encode())
    case .exchange(let identifier, let peer):
      let shared = try store.exchange(identifier, peerPublicKey: peer, for: user, authorization: authorization)
      defer { shared.wipe() }
      return .done(RightOutputReply(output: shared.bytes).encode())
    }
    return .done(AppFields())
  }
}
