import Foundation
import LocalAuthCore
import Testing

/// One row of docs/return-codes.md as a runnable case: the state to set up, the module arguments, what
/// the user types, and the exact code, messages and log line expected.
struct Scenario: Sendable, CustomTestStringConvertible {
  /// How the service file stacks the module.
  enum Stack: Sendable {
    /// `auth required pam_localauth.so`, alone: the stack's result is the module's code.
    case alone
    /// `auth [success=done ignore=ignore default=die] pam_localauth.so`, then pam_echo and pam_permit:
    /// the echo line shows only when the module returned PAM_IGNORE, and pam_permit then decides.
    case ignoreProbe
  }

  /// The line pam_echo prints in the ignore probe.
  static let probeLine = "pam_localauth ignored this request; the next line decides."

  /// A short name.
  let name: String
  /// The module's PAM code, such as PAM_MAXTRIES.
  let code: String
  /// Extra module arguments.
  var arguments: [String] = []
  /// Prepares the state (enrolment, passcode, seeded counters, queued touches).
  var setup: @Sendable (Sandbox) throws -> Void = { _ in }
  /// What the user types at echo-off prompts.
  var answers: [String] = []
  /// Authenticate this user instead of the sandbox's (an unknown user).
  var otherUser: String?
  /// Extra PAMHarness options (--silent, --rhost, --pam-env, --null-response, --conv-again).
  var harnessOptions: [String] = []
  /// Extra pamtester options (-I rhost=…, -E VAR=…).
  var pamtesterOptions: [String] = []
  /// The pamtester operation, with flags.
  var pamtesterOperation = "authenticate"
  /// The conversation PAMHarness must print, exactly, in order.
  var messages: [String] = []
  /// A sentence the module must log (checked through pam_wrapper's copy of syslog).
  var log: String?
  /// False when pamtester cannot express the case (PAM_CONV_AGAIN, NULL responses).
  var viaPamtester = true
  /// How the module is stacked.
  var stack: Stack = .alone

  var testDescription: String { "\(name) → \(code)" }

  /// The result the whole stack gives.
  var stackResult: String { stack == .ignoreProbe ? "PAM_SUCCESS" : code }

  /// The conversation including the probe's line.
  var expectedMessages: [String] {
    stack == .ignoreProbe ? messages + ["info: " + Self.probeLine] : messages
  }

  /// Writes the service file for this case.
  func writeService(in sandbox: Sandbox) throws {
    switch stack {
    case .alone:
      try sandbox.writeService([sandbox.moduleLine(arguments)])
    case .ignoreProbe:
      try sandbox.writeService([
        sandbox.moduleLine(arguments, control: "[success=done ignore=ignore default=die]"),
        "auth optional pam_echo.so " + Self.probeLine,
        "auth required pam_permit.so",
      ])
    }
  }
}

/// Shared setups.
enum Setups {
  /// A finger enrolled, passcode 1234, and the passcode rules satisfied: biometry may be used.
  static let ready: @Sendable (Sandbox) throws -> Void = { s in
    try s.enroll()
    try s.setPasscode()
    try s.satisfyPasscodeRules()
  }
  /// Ready, with the user's own finger queued.
  static let readyAndTouched: @Sendable (Sandbox) throws -> Void = { s in
    try ready(s)
    try s.touch()
  }
  /// Only a passcode (1234), no finger.
  static let passcodeOnly: @Sendable (Sandbox) throws -> Void = { s in try s.setPasscode() }
}
