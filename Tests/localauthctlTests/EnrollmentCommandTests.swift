import Foundation
import LocalAuthCore
import Testing

/// Runs the built binary: enrolment, passcodes, evaluation, touches, reset.
@Suite(.serialized, .enabled(if: CLIRunner.isRoot, "needs root: state files must belong to root"))
struct EnrollmentCommandTests {
  @Test func enrollListStatusUnenrollChangesDomainState() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }

    let enrolled = try cli.run(["enroll", "alice", "right-index"])
    #expect(enrolled.status == 0)
    #expect(enrolled.stdout == "Enrolled finger right-index for alice.\n")
    #expect(enrolled.stderr == "")

    let list = try cli.run(["list", "alice"])
    #expect(list.status == 0)
    #expect(list.stdout.hasPrefix("right-index  touchID  enrolled 20"))

    let first = try cli.statusJSON("alice")
    #expect(first["user"] as? String == "alice")
    #expect(first["biometryType"] as? String == "touchID")
    #expect(first["enrolledCount"] as? Int == 1)
    #expect(((first["enrolled"] as? [[String: Any]])?.first?["name"]) as? String == "right-index")
    #expect(first["enrollmentGeneration"] as? Int == 1)
    #expect(first["passcodeSet"] as? Bool == false)
    #expect(first["lockedOut"] as? Bool == false)
    #expect(first["biometricFailures"] as? Int == 0)
    #expect(first["lastSuccess"] is NSNull)
    let firstState = try #require(first["domainState"] as? String)
    #expect(firstState.count == 64)
    let can = try #require(first["canEvaluate"] as? [String: Any])
    #expect((can["deviceOwnerAuthentication"] as? [String: Any])?["name"] as? String == "passcodeNotSet")
    #expect((can["deviceOwnerAuthentication"] as? [String: Any])?["code"] as? Int == -5)

    let removed = try cli.run(["unenroll", "alice", "right-index"])
    #expect(removed.status == 0)
    #expect(removed.stdout == "Removed right-index for alice.\n")
    let after = try cli.statusJSON("alice")
    #expect(after["domainState"] is NSNull)
    #expect(after["enrolledCount"] as? Int == 0)
    #expect(after["enrollmentGeneration"] as? Int == 2)
    #expect(((after["biometry"] as? [String: Any])?["error"] as? [String: Any])?["name"] as? String == "biometryNotEnrolled")

    #expect(try cli.run(["enroll", "alice", "right-index"]).status == 0)
    let again = try cli.statusJSON("alice")
    let newState = try #require(again["domainState"] as? String)
    #expect(newState != firstState)

    let missing = try cli.run(["unenroll", "alice", "left-thumb"])
    #expect(missing.status == 1)
    #expect(missing.stderr == "Error: left-thumb is not enrolled.\n")
    #expect(missing.stdout == "")

    let twice = try cli.run(["enroll", "alice", "right-index"])
    #expect(twice.status == 1)
    #expect(twice.stderr == "Error: right-index is already enrolled.\n")

    let empty = try cli.run(["list", "bob"])
    #expect(empty.stdout == "Nothing is enrolled for bob.\n")
    let fresh = try cli.run(["status", "bob"])
    #expect(fresh.status == 0)
    #expect(fresh.stdout.contains("User:                       bob (no state file yet)\n"))
    #expect(fresh.stdout.contains("Passcode:                   not set\n"))
    #expect(fresh.stdout.contains("deviceOwnerAuthentication:  no: passcodeNotSet (-5)\n"))

    let face = try cli.run(["enroll", "alice", "glasses", "--modality", "faceid"])
    #expect(face.stdout == "Enrolled appearance glasses for alice.\n")
    #expect(try cli.run(["list", "alice"]).stdout.contains("glasses      faceID   enrolled 20"))
  }

  @Test func passcodeFromStdinThenEvaluateWithPipedPasscode() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }

    let set = try cli.run(["passcode", "set", "alice"], input: "1234\n")
    #expect(set.status == 0)
    #expect(set.stdout == "Passcode set for alice.\n")

    let short = try cli.run(["passcode", "set", "bob"], input: "12\n")
    #expect(short.status == 1)
    #expect(short.stderr == "Error: The passcode must be at least 4 characters long.\n")

    let none = try cli.run(["passcode", "set", "bob"], input: "")
    #expect(none.status == 1)
    #expect(none.stderr == "Error: No passcode on standard input.\n")

    let wrong = try cli.run(["evaluate", "alice", "--reason", "test the CLI"], input: "0000\n")
    #expect(wrong.status == 1)
    #expect(wrong.stdout == "")
    #expect(wrong.stderr.contains("Enter Passcode: "))
    #expect(wrong.stderr.contains("Wrong passcode."))
    #expect(wrong.stderr.hasSuffix("authenticationFailed (-1): Authentication failed.\n"))
    #expect(try cli.statusJSON("alice")["passcodeFailures"] as? Int == 1)

    let right = try cli.run(["evaluate", "alice", "--reason", "test the CLI"], input: "1234\n")
    #expect(right.status == 0)
    #expect(right.stdout == "Authenticated alice by passcode.\n")
    let status = try cli.statusJSON("alice")
    #expect(status["passcodeFailures"] as? Int == 0)
    #expect(status["lastPasscodeSuccess"] is Double)
    #expect(status["passcodeRequired"] as? Bool == false)

    let noInput = try cli.run(["evaluate", "alice", "--reason", "test the CLI"], input: "")
    #expect(noInput.status == 1)
    #expect(noInput.stderr.hasSuffix("Error: No answer could be read from the terminal or standard input.\n"))

    let removed = try cli.run(["passcode", "remove", "alice"])
    #expect(removed.stdout == "Passcode removed for alice.\n")
    let notSet = try cli.run(["evaluate", "alice", "--reason", "test the CLI"], input: "1234\n")
    #expect(notSet.status == 1)
    #expect(notSet.stderr == "passcodeNotSet (-5): No passcode is set.\n")
  }

  /// docs/RULES.md, "One finger request at a time": a prompt that starts within two seconds of another process's
  /// prompt's end falls back to the passcode, so a test's next finger prompt waits that out.
  func waitOutRecentWindow() { usleep(2_100_000) }

  /// Enrolls alice's right index, sets passcode 1234 and clears the reboot rule with one passcode evaluation.
  func prepareAlice(_ cli: CLIRunner) throws {
    #expect(try cli.run(["enroll", "alice", "right-index"]).status == 0)
    #expect(try cli.run(["passcode", "set", "alice"], input: "1234\n").status == 0)
    let first = try cli.run(["evaluate", "alice", "--reason", "unlock"], input: "1234\n")
    #expect(first.stderr.contains("Your passcode is required after a restart."))
    #expect(first.stdout == "Authenticated alice by passcode.\n")
  }

  @Test func touchThenEvaluateSucceedsByBiometry() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    try prepareAlice(cli)

    // No prompt waits: the touch goes nowhere, as on a phone with no prompt on screen.
    let early = try cli.run(["touch", "alice", "right-index", "--quality", "0.95"])
    #expect(early.status == 1)
    #expect(early.stderr == "Error: No prompt is waiting for alice.\n")

    let touch = cli.background([["touch", "alice", "right-index", "--quality", "0.95", "--wait", "10"]])
    let result = try cli.run(["evaluate", "alice", "--reason", "unlock", "--timeout", "5"])
    #expect(result.status == 0)
    #expect(result.stdout == "Authenticated alice by biometry.\n")
    #expect(result.stderr.contains("Place your finger on the sensor to unlock."))
    let presented = try #require(touch.finish().first)
    #expect(presented.status == 0, "\(presented.stderr)")
    #expect(presented.stdout.hasPrefix("Presented alice's finger right-index to prompt "))
    #expect(presented.stdout.hasSuffix(" (root asks for alice through localauthctl).\n"))
    let status = try cli.statusJSON("alice")
    #expect(status["lastBiometricSuccess"] is Double)
    #expect(status["waitingPrompts"] as? Int == 0)

    waitOutRecentWindow()
    let cancel = cli.background([["touch", "alice", "--cancel", "--wait", "10"]])
    let cancelled = try cli.run(["evaluate", "alice", "--reason", "unlock", "--timeout", "5"])
    #expect(cancelled.status == 1)
    #expect(cancelled.stderr.hasSuffix("userCancel (-2): Authentication was cancelled.\n"))
    #expect(cancel.finish().first?.stdout.hasPrefix("Pressed Cancel to prompt ") == true)
  }

  @Test func wrongFingerFromSomeoneElseCountsAndLocksOut() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    // A fixed world in which mallory's finger is far from alice's (cosine below 0.1, against a match threshold
    // near 0.36): with a random world each of the five touches had Apple's 1-in-50,000 chance to match.
    let seed: UInt64 = 0x5EED_0005
    let simulator = BiometricSimulator(worldSeed: seed)
    let distance = SimulatedMatcher.score(
      simulator.identity(owner: "alice", item: "right-index", modality: .touchID),
      simulator.identity(owner: "mallory", item: "right-index", modality: .touchID))
    #expect(distance < 0.1, "world \(seed): mallory's finger scores \(distance) against alice's")
    try FileManager.default.createDirectory(atPath: cli.stateDir, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    try cli.write(String(seed, radix: 16) + "\n", to: cli.stateDir + "/world-seed")
    try prepareAlice(cli)

    let wrong = ["touch", "alice", "right-index", "--from", "mallory", "--quality", "0.9", "--wait", "10"]
    let touches = cli.background(Array(repeating: wrong, count: 3))
    let failed = try cli.run(["evaluate", "alice", "--policy", "biometrics", "--reason", "unlock", "--timeout", "5"])
    for t in touches.finish() { #expect(t.stdout.hasPrefix("Presented mallory's finger right-index to prompt "), "\(t.stderr)") }
    #expect(failed.status == 1)
    #expect(failed.stderr.contains("Try again."))
    #expect(failed.stderr.hasSuffix("authenticationFailed (-1): Authentication failed.\n"))
    var status = try cli.statusJSON("alice")
    #expect(status["biometricFailures"] as? Int == 3)
    #expect(status["lockedOut"] as? Bool == false)

    waitOutRecentWindow()
    let more = cli.background(Array(repeating: wrong, count: 2))
    let locked = try cli.run(["evaluate", "alice", "--policy", "biometrics", "--reason", "unlock", "--timeout", "5"])
    #expect(more.finish().allSatisfy { $0.status == 0 })
    #expect(locked.status == 1)
    #expect(locked.stderr.contains("biometryLockout (-8)"))
    status = try cli.statusJSON("alice")
    #expect(status["biometricFailures"] as? Int == 5)
    #expect(status["lockedOut"] as? Bool == true)
    #expect(status["passcodeRequiredReason"] as? String == "lockout")
    let text = try cli.run(["status", "alice"])
    #expect(text.stdout.contains("Biometry locked out:        yes (the passcode unlocks it)"))
    #expect(text.stdout.contains("Biometric failures:         5 of 5"))

    let reset = try cli.run(["reset", "alice"])
    #expect(reset.status == 0)
    #expect(reset.stdout == "Reset counters, lockout and delays for alice.\n")
    status = try cli.statusJSON("alice")
    #expect(status["biometricFailures"] as? Int == 0)
    #expect(status["lockedOut"] as? Bool == false)
    #expect(status["passcodeRequired"] as? Bool == false)
    #expect((status["recentFailures"] as? [Any])?.isEmpty == true)
  }

  @Test func resetClearsThePasscodeDelay() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    #expect(try cli.run(["passcode", "set", "alice"], input: "1234\n").status == 0)
    for wrong in ["1111", "2222", "3333", "4444", "5555"] {
      #expect(try cli.run(["evaluate", "alice", "--reason", "unlock"], input: wrong + "\n").status == 1)
    }
    var status = try cli.statusJSON("alice")
    #expect(status["passcodeFailures"] as? Int == 5)
    let next = try #require(status["passcodeNextAllowed"] as? Double)
    #expect(next > Date().timeIntervalSince1970 + 30)
    let delayed = try cli.run(["evaluate", "alice", "--reason", "unlock"], input: "1234\n")
    #expect(delayed.status == 1)
    #expect(delayed.stderr.contains("Passcode entry is delayed until 20"))

    #expect(try cli.run(["reset", "alice"]).stdout == "Reset counters, lockout and delays for alice.\n")
    status = try cli.statusJSON("alice")
    #expect(status["passcodeFailures"] as? Int == 0)
    #expect(status["passcodeNextAllowed"] is NSNull)
    #expect(try cli.run(["evaluate", "alice", "--reason", "unlock"], input: "1234\n").status == 0)
  }

  @Test func fallbackAfterAWrongFingerGoesToThePasscode() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    try prepareAlice(cli)
    let presses = cli.background([
      ["touch", "alice", "right-index", "--from", "mallory", "--quality", "0.9", "--wait", "10"],
      ["touch", "alice", "--fallback", "--wait", "10"],
    ])
    let result = try cli.run(
      ["evaluate", "alice", "--reason", "unlock", "--fallback-title", "Use Passcode", "--timeout", "5"], input: "1234\n")
    #expect(presses.finish().last?.stdout.hasPrefix("Pressed the fallback button to prompt ") == true)
    #expect(result.status == 0)
    #expect(result.stderr.contains("Use Passcode: "))
    #expect(result.stdout == "Authenticated alice by passcode.\n")
  }
}
