import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The red team's escapes from an SSH session (issue 20), end to end with the real sshd of RemoteSessionTests:
/// its PAM stack is Debian's with pam_localauth's session line after pam_loginuid, as the localauth profile puts
/// it in common-session. A command the SSH user leaves behind (setsid + script, a new tmux server, nohup) keeps
/// the SSH login's audit session after the connection ends, and the ledger says that session is remote.
extension RemoteSessionTests {
  /// How the SSH user detaches the sudo from the connection before it asks.
  enum Escape: String, CaseIterable, CustomTestStringConvertible {
    case setsidScript = "setsid -f script"
    case tmuxServer = "a new tmux server"
    case nohupScript = "nohup script"

    var testDescription: String { rawValue }

    /// The remote command: SSH_* cleared, then `sudo` detached, its terminal logged to `typescript`. sudo starts
    /// 2 s later, once the connection and its sshd processes are gone (the remote shell waits 0.5 s, so that
    /// the detaching is done before sshd hangs up the terminal).
    func command(sudo: String, typescript: String) -> String {
      let late = "sleep 2; \(sudo)"
      let clear = RemoteSessionTests.clearSSH
      return switch self {
      case .setsidScript: "\(clear) setsid -f script -qfc '\(late)' \(typescript); sleep 0.5"
      case .tmuxServer: "\(clear) tmux -L localauth-escape new -d \"script -qfc '\(late)' \(typescript)\"; sleep 0.5"
      case .nohupScript: "\(clear) nohup script -qfc '\(late)' \(typescript) </dev/null >/dev/null 2>&1 & sleep 0.5"
      }
    }
  }

  @Test("a sudo detached from an SSH session, with SSH_* cleared, asks for the passcode and never shows a finger prompt",
    arguments: Escape.allCases)
  func detachedSudo(escape: Escape) throws {
    let fixture = try Fixture()
    defer { fixture.tearDown() }
    let typescript = fixture.output + "/typescript"
    let sudo = "/usr/bin/sudo -k /bin/sh \(fixture.markerScript)"
    let run = try fixture.ssh(escape.command(sudo: sudo, typescript: typescript), ["eof"])
    #expect(run.exitStatus == 0, "\(run.transcript)")
    // The connection is gone; what it left runs on. Watch its terminal and the waiting prompts for a while.
    var seen = ""
    var prompts: [String] = []
    let deadline = Date().addingTimeInterval(12)
    while Date() < deadline && !seen.contains("Enter Passcode:") && !seen.contains("Place your finger") {
      let listing = try LoginSuTests.Command.run(LoginSuEnvironment.ctl, ["prompts", "--state-dir", fixture.state]).output
      if listing.contains(RemoteSessionTests.userName) { prompts.append(listing) }
      seen = (try? String(contentsOfFile: typescript, encoding: .utf8)) ?? ""
      usleep(100_000)
    }
    let processes = (try? LoginSuTests.Command.run("/bin/ps", ["-o", "pid,ppid,sess,user,ruser,stat,args", "-U", RemoteSessionTests.userName]).output) ?? ""
    #expect(seen.contains("Enter Passcode:"), "terminal of the detached sudo: \(seen); processes: \(processes)")
    #expect(!seen.contains("Place your finger"), "terminal of the detached sudo: \(seen)")
    #expect(prompts.isEmpty, "a finger prompt was listed: \(prompts)")
    let listing = try LoginSuTests.Command.run(LoginSuEnvironment.ctl, ["prompts", "--state-dir", fixture.state]).output
    #expect(!listing.contains(RemoteSessionTests.userName), "\(listing)")
  }

  @Test("a console login is recorded local: login and the sudo in its shell get the finger, with the ledger in place")
  func consoleGetsFinger() throws {
    let fixture = try Fixture()
    defer { fixture.tearDown() }
    // An SSH login first, so that the ledger exists and unrecorded sessions are refused.
    let remote = try fixture.ssh(fixture.sudoCommand, [
      "expect:^Enter Passcode: ", "send:" + Self.passcode, "expect:^" + SudoTests.rootMarker + "\\r?$", "eof",
    ])
    #expect(remote.stepsCompleted, "\(remote.transcript)")
    let run = try fixture.console(fixture.consoleSudoSteps(sudos: 1))
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(!run.transcript.contains("Enter Passcode"), "\(run.transcript)")
    #expect(run.transcript.components(separatedBy: "Place your finger on the sensor").count == 3, "\(run.transcript)")
  }

