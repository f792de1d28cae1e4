import CDBus

/// What localauth-helper asks polkitd for an app without a terminal (issue 39): `CheckAuthorization` of one of our
/// actions for the app's process, with user interaction, and the dialog's text written by the helper.
package struct PolkitQuestion: Equatable, Sendable {
  /// The app's process, as the kernel names it: pid, start time (field 22 of /proc/PID/stat) and real uid. polkitd
  /// refuses a subject whose start time or uid no longer match (a pid reused meanwhile).
  package var processID: Int32
  package var processStart: UInt64
  package var uid: UInt32
  /// `org.localauth.evaluate` or `org.localauth.evaluate.biometrics` (etc/polkit-1/org.localauth.policy).
  package var action: String
  /// The dialog's text (`polkit.message`, honoured only from a caller that is uid 0, as the setuid helper is).
  package var message: String
  /// The longest the dialog may stay open, in seconds; then it is cancelled.
  package var timeout: Double

  /// Describes a question.
  package init(processID: Int32, processStart: UInt64, uid: UInt32, action: String, message: String, timeout: Double) {
    self.processID = processID
    self.processStart = processStart
    self.uid = uid
    self.action = action
    self.message = message
    self.timeout = timeout
  }
}

/// polkitd's answer to a `PolkitQuestion`, or why there is none.
package enum PolkitReply: Equatable, Sendable {
  /// The reply's (is_authorized, is_challenge) and its `polkit.dismissed` detail (the user closed the dialog).
  case answered(authorized: Bool, challenge: Bool, dismissed: Bool)
  /// polkitd answered with a D-Bus error (its name), or the call could not be made (why).
  case failed(String)
  /// The question was withdrawn before the answer (the app hung up), and the dialog cancelled.
  case cancelled
  /// No answer within the question's timeout; the dialog was cancelled.
  case timedOut
}

