import Foundation
import LocalAuthCore
import LocalAuthentication
import Testing

/// LARightStore, LAPersistedRight, LASecret and the right's keys, in-process on a real keychain (docs/RULES.md,
/// "Persisted rights"); the same calls through localauth-helper are IntegrationTests › AppRightStoreTests.
@Suite("LARightStore")
struct LARightStoreTests {
  let message = Data("challenge 42 from the server".utf8)

  @Test("saveRight with a secret, fetched by identifier: after a touch, loadData returns the secret")
  func secretAfterAuthorize() async throws {
    let world = try RightWorld.ready()
    let token = Data("access-token-1234".utf8)
    try await world.run {
      _ = try await LARightStore.shared.saveRight(LARight(), identifier: "access-token", secret: token)
      let right = try await LARightStore.shared.right(forIdentifier: "access-token")
      #expect(right.state == .unknown)
      world.touch()
      try await right.authorize(localizedReason: "use your access token")
      #expect(right.state == .authorized)
      #expect(try await right.secret.rawData == token)
      #expect(try await right.secret.loadData() == token)
      let viaCompletion: Data? = await withCheckedContinuation { continuation in
        right.secret.loadData { data, _ in continuation.resume(returning: data) }
      }
      #expect(viaCompletion == token)
    }
    #expect(world.scripted.pending.isEmpty)
    #expect(!world.log.lines.joined().contains("access-token-1234"))
  }

  @Test("not authorized (never, or deauthorized): loadData, sign and exchangeKeys throw notInteractive and ask nothing")
  func notAuthorized() async throws {
    let world = try RightWorld.ready()
    try await world.run {
      let right = try await LARightStore.shared.saveRight(LARight(), identifier: "vault", secret: Data("s3cret".utf8))
      let peer = try await LARightStore.shared.saveRight(LARight(), identifier: "peer")
      let peerKey = try await peer.key.publicKey.bytes
      world.touch()
      for attempt in ["never authorized", "deauthorized"] {
        let load = await thrown { _ = try await right.secret.rawData }
        #expect(laCode(load) == .notInteractive, "\(attempt)")
        let sign = await thrown { _ = try await right.key.sign(message, algorithm: .ecdsaSignatureMessageX962SHA256) }
        #expect(laCode(sign) == .notInteractive, "\(attempt)")
        let exchange = await thrown {
          _ = try await right.key.exchangeKeys(publicKey: peerKey, algorithm: .ecdhKeyExchangeStandard, parameters: [:])
        }
        #expect(laCode(exchange) == .notInteractive, "\(attempt)")
        #expect(world.scripted.pending.count == 1, "\(attempt): the queued finger was not asked for")
        if attempt == "never authorized" {
          try await right.authorize(localizedReason: "open the vault")
          #expect(try await right.secret.rawData == Data("s3cret".utf8))
          await right.deauthorize()
          world.touch()
        }
      }
    }
  }

  @Test("sign with the private key, verify with the public key; another message or key fails; openssl verifies too")
  func signAndVerify() async throws {
    let world = try RightWorld.ready()
    try await world.run {
      let right = try await LARightStore.shared.saveRight(LARight(), identifier: "server-access")
      let other = try await LARightStore.shared.saveRight(LARight(), identifier: "other")
      world.touch()
      try await right.authorize(localizedReason: "sign in to the server")
      #expect(right.key.canSign(using: .ecdsaSignatureMessageX962SHA256))
      let signature = try await right.key.sign(message, algorithm: .ecdsaSignatureMessageX962SHA256)
      #expect(signature.first == 0x30 && signature.count <= 72)
      try await right.key.publicKey.verify(message, signature: signature, algorithm: .ecdsaSignatureMessageX962SHA256)
      let digest = Data(try Crypto.sha256(Array(message)))
      let byDigest = try await right.key.sign(digest, algorithm: .ecdsaSignatureDigestX962SHA256)
      try await right.key.publicKey.verify(digest, signature: byDigest, algorithm: .ecdsaSignatureDigestX962SHA256)
      try await right.key.publicKey.verify(message, signature: byDigest, algorithm: .ecdsaSignatureMessageX962SHA256)

      let changed = await thrown {
        try await right.key.publicKey.verify(message + [0], signature: signature, algorithm: .ecdsaSignatureMessageX962SHA256)
      }
      #expect((changed as NSError?)?.domain == "NSOSStatusErrorDomain" && (changed as NSError?)?.code == -67808)
      let wrongKey = await thrown {
        try await other.key.publicKey.verify(message, signature: signature, algorithm: .ecdsaSignatureMessageX962SHA256)
      }
      #expect((wrongKey as NSError?)?.code == -67808)

      let exported = try await right.key.publicKey.bytes
      #expect(exported.count == 65 && exported.first == 0x04)
      #expect(try await right.key.publicKey.exportBytes() == exported)
      #expect(try Openssl.verifies(signature: signature, message: message, publicKey: exported))
    }
  }

