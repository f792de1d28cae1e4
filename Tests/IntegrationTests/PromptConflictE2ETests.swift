import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// docs/RULES.md, "One finger request at a time", end to end: the real sudo on two pseudo-terminals through the
/// shipped stack (SudoTests' fixture, each run in its own private mount namespace). Two visible requests of one
/// user both get the passcode and name each other; a touch approves neither.
@Suite(
  .serialized,
  .builtModuleAndTool,
  .enabled(if: SudoEnvironment.capable, "Needs root, a setuid /usr/bin/sudo, /etc/sudoers.d and python3."),
  .enabled(if: LoginSuEnvironment.namespaces, "Needs a private mount namespace (unshare --mount) for two sudos at once."))
struct PromptConflictE2ETests {
  static let named = "Another program is asking for your finger: sudo, pid "

  @Test("two visible sudos of one user on two terminals: both get the passcode, each names the other, a touch approves neither")
  func twoSudosBothGetThePasscode() throws {
    let fixture = try SudoTests.Fixture(passcodeFirst: false)
    defer { fixture.tearDown() }
    let touched = fixture.folder + "/touch.out"
    let touch = [LoginSuEnvironment.ctl, "touch", SudoTests.userName, "right-index", "--quality", "1", "--state-dir", fixture.state]
      .joined(separator: " ")
    // The first sudo waits for the finger; once the second names it, it falls back too. Then a touch is tried.
    let first = Background {
      try fixture.drive([
        "expect:Place your finger on the sensor to ", "expect:" + Self.named, "expect:^Enter Passcode: ",
        "run:\(touch) > \(touched) 2>&1; echo TOUCH-EXIT=$? >> \(touched)", "sleep:1", "send:" + SudoTests.passcode,
        "expect:^" + SudoTests.rootMarker + "\\r?$", "eof",
      ])
    }
    let waiting = try waitForPrompt(fixture)
    let firstPID = try #require(waiting["pid"] as? Int)
    let second = try fixture.drive([
      "expect:" + Self.named + "\(firstPID), ", "expect:^Enter Passcode: ", "send:" + SudoTests.passcode,
      "expect:^" + SudoTests.rootMarker + "\\r?$", "eof",
    ])
    let firstRun = try first.result()
    #expect(firstRun.stepsCompleted, "\(firstRun.transcript)")
    #expect(second.stepsCompleted, "\(second.transcript)")
    #expect(firstRun.exitStatus == 0 && second.exitStatus == 0, "\(firstRun.transcript)\n\(second.transcript)")
    // The second never showed the instruction: it fell back before the reader was claimed.
    #expect(!second.transcript.contains("Place your finger"), "\(second.transcript)")
    // Each names the other: the second names the first's pid and terminal, the first names another sudo.
    let secondLine = try #require(line(second.transcript, containing: Self.named))
    #expect(secondLine.contains("pid \(firstPID), /dev/pts/"), "\(secondLine)")
    #expect(secondLine.hasSuffix(" as root (sudo). Enter your passcode."), "\(secondLine)")
    let firstLine = try #require(line(firstRun.transcript, containing: Self.named))
    #expect(!firstLine.contains("pid \(firstPID),"), "\(firstLine)")
    #expect(firstLine.hasSuffix(" as root (sudo). Enter your passcode."), "\(firstLine)")
    // The touch found no prompt waiting: neither request took it.
    let touchOutput = (try? String(contentsOfFile: touched, encoding: .utf8)) ?? ""
    #expect(touchOutput.contains("No prompt is waiting for \(SudoTests.userName)."), "\(touchOutput)")
    #expect(touchOutput.contains("TOUCH-EXIT=1"), "\(touchOutput)")
  }

  /// The transcript's line holding `text`, without its carriage return.
  func line(_ transcript: String, containing text: String) -> String? {
    transcript.split(separator: "\n").first { $0.contains(text) }.map {
      String($0).trimmingCharacters(in: .whitespacesAndNewlines)
    }
  }

  /// Waits (at most 15 s) for the user's prompt with an approval to be listed; returns it.
  func waitForPrompt(_ fixture: SudoTests.Fixture) throws -> [String: Any] {
    let end = Date().addingTimeInterval(15)
    while true {
      let listed = try LoginSuTests.Command.run(
        LoginSuEnvironment.ctl, ["prompts", SudoTests.userName, "--json", "--state-dir", fixture.state])
      let prompts = (try? JSONSerialization.jsonObject(with: Data(listed.output.utf8))) as? [[String: Any]] ?? []
      if let prompt = prompts.first, (prompt["approval"] as? String)?.isEmpty == false { return prompt }
      guard Date() < end else { throw LoginSuTests.SetupError.command("waiting for sudo's prompt", 0, listed.output) }
      usleep(20_000)
    }
  }
}

extension SudoTests.Fixture: @unchecked Sendable {}
