import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// End to end through real PAM (issue 23, section 2): login, su and sudo on a pseudo-terminal with the shipped
/// stacks, whose pam_localauth line has `parallel_passcode`: one prompt takes the finger or the typed passcode,
/// whichever comes first, and the terminal is left clean.
@Suite(
  .serialized,
  .builtModuleAndTool,
  .enabled(if: LoginSuEnvironment.capable && SudoEnvironment.capable, "Needs root, login, su, a setuid sudo and python3."),
  .enabled(if: LoginSuEnvironment.namespaces, "Needs a private mount namespace (unshare --mount)."))
struct ParallelPasscodeE2ETests {
  static let prompt = ParallelWorld.prompt
  static let shell = "expect:[$#] $"
  static let markerCommand = "send:printf 'LOCALAUTH-%s-%s\\n' OK \"$(id -un)\"; exit"
  static let marker = "LOCALAUTH-OK-" + ParallelWorld.userName

  @Test("login: the finger while nothing is typed logs in at once")
  func loginFingerNothingTyped() throws {
    let world = try ParallelWorld(.login)
    defer { world.tearDown() }
    let run = try world.drive([
      "expect:" + Self.prompt, world.touchStep(), Self.shell, Self.markerCommand, "expect:" + Self.marker, "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(!run.transcript.contains("Enter Passcode"), "\(run.transcript)")
  }

  @Test("login: the finger while half a passcode is typed logs in; the half-typed text never reaches the shell")
  func loginFingerHalfTyped() throws {
    let world = try ParallelWorld(.login)
    defer { world.tearDown() }
    let run = try world.drive([
      "expect:" + Self.prompt, "type:24", "sleep:0.3", world.touchStep(), Self.shell, Self.markerCommand,
      "expect:" + Self.marker, "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    // Echo was off: the digits were never shown, and the shell's line started with the command itself.
    #expect(!run.transcript.contains("24printf"), "\(run.transcript)")
    #expect(!run.transcript.contains("not found"), "\(run.transcript)")
  }

  @Test("su: the passcode typed with no finger is the passcode step")
  func suPasscodeNoFinger() throws {
    let world = try ParallelWorld(.su)
    defer { world.tearDown() }
    let run = try world.drive(["expect:" + Self.prompt, "send:" + ParallelWorld.passcode, "expect:" + Self.marker, "eof"])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(!run.transcript.contains(ParallelWorld.passcode), "\(run.transcript)")  // never echoed
  }

  @Test("sudo: a wrong passcode fails that try (counted as today); the finger then succeeds at sudo's next try")
  func sudoWrongPasscodeThenFinger() throws {
    let world = try ParallelWorld(.sudo)
    defer { world.tearDown() }
    let run = try world.drive(
      [
        "expect:" + Self.prompt, "send:1357", "expect:^Wrong passcode\\.\\r?$", "expect:^Sorry, try again\\.\\r?$",
        "expect:" + Self.prompt, world.touchStep(), "expect:^GOT-uid0\\r?$", "eof",
      ], command: "printf 'GOT-uid%s\\n' \"$(id -u)\"")
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(!run.transcript.contains("password for"), "\(run.transcript)")
  }

  @Test("sudo: three misses while typing turn the prompt into the passcode prompt, keeping what was typed")
  func sudoThreeMissesWhileTyping() throws {
    let world = try ParallelWorld(.sudo)
    defer { world.tearDown() }
    let run = try world.drive(
      [
        "expect:" + Self.prompt, "type:24", "sleep:0.3", world.touchStep(from: "someone-else", count: 3),
        "expect:^Try again\\.\\r?$", "expect:^Try again\\.\\r?$", "expect:^Enter Passcode: ", "send:68",
        "expect:^GOT-uid0\\r?$", "eof",
      ], command: "printf 'GOT-uid%s\\n' \"$(id -u)\"")
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
  }

  @Test("sudo: the finger while half a passcode is typed; the command's own read gets only what is typed after")
  func sudoFingerHalfTypedNoStray() throws {
    let world = try ParallelWorld(.sudo)
    defer { world.tearDown() }
    let run = try world.drive(
      [
        "expect:" + Self.prompt, "type:24", "sleep:0.3", world.touchStep(), "expect:^READY-uid0\\r?$", "send:x",
        "expect:GOT\\[x\\]", "eof",
      ], command: "printf 'READY-uid%s\\n' \"$(id -u)\"; IFS= read -r line; printf 'GOT[%s]\\n' \"$line\"")
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(!run.transcript.contains("GOT[24"), "\(run.transcript)")
  }

  @Test("sudo: Ctrl-C in the parallel prompt is Cancel (userCancel): the stack goes on to pam_unix, as today")
  func sudoControlC() throws {
    let world = try ParallelWorld(.sudo)
    defer { world.tearDown() }
    let run = try world.drive(
      ["expect:" + Self.prompt, "type:24\\x03", "expect:\\[sudo\\] password for", "kill"], command: "printf 'GOT-uid%s\\n' \"$(id -u)\"")
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(!run.transcript.contains("GOT-uid0"), "\(run.transcript)")
  }
}
