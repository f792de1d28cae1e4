import CPAM

#if canImport(Glibc)
import Glibc
#endif

// The benchmark's in-process PAM application: pam_start_confdir, pam_authenticate, pam_end, with a
// scripted conversation. All of the benchmark's pointer code is in this file.

/// The scripted conversation: info and error lines are dropped; a secret prompt gets `appdata` (a C
/// string) or fails the conversation when there is none. Responses are malloc'd: PAM frees them.
private let scriptedConversation:
  @convention(c) (
    Int32, UnsafeMutablePointer<UnsafePointer<pam_message>?>?,
    UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>?, UnsafeMutableRawPointer?
  ) -> Int32 = { count, messages, responses, appdata in
    guard count > 0, let messages, let responses,
      let replies = calloc(Int(count), MemoryLayout<pam_response>.stride)?.assumingMemoryBound(to: pam_response.self)
    else { return PAM_CONV_ERR }
    for i in 0..<Int(count) {
      guard let message = messages[i] else { continue }
      let style = message.pointee.msg_style
      if style == PAM_PROMPT_ECHO_OFF || style == PAM_PROMPT_ECHO_ON {
        guard let appdata else {
          for j in 0..<i { free(replies[j].resp) }
          free(replies)
          return PAM_CONV_ERR
        }
        replies[i].resp = strdup(appdata.assumingMemoryBound(to: CChar.self))
      }
    }
    responses.pointee = replies
    return PAM_SUCCESS
  }

/// Drives PAM in this process against the service files of one folder.
final class PAMDriver {
  /// The folder holding the service files.
  let confdir: String
  /// The user every transaction is for.
  let user: String
  private var secret: UnsafeMutablePointer<CChar>?

  /// Creates a driver; `secret` answers passcode prompts (nil: a prompt fails the conversation).
  init(confdir: String, user: String, secret: String? = nil) {
    self.confdir = confdir
    self.user = user
    self.secret = secret.map { strdup($0) }
  }

  deinit {
    if let secret {
      memset(secret, 0, strlen(secret))
      free(secret)
    }
  }

  /// One full transaction: pam_start_confdir, pam_authenticate, pam_end; returns pam_authenticate's code.
  func cycle(service: String) -> Int32 {
    var conversation = pam_conv(conv: scriptedConversation, appdata_ptr: secret.map { UnsafeMutableRawPointer($0) })
    var handle: OpaquePointer?
    let started = pam_start_confdir(service, user, &conversation, confdir, &handle)
    guard started == PAM_SUCCESS, let handle else { return started }
    let status = pam_authenticate(handle, 0)
    pam_end(handle, status)
    return status
  }

  /// The text of a PAM code.
  static func describe(_ code: Int32) -> String {
    guard let text = pam_strerror(nil, code) else { return "PAM code \(code)" }
    return String(cString: text) + " (\(code))"
  }

  /// PAM_SUCCESS.
  static var success: Int32 { PAM_SUCCESS }
}
