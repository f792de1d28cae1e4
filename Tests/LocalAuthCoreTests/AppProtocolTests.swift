#if canImport(Glibc)
import Glibc
#endif
@testable import LocalAuthCore
import Testing

/// The app protocol's codec (docs/HELPER.md, "Apps"): every call, reply and item survives the wire, and whatever an
/// app sends that the protocol does not allow (an operation or field it does not define, a field twice, a length
/// past the end, a value over its limit, a frame over the maximum, another version) is refused before any of it
/// reaches the helper's session.
@Suite("App protocol")
struct AppProtocolTests {
  /// Encodes `message` and decodes it again through the header check, as the channel does.
  static func roundTrip(_ message: HelperMessage) throws -> HelperMessage {
    let bytes = message.encode()
    let length = try #require(HelperMessage.payloadLength(header: Array(bytes.prefix(3))))
    #expect(length == bytes.count - 3)
    return try HelperMessage.decode(tag: bytes[0], payload: Array(bytes.dropFirst(3)))
  }

  /// A field list: `(key, value)` pairs in order.
  static func fields(_ pairs: (UInt8, [UInt8])...) -> AppFields {
    var fields = AppFields()
    for (key, value) in pairs { fields.set(key, value) }
    return fields
  }

  /// Raw call bytes: the operation, then each field's key, 2-byte length and value exactly as given.
  static func rawCall(_ operation: UInt8, _ pairs: [(UInt8, [UInt8])]) -> [UInt8] {
    var payload = [operation]
    for (key, value) in pairs { payload += [key, UInt8(value.count >> 8), UInt8(value.count & 0xff)] + value }
    return payload
  }

  typealias Key = AppCall.Key

  /// One call of every operation, with every field it allows.
  static let everyCall: [AppCall] = {
    let text = { (s: String) in Array(s.utf8) }
    let prompt: [(UInt8, [UInt8])] = [
      (Key.reason, text("read your notes")), (Key.fallbackTitle, text("Use Passcode")), (Key.cancelTitle, text("Not now")),
      (Key.reuseSeconds, [0x01, 0x2c]), (Key.interactionNotAllowed, []), (Key.ownInterface, []),
    ]
    let query: [(UInt8, [UInt8])] = [
      (Key.service, text("notes")), (Key.account, text("alice")), (Key.label, text("Notes key")),
      (Key.accessGroup, text("com.example.notes")),
    ]
    func call(_ operation: AppCall.Operation, _ pairs: [(UInt8, [UInt8])]) -> AppCall {
      var fields = AppFields()
      for (key, value) in pairs { fields.set(key, value) }
      return AppCall(operation, fields)
    }
    return [
      call(.canEvaluate, [(Key.policy, [1])]),
      call(.canEvaluate, [(Key.policy, [2])]),
      call(.evaluate, [(Key.policy, [2])] + prompt),
      call(.domainState, []),
      call(.keychainAdd, query + prompt + [(Key.accessibility, text("akpu")), (Key.accessFlags, WireIntegers.bytes(UInt64(2))), (Key.data, [0, 1, 2, 0xff])]),
      call(.keychainCopy, query + prompt + [(Key.returnData, []), (Key.returnAttributes, []), (Key.matchAll, []), (Key.interface, [2])]),
      call(.keychainUpdate, query + prompt + [(Key.newData, [9, 9]), (Key.newLabel, text("renamed"))]),
      call(.keychainDelete, query),
      call(.setApplicationPassword, [(Key.password, text("hunter2"))]),
      call(.setApplicationPassword, []),
      call(.endReuseWindow, []),
      call(.feature, [(Key.feature, text("sudo"))]),
      call(.feature, [(Key.feature, text("sudo")), (Key.enable, [0])]),
      call(.rightSave, [(Key.identifier, text("vault")), (Key.requirement, [1]), (Key.secret, text("s3cret"))]),
      call(.rightFetch, [(Key.identifier, text("vault"))]),
      call(.rightRemove, [(Key.identifier, text("vault"))]),
      call(.rightRemoveAll, []),
      call(.rightSecret, [(Key.identifier, text("vault"))]),
      call(.rightSign, [(Key.identifier, text("vault")), (Key.algorithm, [1]), (Key.data, text("message"))]),
      call(.rightExchange, [(Key.identifier, text("vault")), (Key.peerKey, [4] + [UInt8](repeating: 7, count: 64))]),
    ]
  }()

