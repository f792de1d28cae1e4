@testable import LocalAuthCore
import Testing

/// The typed requests and replies (AppRequests.swift, AppKeychainRequests.swift, AppRightRequests.swift): one
/// description per operation, written by the client and read by the helper. Each writes the fields the client's
/// builders wrote before, in the same order (the evaluate call as the recorded frame has it), accepts the same
/// fields with the same limits, and reads back what it wrote.
@Suite("App requests: one type per operation")
struct AppRequestsTests {
  typealias Key = AppCall.Key

  static func text(_ s: String) -> [UInt8] { Array(s.utf8) }

  static func call(_ operation: AppCall.Operation, _ pairs: [(UInt8, [UInt8])]) -> AppCall {
    var fields = AppFields()
    for (key, value) in pairs { fields.set(key, value) }
    return AppCall(operation, fields)
  }

  /// Sends `call` through the codec as the channel does and returns what the helper reads.
  static func sent(_ call: AppCall) throws -> AppCall {
    let bytes = HelperMessage.call(call).encode()
    guard case .call(let read) = try HelperMessage.decode(tag: bytes[0], payload: Array(bytes.dropFirst(3))) else {
      Issue.record("not a call")
      return call
    }
    return read
  }

  static let prompt = AppPrompt(
    reason: "read your notes", fallbackTitle: "Use Passcode", cancelTitle: "Not now", reuseSeconds: 300,
    interactionNotAllowed: true, ownInterface: true)
  static let promptFields: [(UInt8, [UInt8])] = [
    (Key.reason, text("read your notes")), (Key.fallbackTitle, text("Use Passcode")), (Key.cancelTitle, text("Not now")),
    (Key.reuseSeconds, [0x01, 0x2c]), (Key.interactionNotAllowed, []), (Key.ownInterface, []),
  ]

  static var query: Keychain.Query {
    var query = Keychain.Query(service: "notes", account: "alice", label: "Notes key", accessGroup: "com.example.notes")
    query.itemClass = .internetPassword
    query.caseInsensitive = true
    query.id = "000102030405060708090a0b0c0d0e0f"
    return query
  }
  static let queryFields: [(UInt8, [UInt8])] = [
    (Key.service, text("notes")), (Key.account, text("alice")), (Key.label, text("Notes key")),
    (Key.accessGroup, text("com.example.notes")), (Key.itemClass, text("inet")), (Key.caseInsensitive, []),
    (Key.reference, text("inet") + Array(0...15)),
  ]

  @Test("the evaluate call writes the recorded frame: policy, reason, reuse 300 s")
  func evaluateFrame() throws {
    let call = EvaluateRequest(policy: .deviceOwnerAuthentication, prompt: AppPrompt(reason: "unlock", reuseSeconds: 300))
    #expect(HelperMessage.call(call.encode()).encode() == HelperWireFramesTests.bytes("0500130201000102020006756e6c6f636b050002012c"))
    #expect(try EvaluateRequest(decoding: Self.sent(call.encode())) == call)
    let full = EvaluateRequest(policy: .deviceOwnerAuthenticationWithBiometrics, prompt: Self.prompt)
    #expect(full.encode() == Self.call(.evaluate, [(Key.policy, [1])] + Self.promptFields))
    #expect(try EvaluateRequest(decoding: Self.sent(full.encode())) == full)
  }

  @Test("each LAContext call writes the fields the client wrote before and reads back what it wrote")
  func contextCalls() throws {
    let can = CanEvaluateRequest(policy: .deviceOwnerAuthenticationWithBiometrics)
    #expect(can.encode() == Self.call(.canEvaluate, [(Key.policy, [1])]))
    #expect(try CanEvaluateRequest(decoding: Self.sent(can.encode())) == can)
    let password = ApplicationPasswordRequest(password: Self.text("hunter2"))
    #expect(password.encode() == Self.call(.setApplicationPassword, [(Key.password, Self.text("hunter2"))]))
    #expect(ApplicationPasswordRequest(decoding: try Self.sent(password.encode())) == password)
    #expect(ApplicationPasswordRequest(password: nil).encode() == AppCall(.setApplicationPassword))
    for enable: Bool? in [nil, true, false] {
      let feature = FeatureRequest(name: "sudo", enable: enable)
      let expected: [(UInt8, [UInt8])] = [(Key.feature, Self.text("sudo"))] + (enable.map { [(Key.enable, [$0 ? 1 : 0])] } ?? [])
      #expect(feature.encode() == Self.call(.feature, expected))
      #expect(try FeatureRequest(decoding: Self.sent(feature.encode())) == feature)
    }
  }

