import CPAM
import CSyscalls
import LocalAuthCore

/// Every pointer the module touches: argv decoding, PAM items, the conversation and syslog.
/// No other Swift file in the module holds unsafe code.
struct PAMHandle {
  /// The handle PAM passed in.
  let raw: OpaquePointer
  /// True when the application passed PAM_SILENT.
  let silent: Bool

  /// Decodes argv with a cap on count and length; returns nil for a NULL entry.
  static func arguments(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> [String]? {
    guard argc > 0 else { return [] }
    guard let argv, argc <= CInt(OptionParser.maximumEntries) else { return nil }
    var result: [String] = []
    for i in 0..<Int(argc) {
      guard let arg = argv[i], strnlen(arg, OptionParser.maximumEntryLength + 1) <= OptionParser.maximumEntryLength else {
        return nil
      }
      result.append(String(cString: arg))
    }
    return result
  }

  /// The user name, asking the application if needed. Corresponds to PAM's `pam_get_user`.
  func user() -> Result<String, PAMFailure> {
    var name: UnsafePointer<CChar>?
    let status = pam_get_user(raw, &name, nil)
    // libpam reports a conversation's PAM_CONV_AGAIN from pam_get_user as PAM_INCOMPLETE.
    if status == PAM_CONV_AGAIN || status == PAM_INCOMPLETE { return .failure(.conversation(again: true)) }
    if status == PAM_CONV_ERR { return .failure(.conversation(again: false)) }
    guard status == PAM_SUCCESS, let name else { return .failure(.noUser) }
    return .success(String(cString: name))
  }

  /// True when the system knows the user (NSS lookup). Corresponds to `getpwnam`.
  static func userExists(_ name: String) -> Bool { getpwnam(name) != nil }

  /// The process's real uid: not root when an unprivileged user runs a setuid program such as passwd.
  static var realUserID: uid_t { getuid() }

  /// The process's effective uid.
  static var effectiveUserID: uid_t { geteuid() }

  /// The file the module was loaded from, as the dynamic loader names it; nil when it does not.
  static func moduleFile() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard cpam_loaded_from(&buffer, buffer.count) == 0 else { return nil }
    return PAMHandle.text(buffer)
  }

  /// The entry point named `entry` of the library at `path`, opened with RTLD_NOW and never closed; the loader's
  /// reason when it cannot be opened or has no such entry.
  static func openLibrary(_ path: String, entry: String) -> Result<cpam_extra_entry, LoaderError> {
    var reason = [CChar](repeating: 0, count: 512)
    guard let function = cpam_open_extra(path, entry, &reason, reason.count) else {
      return .failure(LoaderError(reason: PAMHandle.text(reason)))
    }
    return .success(function)
  }

