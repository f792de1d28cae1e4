import CDBus

/// The one question data protection asks logind over the system bus: whether a session's screen is locked
/// (`org.freedesktop.login1.Session`'s `LockedHint`, which screen lockers and desktops set through logind and
/// which logind keeps in memory only). Through sd-bus, opened on first use (CDBus); the system bus's address is
/// the default one, since sd-bus reads no environment in a setuid program.
package enum LogindBus {
  /// logind's bus name.
  static let service = "org.freedesktop.login1"
  /// The folder of sessions' object paths.
  static let sessionsPath = "/org/freedesktop/login1/session"

  /// The object path of session `id`, encoded as sd_bus_path_encode does: each byte that is not an ASCII letter
  /// or digit, and a leading digit, becomes `_` and two lower-case hex digits ("3" → "_33").
  package static func sessionPath(_ id: String) -> String {
    var label = ""
    for (offset, byte) in id.utf8.enumerated() {
      let letter = (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
      let digit = byte >= 0x30 && byte <= 0x39
      if letter || (digit && offset > 0) {
        label.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        let hex = Array("0123456789abcdef".utf8)
        label += "_"
        label.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
        label.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0f)]))
      }
    }
    return sessionsPath + "/" + (label.isEmpty ? "_" : label)
  }

  /// `LockedHint` of session `id`, asked within `timeout` seconds; nil when it cannot be asked (no libsystemd, no
  /// bus, no such session, an answer of another type).
  package static func lockedHint(session id: String, timeout: Double) -> Bool? {
    guard cdbus_available() != 0 else { return nil }
    var bus: OpaquePointer?
    guard cdbus_open_system(&bus) >= 0, let bus else { return nil }
    defer { cdbus_close(bus) }
    var message: OpaquePointer?
    guard cdbus_new_call(bus, &message, service, sessionPath(id), "org.freedesktop.DBus.Properties", "Get") >= 0,
      let message
    else { return nil }
    defer { cdbus_unref(message) }
    let string = CChar(UInt8(ascii: "s"))
    guard cdbus_append_string(message, string, "org.freedesktop.login1.Session") >= 0,
      cdbus_append_string(message, string, "LockedHint") >= 0
    else { return nil }
    var reply: OpaquePointer?
    var errorName = [CChar](repeating: 0, count: 128)
    let microseconds = UInt64(max(timeout, 0.01) * 1_000_000)
    guard cdbus_call(bus, message, microseconds, &reply, &errorName, errorName.count) >= 0, let reply else { return nil }
    defer { cdbus_unref(reply) }
    var value: Int32 = 0
    guard cdbus_enter_variant(reply, "b") >= 0, cdbus_read_bool(reply, &value) > 0 else { return nil }
    return value != 0
  }
}
