import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 27 with a real reader: the real sudo, `sensor=fprintd` and libfprint's virtual device behind a private
/// fprintd (Support/FprintdWorld.swift). A request nobody at the machine can see never claims the reader (no Claim
/// call on the bus, no scan consumed) and sudo asks for the passcode; a visible request in the same world claims it
/// and takes the finger, which shows that the watch would see a claim. sudo is setuid, so its sd-bus ignores
/// DBUS_SYSTEM_BUS_ADDRESS: inside the driver's private mount namespace a folder whose `system_bus_socket` leads to
/// the world's bus is bound over /run/dbus.
@Suite(
  .serialized,
  .builtModuleAndTool,
  .enabled(if: FprintdWorld.available, "needs fprintd and python3-dbusmock (make deps)"),
  .enabled(if: access("/usr/bin/dbus-monitor", X_OK) == 0, "dbus-monitor missing"),
  .enabled(if: SudoEnvironment.capable, "Needs root, a setuid /usr/bin/sudo, /etc/sudoers.d and python3."),
  .enabled(if: LoginSuEnvironment.namespaces, "Needs a private mount namespace (unshare --mount)."))
struct FprintdHiddenRequestTests {
  /// SudoTests' fixture with the stack on `sensor=fprintd`, a world with print-A on the user's right index finger,
  /// a Claim watch on its bus, and the folder bound over /run/dbus.
  final class World {
    let sudo: SudoTests.Fixture
    let fprintd: FprintdWorld
    let watch: RealPAM.FprintdTests.ClaimWatch
    let runDBus: String
    private var madeRunDBus = false
    /// Held while the world may make and remove /run/dbus (FprintdHiddenRequestTests and FprintdAppIntentTests).
    private let runDBusLock: Int32

    init() throws {
      let lock = try SharedTestUsers.lock("localauth-run-dbus")
      runDBusLock = lock
      do { sudo = try SudoTests.Fixture(passcodeFirst: false) } catch {
        close(lock)
        throw error
      }
      do {
        fprintd = try FprintdWorld(root: sudo.folder + "/fprintd")
      } catch {
        sudo.tearDown()
        close(lock)
        throw error
      }
      runDBus = sudo.folder + "/run-dbus"
      do {
        try fprintd.enroll(user: SudoTests.userName)
        let stack = try String(contentsOfFile: sudo.stack, encoding: .utf8)
        let fprintdOptions = "timeout=10 sensor=fprintd fprint_dir=" + fprintd.stateDir
        guard stack.contains(" timeout=5") else { throw LoginSuTests.SetupError.snippet("timeout=5 in \(sudo.stack)") }
        try stack.replacingOccurrences(of: " timeout=5", with: " " + fprintdOptions).write(
          toFile: sudo.stack, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: runDBus, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: runDBus + "/system_bus_socket", withDestinationPath: fprintd.busSocket)
        // The mount point: a machine without a system bus may have no /run/dbus (removed again by `tearDown`).
        if access("/run/dbus", F_OK) != 0 {
          guard mkdir("/run/dbus", 0o755) == 0 else { throw LoginSuTests.SetupError.command("mkdir /run/dbus", errno, "") }
          madeRunDBus = true
        }
        watch = try RealPAM.FprintdTests.ClaimWatch(fprintd, folder: sudo.folder)
      } catch {
        fprintd.stop()
        sudo.tearDown()
        close(lock)
        throw error
      }
    }

    /// Runs `command` (default: `sudo -k /bin/sh -c COMMAND`) as the user on the driver's pseudo-terminal (root's:
    /// watched), with the stack, the drop-in and the bus in place; with `leader` the command leads the terminal's
    /// session, as a login shell does.
    func drive(_ steps: [String], command: [String]? = nil, leader: Bool = false) throws -> LoginSuTests.DriveResult {
      guard let entry = getpwnam(SudoTests.userName) else { throw LoginSuTests.SetupError.command("getpwnam", 0, "") }
      var arguments = ["--mount", "--propagation", "private", LoginSuEnvironment.python, sudo.driver, "--timeout", "25"]
      if leader { arguments.append("--exec") }
      arguments += ["--bind", sudo.stack + ":" + SudoTests.pamFile, "--bind", sudo.sudoers + ":" + SudoTests.sudoersFolder]
      arguments += ["--bind", runDBus + ":/run/dbus"]
      arguments += ["--as", "\(entry.pointee.pw_uid):\(entry.pointee.pw_gid)"] + steps
      arguments += ["--", "/usr/bin/env", "-u", "SSH_CONNECTION", "-u", "SSH_CLIENT", "-u", "SSH_TTY"]
      arguments += command ?? [SudoEnvironment.sudo, "-k", "/bin/sh", "-c", SudoTests.command]
      return LoginSuTests.DriveResult(try LoginSuTests.Command.run("/usr/bin/unshare", arguments).output)
    }