  @Test("ECDH between two rights' keys agrees, and gives 32 bytes")
  func keyExchange() async throws {
    let world = try RightWorld.ready()
    try await world.run {
      let alice = try await LARightStore.shared.saveRight(LARight(), identifier: "alice-device")
      let bob = try await LARightStore.shared.saveRight(LARight(requirement: .biometry), identifier: "bob-device")
      world.touch()
      try await alice.authorize(localizedReason: "pair the devices")
      world.touch()
      try await bob.authorize(localizedReason: "pair the devices")
      let fromAlice = try await alice.key.exchangeKeys(
        publicKey: try await bob.key.publicKey.bytes, algorithm: .ecdhKeyExchangeStandard, parameters: [:])
      let fromBob = try await bob.key.exchangeKeys(
        publicKey: try await alice.key.publicKey.bytes, algorithm: .ecdhKeyExchangeStandard, parameters: [:])
      #expect(fromAlice == fromBob && fromAlice.count == 32)
      let badPeer = await thrown {
        _ = try await alice.key.exchangeKeys(publicKey: Data([4, 1, 2]), algorithm: .ecdhKeyExchangeStandard, parameters: [:])
      }
      #expect((badPeer as NSError?)?.domain == "NSOSStatusErrorDomain" && (badPeer as NSError?)?.code == -50)
    }
  }

  @Test("removeRight and removeRight(forIdentifier:) remove key and secret; right(forIdentifier:) then throws invalidContext")
  func remove() async throws {
    let world = try RightWorld.ready()
    try await world.run {
      let store = LARightStore.shared
      let first = try await store.saveRight(LARight(), identifier: "first", secret: Data("one".utf8))
      _ = try await store.saveRight(LARight(), identifier: "second", secret: Data("two".utf8))
      _ = try await store.saveRight(LARight(), identifier: "third")
      #expect(try world.rightItems.count == 3 + 3 + 2)
      // Removing a right needs an evaluation satisfying it (issue 27, finding 10): the store asks for a touch.
      world.touch()
      try await store.removeRight(first)
      #expect(laCode(await thrown { _ = try await store.right(forIdentifier: "first") }) == .invalidContext)
      world.touch()
      try await store.removeRight(forIdentifier: "second")
      #expect(laCode(await thrown { _ = try await store.right(forIdentifier: "second") }) == .invalidContext)
      #expect(laCode(await thrown { try await store.removeRight(forIdentifier: "second") }) == .invalidContext)
      #expect(try world.rightItems.map(\.service) == ["third", "third"])
      // The removed right's key is gone with it, even for the instance still held and authorized.
      world.touch()
      try await first.authorize(localizedReason: "sign")
      let sign = await thrown { _ = try await first.key.sign(message, algorithm: .ecdsaSignatureMessageX962SHA256) }
      #expect(laCode(sign) == .invalidContext)
      world.touch()
      try await store.removeAllRights()
      #expect(try world.rightItems.isEmpty)
      try await store.removeAllRights()
      #expect(laCode(await thrown { _ = try await store.right(forIdentifier: "never saved") }) == .invalidContext)
    }
  }

