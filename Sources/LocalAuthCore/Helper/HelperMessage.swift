/// One message between pam_localauth (running in an unprivileged application) and localauth-helper.
///
/// On the wire a message is a tag byte, a 2-byte big-endian length and that many payload bytes, at most
/// `maximumPayload` (`maximumAppPayload` for an app's calls and items). The module opens with `hello`; the helper
/// then talks to the user through `info`, `error`, `request` and `secret` (answered by `answer` or `cancel`) and
/// ends with one `result`. An app opens with `appHello` instead and then sends `call`s, each answered (after the
/// same prompts, and the items a read found) by one `reply`. docs/HELPER.md.
public enum HelperMessage: Equatable, Sendable {
  /// Caller → helper, first and once: who is asked for and from where.
  case hello(HelperHello)
  /// App → helper, first and once: an app's session, in wire `version` (the client sends `HelperWire.version`; the
  /// helper accepts `HelperWire.accepted` and answers in the version it got). It names nothing: the helper reads
  /// who and where itself.
  case appHello(version: UInt16)
  /// App → helper: one operation.
  case call(AppCall)
  /// Helper → app: an item a keychain read found, before the reply.
  case item(AppItem)
  /// Helper → app, last for a call: how it ended.
  case reply(AppReply)
  /// Caller → helper: the secret typed at the last `secret` prompt.
  case answer([UInt8])
  /// Caller → helper: the conversation failed at the last `secret` prompt (`again`: PAM_CONV_AGAIN).
  case cancel(again: Bool)
  /// Helper → caller: an informational line.
  case info(String)
  /// Helper → caller: an error line.
  case error(String)
  /// Helper → caller: the biometric step's request ("Place your finger on the sensor …").
  case request(String)
  /// Helper → caller: ask for a secret with echo off, and send the answer back.
  case secret(String)
  /// Helper → caller, last: how the authentication ended.
  case result(HelperResult)

  /// The largest payload either side sends or accepts.
  package static let maximumPayload = 1024
  /// The largest payload of an app's call and of an item: a keychain item's data (16 KiB) and its attributes.
  package static let maximumAppPayload = KeychainItem.maximumDataSize + 8192

  /// The frame's first byte: which message follows. These numbers are the wire (an ABI: apps link the client
  /// statically); a new message takes a new number, and a number once used is never given another meaning.
  package enum Tag: UInt8, CaseIterable, Sendable {
    case hello = 0x01
    case answer = 0x02
    case cancel = 0x03
    case appHello = 0x04
    case call = 0x05
    case info = 0x11
    case error = 0x12
    case request = 0x13
    case secret = 0x14
    case item = 0x15
    case reply = 0x1e
    case result = 0x1f

    /// The largest payload a message with this tag may have: an app's call and an item carry keychain data.
    var maximumPayload: Int {
      switch self {
      case .call, .item: HelperMessage.maximumAppPayload
      default: HelperMessage.maximumPayload
      }
    }
  }

  /// The app hello's tag.
  package static let appHelloTag = Tag.appHello.rawValue

  /// The largest payload a message with `tag` may have (an unknown tag: the smaller limit; decode refuses it).
  static func maximum(tag: UInt8) -> Int { Tag(rawValue: tag)?.maximumPayload ?? maximumPayload }

  /// The wire form.
  package func encode() -> [UInt8] {
    let (tag, payload): (Tag, [UInt8]) =
      switch self {
      case .hello(let hello): (.hello, hello.encode())
      case .appHello(let version): (.appHello, WireIntegers.bytes(version))
      case .call(let call): (.call, call.encode())
      case .item(let item): (.item, [0] + item.fields.encode())
      case .reply(let reply): (.reply, reply.encode())
      case .answer(let bytes): (.answer, bytes)
      case .cancel(let again): (.cancel, [again ? 1 : 0])
      case .info(let text): (.info, Self.text(text))
      case .error(let text): (.error, Self.text(text))
      case .request(let text): (.request, Self.text(text))
      case .secret(let text): (.secret, Self.text(text))
      case .result(let result): (.result, result.encode())
      }
    var frame = [tag.rawValue]
    WireIntegers.append(UInt16(truncatingIfNeeded: payload.count), to: &frame)
    return frame + payload
  }

  /// The payload length a 3-byte header announces, or nil when it is over its tag's maximum.
  package static func payloadLength(header: [UInt8]) -> Int? {
    guard header.count == 3, let length = try? Int(WireIntegers.read(UInt16.self, from: header[...], at: 1)) else { return nil }
    return length <= maximum(tag: header[0]) ? length : nil
  }

  /// Parses one message from its tag and payload; anything unknown or malformed is refused.
  package static func decode(tag: UInt8, payload: [UInt8]) throws(HelperProtocolError) -> HelperMessage {
    guard let known = Tag(rawValue: tag) else { throw .malformed("an unknown message tag \(tag)") }
    guard payload.count <= known.maximumPayload else { throw .malformed("a message over \(known.maximumPayload) bytes") }
    switch known {
    case .hello: return .hello(try HelperHello.decode(payload))
    case .appHello:
      let (version, rest) = try HelperWire.opening(payload)
      guard rest.isEmpty else { throw .malformed("an app hello with more than its version") }
      return .appHello(version: version)
    case .call: return .call(try AppCall.decode(payload))
    case .item:
      guard payload.first == 0 else { throw .malformed("an item of an unknown kind") }
      return .item(AppItem(fields: try AppFields.decode(payload[1...], allowed: AppItem.allowed)))
    case .reply: return .reply(try AppReply.decode(payload))
    case .answer:
      guard payload.count <= SecretBytes.maximumLength else { throw .malformed("an answer over the passcode limit") }
      return .answer(payload)
    case .cancel:
      guard payload.count == 1, payload[0] <= 1 else { throw .malformed("a cancel without its flag") }
      return .cancel(again: payload[0] == 1)
    case .info: return .info(try text(payload))
    case .error: return .error(try text(payload))
    case .request: return .request(try text(payload))
    case .secret: return .secret(try text(payload))
    case .result: return .result(try HelperResult.decode(payload))
    }
  }

  /// A line for the user, cut to the payload limit on a UTF-8 boundary.
  static func text(_ text: String) -> [UInt8] {
    let bytes = Array(text.utf8)
    guard bytes.count > maximumPayload else { return bytes }
    // The first byte left out continues a character: leave out that whole character.
    var end = maximumPayload
    while end > 0, bytes[end] & 0xc0 == 0x80 { end -= 1 }
    return Array(bytes[..<end])
  }

  /// A line from the helper: printable text only (control characters could rewrite the caller's screen).
  static func text(_ payload: [UInt8]) throws(HelperProtocolError) -> String {
    guard payload.allSatisfy({ $0 >= 0x20 && $0 != 0x7f || $0 == 0x0a }) else {
      throw .malformed("a line with control characters")
    }
    return String(decoding: payload, as: UTF8.self)
  }
}

/// Why a helper conversation broke off.
public enum HelperProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The other side sent something the protocol does not allow.
  case malformed(String)
  /// The other side closed the channel.
  case closed
  /// Nothing arrived within the bound.
  case timedOut(seconds: Int)
  /// Reading or writing failed with this errno.
  case io(Int32)

  public var description: String {
    switch self {
    case .malformed(let what): "the other side sent \(what)"
    case .closed: "the other side closed the channel"
    case .timedOut(let seconds): "nothing arrived within \(seconds) seconds"
    case .io(let code): "the channel failed: \(errnoDescription(code))"
    }
  }
}
