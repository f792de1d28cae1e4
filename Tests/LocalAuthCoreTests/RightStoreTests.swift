import Foundation
import LocalAuthTestSupport
@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// The core of LARightStore (docs/KEYCHAIN.md, "Persisted rights"): the app calls' fields and limits, the record,
/// and what the store does with a damaged right. The API's behaviour is LocalAuthenticationTests › LARightStoreTests.
@Suite("RightStore")
struct RightStoreTests {
  static func roundTrip(_ message: HelperMessage) throws -> HelperMessage {
    let bytes = message.encode()
    return try HelperMessage.decode(tag: bytes[0], payload: Array(bytes.dropFirst(3)))
  }

  static func call(_ operation: AppCall.Operation, _ fields: [(UInt8, [UInt8])]) -> HelperMessage {
    var all = AppFields()
    for (key, value) in fields { all.set(key, value) }
    return .call(AppCall(operation, all))
  }

  @Test("every right call and reply survives the wire")
  func roundTrips() throws {
    let name = Array("server-access".utf8)
    let messages: [HelperMessage] = [
      Self.call(.rightSave, [(AppCall.Key.identifier, name), (AppCall.Key.requirement, [2]), (AppCall.Key.secret, [1, 2, 3])]),
      Self.call(.rightSave, [(AppCall.Key.identifier, name), (AppCall.Key.requirement, [0])]),
      Self.call(.rightFetch, [(AppCall.Key.identifier, name)]), Self.call(.rightRemove, [(AppCall.Key.identifier, name)]),
      Self.call(.rightRemoveAll, []), Self.call(.rightSecret, [(AppCall.Key.identifier, name)]),
      Self.call(.rightSign, [(AppCall.Key.identifier, name), (AppCall.Key.algorithm, [1]), (AppCall.Key.data, Array(repeating: 7, count: 16 * 1024))]),
      Self.call(.rightExchange, [(AppCall.Key.identifier, name), (AppCall.Key.peerKey, [4] + Array(repeating: 1, count: 64))]),
      .reply(.done(PersistedRight(
        identifier: "x", requirement: .biometryCurrentSet, publicKey: [4] + Array(repeating: 9, count: 64),
        domainState: String(repeating: "ab", count: 32), hasSecret: true).replyFields())),
      .reply(.done({ var fields = AppFields(); fields.set(AppReply.Key.output, Array(repeating: 0x30, count: 72)); return fields }())),
    ]
    for message in messages { #expect(try Self.roundTrip(message) == message) }
  }

  @Test("a right call with a field it does not take, or over its limit, is refused as malformed")
  func limits() {
    let name = Array("id".utf8)
    let refused: [(HelperMessage, String)] = [
      (Self.call(.rightFetch, [(AppCall.Key.identifier, Array(repeating: 0x61, count: 513))]), "identifier over 512 bytes"),
      (Self.call(.rightSecret, [(AppCall.Key.identifier, name), (AppCall.Key.reason, Array("read".utf8))]), "a reason"),
      (Self.call(.rightSecret, [(AppCall.Key.identifier, name), (AppCall.Key.returnData, [])]), "a keychain query field"),
      (Self.call(.rightFetch, [(AppCall.Key.identifier, name), (AppCall.Key.accessGroup, Array("g".utf8))]), "an access group"),
      (Self.call(.rightSign, [(AppCall.Key.identifier, name), (AppCall.Key.algorithm, [1, 1])]), "a 2-byte algorithm"),
      (Self.call(.rightSign, [(AppCall.Key.identifier, name), (AppCall.Key.data, Array(repeating: 0, count: 16 * 1024 + 1))]), "data over 16 KiB"),
      (Self.call(.rightExchange, [(AppCall.Key.identifier, name), (AppCall.Key.peerKey, Array(repeating: 4, count: 66))]), "a 66-byte peer key"),
      (Self.call(.rightRemoveAll, [(AppCall.Key.identifier, name)]), "removeAll with an identifier"),
      (Self.call(.rightSave, [(AppCall.Key.identifier, name), (AppCall.Key.data, [1])]), "a secret in the data field"),
    ]
    for (message, why) in refused {
      #expect(throws: HelperProtocolError.self, "\(why)") { try Self.roundTrip(message) }
    }
  }

  @Test("each requirement's access control is valid, and the record survives encode and decode")
  func requirementsAndRecord() {
    for requirement in RightRequirement.allCases {
      #expect(requirement.flags.validationProblem() == nil, "\(requirement)")
      let right = PersistedRight(
        identifier: "r", requirement: requirement, publicKey: [4] + Array(repeating: 3, count: 64),
        domainState: requirement == .biometryCurrentSet ? "abcd" : nil, hasSecret: requirement == .biometry)
      #expect(PersistedRight.decodeRecord(right.encodedRecord(), identifier: "r", domainState: "abcd") == right)
    }
    let damaged: [String] = [
      "", "localauth-right 2\nrequirement 0\npublic \(String(repeating: "04", count: 65))\nsecret 0\n",
      "localauth-right 1\nrequirement 9\npublic \(String(repeating: "04", count: 65))\nsecret 0\n",
      "localauth-right 1\nrequirement 0\npublic 0401\nsecret 0\n",
      "localauth-right 1\nrequirement 0\npublic \(String(repeating: "04", count: 65))\nsecret 2\n",
      "localauth-right 1\nrequirement 0\nrequirement 1\npublic \(String(repeating: "04", count: 65))\nsecret 0\n",
    ]
    for text in damaged { #expect(PersistedRight.decodeRecord(Array(text.utf8), identifier: "r", domainState: nil) == nil, "\(text)") }
  }

  @Test("a right missing its key item is removed as damaged and reported missing, with one log line")
  func damagedRight() throws {
    let root = try TemporaryFolder.make("/tmp/localauth-rightstore.XXXXXX")
    defer { TemporaryFolder.remove(root) }
    let clock = ManualClock()
    let log = MemoryLog()
    let keychain = Keychain(root: root, tcti: nil, clock: clock)
    let dependencies = Dependencies(
      clock: clock, store: FileStateStore(root: root), sensor: ScriptedSensor(modality: .touchID, clock: clock),
      prompter: ScriptedPrompter(), log: log, keychain: keychain)
    var settings = EvaluationSettings()
    settings.hasher = PasscodeHasher(cost: 1)
    let store = RightStore(keychain: keychain, dependencies: dependencies, settings: settings)
    let user = try UserName("alice")
    let saved = try store.save(
      "partial", requirement: .userPresence, secret: Array("s".utf8), for: user, authorization: KeychainAuthorization())
    #expect(try store.right("partial", for: user) == saved)
    try keychain.delete(Keychain.Query(service: "partial", account: "key", accessGroup: RightStore.accessGroup), for: user)
    #expect(throws: LocalAuthError.keychain(.itemNotFound)) { try store.right("partial", for: user) }
    #expect(try keychain.items(for: user).isEmpty)
    #expect(log.lines.filter { $0.contains("incomplete or damaged") }.count == 1)
    #expect(throws: LocalAuthError.keychain(.parameter("a right's identifier must be 1 to 512 bytes without control characters"))) {
      try store.right("bad\nname", for: user)
    }
  }

  /// Issue 27, finding 10: replacing (rightSave over an existing identifier) or removing (rightRemove,
  /// rightRemoveAll) a stored right needs an authorization that satisfies it; without one nothing changes.
  @Test("replacing or removing a right needs an authorization satisfying it; without one the right is unchanged")
  func replacingAndRemovingNeedAuthorization() throws {
    let root = try TemporaryFolder.make("/tmp/localauth-rightstore.XXXXXX")
    defer { TemporaryFolder.remove(root) }
    let clock = ManualClock()
    let keychain = Keychain(root: root, tcti: nil, clock: clock)
    let dependencies = Dependencies(
      clock: clock, store: FileStateStore(root: root), sensor: ScriptedSensor(modality: .touchID, clock: clock),
      prompter: ScriptedPrompter(), log: MemoryLog(), keychain: keychain)
    var settings = EvaluationSettings()
    settings.hasher = PasscodeHasher(cost: 1)
    let store = RightStore(keychain: keychain, dependencies: dependencies, settings: settings)
    let user = try UserName("alice")
    let none = KeychainAuthorization()
    let touched = KeychainAuthorization(biometry: true, domainState: nil, passcode: nil)
    let vault = try store.save("vault", requirement: .userPresence, secret: Array("old".utf8), for: user, authorization: none)
    _ = try store.save("other", requirement: .biometry, secret: nil, for: user, authorization: none)
    let refused = LocalAuthError.keychain(.interactionNotAllowed)

    #expect(throws: refused) { try store.save("vault", requirement: .userPresence, secret: Array("new".utf8), for: user, authorization: none) }
    #expect(throws: refused) { try store.remove("vault", for: user, authorization: none) }
    #expect(throws: refused) { try store.removeAll(for: user, authorization: none) }
    #expect(try store.right("vault", for: user) == vault, "the right is unchanged")
    #expect(try store.secret("vault", for: user, authorization: touched) == Array("old".utf8))
    #expect(try keychain.items(for: user).count == 5)

    let replaced = try store.save("vault", requirement: .userPresence, secret: Array("new".utf8), for: user, authorization: touched)
    #expect(replaced.publicKey != vault.publicKey)
    #expect(try store.secret("vault", for: user, authorization: touched) == Array("new".utf8))
    try store.remove("vault", for: user, authorization: touched)
    #expect(throws: LocalAuthError.keychain(.itemNotFound)) { try store.right("vault", for: user) }
    #expect(try store.removeAll(for: user, authorization: touched) == 2)
    #expect(try keychain.items(for: user).isEmpty)
  }
}
