/// The caller's opening message: the user asked for and the PAM items that say from where.
///
/// Everything in it is the caller's word. The helper checks the user against its own real uid, treats the
/// texts as labels (reduced to tokens), and lets PAM_RHOST and the SSH_* variables only make a session remote.
public struct HelperHello: Equatable, Sendable {
  /// The longest field accepted.
  package static let maximumFieldLength = 256

  /// PAM_USER.
  package var user: String
  /// PAM_SERVICE.
  package var service: String
  /// PAM_TTY; empty when unset.
  package var tty: String
  /// PAM_RHOST; empty when unset.
  package var remoteHost: String
  /// The caller's values of `RemoteSession.variables` that are set.
  package var remoteVariables: [String: String]
  /// The wire version the caller opened with (`HelperWire.accepted`): the helper answers in it. This side's own,
  /// `HelperWire.version`, unless a test speaks as an older module.
  package var version: UInt16 = HelperWire.version

  /// Describes a request.
  public init(user: String, service: String, tty: String, remoteHost: String, remoteVariables: [String: String] = [:]) {
    self.user = user
    self.service = service
    self.tty = tty
    self.remoteHost = remoteHost
    self.remoteVariables = remoteVariables
  }

  /// The version (`HelperWire`), then fields separated by NUL: user, service, tty, remote host, then `NAME=value`
  /// entries.
  func encode() -> [UInt8] {
    var fields = [user, service, tty, remoteHost]
    for name in RemoteSession.variables { if let value = remoteVariables[name] { fields.append(name + "=" + value) } }
    var bytes = WireIntegers.bytes(version)
    for (index, field) in fields.enumerated() {
      if index > 0 { bytes.append(0) }
      bytes += field.utf8.prefix(Self.maximumFieldLength)
    }
    return bytes
  }

  static func decode(_ payload: [UInt8]) throws(HelperProtocolError) -> HelperHello {
    let (version, rest) = try HelperWire.opening(payload)
    let fields = rest.split(separator: 0, omittingEmptySubsequences: false).map { Array($0) }
    guard fields.count >= 4, fields.count <= 4 + RemoteSession.variables.count else {
      throw .malformed("a hello with \(fields.count) fields")
    }
    guard fields.allSatisfy({ $0.count <= maximumFieldLength }) else { throw .malformed("a hello field over the limit") }
    let texts = fields.map { String(decoding: $0, as: UTF8.self) }
    var variables: [String: String] = [:]
    for entry in texts.dropFirst(4) {
      guard let equals = entry.utf8.firstIndex(of: UInt8(ascii: "=")) else { throw .malformed("a variable without '='") }
      let name = String(entry[..<equals])
      guard RemoteSession.variables.contains(name), variables[name] == nil else {
        throw .malformed("a variable that is not one of the SSH_* ones, or twice")
      }
      variables[name] = String(entry[entry.index(after: equals)...])
    }
    guard !texts[0].isEmpty else { throw .malformed("a hello without a user") }
    var hello = HelperHello(user: texts[0], service: texts[1], tty: texts[2], remoteHost: texts[3], remoteVariables: variables)
    hello.version = version
    return hello
  }
}
