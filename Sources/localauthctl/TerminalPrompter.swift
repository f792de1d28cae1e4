import LocalAuthCore

/// The core's prompter at a terminal: messages and prompts on the terminal (or stderr), answers with echo off.
final class TerminalPrompter: AuthPrompter {
  private lazy var terminal = Terminal.open()

  /// Creates a prompter; the terminal is opened at the first prompt.
  init() {}

  func info(_ text: String) throws { terminal.write(text + "\n") }

  func error(_ text: String) throws { terminal.write(text + "\n") }

  func secret(_ prompt: String) throws -> SecretBytes {
    guard let answer = try terminal.readSecret(prompt: prompt) else { throw PromptError.conversationFailed }
    return answer
  }
}
