/// Why talking to the user failed.
public enum PromptError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The conversation function failed or returned no answer.
  case conversationFailed
  /// The application asked to be called again later (PAM_CONV_AGAIN).
  case conversationAgain
  /// There is no terminal to talk to (no controlling terminal).
  case noTerminal
  /// The input ended (Ctrl-D) before an answer was complete.
  case endOfInput
  /// Ctrl-C was typed at the secret prompt: the Cancel button.
  case interrupted
  /// Reading or writing the terminal failed with this errno.
  case io(Int32)

  public var description: String {
    switch self {
    case .conversationFailed: "the application's conversation failed or gave no answer"
    case .conversationAgain: "the application's conversation asked to be called again (PAM_CONV_AGAIN)"
    case .noTerminal: "there is no terminal to ask on"
    case .endOfInput: "the input ended before an answer"
    case .interrupted: "the prompt was interrupted (Ctrl-C)"
    case .io(let code): "the terminal failed: \(errnoDescription(code))"
    }
  }
}

/// How the core talks to the user: the PAM conversation, a terminal, or a test script.
public protocol AuthPrompter: AnyObject {
  /// Shows an informational line (suppressed when the caller asked for silence).
  func info(_ text: String) throws(LocalAuthError)
  /// Asks the user to act without typing ("Place your finger on the sensor"); shown even when the caller asked
  /// for silence, because it is the biometric step's prompt, as the passcode prompt is the passcode step's.
  func request(_ text: String) throws(LocalAuthError)
  /// Shows an error line, such as "Try again" or a delay with the time left.
  func error(_ text: String) throws(LocalAuthError)
  /// Asks for a secret with echo off.
  func secret(_ prompt: String) throws(LocalAuthError) -> SecretBytes
  /// Opens a prompt that takes a finger or a typed passcode, whichever comes first (`parallel_passcode`), or
  /// nil when this prompter cannot be read while the sensor waits (ParallelEntry.swift; the default).
  func openParallelEntry(_ prompt: String) throws(LocalAuthError) -> ParallelEntry?
}

extension AuthPrompter {
  /// By default a request is shown like an informational line.
  public func request(_ text: String) throws(LocalAuthError) { try info(text) }
}
