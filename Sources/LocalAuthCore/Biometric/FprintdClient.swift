import CDBus

/// Why fprintd could not be used.
package enum FprintdError: Error, Equatable, Sendable, CustomStringConvertible {
  /// libsystemd (sd-bus) could not be loaded.
  case noLibrary
  /// The system bus could not be reached (the errno).
  case noBus(Int32)
  /// A call failed: the method, the D-Bus error name (empty when there was none) and the errno.
  case call(method: String, error: String, errno: Int32)
  /// A reply did not have the expected shape.
  case badReply(method: String)

  package var description: String {
    switch self {
    case .noLibrary: "libsystemd.so.0 (sd-bus) could not be loaded"
    case .noBus(let code): "the system bus could not be reached: \(errnoDescription(code))"
    case .call(let method, let error, let code):
      error.isEmpty ? "\(method) failed: \(errnoDescription(code))" : "\(method) failed: \(error)"
    case .badReply(let method): "\(method) gave a reply of an unexpected shape"
    }
  }
}

/// A signal of fprintd's device interface.
enum FprintdSignal: Equatable {
  /// VerifyStatus(result, done).
  case verifyStatus(String, done: Bool)
  /// VerifyFingerSelected(finger).
  case fingerSelected(String)
}

/// A connection to fprintd (net.reactivated.Fprint) on the system bus, through sd-bus opened on first use.
///
/// Every call waits at most `timeout`; signals are read from the connection with bounded waits. The bus address
/// comes from sd-bus: DBUS_SYSTEM_BUS_ADDRESS is read with secure_getenv, so a setuid host (su, sudo) always
/// talks to /run/dbus/system_bus_socket. Not thread-safe: one prompt uses it at a time.
final class FprintdClient {
  static let service = "net.reactivated.Fprint"
  static let managerPath = "/net/reactivated/Fprint/Manager"
  static let managerInterface = "net.reactivated.Fprint.Manager"
  static let deviceInterface = "net.reactivated.Fprint.Device"

  private let bus: OpaquePointer
  private let timeoutMicroseconds: UInt64

  private init(bus: OpaquePointer, timeout: Double) {
    self.bus = bus
    self.timeoutMicroseconds = UInt64(max(timeout, 0.01) * 1_000_000)
  }

  deinit { cdbus_close(bus) }

  /// Connects to the system bus.
  static func connect(timeout: Double) throws(FprintdError) -> FprintdClient {
    guard cdbus_available() != 0 else { throw .noLibrary }
    var bus: OpaquePointer?
    let status = cdbus_open_system(&bus)
    guard status >= 0, let bus else { throw .noBus(-status) }
    return FprintdClient(bus: bus, timeout: timeout)
  }

  /// Manager.GetDefaultDevice: the default reader's object path.
  func defaultDevice() throws(FprintdError) -> String {
    try call(Self.managerPath, Self.managerInterface, "GetDefaultDevice", []) { reply throws(FprintdError) in
      try Self.readString(reply, "o", method: "GetDefaultDevice")
    }
  }

  /// Device.ListEnrolledFingers(user): the enrolled fingers; none when fprintd says NoEnrolledPrints.
  func enrolledFingers(device: String, user: String) throws(FprintdError) -> [String] {
    do {
      return try call(device, Self.deviceInterface, "ListEnrolledFingers", [user]) { reply throws(FprintdError) in
        guard cdbus_enter_array(reply, "s") >= 0 else { throw .badReply(method: "ListEnrolledFingers") }
        var fingers: [String] = []
        var value: UnsafePointer<CChar>?
        while fingers.count < 64, cdbus_read_string(reply, CChar(UInt8(ascii: "s")), &value) > 0, let value {
          fingers.append(String(cString: value))
        }
        _ = cdbus_exit_container(reply)
        return fingers
      }
    } catch {
      if case .call(_, let name, _) = error, name.hasSuffix(".NoEnrolledPrints") { return [] }
      throw error
    }
  }

  /// A string property of the device ("name", "scan-type"); nil when it cannot be read.
  ///
  /// Through Properties.Get itself: sd-bus's property helpers refuse "scan-type", which is not a valid member name.
  func deviceProperty(_ device: String, _ name: String) -> String? {
    try? call(device, "org.freedesktop.DBus.Properties", "Get", [Self.deviceInterface, name]) { reply throws(FprintdError) in
      guard cdbus_enter_variant(reply, "s") >= 0 else { throw .badReply(method: "Get") }
      return try Self.readString(reply, "s", method: "Get")
    }
  }

  /// Device.Claim(user).
  func claim(_ device: String, user: String) throws(FprintdError) {
    try call(device, Self.deviceInterface, "Claim", [user]) { _ throws(FprintdError) in }
  }

