import Foundation
import LocalAuthCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 37, end to end on the simulated sensor: the user's own malware arranges the facts the intent rules read
/// (docs/RULES.md, "Intent") and asks for the user's finger for a `sudo` nobody sees. The real sudo through the
/// shipped stack (SudoTests' fixture); the attack's programs are written and compiled at run time
/// (Support/PresenceAttack.swift). Each hidden request must get no finger prompt, no prompt listed by
/// `localauthctl prompts`, and a touch must never run its command as root.
@Suite(
  .serialized,
  .builtModuleAndTool,
  .enabled(if: SudoEnvironment.capable, "Needs root, a setuid /usr/bin/sudo, /etc/sudoers.d and python3."),
  .enabled(if: LoginSuEnvironment.namespaces, "Needs a private mount namespace (unshare --mount)."),
  .enabled(if: access("/usr/bin/cc", X_OK) == 0 && access("/usr/bin/tmux", X_OK) == 0, "Needs cc and tmux."))
struct PresenceAttackTests {
  /// The hidden command: its output names neither marker on the command line (`$((6*7))` is only worked out
  /// when it runs).
  static let hiddenCommand = #"sudo -k /bin/sh -c 'echo HIDDEN-RAN-$((6*7)); id'"#
  static let hiddenRan = "HIDDEN-RAN-42"

  /// A driver step that, after `delay` seconds (by default while `IntentE2ETests.promptsProbe` looks for a listed
  /// prompt), presents the user's finger to whatever prompt waits within `wait` seconds (the hidden one, when it got
  /// the finger) and prints the exit status of `localauthctl touch` as HIDDEN-TOUCH-EXIT=N.
  static func hiddenTouch(_ fixture: SudoTests.Fixture, wait: Int, delay: Double = 2.5) -> String {
    "run:sleep \(delay); \(LoginSuEnvironment.ctl) touch \(SudoTests.userName) right-index --quality 1 --wait \(wait) "
      + "--state-dir \(fixture.state); echo HIDDEN-TOUCH-EXIT=$?"
  }

  /// Runs `command` as the user on the driver's pseudo-terminal (root's: the console) with sudo's stack and drop-in
  /// and `binds` (SOURCE:TARGET) in place, each step waiting at most `timeout` seconds. With `leader` the command
  /// leads the terminal's session, as a login shell does (`interactiveShell`).
  static func drive(
    _ fixture: SudoTests.Fixture, _ steps: [String], command: [String], binds: [String] = [], timeout: Int = 30,
    leader: Bool = false
  ) throws -> LoginSuTests.DriveResult {
    guard let entry = getpwnam(SudoTests.userName) else { throw LoginSuTests.SetupError.snippet("the test user") }
    var arguments = ["--mount", "--propagation", "private", LoginSuEnvironment.python, fixture.driver, "--timeout", "\(timeout)"]
    if leader { arguments.append("--exec") }
    arguments += ["--bind", fixture.stack + ":" + SudoTests.pamFile, "--bind", fixture.sudoers + ":" + SudoTests.sudoersFolder]
    for bind in binds { arguments += ["--bind", bind] }
    arguments += ["--as", "\(entry.pointee.pw_uid):\(entry.pointee.pw_gid)"] + steps
    arguments += ["--", "/usr/bin/env", "-u", "SSH_CONNECTION", "-u", "SSH_CLIENT", "-u", "SSH_TTY"] + command
    return LoginSuTests.DriveResult(try LoginSuTests.Command.run("/usr/bin/unshare", arguments).output)
  }

  /// The user's interactive bash on the console, with `rc` as its rc file (or none); drive it with `leader`, so that
  /// it leads the console's session as a login shell does.
  static func interactiveShell(rc: String? = nil) -> [String] {
    ["PS1=$ ", "/bin/bash", "--noprofile"] + (rc.map { ["--rcfile", $0] } ?? ["--norc"]) + ["-i"]
  }

  /// The text between `begin` and `end` in `transcript` (the last such stretch), or "".
  static func section(_ transcript: String, _ begin: String, _ end: String) -> String {
    guard let start = transcript.range(of: begin, options: .backwards),
      let stop = transcript.range(of: end, range: start.upperBound..<transcript.endIndex)
    else { return "" }
    return String(transcript[start.upperBound..<stop.lowerBound])
  }

  /// When the user's state last recorded a biometric success (nil: never).
  static func lastBiometricSuccess(_ fixture: SudoTests.Fixture) throws -> WallTime? {
    let record = try FileStateStore(root: fixture.state).load(try UserName(SudoTests.userName))
    return record?.lastBiometricSuccess
  }