  @Test("the reuse window is not inherited by a later terminal that got the same number, nor over SSH")
  func reuseNotInheritedByRecycledTerminal() throws {
    let fixture = try Fixture(reuse: 300)
    defer { fixture.tearDown() }
    // A terminal (as a terminal emulator's tab: a shell, no login): sudo by finger opens the window, sudo again
    // is reused; then the terminal is closed without a logout (a plain shell opens no PAM session).
    let first = try fixture.terminal(sudos: 2)
    #expect(first.stepsCompleted, "\(first.transcript)")
    #expect(first.transcript.components(separatedBy: "Place your finger on the sensor").count == 2, "\(first.transcript)")
    let number = Self.terminalName(first.transcript)
    #expect(number != nil, "\(first.transcript)")
    // The next terminals: each must be asked for the finger again; one of them gets the same pts number (the
    // kernel gives the lowest free one), which is the red team's recycled terminal.
    // Other suites run in parallel and take terminals too: before each try, wait (bounded) until the number is free,
    // and hold every free number below it, so that the next terminal opened gets it.
    var recycled = false
    for _ in 0..<10 where !recycled {
      if let number { Self.waitUntilFree(number, seconds: 10) }
      let held = number.map { Self.holdNumbers(below: $0) } ?? []
      defer { held.forEach { close($0) } }
      RecentPrompt.waitOut()
      let next = try fixture.terminal(sudos: 1)
      #expect(next.stepsCompleted, "the window was reused by another terminal: \(next.transcript)")
      recycled = number != nil && Self.terminalName(next.transcript) == number
    }
    #expect(recycled, "no later terminal got \(number ?? "?") again")
    // Over SSH (remote: never reused) the passcode is asked although a local window is open.
    let remote = try fixture.ssh(fixture.sudoCommand, [
      "expect:^Enter Passcode: ", "send:" + Self.passcode, "expect:^" + SudoTests.rootMarker + "\\r?$", "eof",
    ])
    #expect(remote.stepsCompleted, "\(remote.transcript)")
    #expect(!remote.transcript.contains("Place your finger"), "\(remote.transcript)")
  }

  /// Waits until no terminal `path` ("/dev/pts/2") exists, or `seconds` have passed: the kernel gives a new
  /// terminal the lowest free number, so a free number is the next one given unless another process takes it first.
  static func waitUntilFree(_ path: String, seconds: Double) {
    let deadline = Date().addingTimeInterval(seconds)
    while access(path, F_OK) == 0, Date() < deadline { usleep(50_000) }
  }

  /// Opens terminals until the kernel gives one numbered as `path` ("/dev/pts/2") or above, and closes that one; returns
  /// the descriptors of those below it, which the caller holds open (and closes) so that the next terminal anyone
  /// opens gets `path`'s number, the lowest free one. At most 64 are held.
  static func holdNumbers(below path: String) -> [Int32] {
    guard let target = Int(path.dropFirst("/dev/pts/".count)) else { return [] }
    var held: [Int32] = []
    while held.count < 64 {
      let fd = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
      guard fd >= 0 else { break }
      // The kernel names a master's terminal in its fdinfo ("tty-index:\tN"), as TerminalWatch reads it.
      let info = (try? String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8)) ?? ""
      let index = info.split(separator: "\n").first { $0.hasPrefix("tty-index:") }
      guard let given = index.flatMap({ Int($0.dropFirst("tty-index:".count).trimmingCharacters(in: .whitespaces)) }),
        given < target
      else {
        close(fd)
        break
      }
      held.append(fd)
    }
    return held
  }

  /// The terminal a driver's shell printed for `tty` ("/dev/pts/0").
  static func terminalName(_ transcript: String) -> String? {
    transcript.split(separator: "\n").first { $0.hasPrefix("/dev/pts/") }.map { String($0) }
  }
}

