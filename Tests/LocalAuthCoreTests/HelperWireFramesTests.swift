@testable import LocalAuthCore
import Testing

/// Recorded frames of the helper wire's current version (`HelperWire.version`, docs/HELPER.md, "Schema"): apps link
/// the client statically, so these bytes are an ABI. Each frame decodes to the value beside it, and that value
/// encodes to the same bytes. A changed field number, message layout, or code value (an LAError code, an OSStatus, a
/// fault) fails here; so would a return to sending a public enum's position (reordering `AuthErrorCode` would then
/// move its codes). Change these bytes only together with a version bump.
@Suite("Helper wire: recorded frames")
struct HelperWireFramesTests {
  static func bytes(_ hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      out.append(UInt8(hex[index..<next], radix: 16)!)
      index = next
    }
    return out
  }

  static func fields(_ entries: [(UInt8, [UInt8])]) -> AppFields {
    var fields = AppFields()
    for (key, value) in entries { fields.set(key, value) }
    return fields
  }

  /// (frame in hex, the message it is, what it shows).
  static let frames: [(hex: String, message: HelperMessage, what: String)] = [
    (
      "01002b0003616c696365007375646f002f6465762f7074732f3100005353485f5454593d2f6465762f7074732f39",
      .hello(HelperHello(
        user: "alice", service: "sudo", tty: "/dev/pts/1", remoteHost: "", remoteVariables: ["SSH_TTY": "/dev/pts/9"])),
      "a module's hello: version 3, then NUL-separated user, service, tty, rhost, SSH_* variables"
    ),
    ("01000e0002616c696365007375646f0000", .hello(HelperWireFramesTests.version2Hello), "a version 2 module's hello, still accepted"),
    ("0400020003", .appHello(version: 3), "an app's hello: version 3 only"),
    ("0400020002", .appHello(version: 2), "a version 2 app's hello (an app built before version 3), still accepted"),
    ("1f00020001", .result(.decided(.evaluated(.success(.passcode)))), "success by passcode (method 1)"),
    (
      "1f000e01fffffff801000000006b49d200",
      .result(.decided(.evaluated(.failure(.biometryLockout, .passcodeDelayed(until: WallTime(seconds: 1_800_000_000)))))),
      "biometryLockout (-8 as Int32), delayed until a UInt64 time"
    ),
    (
      "1f000701fffffc140303", .result(.decided(.evaluated(.failure(.notInteractive, .passcodeRequired(.enrollmentChange))))),
      "notInteractive (-1004 as Int32), passcode required after an enrolment change (3)"
    ),
    ("1f00020201", .result(.decided(.doesNotApply(featureNotEnabled: true))), "does not apply: feature not enabled"),
    ("1f000103", .result(.otherUser), "another user"),
    ("1f00020403", .result(.fault(.lockTimeout)), "fault 3, the lock timeout"),
    (
      "0500130201000102020006756e6c6f636b050002012c",
      .call(AppCall(.evaluate, fields([(AppCall.Key.policy, [2]), (AppCall.Key.reason, Array("unlock".utf8)), (AppCall.Key.reuseSeconds, [0x01, 0x2c])]))),
      "an evaluate call (2): policy 2, reason, reuse 300 s as UInt16"
    ),
    (
      "1e000c0228000101330004fffffff9", .reply(.refused(.biometryNotEnrolled, fields([(AppReply.Key.biometryType, [1])]))),
      "canEvaluate refused: biometry type 1, code biometryNotEnrolled (-7 as Int32, field 51)"
    ),
    (
      "1e000a0132000601ffffffff00", .reply(.evaluation(.failure(.authenticationFailed, .none), AppFields())),
      "an evaluation that failed: the result (field 50) carries authenticationFailed (-1)"
    ),
    ("1e000803370004ffff9d2c", .reply(.keychain(.itemNotFound)), "errSecItemNotFound (-25300, field 55)"),
    (
      "1e000e03370004ffffffce350003626164", .reply(.keychain(.parameter("bad"))),
      "errSecParam (-50, field 55) with its sentence (field 53)"
    ),
    ("1e00050436000107", .reply(.fault(.protocolViolation)), "the fault reply every version decodes alike"),
    ("1f00020408", .result(.fault(.unknownUser)), "fault 8, a caller's uid without a passwd entry (version 3 on)"),
    ("1e00050436000108", .reply(.fault(.unknownUser)), "the same fault in an app's reply (version 3 on)"),
  ]

  /// A version 2 module's hello: alice, sudo, no terminal, no remote host.
  static let version2Hello: HelperHello = {
    var hello = HelperHello(user: "alice", service: "sudo", tty: "", remoteHost: "")
    hello.version = 2
    return hello
  }()

  @Test("each recorded frame decodes to its value, and the value encodes to the same bytes")
  func recorded() throws {
    #expect(HelperWire.version == 3)
    #expect(HelperWire.accepted == 2...3)
    for (hex, message, what) in Self.frames {
      let frame = Self.bytes(hex)
      let length = try #require(HelperMessage.payloadLength(header: Array(frame.prefix(3))), "\(what)")
      #expect(length == frame.count - 3, "\(what)")
      #expect(try HelperMessage.decode(tag: frame[0], payload: Array(frame.dropFirst(3))) == message, "\(what)")
      #expect(message.encode() == frame, "\(what)")
    }
  }

  @Test("openings of another version are refused: 1 (also its text opening), 4 and later, a lone byte")
  func otherVersions() {
    let refused: [(tag: UInt8, payload: [UInt8], what: String)] = [
      (0x01, [0, 1] + Array("alice\0sudo\0\0".utf8), "a version 1 hello"),
      (0x01, [0, 4] + Array("alice\0sudo\0\0".utf8), "a version 4 hello"),
      (0x01, Array("localauth-helper 1\0alice\0s\0t\0".utf8), "version 1's text opening"),
      (0x04, [0, 1], "a version 1 app hello"), (0x04, [0, 4], "a version 4 app hello"), (0x04, [0xff, 0xff], "version 65535"),
      (0x04, [3], "an app hello shorter than its version"), (0x04, [0, 3, 0], "an app hello with more than its version"),
    ]
    for (tag, payload, what) in refused {
      #expect(throws: HelperProtocolError.self, "\(what)") { try HelperMessage.decode(tag: tag, payload: payload) }
    }
  }

  @Test("the fault a version 2 peer cannot decode is not sent to it; every other fault is sent to both versions")
  func faultsByVersion() throws {
    for fault in HelperFault.allCases {
      #expect(HelperWire.sends(fault, to: 3), "\(fault)")
      #expect(HelperWire.sends(fault, to: 2) == (fault != .unknownUser), "\(fault)")
    }
    // Version 2's decoder knew the faults 1-7 only: the raw values it could decode are the ones still sent to it.
    #expect(HelperFault.allCases.filter { HelperWire.sends($0, to: 2) }.map(\.rawValue) == Array(1...7))
  }

  @Test("codes travel by value: every AuthErrorCode as its raw value, every keychain failure as its OSStatus")
  func codesByValue() throws {
    for code in AuthErrorCode.allCases {
      let encoded = HelperMessage.result(.decided(.evaluated(.failure(code, .none)))).encode()
      #expect(Array(encoded[4..<8]) == WireIntegers.bytes(Int32(code.rawValue)), "\(code.name)")
    }
    let failures: [KeychainError] = [
      .parameter("p"), .duplicateItem, .itemNotFound, .authenticationFailed, .userCanceled, .interactionNotAllowed,
      .notAvailable("n"), .missingEntitlement("m"), .allocate("a"), .unimplemented("u"),
    ]
    for failure in failures {
      let encoded = HelperMessage.reply(.keychain(failure)).encode()
      #expect(Array(encoded[4..<11]) == [55, 0, 4] + WireIntegers.bytes(failure.status), "\(failure)")
      #expect(try HelperMessage.decode(tag: encoded[0], payload: Array(encoded.dropFirst(3))) == .reply(.keychain(failure)))
    }
  }

  @Test("integers: big-endian, signed by two's complement, and a short read refused")
  func integers() throws {
    #expect(WireIntegers.bytes(UInt16(0x1234)) == [0x12, 0x34])
    #expect(WireIntegers.bytes(Int32(-2)) == [0xff, 0xff, 0xff, 0xfe])
    #expect(WireIntegers.bytes(UInt64(1)) == [0, 0, 0, 0, 0, 0, 0, 1])
    #expect(try WireIntegers.value(Int32.self, of: [0xff, 0xff, 0x9d, 0x2c]) == -25300)
    #expect(try WireIntegers.read(UInt32.self, from: [9, 0, 0, 1, 0][...], at: 1) == 256)
    #expect(throws: HelperProtocolError.self) { try WireIntegers.read(UInt32.self, from: [0, 0, 1][...], at: 0) }
    #expect(throws: HelperProtocolError.self) { try WireIntegers.value(UInt16.self, of: [1]) }
    #expect(throws: HelperProtocolError.self) { try WireIntegers.read(UInt16.self, from: [1, 2][...], at: 1) }
  }
}
