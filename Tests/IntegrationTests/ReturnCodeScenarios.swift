import Foundation
import LocalAuthCore

/// Every row of docs/return-codes.md, each run through PAMHarness and (where it can be expressed) pamtester.
enum ReturnCodeScenarios {
  static let finger = "info: Place your finger on the sensor to authenticate for localauth-test."
  static let enterPasscode = "prompt: Enter Passcode: "
  static let policy1 = "policy=deviceOwnerAuthenticationWithBiometrics"
  static let ssh = "SSH_CONNECTION=192.0.2.10 50000 192.0.2.1 22"

  static let all: [Scenario] = [
    Scenario(
      name: "success by finger", code: "PAM_SUCCESS", setup: Setups.readyAndTouched, messages: [finger],
      log: "Biometric match succeeded for user"),
    Scenario(
      name: "success by passcode after a restart", code: "PAM_SUCCESS",
      setup: { s in
        try s.enroll()
        try s.setPasscode()
      }, answers: ["1234"], messages: ["info: Your passcode is required after a restart.", enterPasscode],
      log: "Passcode accepted for user"),
    Scenario(
      name: "wrong passcode", code: "PAM_AUTH_ERR", setup: Setups.passcodeOnly, answers: ["9999"],
      messages: [enterPasscode, "error: Wrong passcode."], log: "failed: authenticationFailed (-1)"),
    Scenario(
      name: "Touch ID prompt ends after 3 failed matches under policy 1", code: "PAM_AUTH_ERR", arguments: [policy1],
      setup: { s in
        try Setups.ready(s)
        for _ in 0..<3 { try s.touch(from: "intruder") }
      }, messages: [finger, "error: Try again.", "error: Try again."], log: "failed: authenticationFailed (-1)"),
    Scenario(
      name: "passcode required after a restart under policy 1", code: "PAM_AUTHINFO_UNAVAIL", arguments: [policy1],
      setup: { s in
        try s.enroll()
        try s.setPasscode()
      }, messages: ["error: Your passcode is required after a restart."], log: "failed: biometryLockout (-8)"),
    Scenario(
      name: "sensor wait times out", code: "PAM_AUTHINFO_UNAVAIL", setup: Setups.ready, messages: [finger],
      log: "failed: systemCancel (-4)"),
    Scenario(
      name: "biometric lockout under policy 1, reached in this prompt", code: "PAM_MAXTRIES", arguments: [policy1],
      setup: { s in
        try Setups.ready(s)
        try s.seed { $0.biometricFailures = 4 }
        try s.touch(from: "intruder")
      },
      messages: [finger, "error: Too many failed attempts; biometry is locked until the passcode is entered."],
      log: "Biometry locked for user"),
    Scenario(
      name: "biometric lockout under policy 1, already in force", code: "PAM_MAXTRIES", arguments: [policy1],
      setup: { s in
        try Setups.ready(s)
        try s.seed { $0.biometricFailures = 5 }
      }, messages: ["error: Biometry is locked after too many failed attempts; your passcode is required."],
      log: "failed: biometryLockout (-8)"),
    Scenario(
      name: "passcode delay in force", code: "PAM_MAXTRIES",
      setup: { s in
        try s.setPasscode()
        let now = SystemClock().now()
        try s.seed { record in
          record.passcodeFailures = 5
          record.passcodeNextAllowed = now.adding(600)
        }
      }, messages: ["error: Passcode entry is disabled after repeated failures. Try again in 10 minutes."],
      log: "refused: delayed for"),
    Scenario(
      name: "no passcode set: nothing asked", code: "PAM_AUTHINFO_UNAVAIL", messages: [],
      log: "pam_localauth does not apply to this user: the user has no passcode."),
    Scenario(
      name: "not enrolled under policy 1", code: "PAM_AUTHINFO_UNAVAIL", arguments: [policy1],
      setup: Setups.passcodeOnly, messages: [], log: "failed: biometryNotEnrolled (-7)"),
    Scenario(
      name: "no sensor under policy 1", code: "PAM_AUTHINFO_UNAVAIL", arguments: [policy1, "sensor=none"],
      setup: Setups.ready, messages: [], log: "failed: biometryNotAvailable (-6)"),
    Scenario(
      name: "fallback under policy 1", code: "PAM_IGNORE", arguments: [policy1],
      setup: { s in
        try Setups.ready(s)
        try s.touch(from: "intruder")
        try s.pressFallback()
      }, messages: [finger, "error: Try again."], log: "failed: userFallback (-3)", stack: .ignoreProbe),
    Scenario(
      name: "unknown user: nothing asked, as for a user without a passcode", code: "PAM_AUTHINFO_UNAVAIL",
      otherUser: "latnosuchuser", messages: [], log: "pam_localauth does not apply to this user: the user is unknown."),
    Scenario(
      name: "unknown user under policy 1: nothing asked", code: "PAM_AUTHINFO_UNAVAIL", arguments: [policy1],
      otherUser: "latnosuchuser", messages: [], log: "pam_localauth does not apply to this user: the user is unknown."),
    Scenario(
      name: "conversation fails (no answer)", code: "PAM_CONV_ERR", setup: Setups.passcodeOnly,
      messages: [enterPasscode, "conversation: no answer left; failing the conversation"],
      log: "the application's conversation failed"),
    Scenario(
      name: "conversation gives a NULL response", code: "PAM_CONV_ERR", setup: Setups.passcodeOnly,
      harnessOptions: ["--null-response"], messages: [enterPasscode], viaPamtester: false),
    Scenario(
      name: "conversation returns PAM_CONV_AGAIN", code: "PAM_INCOMPLETE", setup: Setups.passcodeOnly,
      harnessOptions: ["--conv-again"], messages: [enterPasscode], viaPamtester: false),
    Scenario(
      name: "conversation fails when asked for the user name", code: "PAM_CONV_ERR", setup: Setups.passcodeOnly,
      harnessOptions: ["--ask-user"],
      messages: ["prompt-echo: login:", "conversation: no answer left; failing the conversation"], viaPamtester: false),
    Scenario(
      name: "PAM_CONV_AGAIN when asked for the user name", code: "PAM_INCOMPLETE", setup: Setups.passcodeOnly,
      harnessOptions: ["--ask-user", "--conv-again"], messages: ["prompt-echo: login:"], viaPamtester: false),
    Scenario(
      name: "malformed timeout=", code: "PAM_SERVICE_ERR", arguments: ["timeout=abc"], setup: Setups.passcodeOnly,
      messages: [], log: "Configuration error, pam_sm_authenticate refused: Invalid value \"abc\" for option timeout"),
    Scenario(
      name: "empty reason=", code: "PAM_SERVICE_ERR", arguments: ["reason="], setup: Setups.passcodeOnly,
      messages: [], log: "for option reason: expected a non-empty text"),
    Scenario(
      name: "missing conf= file", code: "PAM_SERVICE_ERR", arguments: ["conf=/nonexistent/localauth.conf"],
      setup: Setups.passcodeOnly, messages: [], log: "Cannot read configuration file /nonexistent/localauth.conf"),
    Scenario(
      name: "unknown argument is logged and ignored", code: "PAM_SUCCESS", arguments: ["frobnicate=1"],
      setup: Setups.readyAndTouched, messages: [finger], log: "Unrecognized option [frobnicate] in arguments ignored."),
    Scenario(
      name: "corrupt state file", code: "PAM_SYSTEM_ERR",
      setup: { s in
        try s.setPasscode()
        try "localauth-state 1\ngarbage\nend\n".write(toFile: s.recordPath, atomically: false, encoding: .utf8)
      }, messages: [], log: "is corrupt"),
    Scenario(
      name: "state file writable by others", code: "PAM_SYSTEM_ERR",
      setup: { s in
        try s.setPasscode()
        chmod(s.recordPath, 0o646)
      }, messages: [], log: "is insecure"),
    Scenario(
      name: "state folder writable by others", code: "PAM_SYSTEM_ERR",
      setup: { s in
        try s.setPasscode()
        chmod(s.stateDir, 0o777)
      }, messages: [], log: "is insecure"),
    Scenario(
      name: "remote host under policy 1", code: "PAM_AUTHINFO_UNAVAIL", arguments: [policy1], setup: Setups.readyAndTouched,
      harnessOptions: ["--rhost", "203.0.113.7"], pamtesterOptions: ["-I", "rhost=203.0.113.7"], messages: [],
      log: "failed: biometryNotAvailable (-6)"),
    Scenario(
      name: "SSH session under policy 1", code: "PAM_AUTHINFO_UNAVAIL", arguments: [policy1], setup: Setups.readyAndTouched,
      harnessOptions: ["--pam-env", ssh], pamtesterOptions: ["-E", ssh], messages: [],
      log: "failed: biometryNotAvailable (-6)"),
    Scenario(
      name: "remote host under policy 2 asks the passcode", code: "PAM_SUCCESS", setup: Setups.readyAndTouched,
      answers: ["1234"], harnessOptions: ["--rhost", "203.0.113.7"], pamtesterOptions: ["-I", "rhost=203.0.113.7"],
      messages: [enterPasscode], log: "Passcode accepted for user"),
    Scenario(
      name: "rhost=localhost is remote too: the passcode, not the finger", code: "PAM_SUCCESS",
      setup: Setups.readyAndTouched, answers: ["1234"], harnessOptions: ["--rhost", "localhost"],
      pamtesterOptions: ["-I", "rhost=localhost"], messages: [enterPasscode], log: "Passcode accepted for user"),
    Scenario(
      name: "feature= mode, feature not enabled", code: "PAM_IGNORE", arguments: ["feature=vpn"],
      setup: Setups.readyAndTouched, messages: [], stack: .ignoreProbe),
    Scenario(
      name: "feature= mode, feature enabled", code: "PAM_SUCCESS", arguments: ["feature=vpn"],
      setup: { s in
        try Setups.readyAndTouched(s)
        try s.seed { $0.features.insert("vpn") }
      }, messages: [finger], log: "Biometric match succeeded for user"),
    Scenario(
      name: "PAM_SILENT keeps the finger request (the biometric step's prompt)", code: "PAM_SUCCESS",
      setup: Setups.readyAndTouched,
      harnessOptions: ["--silent"], pamtesterOperation: "authenticate(PAM_SILENT)", messages: [finger],
      log: "Biometric match succeeded for user"),
    Scenario(
      name: "PAM_SILENT hides the restart line, not the prompt", code: "PAM_SUCCESS",
      setup: { s in
        try s.enroll()
        try s.setPasscode()
      }, answers: ["1234"], harnessOptions: ["--silent"], pamtesterOperation: "authenticate(PAM_SILENT)",
      messages: [enterPasscode]),
    Scenario(
      name: "PAM_SILENT keeps error lines", code: "PAM_AUTH_ERR", setup: Setups.passcodeOnly, answers: ["9999"],
      harnessOptions: ["--silent"], pamtesterOperation: "authenticate(PAM_SILENT)",
      messages: [enterPasscode, "error: Wrong passcode."]),
  ]
}
