import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// The core's prompter at a terminal: messages and prompts on the terminal (or stderr), answers with echo off.
final class TerminalPrompter: AuthPrompter {
  private lazy var terminal = Terminal.open()

  /// Creates a prompter; the terminal is opened at the first prompt.
  init() {}

  func info(_ text: String) throws(LocalAuthError) { terminal.write(text + "\n") }

  func error(_ text: String) throws(LocalAuthError) { terminal.write(text + "\n") }

  func secret(_ prompt: String) throws(LocalAuthError) -> SecretBytes {
    let answer: SecretBytes?
    do { answer = try terminal.readSecret(prompt: prompt) } catch { throw .prompt(.io(EIO)) }
    guard let answer else { throw .prompt(.conversationFailed) }
    return answer
  }
}
