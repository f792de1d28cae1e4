import CPAM

#if canImport(Glibc)
import Glibc
#endif

/// The scripted conversation: prints every message, answers prompts from a list, fails when it runs out.
final class Conversation {
  private var answers: [String]
  let nullResponse: Bool
  let conversationAgain: Bool
  /// When false, nothing is printed (the cycle mode).
  var echo = true
  /// Messages received, counted even when not printed.
  private(set) var messageCount = 0

  init(answers: [String], nullResponse: Bool, conversationAgain: Bool) {
    self.answers = answers
    self.nullResponse = nullResponse
    self.conversationAgain = conversationAgain
  }

  /// The `pam_conv` value to hand to pam_start; valid while this object lives.
  func makeConv() -> pam_conv {
    pam_conv(conv: conversationFunction, appdata_ptr: Unmanaged.passUnretained(self).toOpaque())
  }

  /// Handles one conversation call; returns the PAM code and, on success, the answers to hand back.
  func respond(to messages: [(style: CInt, text: String)]) -> (CInt, [String?]) {
    var replies: [String?] = []
    for message in messages {
      messageCount += 1
      let label: String
      switch message.style {
      case PAM_TEXT_INFO: label = "info"
      case PAM_ERROR_MSG: label = "error"
      case PAM_PROMPT_ECHO_OFF: label = "prompt"
      case PAM_PROMPT_ECHO_ON: label = "prompt-echo"
      default: label = "message-\(message.style)"
      }
      if echo { print("\(label): \(message.text)") }
      if conversationAgain { return (PAM_CONV_AGAIN, []) }
      guard message.style == PAM_PROMPT_ECHO_OFF || message.style == PAM_PROMPT_ECHO_ON else {
        replies.append(nil)
        continue
      }
      if nullResponse {
        replies.append(nil)
        continue
      }
      guard !answers.isEmpty else {
        if echo { print("conversation: no answer left; failing the conversation") }
        return (PAM_CONV_ERR, [])
      }
      replies.append(answers.removeFirst())
    }
    return (PAM_SUCCESS, replies)
  }
}

/// The C conversation function: decodes the messages, asks the script, allocates the responses with
/// calloc/strdup because PAM frees them.
private let conversationFunction:
  @convention(c) (
    CInt, UnsafeMutablePointer<UnsafePointer<pam_message>?>?, UnsafeMutablePointer<UnsafeMutablePointer<pam_response>?>?,
    UnsafeMutableRawPointer?
  ) -> CInt = { count, messages, responses, appdata in
    guard count > 0, let messages, let responses, let appdata else { return PAM_CONV_ERR }
    let conversation = Unmanaged<Conversation>.fromOpaque(appdata).takeUnretainedValue()
    var decoded: [(style: CInt, text: String)] = []
    for i in 0..<Int(count) {
      guard let message = messages[i] else { return PAM_CONV_ERR }
      decoded.append((message.pointee.msg_style, message.pointee.msg.map { String(cString: $0) } ?? ""))
    }
    let (status, replies) = conversation.respond(to: decoded)
    guard status == PAM_SUCCESS else { return status }
    if conversation.nullResponse {
      responses.pointee = nil
      return PAM_SUCCESS
    }
    guard let array = calloc(Int(count), MemoryLayout<pam_response>.stride)?.assumingMemoryBound(to: pam_response.self)
    else { return PAM_BUF_ERR }
    for (i, reply) in replies.enumerated() {
      array[i].resp = reply.flatMap { strdup($0) }
      array[i].resp_retcode = 0
    }
    responses.pointee = array
    return PAM_SUCCESS
  }
