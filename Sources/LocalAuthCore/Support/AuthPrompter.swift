/// Why talking to the user failed.
public enum PromptError: Error, Equatable, Sendable {
  /// The conversation function failed or returned no answer.
  case conversationFailed
  /// The application asked to be called again later (PAM_CONV_AGAIN).
  case conversationAgain
}

/// How the core talks to the user: the PAM conversation, a terminal, or a test script.
public protocol AuthPrompter: AnyObject {
  /// Shows an informational line (suppressed when the caller asked for silence).
  func info(_ text: String) throws
  /// Asks the user to act without typing ("Place your finger on the sensor"); shown even when the caller asked
  /// for silence, because it is the biometric step's prompt, as the passcode prompt is the passcode step's.
  func request(_ text: String) throws
  /// Shows an error line, such as "Try again" or a delay with the time left.
  func error(_ text: String) throws
  /// Asks for a secret with echo off.
  func secret(_ prompt: String) throws -> SecretBytes
}

extension AuthPrompter {
  /// By default a request is shown like an informational line.
  public func request(_ text: String) throws { try info(text) }
}

/// A prompter that replays scripted answers and records what was shown, for tests.
public final class ScriptedPrompter: AuthPrompter, @unchecked Sendable {
  private let lock = Mutex()
  private var answers: [String]
  /// Every line shown, prefixed "info: ", "error: " or "prompt: ".
  public private(set) var transcript: [String] = []

  /// Creates a prompter that answers secret prompts with `answers`, in order.
  public init(answers: [String] = []) { self.answers = answers }

  /// Adds answers.
  public func enqueue(_ more: String...) { lock.withLock { answers += more } }

  public func info(_ text: String) throws { lock.withLock { transcript.append("info: " + text) } }
  public func error(_ text: String) throws { lock.withLock { transcript.append("error: " + text) } }
  public func secret(_ prompt: String) throws -> SecretBytes {
    try lock.withLock {
      transcript.append("prompt: " + prompt)
      guard !answers.isEmpty else { throw PromptError.conversationFailed }
      return SecretBytes(answers.removeFirst())
    }
  }

  /// The prompts asked so far.
  public var prompts: [String] { lock.withLock { transcript.filter { $0.hasPrefix("prompt: ") } } }
}
