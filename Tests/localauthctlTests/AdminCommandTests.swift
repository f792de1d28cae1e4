import Foundation
import Testing

/// Runs the built binary: broken state, features, root-only touches, configuration, help.
@Suite(.serialized, .enabled(if: CLIRunner.isRoot, "needs root: state files must belong to root"))
struct AdminCommandTests {
  @Test func statusShowsAWrongPasscodeWithItsOrigin() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    #expect(try cli.run(["passcode", "set", "alice"], input: "1234\n").status == 0)
    #expect(try cli.run(["evaluate", "alice", "--reason", "unlock"], input: "9999\n").status == 1)

    let text = try cli.run(["status", "alice"])
    #expect(text.status == 0)
    let line = try #require(text.stdout.split(separator: "\n").first { $0.hasPrefix("Recent failures:") })
    #expect(line.hasSuffix(": passcode failed, asked by root (uid 0) through localauthctl on no tty"), "\(line)")
    let status = try cli.statusJSON("alice")
    #expect(status["passcodeFailures"] as? Int == 1)
    let failures = try #require(status["recentFailures"] as? [[String: Any]])
    #expect(failures.count == 1)
    #expect(failures.first?["kind"] as? String == "passcode")
    #expect(failures.first?["requesterUid"] as? Int == 0)
    #expect(failures.first?["service"] as? String == "localauthctl")
    #expect(failures.first?["tty"] as? String == "")
    #expect(failures.first?["remoteHost"] as? String == "")
    #expect(failures.first?["at"] as? Double ?? 0 > Date().timeIntervalSince1970 - 60)
  }

  @Test func corruptStateIsExplainedAndExitsNonZero() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    #expect(try cli.run(["enroll", "alice", "right-index"]).status == 0)
    let path = cli.stateDir + "/users/alice"
    try cli.write("localauth-state 1\nbiometry.failures lots\nend\n", to: path)

    let text = try cli.run(["status", "alice"])
    #expect(text.status == 1)
    #expect(text.stdout == "")
    #expect(text.stderr == "Error: The state file \(path) is corrupt: line 2: bad count.\n")

    let json = try cli.run(["status", "alice", "--json"])
    #expect(json.status == 1)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
    #expect(object["user"] as? String == "alice")
    #expect(object["error"] as? String == "The state file \(path) is corrupt: line 2: bad count.")

    let evaluate = try cli.run(["evaluate", "alice", "--reason", "unlock"], input: "1234\n")
    #expect(evaluate.status == 1)
    #expect(evaluate.stderr.hasSuffix("is corrupt: line 2: bad count.\n"))

    try cli.write("localauth-state 9\n", to: path)
    #expect(try cli.run(["status", "alice"]).stderr == "Error: The state file \(path) has unsupported format version 9.\n")

    try cli.write("localauth-state 1\nend\n", to: path, mode: 0o666)
    let insecure = try cli.run(["status", "alice"])
    #expect(insecure.status == 1)
    #expect(insecure.stderr == "Error: The state file \(path) is insecure: it is writable by group or others (mode 666).\n")

    try FileManager.default.removeItem(atPath: path)
    try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: cli.stateDir)
    let folder = try cli.run(["list", "alice"])
    #expect(folder.status == 1)
    #expect(folder.stderr.contains("is insecure: it is writable by group or others (mode 777)"))
  }

  @Test func statusWithoutUserSummarizesEveryUser() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    #expect(try cli.run(["status"]).stdout == "No user has a state file in \(cli.stateDir).\n")
    #expect(try cli.run(["enroll", "alice", "right-index"]).status == 0)
    #expect(try cli.run(["passcode", "set", "bob"], input: "1234\n").status == 0)
    let table = try cli.run(["status"])
    #expect(table.status == 0)
    #expect(
      table.stdout == """
        USER   ENROLLED  BIO-FAILURES  LOCKED  PASSCODE  FAILURES  NEXT-ATTEMPT  REQUIRED
        alice  1         0/5           no      not-set   0         now           no
        bob    0         0/5           no      set       0         now           reboot

        """)

    try cli.write("garbage\n", to: cli.stateDir + "/users/carol")
    let broken = try cli.run(["status"])
    #expect(broken.status == 1)
    #expect(broken.stdout.hasSuffix("carol  unreadable (see below)\n"))
    #expect(broken.stderr == "Error: The state file \(cli.stateDir)/users/carol is corrupt: the header is missing.\n")

    let json = try cli.run(["status", "--json"])
    #expect(json.status == 1)
    let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
    #expect(array.map { $0["user"] as? String } == ["alice", "bob", "carol"])
    #expect(array[1]["passcodeRequiredReason"] as? String == "reboot")
    #expect((array[2]["error"] as? String)?.hasSuffix("is corrupt: the header is missing.") == true)
  }

  @Test func featureEnableListDisable() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    #expect(try cli.run(["feature", "list", "alice"]).stdout == "")
    #expect(try cli.run(["feature", "enable", "alice", "sudo"]).stdout == "Enabled sudo for alice.\n")
    #expect(try cli.run(["feature", "enable", "alice", "screen-lock"]).status == 0)
    #expect(try cli.run(["feature", "list", "alice"]).stdout == "screen-lock\nsudo\n")
    #expect(try cli.statusJSON("alice")["features"] as? [String] == ["screen-lock", "sudo"])
    #expect(try cli.run(["feature", "disable", "alice", "sudo"]).stdout == "Disabled sudo for alice.\n")
    #expect(try cli.run(["feature", "list", "alice"]).stdout == "screen-lock\n")

    let bad = try cli.run(["feature", "enable", "alice", "../etc"])
    #expect(bad.status == 64)
    #expect(bad.stderr.hasPrefix("Error: The name \"../etc\" is not acceptable"))
  }

  @Test func nonRootTouchIsRefused() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    #expect(try cli.run(["enroll", "alice", "right-index"]).status == 0)
    let refused = try cli.run(["touch", "alice", "right-index"], asNobody: true)
    #expect(refused.status == 1)
    #expect(refused.stdout == "")
    #expect(refused.stderr == "Error: Only root may present to the sensor: run touch as root (effective uid is 65534).\n")
    let cancel = try cli.run(["touch", "alice", "--cancel"], asNobody: true)
    #expect(cancel.status == 1)
    #expect(try cli.statusJSON("alice")["waitingPrompts"] as? Int == 0)

    let status = try cli.run(["status", "alice"], asNobody: true)
    #expect(status.status == 1)
    #expect(status.stderr.hasPrefix("Error: Permission denied reading the state at "))
  }

  /// Issue 27, finding 13: an ordinary user cannot read the runtime folder, so it is told that only root can list
  /// prompts (exit 1) instead of "No prompt is waiting.".
  @Test func nonRootPromptsIsRefused() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    #expect(try cli.run(["enroll", "alice", "right-index"]).status == 0)
    for arguments in [["prompts"], ["prompts", "alice"], ["prompts", "--json"]] {
      let refused = try cli.run(arguments, asNobody: true)
      #expect(refused.status == 1)
      #expect(refused.stdout == "")
      #expect(refused.stderr == "Error: Only root can list the waiting prompts: run prompts as root (effective uid is 65534).\n")
    }
    #expect(try cli.run(["prompts"]).stdout == "No prompt is waiting.\n")
  }

  @Test func checkConfigPrintsEffectiveOptionsWarningsAndErrors() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    let conf = cli.folder + "/localauth.conf"
    try cli.write("# test\nlockout_threshold = 3\nstate_dir = \"\(cli.folder)/from-conf\"\nmystery = 1\n", to: conf, mode: 0o644)
    // Yama restricting ptrace, whatever this machine's kernel does (PtraceReachTests cover the warning).
    let scope = cli.folder + "/ptrace_scope"
    try cli.write("1\n", to: scope, mode: 0o644)

    let ok = try cli.run(
      [
        "check-config", "--conf", conf, "--ptrace-scope-file", scope, "policy=biometrics", "timeout=5", "debug",
        "gui_services=gdm-password,polkit-1",
      ],
      stateDir: false)
    #expect(ok.status == 0)
    let lines = ok.stdout.split(separator: "\n").map(String.init)
    #expect(lines.contains("gui_services=gdm-password,polkit-1"), "\(ok.stdout)")
    #expect(lines.contains("confirm=no"), "\(ok.stdout)")
    #expect(lines.contains("app_dialog=yes"), "\(ok.stdout)")
    #expect(lines.contains("policy=deviceOwnerAuthenticationWithBiometrics"))
    #expect(lines.contains("timeout=5"))
    #expect(lines.contains("lockout_threshold=3"))
    #expect(lines.contains("state_dir=\(cli.folder)/from-conf"))
    #expect(lines.contains("debug=yes"))
    #expect(lines.contains("# reason is derived from the PAM service"))
    #expect(ok.stderr == "Warning: Unrecognized option on line 4 of \(conf) ignored.\n")

    let bad = try cli.run(["check-config", "--conf", conf, "timeout=soon"], stateDir: false)
    #expect(bad.status == 1)
    #expect(bad.stdout == "")
    #expect(bad.stderr.hasSuffix("Error: Invalid value \"soon\" for option timeout: expected seconds from 1 to 600.\n"))

    let missing = try cli.run(["check-config", "conf=\(cli.folder)/nope.conf"], stateDir: false)
    #expect(missing.status == 1)
    #expect(missing.stderr == "Error: Cannot read configuration file \(cli.folder)/nope.conf: it does not exist.\n")

    try cli.write("debug\n", to: conf, mode: 0o666)
    let insecure = try cli.run(["check-config", "--conf", conf], stateDir: false)
    #expect(insecure.status == 1)
    #expect(
      insecure.stderr
        == "Error: Cannot read configuration file \(conf): it is writable by group or others (mode 666).\n")
  }

  @Test func confFileSuppliesStateDirAndRules() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    let conf = cli.folder + "/localauth.conf"
    let state = cli.folder + "/conf-state"
    try cli.write("state_dir=\(state)\nlockout_threshold=2\n", to: conf, mode: 0o644)
    #expect(try cli.run(["enroll", "alice", "left-thumb", "--conf", conf], stateDir: false).status == 0)
    #expect(FileManager.default.fileExists(atPath: state + "/users/alice"))
    let status = try cli.run(["status", "alice", "--json", "--conf", conf], stateDir: false)
    let object = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
    #expect(object["lockoutThreshold"] as? Int == 2)
    #expect(object["enrolledCount"] as? Int == 1)
    // --state-dir wins over the file's state_dir.
    #expect(try cli.run(["list", "alice", "--conf", conf]).stdout == "Nothing is enrolled for alice.\n")
  }

  @Test func everyCommandHasHelpAndUsageErrorsExit64() throws {
    let cli = try CLIRunner()
    defer { cli.cleanUp() }
    let commands = [
      ["enroll"], ["unenroll"], ["list"], ["passcode", "set"], ["passcode", "remove"], ["touch"], ["status"],
      ["reset"], ["feature", "enable"], ["feature", "disable"], ["feature", "list"], ["evaluate"], ["check-config"],
    ]
    for command in commands {
      let help = try cli.run(command + ["--help"], stateDir: false)
      #expect(help.status == 0, "\(command)")
      #expect(help.stdout.contains("USAGE: localauthctl \(command.joined(separator: " "))"), "\(command)")
      if command != ["check-config"] { #expect(help.stdout.contains("--state-dir <dir>"), "\(command)") }
    }
    let usage = try cli.run(["touch", "alice"])
    #expect(usage.status == 64)
    #expect(usage.stderr.hasPrefix("Error: Name the finger, or use --cancel or --fallback.\n"))
    let badUser = try cli.run(["status", "../root"])
    #expect(badUser.status == 64)
    #expect(badUser.stderr.hasPrefix("Error: The user name is not acceptable: it contains '/'.\n"))
  }
}