extension RemoteSessionTests.Fixture {
  /// Debian's sshd stack with pam_localauth's session line at its end (after pam_loginuid and common-session),
  /// pointed at the test's state; refused if the system's stack lacks pam_loginuid.
  static func sessionStack(module: String, state: String, conf: String) throws -> String {
    let debian = try String(contentsOfFile: "/etc/pam.d/sshd", encoding: .utf8)
    guard debian.contains("pam_loginuid.so") else {
      throw LoginSuTests.SetupError.snippet("/etc/pam.d/sshd has no pam_loginuid line")
    }
    return debian + "\nsession optional \(module) state_dir=\(state) conf=\(conf)\n"
  }

  /// The steps of a console login by finger, then `sudos` sudo commands from its shell: the first by finger, the
  /// rest reused (the output must show the root marker each time, and no further prompt).
  func consoleSudoSteps(sudos: Int) -> [String] {
    let touch = "run:" + [
      LoginSuEnvironment.ctl, "touch", RemoteSessionTests.userName, "right-index", "--quality", "1", "--state-dir", state,
    ].joined(separator: " ")
    var steps = ["expect:Place your finger on the sensor to ", touch, "expect:\\$ $", "send:tty", "expect:^/dev/pts/[0-9]+", "expect:\\$ $"]
    for index in 0..<sudos {
      // The login's finger prompt ended a moment ago: a sudo within two seconds would fall back (RecentPrompt).
      if index == 0 { steps.append("sleep:2.1") }
      steps.append("send:/usr/bin/sudo -k /bin/sh \(markerScript)")
      if index == 0 { steps += ["expect:Place your finger on the sensor to ", touch] }
      steps += ["expect:^" + SudoTests.rootMarker + "\\r?$", "expect:\\$ $"]
    }
    return steps + ["send:exit", "eof"]
  }

  /// A terminal as a terminal emulator opens one: the user's interactive shell on a new pseudo-terminal (its own
  /// terminal session, no login), which prints its terminal, runs `sudos` sudo commands (the first by finger, the
  /// rest reused) and exits; a plain shell has no PAM session, so no logout ends the window.
  func terminal(sudos: Int) throws -> LoginSuTests.DriveResult {
    let touch = "run:" + [
      LoginSuEnvironment.ctl, "touch", RemoteSessionTests.userName, "right-index", "--quality", "1", "--state-dir", state,
    ].joined(separator: " ")
    var steps = ["expect:\\$ $", "send:tty", "expect:^/dev/pts/[0-9]+", "expect:\\$ $"]
    for index in 0..<sudos {
      steps.append("send:/usr/bin/sudo -k /bin/sh \(markerScript)")
      if index == 0 { steps += ["expect:Place your finger on the sensor to ", touch] }
      steps += ["expect:^" + SudoTests.rootMarker + "\\r?$", "expect:\\$ $"]
    }
    var arguments = ["--mount", "--propagation", "private", LoginSuEnvironment.python, driver, "--timeout", "15"]
    arguments += ["--bind", folder + "/sudo:" + SudoTests.pamFile, "--bind", sudoers + ":" + SudoTests.sudoersFolder]
    arguments += ["--as", "\(uid):\(gid)"] + steps + ["send:exit", "eof", "--"] + LoginSuTests.localSession + ["/bin/sh", "-i"]
    return LoginSuTests.DriveResult(try LoginSuTests.Command.run("/usr/bin/unshare", arguments).output)
  }

  /// A console login: login(1) started as getty starts it (root, in no login session) on a pseudo-terminal, with
  /// the fixture's login and sudo stacks and sudoers folder bound in a private mount namespace.
  func console(_ steps: [String]) throws -> LoginSuTests.DriveResult {
    var arguments = ["--mount", "--propagation", "private", LoginSuEnvironment.python, driver, "--timeout", "15"]
    arguments += ["--bind", folder + "/login:/etc/pam.d/login", "--bind", folder + "/sudo:" + SudoTests.pamFile]
    arguments += ["--bind", sudoers + ":" + SudoTests.sudoersFolder] + steps + ["--"] + LoginSuTests.localSession
    arguments += ["/bin/sh", "-c", "echo 4294967295 > /proc/self/loginuid && exec /usr/bin/login \"$0\"", RemoteSessionTests.userName]
    return LoginSuTests.DriveResult(try LoginSuTests.Command.run("/usr/bin/unshare", arguments).output)
  }
}