  @Test("each keychain call writes the prompt, the query, then its own fields, and reads back what it wrote")
  func keychainCalls() throws {
    let add = KeychainAddRequest(
      query: Self.query, prompt: Self.prompt, accessibility: .whenPasscodeSetThisDeviceOnly, flags: .biometryAny,
      data: [0, 1, 0xff])
    #expect(
      add.encode() == Self.call(.keychainAdd, Self.promptFields + Self.queryFields + [
        (Key.accessibility, Self.text("akpu")), (Key.accessFlags, WireIntegers.bytes(UInt64(KeychainAccessFlags.biometryAny.rawValue))),
        (Key.data, [0, 1, 0xff]),
      ]))
    let readAdd = try KeychainAddRequest(decoding: Self.sent(add.encode()))
    #expect(readAdd.query == Self.query && readAdd.prompt == Self.prompt && readAdd.data == [0, 1, 0xff])
    #expect(readAdd.accessibility == .whenPasscodeSetThisDeviceOnly && readAdd.flags == .biometryAny)

    let copy = KeychainCopyRequest(
      query: Self.query, prompt: AppPrompt(), returnData: true, returnAttributes: false, matchAll: true, mode: .skip)
    #expect(
      copy.encode() == Self.call(.keychainCopy, Self.queryFields + [(Key.returnData, []), (Key.matchAll, []), (Key.interface, [2])]))
    let readCopy = try KeychainCopyRequest(decoding: Self.sent(copy.encode()))
    #expect(readCopy.query == Self.query && readCopy.returnData && !readCopy.returnAttributes && readCopy.matchAll)
    #expect(readCopy.mode == .skip)

    var changes = Keychain.Changes(label: "renamed", accessibility: .whenUnlocked, flags: .some(nil), data: [9])
    changes.account = "bob"
    let update = KeychainUpdateRequest(query: Keychain.Query(service: "notes"), prompt: AppPrompt(reason: "rename"), changes: changes)
    #expect(
      update.encode() == Self.call(.keychainUpdate, [
        (Key.reason, Self.text("rename")), (Key.service, Self.text("notes")), (Key.newData, [9]),
        (Key.newLabel, Self.text("renamed")), (Key.newAccount, Self.text("bob")), (Key.newAccessibility, Self.text("ak")),
        (Key.newAccessFlags, []),
      ]))
    let readUpdate = try KeychainUpdateRequest(decoding: Self.sent(update.encode()))
    #expect(readUpdate.changes.label == "renamed" && readUpdate.changes.account == "bob" && readUpdate.changes.data == [9])
    #expect(readUpdate.changes.accessibility == .whenUnlocked)
    #expect(readUpdate.changes.flags.map { $0 == nil } == true)

    let delete = KeychainDeleteRequest(query: Self.query)
    #expect(delete.encode() == Self.call(.keychainDelete, Self.queryFields))
    #expect(try KeychainDeleteRequest(decoding: Self.sent(delete.encode())).query == Self.query)
  }

  @Test("a persistent reference of another class than the query's is read as one that matches nothing")
  func referenceOfAnotherClass() throws {
    let call = Self.call(.keychainDelete, [(Key.itemClass, Self.text("genp")), (Key.reference, Self.text("inet") + Array(0...15))])
    let query = try KeychainDeleteRequest(decoding: Self.sent(call)).query
    #expect(query.itemClass == .internetPassword && query.id == "-")
  }

  @Test("each right call writes its own fields, then the identifier, and reads back what it wrote")
  func rightCalls() throws {
    let peer = [4] + [UInt8](repeating: 7, count: 64)
    let cases: [(AppRightRequest, [(UInt8, [UInt8])])] = [
      (.save("vault", .biometry, Self.text("s3cret")), [(Key.requirement, [1]), (Key.secret, Self.text("s3cret"))]),
      (.save("vault", .userPresence, nil), [(Key.requirement, [0])]),
      (.fetch("vault"), []), (.remove("vault"), []), (.secret("vault"), []),
      (.sign("vault", .ecdsaSignatureDigestX962SHA256, [1, 2]), [(Key.algorithm, [2]), (Key.data, [1, 2])]),
      (.exchange("vault", peer), [(Key.peerKey, peer)]),
    ]
    for (request, own) in cases {
      #expect(request.encode() == Self.call(request.operation, own + [(Key.identifier, Self.text("vault"))]), "\(request)")
      #expect(try AppRightRequest(decoding: Self.sent(request.encode())) == request, "\(request)")
    }
    #expect(AppRightRequest.removeAll.encode() == AppCall(.rightRemoveAll))
    #expect(try AppRightRequest(decoding: Self.sent(AppCall(.rightRemoveAll))) == .removeAll)
  }

  @Test("the client's checks: what the helper would refuse is errSecParam before anything is sent")
  func rightChecks() {
    #expect(throws: KeychainError.self) { try AppRightRequest.fetch("").check() }
    #expect(throws: KeychainError.self) {
      try AppRightRequest.save("vault", .biometry, [UInt8](repeating: 0, count: KeychainItem.maximumDataSize + 1)).check()
    }
    #expect(throws: KeychainError.self) {
      try AppRightRequest.sign("vault", .ecdsaSignatureMessageX962SHA256, [UInt8](repeating: 0, count: RightStore.maximumMessageSize + 1)).check()
    }
    #expect(throws: KeychainError.self) { try AppRightRequest.exchange("vault", [4]).check() }
    #expect(throws: Never.self) { try AppRightRequest.removeAll.check() }
    #expect(throws: Never.self) { try AppRightRequest.exchange("vault", [4] + [UInt8](repeating: 7, count: 64)).check() }
  }

  @Test("a call missing what its operation needs is malformed when read")
  func malformed() {
    #expect(throws: HelperProtocolError.self) { try EvaluateRequest(decoding: AppCall(.evaluate)) }
    #expect(throws: HelperProtocolError.self) { try CanEvaluateRequest(decoding: Self.call(.canEvaluate, [(Key.policy, [3])])) }
    #expect(throws: HelperProtocolError.self) { try KeychainAddRequest(decoding: Self.call(.keychainAdd, [(Key.service, Self.text("s"))])) }
    #expect(throws: HelperProtocolError.self) { try KeychainCopyRequest(decoding: Self.call(.keychainCopy, [(Key.interface, [3])])) }
    #expect(throws: HelperProtocolError.self) { try KeychainDeleteRequest(decoding: Self.call(.keychainDelete, [(Key.itemClass, Self.text("xxxx"))])) }
    #expect(throws: HelperProtocolError.self) { try AppRightRequest(decoding: Self.call(.rightFetch, [])) }
    #expect(throws: HelperProtocolError.self) { try AppRightRequest(decoding: Self.call(.rightSave, [(Key.identifier, Self.text("v"))])) }
    #expect(throws: HelperProtocolError.self) {
      try AppRightRequest(decoding: Self.call(.rightSign, [(Key.identifier, Self.text("v")), (Key.algorithm, [9])]))
    }
  }

  /// Version 2's field table as `AppCall.allowed` spelled it before the typed requests: keys and limits per operation.
  static func versionTwoTable(_ operation: AppCall.Operation) -> [(key: UInt8, limit: Int)] {
    let text = AppCall.textLimit
    let prompt: [(key: UInt8, limit: Int)] = [
      (Key.reason, text), (Key.fallbackTitle, 128), (Key.cancelTitle, 128), (Key.reuseSeconds, 2),
      (Key.interactionNotAllowed, 0), (Key.ownInterface, 0),
    ]
    let query: [(key: UInt8, limit: Int)] = [
      (Key.service, text), (Key.account, text), (Key.label, text), (Key.accessGroup, text),
      (Key.itemClass, 4), (Key.attributes, 2048), (Key.caseInsensitive, 0), (Key.reference, 20),
    ]
    let identifier = RightStore.maximumIdentifierLength
    switch operation {
    case .canEvaluate: return [(Key.policy, 1)]
    case .evaluate: return [(Key.policy, 1)] + prompt
    case .domainState, .endReuseWindow, .rightRemoveAll: return []
    case .keychainAdd: return query + prompt + [(Key.accessibility, 64), (Key.accessFlags, 8), (Key.data, 16384)]
    case .keychainCopy: return query + prompt + [(Key.returnData, 0), (Key.returnAttributes, 0), (Key.matchAll, 0), (Key.interface, 1)]
    case .keychainUpdate:
      return query + prompt + [
        (Key.newData, 16384), (Key.newLabel, text), (Key.newAttributes, 2048), (Key.newService, text),
        (Key.newAccount, text), (Key.newAccessGroup, text), (Key.newAccessibility, 64), (Key.newAccessFlags, 8),
      ]
    case .keychainDelete: return query
    case .setApplicationPassword: return [(Key.password, 511)]
    case .feature: return [(Key.feature, 64), (Key.enable, 1)]
    case .rightSave: return [(Key.identifier, identifier), (Key.requirement, 1), (Key.secret, 16384)]
    case .rightFetch, .rightRemove, .rightSecret: return [(Key.identifier, identifier)]
    case .rightSign: return [(Key.identifier, identifier), (Key.algorithm, 1), (Key.data, 16384)]
    case .rightExchange: return [(Key.identifier, identifier), (Key.peerKey, 65)]
    }
  }

  @Test("each operation accepts the same fields with the same limits as version 2 always did")
  func limits() {
    for operation in AppCall.Operation.allCases {
      let table = AppCall.allowed(operation)
      let expected = Self.versionTwoTable(operation)
      #expect(table.count == expected.count, "\(operation)")
      for (key, limit) in expected {
        #expect(table.first { $0.key == key }?.limit == limit, "\(operation) field \(key)")
      }
    }
  }

  @Test("replies: biometry, evaluation, feature, a right and an output write the fields they always did")
  func replies() throws {
    let refused = AppReply.refused(.biometryNotEnrolled, AppBiometryReply(biometryType: 1).encode())
    #expect(HelperMessage.reply(refused).encode() == HelperWireFramesTests.bytes("1e000c0228000101330004fffffff9"))
    let biometry = AppBiometryReply(biometryType: 1, domainState: "c2VlZA==")
    #expect(biometry.encode() == Self.call(.domainState, [(AppReply.Key.biometryType, [1]), (AppReply.Key.domainState, Self.text("c2VlZA=="))]).fields)
    #expect(AppBiometryReply(decoding: biometry.encode()) == biometry)
    #expect(AppBiometryReply(decoding: AppFields()) == AppBiometryReply(biometryType: 0))
    let captured = EvaluationReply(captured: true, domainState: "c2VlZA==")
    #expect(EvaluationReply(decoding: captured.encode()) == captured)
    #expect(EvaluationReply().encode() == AppFields())
    #expect(FeatureReply(decoding: FeatureReply(enabled: true).encode()).enabled)
    #expect(!FeatureReply(decoding: FeatureReply(enabled: false).encode()).enabled)
    let right = PersistedRight(
      identifier: "vault", requirement: .biometryCurrentSet, publicKey: [4] + [UInt8](repeating: 1, count: 64),
      domainState: "c2VlZA==", hasSecret: true)
    #expect(try PersistedRight(identifier: "vault", decoding: right.replyFields()) == right)
    #expect(throws: HelperProtocolError.self) { try PersistedRight(identifier: "vault", decoding: AppFields()) }
    #expect(RightOutputReply(decoding: RightOutputReply(output: [1, 2]).encode())?.output == [1, 2])
    #expect(RightOutputReply(decoding: AppFields()) == nil)
  }
}