    /// The control: sudo in the foreground of the watched terminal claims the reader and takes print-A.
    func expectVisibleClaims() throws {
      let before = watch.claims
      let feeder = try fprintd.feed(["SCAN print-A"])
      defer { feeder.stop() }
      let run = try drive(["expect:^" + SudoTests.rootMarker + "\\r?$", "eof"])
      #expect(run.stepsCompleted, "\(run.transcript)\nfeeder:\n\(feeder.transcript)")
      #expect(run.exitStatus == 0, "\(run.transcript)")
      #expect(!run.transcript.contains("Enter Passcode"), "\(run.transcript)")
      #expect(watch.claims > before, "a visible sudo did not claim the reader either: the watch does not work")
    }

    func tearDown() {
      watch.stop()
      fprintd.stop()
      if madeRunDBus { rmdir("/run/dbus") }
      close(runDBusLock)
      sudo.tearDown()
    }
  }

  @Test("`setsid script -qfc \"sudo -k …\"` with no terminal never claims the reader; sudo asks for the passcode")
  func scriptWithoutTerminalNeverClaims() throws {
    let world = try World()
    defer { world.tearDown() }
    let feeder = try world.fprintd.feed(["SCAN print-A"])
    defer { feeder.stop() }
    // Issue 27, finding 6: sudo is in the foreground of script's pseudo-terminal, whose master holder (script)
    // has no terminal. The typescript shows what sudo asked; then script is ended (its sudo gets SIGHUP).
    let body = #"""
      t=$(mktemp) || exit 1
      setsid script -qfc "sudo -k /bin/sh -c 'echo RAN-\$((6*7))'; true" "$t" </dev/null >/dev/null 2>&1 &
      s=$!
      i=0
      while [ $i -lt 300 ] && ! grep -q -e 'Enter Passcode' -e 'Place your finger' -e 'passcode:' "$t"; do sleep 0.1; i=$((i+1)); done
      sleep 1
      echo TYPESCRIPT-BEGIN; cat "$t"; echo; echo TYPESCRIPT-END
      kill -TERM $s; wait $s; rm -f "$t"
      i=0; while [ $i -lt 100 ] && pgrep -U "$(id -u)" -x sudo >/dev/null; do sleep 0.1; i=$((i+1)); done
      echo SCRIPT-DONE
      """#
    let run = try world.drive(["expect:^TYPESCRIPT-END", "expect:SCRIPT-DONE", "eof"], command: ["/bin/sh", "-c", body])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.transcript.contains("Enter Passcode"), "\(run.transcript)")
    #expect(!run.transcript.contains("Place your finger"), "\(run.transcript)")
    #expect(!run.transcript.contains("RAN-42"), "\(run.transcript)")
    #expect(world.watch.claims == 0, "fprintd's Claim was called for a hidden request")
    #expect(!feeder.events.contains { $0.hasPrefix("SENT") }, "\(feeder.transcript)")
    feeder.stop()
    try world.expectVisibleClaims()
  }

  @Test("sudo in a tmux window made with `new-window -d` never claims the reader; the only pane's sudo does")
  func hiddenTmuxWindowNeverClaims() throws {
    let world = try World()
    defer { world.tearDown() }
    let feeder = try world.fprintd.feed(["SCAN print-A"])
    defer { feeder.stop() }
    // Issue 27, finding 7: the server runs in the watched terminal; the detached window is not shown. The first
    // pane waits, then ends the server (the hidden sudo gets SIGHUP).
    let pane = #"tmux -S "$(echo "$TMUX" | cut -d, -f1)" new-window -d "sudo -k /bin/sh -c 'echo RAN-\$((6*7))'; sleep 30"; "#
      + #"sleep 5; tmux -S "$(echo "$TMUX" | cut -d, -f1)" kill-server"#
    let run = try world.drive(["expect:TMUX-DONE", "eof"], command: IntentE2ETests.tmux(pane))
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(!run.transcript.contains("RAN-42"), "\(run.transcript)")
    #expect(world.watch.claims == 0, "fprintd's Claim was called for a hidden tmux window")
    #expect(!feeder.events.contains { $0.hasPrefix("SENT") }, "\(feeder.transcript)")
    feeder.stop()
    // The control in tmux itself: sudo in the only pane of a session shown on the watched terminal.
    let before = world.watch.claims
    let visibleFeeder = try world.fprintd.feed(["SCAN print-A"])
    defer { visibleFeeder.stop() }
    let visible = try world.drive(
      ["expect:RAN-42", "expect:TMUX-DONE", "eof"], command: IntentE2ETests.tmux(#"sudo -k /bin/sh -c 'echo RAN-$((6*7))'; sleep 1"#))
    #expect(visible.stepsCompleted, "\(visible.transcript)\nfeeder:\n\(visibleFeeder.transcript)")
    #expect(!visible.transcript.contains("Enter Passcode"), "\(visible.transcript)")
    #expect(world.watch.claims > before, "the only pane's sudo did not claim the reader: the watch does not work")
  }
}