  @Test("every operation round-trips with every field it allows, and each operation is covered")
  func callsRoundTrip() throws {
    for call in Self.everyCall { #expect(try Self.roundTrip(.call(call)) == .call(call), "\(call.operation)") }
    let covered = Set(Self.everyCall.map(\.operation.rawValue))
    #expect(covered == Set(AppCall.Operation.allCases.map(\.rawValue)))
    #expect(try Self.roundTrip(.appHello(version: HelperWire.version)) == .appHello(version: HelperWire.version))
    #expect(try Self.roundTrip(.appHello(version: 2)) == .appHello(version: 2))
    #expect(HelperMessage.appHello(version: HelperWire.version).encode() == [0x04, 0, 2, 0, 3])
  }

  @Test("every reply round-trips: done, each evaluation outcome, each refusal code, each keychain error, each fault")
  func repliesRoundTrip() throws {
    var values = AppFields()
    values.set(AppReply.Key.biometryType, byte: 1)
    values.set(AppReply.Key.domainState, text: "c2VlZA==")
    values.set(AppReply.Key.captured, flag: true)
    values.set(AppReply.Key.enabled, flag: true)
    var replies: [AppReply] = [.done(AppFields()), .done(values)]
    for method in [AuthMethod.biometry, .passcode, .reuse] {
      replies.append(.evaluation(.success(method), AppFields()))
      replies.append(.evaluation(.success(method), values))
    }
    let details: [FailureDetail] = [
      .none, .passcodeDelayed(until: WallTime(seconds: 1_800_000_060)), .biometryLockedOut(failures: 5),
      .passcodeRequired(.reboot), .remoteSession, .fallbackChosen, .requestNotVisible,
    ]
    for code in AuthErrorCode.allCases {
      for detail in details { replies.append(.evaluation(.failure(code, detail), AppFields())) }
      replies.append(.refused(code, AppFields()))
      replies.append(.refused(code, Self.fields((AppReply.Key.biometryType, [1]))))
    }
    let storage = KeychainError.storage(
      .io(path: "the keychain", operation: "a keychain operation in localauth-helper", errno: EIO))
    for error in [
      KeychainError.parameter("bad flags"), .duplicateItem, .itemNotFound, .authenticationFailed, .userCanceled,
      .interactionNotAllowed, .notAvailable("this system has no keychain"), storage,
    ] {
      replies.append(.keychain(error))
    }
    for fault in HelperFault.allCases { replies.append(.fault(fault)) }
    for reply in replies { #expect(try Self.roundTrip(.reply(reply)) == .reply(reply), "\(reply)") }
  }

  @Test("a storage error reaches the app as errSecIO without the helper's path or errno")
  func storageErrorsLoseTheirDetail() throws {
    let inside = KeychainError.storage(.io(path: "/var/lib/localauth/keychain/alice/item-1", operation: "open", errno: EACCES))
    guard case .reply(.keychain(let seen)) = try Self.roundTrip(.reply(.keychain(inside))) else {
      Issue.record("not a keychain reply")
      return
    }
    #expect(seen.status == inside.status)
    #expect(!seen.description.contains("/var/lib/localauth"))
  }

  @Test("an item round-trips with its attributes, times, flags and 16 KiB of data")
  func itemsRoundTrip() throws {
    let item = KeychainItem(
      id: "00ff", service: "notes", account: "alice", label: "Notes key", accessGroup: "com.example.notes",
      accessibility: .whenPasscodeSetThisDeviceOnly, flags: [.biometryCurrentSet, .or, .devicePasscode],
      domainState: "c2VlZA==", keySource: .device, passwordSetting: nil, created: 1_800_000_000, modified: 1_800_000_100)
    let data = [UInt8](repeating: 0xa5, count: KeychainItem.maximumDataSize)
    for found in [AppItem(item, data: data), AppItem(item, data: nil), AppItem(item, data: [])] {
      let back = try Self.roundTrip(.item(found))
      #expect(back == .item(found))
    }
    let full = AppItem(item, data: data)
    #expect(full.integer(AppItem.Key.created) == 1_800_000_000)
    #expect(full.integer(AppItem.Key.modified) == 1_800_000_100)
    #expect(full.integer(Key.accessFlags) == UInt64(item.flags!.rawValue))
    #expect(full.fields.bytes(Key.data) == data)
    // The domain state and the key source stay in the helper: they are not item attributes an app sees.
    #expect(full.fields.entries.allSatisfy { AppItem.allowed.map(\.key).contains($0.key) })
    #expect(throws: HelperProtocolError.self, "an item of another kind") {
      try HelperMessage.decode(tag: 0x15, payload: [1] + full.fields.encode())
    }
  }

  // MARK: Refusals

  /// Call payloads the protocol does not allow, with why.
  static let refusedCalls: [(payload: [UInt8], why: String)] = {
    let reason = Array("unlock".utf8)
    return [
      ([], "an empty call"),
      ([0], "operation 0"),
      ([UInt8(AppCall.Operation.allCases.count + 1)], "the operation past the last"),
      ([0xff], "operation 255"),
      (rawCall(2, [(Key.policy, [2]), (99, [])]), "an evaluate with key 99"),
      (rawCall(2, [(Key.policy, [2]), (Key.service, Array("notes".utf8))]), "an evaluate with a keychain field"),
      (rawCall(2, [(Key.policy, [2]), (Key.password, Array("1234".utf8))]), "an evaluate with the password field"),
      (rawCall(2, [(Key.policy, [2]), (0, Array("root".utf8))]), "a 'user' slipped in as key 0"),
      (rawCall(2, [(Key.policy, [2]), (0xff, Array("/tmp/state".utf8))]), "a 'state_dir' slipped in as key 255"),
      (rawCall(1, [(Key.policy, [1]), (Key.reason, reason)]), "a canEvaluate with a reason"),
      (rawCall(3, [(Key.policy, [1])]), "a domainState with a field"),
      (rawCall(9, [(Key.reason, reason)]), "an endReuseWindow with a field"),
      (rawCall(7, [(Key.service, Array("notes".utf8)), (Key.reason, reason)]), "a delete with a prompt field"),
      (rawCall(5, [(AppReply.Key.captured, [])]), "a read with a reply's field"),
      (rawCall(5, [(AppItem.Key.created, WireIntegers.bytes(UInt64(1)))]), "a read with an item's field"),
      (rawCall(2, [(Key.policy, [2]), (Key.reason, reason), (Key.reason, reason)]), "the reason twice"),
      (rawCall(2, [(Key.policy, [2]), (Key.policy, [1])]), "the policy twice"),
      (rawCall(2, [(Key.policy, [2])]) + [Key.reason, 0, 10] + reason, "a length past the end"),
      (rawCall(2, [(Key.policy, [2])]) + [Key.reason, 0xff, 0xff], "a length of 65535 with nothing after it"),
      (rawCall(2, [(Key.policy, [2])]) + [Key.reason, 0], "a truncated field header"),
      (rawCall(2, [(Key.policy, [2])]) + [Key.reason], "a key without a length"),
      (rawCall(2, [(Key.policy, [2, 2])]), "a 2-byte policy"),
      (rawCall(2, [(Key.policy, [2]), (Key.reason, [UInt8](repeating: 0x61, count: 513))]), "a 513-byte reason"),
      (rawCall(2, [(Key.policy, [2]), (Key.fallbackTitle, [UInt8](repeating: 0x61, count: 129))]), "a 129-byte title"),
      (rawCall(2, [(Key.policy, [2]), (Key.reuseSeconds, [0, 0, 1])]), "a 3-byte reuse duration"),
      (rawCall(2, [(Key.policy, [2]), (Key.interactionNotAllowed, [1])]), "a flag over its 0 bytes"),
      (rawCall(4, [(Key.data, [UInt8](repeating: 0, count: KeychainItem.maximumDataSize + 1))]), "16 KiB + 1 of data"),
      (rawCall(6, [(Key.newData, [UInt8](repeating: 0, count: KeychainItem.maximumDataSize + 1))]), "16 KiB + 1 of new data"),
      (rawCall(4, [(Key.accessFlags, [UInt8](repeating: 0, count: 9))]), "9-byte access flags"),
      (rawCall(8, [(Key.password, [UInt8](repeating: 0x31, count: SecretBytes.maximumLength + 1))]), "a password over the limit"),
      (rawCall(10, [(Key.feature, [UInt8](repeating: 0x61, count: 65))]), "a 65-byte feature name"),
    ]
  }()

  @Test("unknown operations and fields, a field twice, lengths past the end, values over their limit: refused")
  func refusedCallsAreMalformed() {
    for (payload, why) in Self.refusedCalls {
      #expect(throws: HelperProtocolError.self, "\(why)") { try HelperMessage.decode(tag: 0x05, payload: payload) }
    }
  }

  @Test("values at their limit are accepted: a 512-byte reason, 16 KiB of data, a 511-byte password")
  func limitsAreInclusive() throws {
    let accepted: [[UInt8]] = [
      Self.rawCall(2, [(Key.policy, [2]), (Key.reason, [UInt8](repeating: 0x61, count: AppCall.textLimit))]),
      Self.rawCall(4, [(Key.data, [UInt8](repeating: 0, count: KeychainItem.maximumDataSize))]),
      Self.rawCall(8, [(Key.password, [UInt8](repeating: 0x31, count: SecretBytes.maximumLength))]),
    ]
    for payload in accepted {
      let message = try HelperMessage.decode(tag: 0x05, payload: payload)
      guard case .call(let call) = message else { Issue.record("not a call"); continue }
      #expect(call.encode() == payload)
    }
  }

  @Test("frame headers: a call or item up to 24 KiB, every other tag up to 1024 bytes; a 2-byte header is no header")
  func frameMaximum() {
    let app = HelperMessage.maximumAppPayload
    #expect(app == KeychainItem.maximumDataSize + 8192)
    for tag: UInt8 in [0x05, 0x15] {
      #expect(HelperMessage.payloadLength(header: [tag, UInt8(app >> 8), UInt8(app & 0xff)]) == app)
      #expect(HelperMessage.payloadLength(header: [tag, UInt8((app + 1) >> 8), UInt8((app + 1) & 0xff)]) == nil)
      #expect(HelperMessage.payloadLength(header: [tag, 0xff, 0xff]) == nil)
    }
    for tag: UInt8 in [0x04, 0x1e, 0x02, 0x14] {
      #expect(HelperMessage.payloadLength(header: [tag, 0x04, 0x00]) == 1024)
      #expect(HelperMessage.payloadLength(header: [tag, 0x04, 0x01]) == nil, "tag \(tag)")
      #expect(HelperMessage.payloadLength(header: [tag, 0xff, 0xff]) == nil, "tag \(tag)")
    }
    #expect(HelperMessage.payloadLength(header: [0x05, 0x00]) == nil)
    #expect(throws: HelperProtocolError.self) {
      try HelperMessage.decode(tag: 0x05, payload: [2] + [UInt8](repeating: 0, count: app))
    }
  }

