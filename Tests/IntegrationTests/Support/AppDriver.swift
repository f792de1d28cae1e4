import Foundation

/// Runs la-app (Tests/Fixtures/AppClient, built by `make test` and staged as LOCALAUTH_APP) as the sandbox's test
/// user against the setuid helper: in a pseudo-terminal of its own, as an app started from a terminal is (its
/// shell in the foreground of the same terminal), or with no terminal at all.
struct AppDriver {
  /// The staged la-app, or "" when it was not built.
  static let app = ProcessInfo.processInfo.environment["LOCALAUTH_APP"] ?? ""
  /// True when la-app and the helper are there.
  static var available: Bool {
    !app.isEmpty && FileManager.default.isExecutableFile(atPath: app) && Artifacts.helperAvailable
  }

  /// A Python pty driver: the app runs under `sh -c` in a new session whose controlling terminal is the pty; each
  /// `PROMPT=ANSWER` argument types ANSWER once after PROMPT appears. Prints the terminal's transcript, then
  /// "exit N".
  static let ptyScript = #"""
    import os, pty, select, sys, time
    answers, argv = [], sys.argv[1:]
    while argv and argv[0] != "--":
        prompt, _, answer = argv.pop(0).partition("=")
        answers.append((prompt.encode(), answer.encode() + b"\r"))
    argv.pop(0)
    pid, fd = pty.fork()
    if pid == 0:
        os.execv("/bin/sh", ["sh", "-c", '"$@"; status=$?; exit $status', "sh"] + argv)
    seen, deadline = b"", time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        for index, (prompt, answer) in enumerate(answers):
            if prompt in seen:
                time.sleep(0.2)
                os.write(fd, answer)
                answers.pop(index)
                seen = seen.replace(prompt, b"<answered>", 1)
                break
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(seen.decode(errors="replace").replace("<answered>", "[typed]"))
    sys.stdout.write("\nexit %d\n" % os.waitstatus_to_exitcode(status))
    """#

  let world: HelperWorld

  /// la-app's lines and exit status.
  struct Run {
    let output: String
    let process: ProcessRun
    /// The lines starting with `keyword `.
    func lines(_ keyword: String) -> [String] {
      output.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { $0.hasPrefix(keyword + " ") }
    }
  }

  /// la-app `arguments` in a pty, typing each answer after its prompt.
  func inTerminal(_ arguments: [String], answers: [String: String] = [:], environment: [String: String] = [:]) throws -> Run {
    let script = world.sandbox.root + "/pty-driver.py"
    if !FileManager.default.fileExists(atPath: script) {
      try Self.ptyScript.write(toFile: script, atomically: true, encoding: .utf8)
      chmod(script, 0o644)
    }
    let pairs = answers.map { "\($0.key)=\($0.value)" }
    // docs/RULES.md, "One finger request at a time": each run is a new requesting process.
    let run = try RecentPrompt.paced(world.sandbox.root) {
      try world.asUser(
        "/usr/bin/python3", [script] + pairs + ["--", Self.app] + arguments,
        environment: environment.merging(["LOCALAUTH_HELPER": world.helper]) { a, _ in a })
    }
    return Run(output: run.stdout, process: run)
  }

  /// la-app `arguments` with no terminal (standard input a pipe).
  func withoutTerminal(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
    let run = try RecentPrompt.paced(world.sandbox.root) {
      try world.asUser(
        Self.app, arguments, environment: environment.merging(["LOCALAUTH_HELPER": world.helper]) { a, _ in a })
    }
    return Run(output: run.stdout + run.stderr, process: run)
  }
}