  @Test("biometryCurrentSet: after a new enrolment the right cannot be authorized, and the store no longer has it")
  func biometryCurrentSet() async throws {
    let world = try RightWorld.ready()
    try await world.run {
      let saved = try await LARightStore.shared.saveRight(
        LARight(requirement: .biometryCurrentSet), identifier: "bound", secret: Data("bound secret".utf8))
      world.touch()
      try await saved.authorize(localizedReason: "open the vault")
      #expect(try await saved.secret.rawData == Data("bound secret".utf8))
      await saved.deauthorize()

      try world.enroll("left-thumb")
      try world.unlockWithPasscode()
      world.touch()
      let refused = await thrown { try await saved.authorize(localizedReason: "open the vault") }
      #expect(laCode(refused) == .biometryNotEnrolled)
      #expect(world.scripted.pending.count == 1)  // refused without a prompt
      let gone = await thrown { _ = try await LARightStore.shared.right(forIdentifier: "bound") }
      #expect(laCode(gone) == .invalidContext)
      #expect(try world.rightItems.isEmpty)
      #expect(world.log.lines.contains { $0.contains("enrolled set changed") })
    }
  }

  @Test("each requirement gives the key and secret its access control; the passcode opens biometry(fallback: .devicePasscode)")
  func requirementsAndAccessControl() async throws {
    let world = try RightWorld.ready()
    let cases: [(String, LAAuthenticationRequirement, KeychainAccessFlags)] = [
      ("default", .default, .userPresence), ("biometry", .biometry, .biometryAny),
      ("current", .biometryCurrentSet, .biometryCurrentSet),
      ("fallback", .biometry(fallback: .devicePasscode), [.biometryAny, .devicePasscode, .or]),
    ]
    try await world.run {
      for (identifier, requirement, flags) in cases {
        _ = try await LARightStore.shared.saveRight(LARight(requirement: requirement), identifier: identifier, secret: Data("x".utf8))
        let items = try world.rightItems.filter { $0.service == identifier }
        #expect(items.first { $0.account == "key" }?.flags == flags, "\(identifier)")
        #expect(items.first { $0.account == "secret" }?.flags == flags, "\(identifier)")
        #expect(items.first { $0.account == "right" }?.flags == nil, "\(identifier)")
        let fetched = try await LARightStore.shared.right(forIdentifier: identifier)
        #expect(fetched.state == .unknown, "\(identifier)")
      }
      // Authorized by the passcode (a wrong finger, then the fallback button: rule 3): the evaluation established
      // the passcode, which the key's `.or` branch accepts.
      let fallback = try await LARightStore.shared.right(forIdentifier: "fallback")
      world.impostor()
      world.scripted.enqueue(.fallback)
      world.prompter.enqueue("1234")
      try await fallback.authorize(localizedReason: "open with the passcode")
      #expect(try await fallback.secret.rawData == Data("x".utf8))
      // A `.biometry` right is opened by a match, never by what a passcode established.
      let biometric = try await LARightStore.shared.right(forIdentifier: "biometry")
      world.touch()
      try await biometric.authorize(localizedReason: "open with the finger")
      #expect(try await biometric.secret.rawData == Data("x".utf8))
      let store = RightStore(keychain: world.keychain, dependencies: world.dependencies, settings: world.settings)
      let byPasscode = KeychainAuthorization(passcode: SecretBytes("1234"))
      #expect(throws: LocalAuthError.keychain(.interactionNotAllowed)) {
        _ = try store.secret("biometry", for: try world.userName, authorization: byPasscode)
      }
      #expect(try store.secret("fallback", for: try world.userName, authorization: byPasscode) == Array("x".utf8))
    }
  }

  @Test("apps' keychain queries do not see the reserved group, and cannot name it (errSecParam)")
  func reservedGroup() async throws {
    let world = try RightWorld.ready()
    try await world.run { _ = try await LARightStore.shared.saveRight(LARight(), identifier: "hidden", secret: Data("h".utf8)) }
    let user = try world.userName
    #expect(try world.keychain.matching(Keychain.Query(), for: user).isEmpty)
    #expect(try world.keychain.matching(Keychain.Query(service: "hidden"), for: user).isEmpty)
    #expect(try world.keychain.matching(Keychain.Query(includesReservedGroups: true), for: user).count == 3)
    let operations = KeychainOperations(keychain: world.keychain, dependencies: world.dependencies, settings: world.settings)
    var authorization = KeychainAuthorization(biometry: true)
    let request = EvaluationRequest(user: user, policy: .deviceOwnerAuthentication, reason: "read")
    #expect(throws: LocalAuthError.keychain(.parameter("the access group \(RightStore.accessGroup) is reserved for LARightStore"))) {
      _ = try operations.copy(
        Keychain.Query(service: "hidden", accessGroup: RightStore.accessGroup), returnData: true, all: true, mode: .allow,
        request: request, authorization: &authorization)
    }
    #expect(throws: LocalAuthError.keychain(.itemNotFound)) { try operations.delete(Keychain.Query(), user: user) }
    #expect(try world.rightItems.count == 3)
  }

  @Test("algorithms: P-256 ECDSA-SHA256 and ECDH only; others and a short digest errSecParam (-50), as SecKey reports them")
  func algorithms() async throws {
    let world = try RightWorld.ready()
    try await world.run {
      let right = try await LARightStore.shared.saveRight(LARight(), identifier: "algorithms")
      let key = right.key
      #expect(key.canSign(using: .ecdsaSignatureDigestX962SHA256) && !key.canSign(using: .ecdhKeyExchangeStandard))
      #expect(key.canExchangeKeys(using: .ecdhKeyExchangeStandard) && !key.canExchangeKeys(using: .ecdsaSignatureMessageX962SHA256))
      #expect(!key.canDecrypt(using: .eciesEncryptionStandardX963SHA256AESGCM))
      #expect(key.publicKey.canVerify(using: .ecdsaSignatureMessageX962SHA256))
      #expect(!key.publicKey.canEncrypt(using: .eciesEncryptionStandardX963SHA256AESGCM))
      world.touch()
      try await right.authorize(localizedReason: "sign")
      let rsa = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PKCS1v15:SHA256")
      let ecies = SecKeyAlgorithm.eciesEncryptionStandardX963SHA256AESGCM
      let sign = await thrown { _ = try await key.sign(message, algorithm: rsa) }
      let encrypt = await thrown { _ = try await key.publicKey.encrypt(message, algorithm: ecies) }
      let decrypt = await thrown { _ = try await key.decrypt(message, algorithm: ecies) }
      let verify = await thrown { try await key.publicKey.verify(message, signature: Data(), algorithm: rsa) }
      for (name, error) in [("sign", sign), ("encrypt", encrypt), ("decrypt", decrypt), ("verify", verify)] {
        let status = error as NSError?
        #expect(status?.domain == "NSOSStatusErrorDomain" && status?.code == -50, "\(name)")
        #expect(status?.localizedDescription.hasSuffix("algorithm not supported by the key") == true, "\(name)")
      }
      let short = await thrown { _ = try await key.sign(Data([1, 2, 3]), algorithm: .ecdsaSignatureDigestX962SHA256) }
      #expect((short as NSError?)?.code == -50)
    }
  }

  @Test("saving replaces a right under the same identifier; no secret: loadData invalidContext; biometryCurrentSet needs a finger")
  func saveRules() async throws {
    let world = try RightWorld.ready()
    try await world.run {
      let first = try await LARightStore.shared.saveRight(LARight(), identifier: "same", secret: Data("old".utf8))
      world.touch()
      let second = try await LARightStore.shared.saveRight(LARight(), identifier: "same")
      #expect(try await first.key.publicKey.bytes != second.key.publicKey.bytes)
      #expect(try world.rightItems.count == 2)
      world.touch()
      try await second.authorize(localizedReason: "read")
      #expect(laCode(await thrown { _ = try await second.secret.rawData }) == .invalidContext)
      let fetched = try await LARightStore.shared.right(forIdentifier: "same")
      #expect(try await fetched.key.publicKey.bytes == second.key.publicKey.bytes)
    }
    let bare = try RightWorld()
    try bare.administration.setPasscode(SecretBytes("1234"), for: try bare.userName)
    let refused = await bare.run {
      await thrown { _ = try await LARightStore.shared.saveRight(LARight(requirement: .biometryCurrentSet), identifier: "bound") }
    }
    #expect(laCode(refused) == .biometryNotEnrolled)
    #expect(try bare.rightItems.isEmpty)
  }

  @Test("the completion forms of the store call back once, on a background thread")
  func completionForms() async throws {
    let world = try RightWorld.ready()
    let configuration = world.configuration
    let saved: (LAPersistedRight?, (any Error)?) = await withCheckedContinuation { continuation in
      LAContext.$defaultConfiguration.withValue(configuration) {
        LARightStore.shared.saveRight(LARight(), identifier: "completion", secret: Data("c".utf8)) {
          continuation.resume(returning: ($0, $1))
        }
      }
    }
    #expect(saved.0 != nil && saved.1 == nil)
    let fetched: (LAPersistedRight?, (any Error)?) = await withCheckedContinuation { continuation in
      LAContext.$defaultConfiguration.withValue(configuration) {
        LARightStore.shared.right(forIdentifier: "completion") { continuation.resume(returning: ($0, $1)) }
      }
    }
    #expect(fetched.0 != nil)
    world.touch()
    let removed: (any Error)? = await withCheckedContinuation { continuation in
      LAContext.$defaultConfiguration.withValue(configuration) {
        LARightStore.shared.removeAllRights { continuation.resume(returning: $0) }
      }
    }
    #expect(removed == nil)
    #expect(try world.rightItems.isEmpty)
  }

  /// Issue 27, finding 10: replacing a stored right, removing it or removing all need an evaluation satisfying
  /// the stored right; refused (here: the prompt is cancelled), the right and its secret stay as they were.
  @Test("replacing or removing a right without an evaluation satisfying it fails and changes nothing; with one it works")
  func replacingAndRemovingNeedAnEvaluation() async throws {
    let world = try RightWorld.ready()
    try await world.run {
      let store = LARightStore.shared
      let saved = try await store.saveRight(LARight(requirement: .biometry), identifier: "bound", secret: Data("old".utf8))
      let before = try await saved.key.publicKey.bytes
      let items = try world.rightItems.count
      world.cancel()
      #expect(laCode(await thrown { _ = try await store.saveRight(LARight(), identifier: "bound", secret: Data("new".utf8)) }) == .userCancel)
      world.cancel()
      #expect(laCode(await thrown { try await store.removeRight(forIdentifier: "bound") }) == .userCancel)
      world.cancel()
      #expect(laCode(await thrown { try await store.removeRight(saved) }) == .userCancel)
      world.cancel()
      #expect(laCode(await thrown { try await store.removeAllRights() }) == .userCancel)
      #expect(try world.rightItems.count == items)
      let fetched = try await store.right(forIdentifier: "bound")
      #expect(try await fetched.key.publicKey.bytes == before, "the right is unchanged")
      world.touch()
      try await fetched.authorize(localizedReason: "read")
      #expect(try await fetched.secret.rawData == Data("old".utf8))

      // An authorized right is removed on its own authorization, with no further prompt.
      try await store.removeRight(fetched)
      #expect(laCode(await thrown { _ = try await store.right(forIdentifier: "bound") }) == .invalidContext)
      #expect(world.scripted.pending.isEmpty)
    }
  }
}