  /// Device.Release().
  func release(_ device: String) throws(FprintdError) {
    try call(device, Self.deviceInterface, "Release", []) { _ throws(FprintdError) in }
  }

  /// Device.VerifyStart(finger): "any" verifies against every enrolled finger.
  func verifyStart(_ device: String, finger: String = "any") throws(FprintdError) {
    try call(device, Self.deviceInterface, "VerifyStart", [finger]) { _ throws(FprintdError) in }
  }

  /// Device.VerifyStop().
  func verifyStop(_ device: String) throws(FprintdError) {
    try call(device, Self.deviceInterface, "VerifyStop", []) { _ throws(FprintdError) in }
  }

  /// Asks the bus for the device's signals (org.freedesktop.DBus.AddMatch).
  func subscribe(_ device: String) throws(FprintdError) {
    let rule = "type='signal',sender='\(Self.service)',interface='\(Self.deviceInterface)',path='\(device)'"
    try call(
      "/org/freedesktop/DBus", "org.freedesktop.DBus", "AddMatch", [rule], destination: "org.freedesktop.DBus"
    ) { _ throws(FprintdError) in }
  }

  /// Drops every message already received: VerifyStop reports ("verify-no-match", done) before it returns, a
  /// result that no scan caused and that must not be counted.
  func discardPending() {
    var rounds = 0
    while rounds < 1000 {
      rounds += 1
      var message: OpaquePointer?
      let processed = cdbus_process(bus, &message)
      if let message { cdbus_unref(message) }
      if processed <= 0 { return }
    }
  }

  /// The next signal of `device`, waiting at most `seconds`; nil when none came.
  func nextSignal(from device: String, within seconds: Double) throws(FprintdError) -> FprintdSignal? {
    let start = HelperChannel.monotonicMilliseconds()
    while true {
      var message: OpaquePointer?
      let processed = cdbus_process(bus, &message)
      if processed < 0 { throw .call(method: "sd_bus_process", error: "", errno: -processed) }
      if let message {
        defer { cdbus_unref(message) }
        if let signal = Self.signal(message, device: device) { return signal }
        continue
      }
      if processed > 0 { continue }
      let left = seconds * 1000 - Double(HelperChannel.monotonicMilliseconds() - start)
      if left <= 0 { return nil }
      let waited = cdbus_wait(bus, UInt64(left * 1000))
      if waited < 0 && waited != -Errno.interrupted.code { throw .call(method: "sd_bus_wait", error: "", errno: -waited) }
    }
  }

  private static func signal(_ message: OpaquePointer, device: String) -> FprintdSignal? {
    guard let path = cdbus_path(message), String(cString: path) == device else { return nil }
    if cdbus_is_signal(message, deviceInterface, "VerifyStatus") > 0 {
      var result: UnsafePointer<CChar>?
      var done: Int32 = 0
      guard cdbus_read_string(message, CChar(UInt8(ascii: "s")), &result) > 0, let result, cdbus_read_bool(message, &done) > 0
      else { return nil }
      return .verifyStatus(String(cString: result), done: done != 0)
    }
    if cdbus_is_signal(message, deviceInterface, "VerifyFingerSelected") > 0 {
      var finger: UnsafePointer<CChar>?
      guard cdbus_read_string(message, CChar(UInt8(ascii: "s")), &finger) > 0, let finger else { return nil }
      return .fingerSelected(String(cString: finger))
    }
    return nil
  }

  /// Calls `member` with string arguments and hands the reply to `read`.
  private func call<T>(
    _ path: String, _ interface: String, _ member: String, _ arguments: [String], destination: String = FprintdClient.service,
    read: (OpaquePointer) throws(FprintdError) -> T
  ) throws(FprintdError) -> T {
    var message: OpaquePointer?
    var status = cdbus_new_call(bus, &message, destination, path, interface, member)
    guard status >= 0, let message else { throw .call(method: member, error: "", errno: -status) }
    defer { cdbus_unref(message) }
    for argument in arguments {
      status = cdbus_append_string(message, CChar(UInt8(ascii: "s")), argument)
      guard status >= 0 else { throw .call(method: member, error: "", errno: -status) }
    }
    var reply: OpaquePointer?
    var errorName = [CChar](repeating: 0, count: 128)
    status = cdbus_call(bus, message, timeoutMicroseconds, &reply, &errorName, errorName.count)
    guard status >= 0, let reply else {
      let name = String(decoding: errorName.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw .call(method: member, error: name, errno: -status)
    }
    defer { cdbus_unref(reply) }
    return try read(reply)
  }

  private static func readString(_ reply: OpaquePointer, _ type: Character, method: String) throws(FprintdError) -> String {
    var value: UnsafePointer<CChar>?
    guard cdbus_read_string(reply, CChar(type.asciiValue!), &value) > 0, let value else { throw .badReply(method: method) }
    return String(cString: value)
  }
}