  /// The text of a NUL-terminated buffer, as UTF-8.
  private static func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// What the dynamic loader said.
  struct LoaderError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason.isEmpty ? "the loader gave no reason" : reason }
  }

  /// A string item such as PAM_RHOST or PAM_SERVICE. Corresponds to PAM's `pam_get_item`.
  func item(_ type: CInt) -> String? {
    var value: UnsafeRawPointer?
    guard pam_get_item(raw, type, &value) == PAM_SUCCESS, let value else { return nil }
    return String(cString: value.assumingMemoryBound(to: CChar.self))
  }

  /// PAM_AUTHTOK or PAM_OLDAUTHTOK as an earlier module set it; nil when unset. Corresponds to `pam_get_item`.
  func authToken(_ type: CInt) -> SecretBytes? {
    var value: UnsafeRawPointer?
    guard pam_get_item(raw, type, &value) == PAM_SUCCESS, let value else { return nil }
    let text = value.assumingMemoryBound(to: CChar.self)
    let length = strnlen(text, SecretBytes.maximumLength + 1)
    guard length <= SecretBytes.maximumLength else { return nil }
    return SecretBytes(Array(UnsafeRawBufferPointer(start: text, count: length)))
  }

  /// Sets PAM_AUTHTOK for the modules after this one (libpam copies it, and wipes its copy at pam_end).
  /// Corresponds to `pam_set_item`.
  func setAuthToken(_ token: SecretBytes) -> Bool {
    var text = [CChar](repeating: 0, count: token.count + 1)
    defer { for i in text.indices { text[i] = 0 } }
    for (i, byte) in token.bytes.enumerated() { text[i] = CChar(bitPattern: byte) }
    return pam_set_item(raw, PAM_AUTHTOK, text) == PAM_SUCCESS
  }

  /// Marks this PAM transaction (pam_set_data, no cleanup needed: the value is not a pointer to memory).
  func mark(_ name: String) {
    _ = pam_set_data(raw, name, UnsafeMutableRawPointer(bitPattern: 1), nil)
  }

  /// True when `mark(_:)` ran for `name` in this transaction. Corresponds to `pam_get_data`.
  func isMarked(_ name: String) -> Bool {
    var value: UnsafeRawPointer?
    return pam_get_data(raw, name, &value) == PAM_SUCCESS && value != nil
  }

  /// A variable from the PAM environment, then the process environment. Corresponds to `pam_getenv`.
  func environment(_ name: String) -> String? {
    if let value = pam_getenv(raw, name) { return String(cString: value) }
    if let value = getenv(name) { return String(cString: value) }
    return nil
  }

  /// pam_unix's failure pause, 2 seconds, which libpam applies (±25 %) only when the stack fails.
  static let standardFailDelay: UInt32 = 2_000_000

  /// Asks libpam to pause at least `microseconds` if the stack fails; libpam keeps the longest request and
  /// randomises it. Corresponds to PAM's `pam_fail_delay`.
  func failDelay(microseconds: UInt32) {
    _ = pam_fail_delay(raw, microseconds)
  }

  /// Writes one sentence to syslog. Corresponds to PAM's `pam_syslog`.
  func syslog(_ priority: CInt, _ message: String) {
    cpam_syslog(raw, priority, message)
  }

  /// Sends one message through the application's conversation and returns the answer, if any.
  /// Corresponds to calling the `pam_conv` item's function.
  func converse(style: CInt, _ text: String) throws(PromptError) -> SecretBytes? {
    var item: UnsafeRawPointer?
    guard pam_get_item(raw, PAM_CONV, &item) == PAM_SUCCESS, let item else { throw .conversationFailed }
    let conversation = item.assumingMemoryBound(to: pam_conv.self).pointee
    guard let function = conversation.conv else { throw .conversationFailed }
    let reply = text.withCString { cText -> Result<SecretBytes?, PromptError> in
      var message = pam_message(msg_style: style, msg: cText)
      return withUnsafePointer(to: &message) { messagePointer -> Result<SecretBytes?, PromptError> in
        var messages: UnsafePointer<pam_message>? = messagePointer
        var response: UnsafeMutablePointer<pam_response>?
        let status = function(1, &messages, &response, conversation.appdata_ptr)
        defer { Self.free(response) }
        if status == PAM_CONV_AGAIN { return .failure(.conversationAgain) }
        guard status == PAM_SUCCESS else { return .failure(.conversationFailed) }
        guard style == PAM_PROMPT_ECHO_OFF || style == PAM_PROMPT_ECHO_ON else { return .success(nil) }
        guard let response, let answer = response.pointee.resp else { return .failure(.conversationFailed) }
        let length = strnlen(answer, SecretBytes.maximumLength + 1)
        return .success(SecretBytes(Array(UnsafeRawBufferPointer(start: answer, count: length))))
      }
    }
    return try reply.get()
  }

  /// Wipes and frees a conversation's response, as pam_unix's `_pam_delete` does.
  private static func free(_ response: UnsafeMutablePointer<pam_response>?) {
    guard let response else { return }
    if let answer = response.pointee.resp {
      let length = strlen(answer)
      memset(answer, 0, length)
      CSyscalls.free(answer)
    }
    CSyscalls.free(response)
  }
}

/// The conversation as the core's prompter: info lines obey PAM_SILENT; errors (such as the time left in a
/// delay) and prompts do not, since hiding them would leave the user guessing.
final class ConversationPrompter: AuthPrompter {
  let handle: PAMHandle
  /// The parallel prompt on the terminal, whose line is ended before the conversation writes to the terminal.
  private var entry: TerminalEntry?

  init(handle: PAMHandle) { self.handle = handle }

  func info(_ text: String) throws(LocalAuthError) {
    guard !handle.silent else { return }
    _ = try converse(style: PAM_TEXT_INFO, text)
  }

  /// The finger request is the biometric step's prompt: sudo always passes PAM_SILENT, and without this line
  /// its users would wait on the sensor with nothing on the screen.
  func request(_ text: String) throws(LocalAuthError) {
    _ = try converse(style: PAM_TEXT_INFO, text)
  }

  func error(_ text: String) throws(LocalAuthError) {
    _ = try converse(style: PAM_ERROR_MSG, text)
  }

  func secret(_ prompt: String) throws(LocalAuthError) -> SecretBytes {
    guard let answer = try converse(style: PAM_PROMPT_ECHO_OFF, prompt) else { throw .prompt(.conversationFailed) }
    return answer
  }

  /// A parallel prompt read from the controlling terminal, when the application's standard input is that
  /// terminal (login, su, sudo: their conversation reads it); nil for any other conversation (a display manager).
  func openParallelEntry(_ prompt: String) throws(LocalAuthError) -> ParallelEntry? {
    entry = TerminalEntry.open(prompt: prompt)
    return entry
  }

  private func converse(style: CInt, _ text: String) throws(LocalAuthError) -> SecretBytes? {
    entry?.lineDone()
    do { return try handle.converse(style: style, text) } catch { throw .prompt(error) }
  }
}

/// The core's log, written through pam_syslog.
final class SyslogLog: AuthLog, @unchecked Sendable {
  let handle: PAMHandle
  let debug: Bool

  init(handle: PAMHandle, debug: Bool) {
    self.handle = handle
    self.debug = debug
  }

  func log(_ level: LogLevel, _ message: String) {
    let priority: CInt =
      switch level {
      case .debug: LOG_DEBUG
      case .info: LOG_INFO
      case .notice: LOG_NOTICE
      case .warning: LOG_WARNING
      case .error: LOG_ERR
      }
    if level == .debug && !debug { return }
    handle.syslog(priority, message)
  }
}