/// `org.freedesktop.PolicyKit1.Authority.CheckAuthorization` over the system bus, through sd-bus opened on first use
/// (CDBus). The call is sent, then its reply awaited in slices, so that the app's hang-up or the timeout cancels the
/// dialog (`CancelCheckAuthorization` with the call's own cancellation id) instead of leaving it on the screen.
package enum PolkitBus {
  static let service = "org.freedesktop.PolicyKit1"
  static let path = "/org/freedesktop/PolicyKit1/Authority"
  static let interface = "org.freedesktop.PolicyKit1.Authority"
  /// CheckAuthorizationFlags.AllowUserInteraction.
  static let allowUserInteraction: UInt32 = 1

  /// Asks `question`; `withdrawn` is polled every quarter second while the dialog is open.
  package static func ask(_ question: PolkitQuestion, withdrawn: () -> Bool) -> PolkitReply {
    guard cdbus_available() != 0 else { return .failed("libsystemd.so.0 cannot be opened") }
    var bus: OpaquePointer?
    let opened = cdbus_open_system(&bus)
    guard opened >= 0, let bus else { return .failed("the system bus cannot be reached (error \(-opened))") }
    defer { cdbus_close(bus) }
    var random = SystemRandomNumberGenerator()
    let cancellationID = "localauth-" + String(random.next() as UInt64, radix: 16)
    var call: OpaquePointer?
    guard cdbus_new_call(bus, &call, service, path, interface, "CheckAuthorization") >= 0, let call else {
      return .failed("the call cannot be made")
    }
    defer { cdbus_unref(call) }
    guard append(question, cancellationID: cancellationID, to: call) else { return .failed("the call cannot be written") }
    var serial: UInt64 = 0
    let sent = cdbus_send(bus, call, &serial)
    guard sent >= 0 else { return .failed("the call cannot be sent (error \(-sent))") }
    let start = Syscalls.monotonicSeconds()
    var cancelling: PolkitReply? = nil
    while true {
      var message: OpaquePointer?
      let processed = cdbus_process(bus, &message)
      if processed < 0 { return cancelling ?? .failed("the bus connection failed (error \(-processed))") }
      if let message {
        defer { cdbus_unref(message) }
        var answers: UInt64 = 0
        guard cdbus_reply_cookie(message, &answers) >= 0, answers == serial else { continue }
        if let cancelling { return cancelling }
        return reply(message)
      }
      if processed > 0 { continue }
      if cancelling == nil {
        if withdrawn() {
          cancelling = .cancelled
        } else if Syscalls.monotonicSeconds() - start >= question.timeout {
          cancelling = .timedOut
        }
        // The dialog is closed by polkitd, which then answers the call: that answer ends the wait.
        if cancelling != nil, !cancel(cancellationID, on: bus) { return cancelling ?? .cancelled }
      } else if Syscalls.monotonicSeconds() - start >= question.timeout + 5 {
        return cancelling ?? .cancelled
      }
      let waited = cdbus_wait(bus, 250_000)
      if waited < 0 && waited != -Errno.interrupted.code { return cancelling ?? .failed("the bus wait failed (error \(-waited))") }
    }
  }

  /// Writes CheckAuthorization's arguments: subject (sa{sv}), action id, details a{ss}, flags, cancellation id.
  static func append(_ question: PolkitQuestion, cancellationID: String, to call: OpaquePointer) -> Bool {
    let s = CChar(UInt8(ascii: "s"))
    let u = CChar(UInt8(ascii: "u"))
    let i = CChar(UInt8(ascii: "i"))
    let r = CChar(UInt8(ascii: "r"))
    let a = CChar(UInt8(ascii: "a"))
    let e = CChar(UInt8(ascii: "e"))
    let v = CChar(UInt8(ascii: "v"))
    func entry(_ key: String, _ body: () -> Bool, signature: String) -> Bool {
      cdbus_open_container(call, e, "sv") >= 0 && cdbus_append_string(call, s, key) >= 0
        && cdbus_open_container(call, v, signature) >= 0 && body() && cdbus_close_container(call) >= 0
        && cdbus_close_container(call) >= 0
    }
    return cdbus_open_container(call, r, "sa{sv}") >= 0 && cdbus_append_string(call, s, "unix-process") >= 0
      && cdbus_open_container(call, a, "{sv}") >= 0
      && entry("pid", { cdbus_append_u32(call, u, UInt32(bitPattern: question.processID)) >= 0 }, signature: "u")
      && entry("start-time", { cdbus_append_u64(call, question.processStart) >= 0 }, signature: "t")
      && entry("uid", { cdbus_append_u32(call, i, question.uid) >= 0 }, signature: "i")
      && cdbus_close_container(call) >= 0 && cdbus_close_container(call) >= 0
      && cdbus_append_string(call, s, question.action) >= 0
      && cdbus_open_container(call, a, "{ss}") >= 0
      && cdbus_open_container(call, e, "ss") >= 0 && cdbus_append_string(call, s, "polkit.message") >= 0
      && cdbus_append_string(call, s, question.message) >= 0 && cdbus_close_container(call) >= 0
      && cdbus_close_container(call) >= 0
      && cdbus_append_u32(call, u, allowUserInteraction) >= 0
      && cdbus_append_string(call, s, cancellationID) >= 0
  }

  /// The reply (bba{ss}), or the error it is.
  static func reply(_ message: OpaquePointer) -> PolkitReply {
    var errorName = [CChar](repeating: 0, count: 256)
    if cdbus_error_name(message, &errorName, errorName.count) > 0 {
      return .failed(String(decoding: errorName.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    var authorized: Int32 = 0
    var challenge: Int32 = 0
    guard cdbus_enter_container(message, CChar(UInt8(ascii: "r")), "bba{ss}") >= 0, cdbus_read_bool(message, &authorized) > 0,
      cdbus_read_bool(message, &challenge) > 0, cdbus_enter_array(message, "{ss}") >= 0
    else { return .failed("polkitd's reply cannot be read") }
    var dismissed = false
    var entries = 0
    while entries < 64, cdbus_enter_container(message, CChar(UInt8(ascii: "e")), "ss") > 0 {
      entries += 1
      var key: UnsafePointer<CChar>?
      var value: UnsafePointer<CChar>?
      let s = CChar(UInt8(ascii: "s"))
      guard cdbus_read_string(message, s, &key) > 0, cdbus_read_string(message, s, &value) > 0, let key, let value else { break }
      if String(cString: key) == "polkit.dismissed", !String(cString: value).isEmpty { dismissed = true }
      _ = cdbus_exit_container(message)
    }
    return .answered(authorized: authorized != 0, challenge: challenge != 0, dismissed: dismissed)
  }

  /// Sends CancelCheckAuthorization for `id` (from the connection that asked, as polkitd requires); false when it
  /// cannot be sent.
  static func cancel(_ id: String, on bus: OpaquePointer) -> Bool {
    var call: OpaquePointer?
    guard cdbus_new_call(bus, &call, service, path, interface, "CancelCheckAuthorization") >= 0, let call else { return false }
    defer { cdbus_unref(call) }
    var serial: UInt64 = 0
    return cdbus_append_string(call, CChar(UInt8(ascii: "s")), id) >= 0 && cdbus_send(bus, call, &serial) >= 0
  }
}