  static func attack(_ fixture: SudoTests.Fixture) throws -> PresenceAttack {
    guard let entry = getpwnam(SudoTests.userName) else { throw LoginSuTests.SetupError.snippet("the test user") }
    return try PresenceAttack(uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
  }

  @Test("T: a fake tmux server (LD_PRELOAD into /usr/bin/tmux) holding the console runs a hidden sudo: no finger for it; the user's own sudo gets it")
  func fakeMultiplexer() throws {
    let fixture = try SudoTests.Fixture(passcodeFirst: false)
    defer { fixture.tearDown() }
    let attack = try Self.attack(fixture)
    defer { attack.remove() }
    let console = try attack.prepareFakeTmux(hiddenCommand: Self.hiddenCommand)
    let run = try Self.drive(
      fixture,
      [
        "expect:HIDDEN-ASKED", IntentE2ETests.promptsProbe(SudoTests.userName, state: fixture.state),
        Self.hiddenTouch(fixture, wait: 5), "expect:TMUX-DONE", fixture.touchStep(finger: "right-index"),
        "expect:HIDDEN-LOG-END", "eof",
      ],
      command: ["/bin/sh", console, attack.folder, SudoEnvironment.sudo, "-k", "/bin/sh", "-c", SudoTests.command])
    let hidden = Self.section(run.transcript, "HIDDEN-LOG-BEGIN", "HIDDEN-LOG-END")
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(hidden.contains("FAKE: holds one master"), "the fake server did not start: \(hidden)")
    #expect(run.transcript.contains("PROMPTS-NONE"), "\(run.transcript)")
    #expect(!hidden.contains("Place your finger") && !hidden.contains("Swipe"), "\(hidden)")
    #expect(hidden.contains("Enter Passcode"), "\(hidden)")
    #expect(!run.transcript.contains(Self.hiddenRan), "\(run.transcript)")
    // The user's own sudo, on the console after the session: the finger, naming its own command only.
    let visible = Self.section(run.transcript, "TMUX-DONE", "VISIBLE-EXIT=")
    let fingerLines = visible.split(separator: "\n").map(String.init).filter { $0.contains("Place your finger on the sensor") }
    let approval = "run `/bin/sh -c 'printf \\x27LOCALAUTH-%s-uid%s\\x5cn\\x27 OK \"$(id -u)\"'` as root (sudo)"
    #expect(fingerLines == ["Place your finger on the sensor to " + approval + "."], "\(visible)")
    #expect(!visible.contains("HIDDEN"), "\(visible)")
    #expect(visible.contains(SudoTests.rootMarker), "\(run.transcript)")
  }

  @Test("P: a daemon that inherited the master the user's shell holds (`exec 9<>/dev/ptmx` in its rc) runs sudo on that pty: no finger, no root")
  func inheritedMaster() throws {
    let fixture = try SudoTests.Fixture(passcodeFirst: false)
    defer { fixture.tearDown() }
    let attack = try Self.attack(fixture)
    defer { attack.remove() }
    let rc = try attack.write("p.rc", "exec 9<>/dev/ptmx\nPS1='$ '\n")
    let daemon = try attack.write("p-daemon.py", PresenceAttack.inheritedMasterDaemon)
    let launch = "setsid -f /usr/bin/python3 \(daemon) \"\(Self.hiddenCommand.replacingOccurrences(of: "$", with: "\\$"))\" "
      + "\(attack.scratch)/p.note; echo LAUNCHED-$((6*7))"
    let run = try Self.drive(
      fixture,
      [
        "expect:\\$ $", "send:" + launch, "expect:^LAUNCHED-42",
        IntentE2ETests.promptsProbe(SudoTests.userName, state: fixture.state), Self.hiddenTouch(fixture, wait: 5), "sleep:7",
        // What the hidden terminal shows, read from the shell's own master.
        "send:echo HIDDEN-PTY-BEGIN; dd bs=65536 count=1 iflag=nonblock <&9 2>/dev/null; echo; echo HIDDEN-PTY-END-$((6*7))", "expect:^HIDDEN-PTY-END-42",
        "send:exec 9>&-; i=0; while [ $i -lt 100 ] && pgrep -U $(id -u) -x sudo >/dev/null; do sleep 0.1; i=$((i+1)); done; echo CLOSED-$((6*7))",
        "expect:^CLOSED-42", "send:exit", "eof",
      ],
      command: Self.interactiveShell(rc: rc), leader: true)
    let hidden = Self.section(run.transcript, "HIDDEN-PTY-BEGIN\n", "HIDDEN-PTY-END-42")
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(attack.scratchFile("p.note").hasPrefix("pts/"), "the daemon did not take the terminal: \(run.transcript)")
    #expect(run.transcript.contains("PROMPTS-NONE"), "\(run.transcript)")
    #expect(!hidden.contains("Place your finger"), "\(hidden)")
    #expect(!run.transcript.contains(Self.hiddenRan), "\(run.transcript)")
    #expect(try Self.lastBiometricSuccess(fixture) == nil, "a touch was accepted: \(run.transcript)")
  }

  @Test("W: a background job borrows the console's foreground for 1.5 s to start `script -qfc \"sudo -k …\"`: a touch afterwards gives no root")
  func borrowedForeground() throws {
    let fixture = try SudoTests.Fixture(passcodeFirst: false)
    defer { fixture.tearDown() }
    let attack = try Self.attack(fixture)
    defer { attack.remove() }
    let job = try attack.write("w-borrow.py", PresenceAttack.borrowedForeground)
    let ran = attack.folder + "/w.ran"
    let command = "sudo -k /bin/sh -c 'id -u >\(ran)'; true"
    let run = try Self.drive(
      fixture,
      [
        "expect:\\$ $", "send:/usr/bin/python3 \(job) \"\(command)\" 6 &", "expect:FG-RETURNED",
        Self.hiddenTouch(fixture, wait: 3, delay: 0), "expect:W-DONE",
        "send:wait; i=0; while [ $i -lt 100 ] && pgrep -U $(id -u) -x sudo >/dev/null; do sleep 0.1; i=$((i+1)); done; echo DONE-$((6*7))",
        "expect:^DONE-42", "send:exit", "eof",
      ],
      command: Self.interactiveShell(), leader: true)
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(!PresenceAttack.exists(ran), "the hidden sudo ran its command as root: \(run.transcript)")
    #expect(try Self.lastBiometricSuccess(fixture) == nil, "a touch was accepted: \(run.transcript)")
  }

  @Test("S: `echo x | polkit-agent-helper-1 USER` with no terminal, polkit-1 on the module: no finger prompt, no touch accepted",
    .enabled(if: access(PresenceAttackTests.polkitHelper, X_OK) == 0, "Needs polkitd's polkit-agent-helper-1 (make deps)."),
    .enabled(if: access(PresenceAttackTests.polkitVendorStack, F_OK) == 0, "Needs polkitd's /usr/lib/pam.d/polkit-1."))
  func polkitHelperWithoutAgent() throws {
    let fixture = try SudoTests.Fixture(passcodeFirst: false)
    defer { fixture.tearDown() }
    let attack = try Self.attack(fixture)
    defer { attack.remove() }
    // polkit-1 with the module (its defaults: polkit-1 is in gui_services), over polkitd's vendor file in the
    // driver's namespace; /etc/pam.d has no polkit-1, so Linux-PAM reads this one.
    let conf = fixture.folder + "/localauth.conf"
    let stack = try attack.write(
      "polkit-1",
      "auth required \(LoginSuEnvironment.module) state_dir=\(fixture.state) conf=\(conf) timeout=5\n"
        + "account required pam_permit.so\n")
    let out = attack.scratch + "/s.out"
    let body = "echo x | setsid \(Self.polkitHelper) \(SudoTests.userName) >\(out) 2>&1; echo S-EXIT=$?; "
      + "echo HELPER-BEGIN; cat \(out); echo HELPER-END"
    let run = try Self.drive(
      fixture,
      [
        IntentE2ETests.promptsProbe(SudoTests.userName, state: fixture.state), Self.hiddenTouch(fixture, wait: 6),
        "expect:HELPER-END", "eof",
      ],
      command: ["/bin/sh", "-c", body], binds: [stack + ":" + Self.polkitVendorStack])
    let helper = Self.section(run.transcript, "HELPER-BEGIN", "HELPER-END")
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.transcript.contains("PROMPTS-NONE"), "\(run.transcript)")
    #expect(!helper.contains("Place your finger"), "\(helper)")
    #expect(!run.transcript.contains("HIDDEN-TOUCH-EXIT=0"), "\(run.transcript)")
    #expect(try Self.lastBiometricSuccess(fixture) == nil, "a touch was accepted: \(run.transcript)")
  }

  static let polkitHelper = "/usr/lib/polkit-1/polkit-agent-helper-1"
  static let polkitVendorStack = "/usr/lib/pam.d/polkit-1"
}
