/// The helper wire's version: one number, the first two bytes (`WireIntegers`, UInt16) of both openings, the
/// module's `hello` and an app's `appHello` (docs/HELPER.md, "Schema").
///
/// Apps link the client statically, so the wire is an ABI: any change to a message's layout, a field's number or
/// type, or a code space bumps `version` here and nowhere else. The helper accepts the openings of `accepted` and
/// answers each peer in its own version: what a newer version added is never sent to an older peer (`sends`). A
/// peer of any other version is refused before anything else is read, with the answer it got in version 1:
/// `result(fault(protocolViolation))` (payload 04 07), which, with the framing, is the same in every version. An
/// app's client that receives it as a fresh session's first message opens again with the next older version in
/// `accepted` (a newer app on an older installation; `HelperSession.firstCall`).
package enum HelperWire {
  /// The version this side speaks. 1 opened with the text "localauth-helper 1" or "localauth-app 1" and sent codes
  /// by position; 2 sends an LAError code as its Int32 raw value and a keychain failure as its OSStatus; 3 adds
  /// the fault `unknownUser` (8), for a caller whose uid has no passwd entry.
  package static let version: UInt16 = 3

  /// The versions the helper accepts in an opening: 2, whose clients are linked into apps already built, and 3.
  package static let accepted: ClosedRange<UInt16> = 2...version

  /// The version as an opening starts with it.
  package static var versionBytes: [UInt8] { WireIntegers.bytes(version) }

  /// True when a peer that opened with `peer` decodes `fault`. A version 2 peer does not know `unknownUser` (its
  /// decoder refuses fault 8): it is answered as before version 3, an app `stateUnreadable`, the module `otherUser`.
  package static func sends(_ fault: HelperFault, to peer: UInt16) -> Bool {
    switch fault {
    case .unknownUser: peer >= 3
    case .stateUnreadable, .stateFailed, .lockTimeout, .conversationFailed, .conversationAgain, .configuration,
      .protocolViolation:
      true
    }
  }

  /// The version an opening names and what follows it; a version outside `accepted`, or a payload too short to
  /// hold one, is refused.
  static func opening(_ payload: [UInt8]) throws(HelperProtocolError) -> (version: UInt16, rest: ArraySlice<UInt8>) {
    guard payload.count >= 2 else { throw .malformed("an opening shorter than its version") }
    let version = try WireIntegers.read(UInt16.self, from: payload[...], at: 0)
    guard accepted.contains(version) else { throw .malformed("another protocol version (\(version))") }
    return (version, payload[2...])
  }
}
