import Foundation
import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// Linux-only: how an app without a terminal (a GUI app) shows an evaluation's request and asks for the passcode.
///
/// Set it on a context (`LAContext.prompter`) before evaluating. The privileged side then counts the request as
/// visible (the app shows it), sends it the lines to show and, when the passcode is needed, asks it for the text;
/// the passcode goes straight to the privileged side and is not kept by the library. Without a prompter, a
/// context uses the controlling terminal, and an app that has none gets `notInteractive`.
///
/// ```swift
/// final class DialogPrompter: LAPrompter {
///   func show(_ message: String) { statusLabel.text = message }
///   func showBiometricRequest(_ message: String) { sheet.present(message) }
///   func passcode(prompt: String) -> String? { passwordDialog.run(title: prompt) }  // nil: Cancel
/// }
/// let context = LAContext()
/// context.prompter = DialogPrompter()
/// try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "unlock your notes")
/// ```
public protocol LAPrompter: AnyObject, Sendable {
  /// Shows a line for the user ("Biometry is locked out. Enter your passcode.").
  func show(_ message: String)
  /// Shows the biometric request ("Place your finger on the sensor to unlock your notes.") until the next call.
  func showBiometricRequest(_ message: String)
  /// Asks for the passcode with `prompt`; nil when the user cancels.
  func passcode(prompt: String) -> String?
}

/// An `LAPrompter` as the core's prompter.
final class PrompterBridge: AuthPrompter {
  let prompter: LAPrompter

  init(_ prompter: LAPrompter) { self.prompter = prompter }

  func info(_ text: String) throws(LocalAuthError) { prompter.show(text) }
  func request(_ text: String) throws(LocalAuthError) { prompter.showBiometricRequest(text) }
  func error(_ text: String) throws(LocalAuthError) { prompter.show(text) }

  func secret(_ prompt: String) throws(LocalAuthError) -> SecretBytes {
    guard let answer = prompter.passcode(prompt: prompt) else { throw .prompt(.interrupted) }
    return SecretBytes(Array(answer.utf8))
  }
}

/// Where a context's dialog goes: the app's prompter, else the controlling terminal, else nowhere.
enum DialogTarget {
  case prompter(LAPrompter)
  case terminal
  case none

  /// The target for a context whose prompter is `prompter`.
  static func resolve(_ prompter: LAPrompter?) -> DialogTarget {
    if let prompter { return .prompter(prompter) }
    let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard fd >= 0 else { return .none }
    close(fd)
    return .terminal
  }

  /// The core prompter the helper's lines and prompts are relayed to.
  var authPrompter: AuthPrompter {
    switch self {
    case .prompter(let prompter): PrompterBridge(prompter)
    case .terminal, .none: TerminalPrompter()
    }
  }
}