  @Test("an app hello of a version other than 2 or 3, or with anything around the version, is refused")
  func otherVersions() {
    for text in ["localauth-app 2", "localauth-app 0", "", "localauth-app 1\n", "localauth-app 1\0", " localauth-app 1",
      "localauth-helper 1", "LOCALAUTH-APP 1"]
    {
      #expect(throws: HelperProtocolError.self, "\(text.debugDescription)") {
        try HelperMessage.decode(tag: 0x04, payload: Array(text.utf8))
      }
    }
    for payload: [UInt8] in [[0, 1], [0, 4], [0], [0, 2, 0], [0, 3, 0], [2, 0], [3, 0]] {
      #expect(throws: HelperProtocolError.self, "\(payload)") { try HelperMessage.decode(tag: 0x04, payload: payload) }
    }
  }

  @Test("a text field with a control character is refused when read; plain and non-ASCII text is kept")
  func controlCharacters() throws {
    for bad in ["\u{1b}[2J cleared", "two\nlines", "tab\there", "bell\u{07}", "del\u{7f}", "nul\0"] {
      let fields = Self.fields((Key.reason, Array(bad.utf8)))
      #expect(throws: HelperProtocolError.self, "\(bad.debugDescription)") { try fields.text(Key.reason) }
    }
    let fine = Self.fields((Key.reason, Array("déverrouiller — 解锁".utf8)))
    #expect(try fine.text(Key.reason) == "déverrouiller — 解锁")
    #expect(throws: HelperProtocolError.self) { try Self.fields((Key.policy, [1, 2])).byte(Key.policy) }
    #expect(throws: HelperProtocolError.self) { try Self.fields((Key.returnData, [1])).flag(Key.returnData) }
  }

  @Test("replies the helper could not have sent are refused by the app")
  func refusedReplies() {
    let cases: [(payload: [UInt8], why: String)] = [
      ([], "an empty reply"),
      ([5], "kind 5"),
      ([1], "an evaluation without its result"),
      ([1, AppReply.Key.result, 0, 1, 3], "an evaluation whose result is not an evaluation"),
      ([2], "a refusal without its code"),
      ([2, AppReply.Key.code, 0, 4, 0, 0, 0, 0], "a refusal code that is no LAError code"),
      ([2, AppReply.Key.code, 0, 1, 1], "a refusal code of one byte (version 1)"),
      ([3, AppReply.Key.status, 0, 4, 0, 0, 0, 0], "a keychain status that is no keychain failure"),
      ([3, 52, 0, 1, 1], "version 1's keychain kind"),
      ([4, AppReply.Key.fault, 0, 1, 0], "fault 0"),
      ([4, AppReply.Key.fault, 0, 1, 9], "fault 9 (8, unknownUser, is version 3's)"),
      ([0, Key.reason, 0, 0], "a reply with a call's field"),
    ]
    for (payload, why) in cases {
      #expect(throws: HelperProtocolError.self, "\(why)") { try HelperMessage.decode(tag: 0x1e, payload: payload) }
    }
  }
}
