/// The helper wire's version: one number, the first two bytes (`WireIntegers`, UInt16) of both openings, the
/// module's `hello` and an app's `appHello` (docs/HELPER.md, "Schema").
///
/// Apps link the client statically, so the wire is an ABI: any change to a message's layout, a field's number or
/// type, or a code space bumps `version` here and nowhere else. A peer of another version is refused before
/// anything else is read, with the answer it got in version 1: `result(fault(protocolViolation))` (payload 04 07),
/// which, with the framing, is the same in every version (an app's client takes it as a broken session).
package enum HelperWire {
  /// The version. 1 opened with the text "localauth-helper 1" or "localauth-app 1" and sent codes by position;
  /// 2 sends an LAError code as its Int32 raw value and a keychain failure as its OSStatus.
  package static let version: UInt16 = 2

  /// The version as an opening starts with it.
  package static var versionBytes: [UInt8] { WireIntegers.bytes(version) }

  /// What follows the version in an opening; another version, or a payload too short to hold one, is refused.
  static func afterVersion(_ payload: [UInt8]) throws(HelperProtocolError) -> ArraySlice<UInt8> {
    guard payload.count >= 2, try WireIntegers.read(UInt16.self, from: payload[...], at: 0) == version else {
      throw .malformed("another protocol version")
    }
    return payload[2...]
  }
}
