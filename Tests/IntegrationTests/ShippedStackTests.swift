import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The shipped pam.d/su and pam.d/login decide by themselves (issue 20, finding 8): a finger logs in with no other
/// module's help, and a failure stays a failure. Each test runs the real program over the shipped file, with the
/// module's path substituted, as LoginSuTests does, but without the `-auth optional pam_gnome_keyring.so` line:
/// libpam treats a `success=1` jump as no verdict at all, so before the stacks ended their jump on
/// `auth required pam_permit.so`, only the keyring line's success turned a matched finger into a login and without
/// it su said "Permission denied". LoginSuTests run the same files with the keyring line.
@Suite(
  .serialized,
  .builtModuleAndTool,
  .enabled(if: LoginSuEnvironment.capable, "Needs root, /usr/bin/login, /usr/bin/su and python3."))
struct ShippedStackTests {
  @Test("su without the keyring line: a touch of the target user's finger switches user")
  func suFingerWithoutKeyring() throws {
    let fixture = try LoginSuTests.Fixture(program: .su, passcodeFirst: false, keyringLine: false)
    defer { fixture.tearDown() }
    let run = try fixture.drive([
      fixture.touchStep(LoginSuTests.userName, finger: "right-index"),
      "expect:" + LoginSuTests.suFingerPrompt, "expect:" + LoginSuTests.marker, "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(!run.transcript.contains("Permission denied"), "\(run.transcript)")
    #expect(!run.transcript.contains("Authentication failure"), "\(run.transcript)")
  }

  @Test("su without the keyring line: the passcode switches user")
  func suPasscodeWithoutKeyring() throws {
    let fixture = try LoginSuTests.Fixture(program: .su, passcodeFirst: true, keyringLine: false)
    defer { fixture.tearDown() }
    let good = try fixture.drive([
      "expect:Enter Passcode: ", "send:" + LoginSuTests.passcode, "expect:" + LoginSuTests.marker, "eof",
    ])
    #expect(good.stepsCompleted, "\(good.transcript)")
    #expect(good.exitStatus == 0, "\(good.transcript)")
  }

  @Test("su without the keyring line: a wrong passcode fails")
  func suWrongPasscodeWithoutKeyring() throws {
    let fixture = try LoginSuTests.Fixture(program: .su, passcodeFirst: true, keyringLine: false)
    defer { fixture.tearDown() }
    let wrong = try fixture.drive(["expect:Enter Passcode: ", "send:1357", "expect:Wrong passcode\\.", "eof"])
    #expect(wrong.stepsCompleted, "\(wrong.transcript)")
    #expect(wrong.exitStatus == 1, "\(wrong.transcript)")
    #expect(wrong.transcript.contains("Authentication failure"), "\(wrong.transcript)")
    #expect(!wrong.transcript.contains(LoginSuTests.marker), "\(wrong.transcript)")
  }

  @Test(
    "su, biometrics-only, with and without the keyring line: three wrong fingers, then a wrong Unix password fails",
    arguments: [true, false])
  func suIgnoredThenFailingCommonAuth(keyringLine: Bool) throws {
    let fixture = try LoginSuTests.Fixture(
      program: .su, passcodeFirst: false, variant: .biometricsOnly, keyringLine: keyringLine)
    defer { fixture.tearDown() }
    try fixture.setUnixPassword(LoginSuTests.userName, LoginSuTests.unixPassword)
    let run = try fixture.drive([
      fixture.touchStep(LoginSuTests.userName, finger: "right-index", from: "someone-else", count: 3),
      "expect:Try again\\.", "expect:Password: ", "send:not-the-password", "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 1, "\(run.transcript)")
    #expect(run.transcript.contains("Authentication failure"), "\(run.transcript)")
    #expect(!run.transcript.contains(LoginSuTests.marker), "\(run.transcript)")
  }

  @Test("su, biometrics-only, without the keyring line: the Unix password after three wrong fingers switches user")
  func suIgnoredThenCommonAuthWithoutKeyring() throws {
    let fixture = try LoginSuTests.Fixture(
      program: .su, passcodeFirst: false, variant: .biometricsOnly, keyringLine: false)
    defer { fixture.tearDown() }
    try fixture.setUnixPassword(LoginSuTests.userName, LoginSuTests.unixPassword)
    let run = try fixture.drive([
      fixture.touchStep(LoginSuTests.userName, finger: "right-index", from: "someone-else", count: 3),
      "expect:Try again\\.", "expect:Password: ", "send:" + LoginSuTests.unixPassword, "expect:" + LoginSuTests.marker,
      "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
  }

  @Test("login without the keyring line: a touch logs the user in; a wrong passcode does not")
  func loginWithoutKeyring() throws {
    let fixture = try LoginSuTests.Fixture(program: .login, passcodeFirst: false, keyringLine: false)
    defer { fixture.tearDown() }
    let run = try fixture.drive([
      fixture.touchStep(LoginSuTests.userName, finger: "right-index"),
      "expect:Place your finger on the sensor to log in\\.", "expect:[$#] $", "send:" + LoginSuTests.markerCommand,
      "expect:" + LoginSuTests.marker, "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(!run.transcript.contains("Login incorrect"), "\(run.transcript)")

    let wrong = try fixture.drive([
      fixture.touchStep(LoginSuTests.userName, finger: "right-index", from: "someone-else", count: 3),
      "expect:Enter Passcode: ", "send:1357", "expect:Wrong passcode\\.", "expect:Login incorrect", "kill",
    ])
    #expect(wrong.stepsCompleted, "\(wrong.transcript)")
    #expect(!wrong.transcript.contains(LoginSuTests.marker), "\(wrong.transcript)")
  }

  @Test("the shipped su, login and sudo stacks never leave a finger's success to a later optional line")
  func everyJumpLandsOnAVerdict() throws {
    for name in ["su", "login"] {
      let lines = try Self.activeLines(name)
      let jump = try #require(lines.firstIndex { $0.contains("[success=1") && $0.contains("pam_localauth.so policy=") })
      // success=1 skips exactly the common-auth substack and lands on pam_permit, which gives the verdict.
      #expect(lines[jump + 1].hasPrefix("auth") && lines[jump + 1].contains("substack") && lines[jump + 1].hasSuffix("common-auth"))
      #expect(lines[jump + 2].split(whereSeparator: \.isWhitespace).map(String.init) == ["auth", "required", "pam_permit.so"])
    }
    // sudo ends the stack on a finger (success=done), which is a verdict by itself.
    #expect(try Self.activeLines("sudo").contains { $0.hasPrefix("auth [success=done ") && $0.contains("pam_localauth.so") })
  }

  /// The shipped file's active auth lines (comments, blank lines and other phases left out).
  static func activeLines(_ name: String) throws -> [String] {
    let url = LoginSuEnvironment.repositoryRoot.appendingPathComponent("pam.d/" + name)
    return try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
      .filter { $0.hasPrefix("auth") || $0.hasPrefix("-auth") }
  }
}
