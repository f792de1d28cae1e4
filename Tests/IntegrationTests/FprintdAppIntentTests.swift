import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 27, finding 4, with a real reader: la-app and a PAM-mode client of the setuid helper, `sensor=fprintd` and
/// libfprint's virtual device behind a private fprintd (Support/FprintdWorld.swift). A request whose visibility is
/// only claimed (the app's own dialog with no terminal, a hello naming `swaylock`) never claims the reader; the same
/// app in a terminal does, which shows that the watch would see a claim. The helper is setuid, so it reaches the
/// world's bus only through /run/dbus: each run binds a folder whose `system_bus_socket` leads there over /run/dbus
/// (and the helper's configuration over /etc/security) in a private mount namespace.
@Suite(
  .serialized,
  .enabled(if: AppDriver.available, "la-app or the helper is not built"),
  .enabled(if: FprintdWorld.available, "needs fprintd and python3-dbusmock (make deps)"),
  .enabled(if: access("/usr/bin/dbus-monitor", X_OK) == 0, "dbus-monitor missing"))
struct FprintdAppIntentTests {
  /// A sandbox user with passcode 1234 and print-A on the right index finger, the helper configured for the
  /// reader (the rules that ask the passcode first turned off), a Claim watch, and the folder for /run/dbus.
  final class World {
    let sandbox: Sandbox
    let fprintd: FprintdWorld
    let helper: HelperWorld
    let watch: RealPAM.FprintdTests.ClaimWatch
    let runDBus: String
    private var madeRunDBus = false
    /// Held while the world may make and remove /run/dbus (FprintdHiddenRequestTests and FprintdAppIntentTests).
    private let runDBusLock: Int32

    init(_ s: Sandbox) throws {
      sandbox = s
      let lock = try SharedTestUsers.lock("localauth-run-dbus")
      runDBusLock = lock
      do { fprintd = try FprintdWorld(root: s.root + "/fprintd") } catch {
        close(lock)
        throw error
      }
      do {
        try s.setPasscode()
        try s.satisfyPasscodeRules()
        try fprintd.enroll(user: s.user)
        helper = try HelperWorld(
          s,
          extraConfig: [
            "sensor=fprintd", "fprint_dir=" + fprintd.stateDir, "timeout=10", "gui_services=swaylock," + s.service,
            "passcode_after_reboot=no", "passcode_after_enrollment_change=no", "idle_limit=0", "passcode_max_age=0",
          ])
        runDBus = s.root + "/run-dbus"
        try FileManager.default.createDirectory(atPath: runDBus, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: runDBus + "/system_bus_socket", withDestinationPath: fprintd.busSocket)
        // The mount point: a machine without a system bus may have no /run/dbus (removed again by `tearDown`).
        if access("/run/dbus", F_OK) != 0 {
          guard mkdir("/run/dbus", 0o755) == 0 else { throw LoginSuTests.SetupError.command("mkdir /run/dbus", errno, "") }
          madeRunDBus = true
        }
        watch = try RealPAM.FprintdTests.ClaimWatch(fprintd, folder: s.root)
      } catch {
        fprintd.stop()
        close(lock)
        throw error
      }
    }

    /// Runs `program` as the test user as `HelperWorld.asUser` does, with the world's bus bound over /run/dbus.
    func asUser(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ProcessRun {
      let command = "mount --bind \"$0\" /etc/security && mount --bind \"$1\" /run/dbus && "
        + "uid=\"$2\" gid=\"$3\" && shift 3 && exec /usr/bin/setpriv --reuid \"$uid\" --regid \"$gid\" --clear-groups \"$@\""
      return try Run.program(
        "/usr/bin/unshare",
        ["--mount", "--propagation", "private", "/bin/sh", "-c", command, helper.etcSecurity, runDBus, "\(sandbox.uid)", "\(helper.gid)", program]
          + arguments,
        environment: environment.merging(["LOCALAUTH_HELPER": helper.helper]) { a, _ in a }, timeout: 60)
    }

    /// la-app `arguments` in a pseudo-terminal of its own (AppDriver's pty driver, named in `terminal_programs=`).
    func appInTerminal(_ arguments: [String]) throws -> ProcessRun {
      let script = sandbox.root + "/pty-driver.py"
      if !FileManager.default.fileExists(atPath: script) {
        try AppDriver.ptyScript.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)
      }
      return try asUser("/usr/bin/python3", [script, "--", AppDriver.app] + arguments)
    }

    func tearDown() {
      watch.stop()
      fprintd.stop()
      if madeRunDBus { rmdir("/run/dbus") }
      close(runDBusLock)
    }
  }

  /// The control: la-app in a terminal of its own claims the reader and takes print-A.
  func expectVisibleClaims(_ world: World) throws {
    let before = world.watch.claims
    let feeder = try world.fprintd.feed(["SCAN print-A"])
    defer { feeder.stop() }
    let run = try world.appInTerminal(["evaluate", "biometrics", "unlock the vault"])
    #expect(run.stdout.contains("evaluate success"), "\(run.stdout)\n\(run.stderr)\nfeeder:\n\(feeder.transcript)")
    #expect(run.stdout.contains("Swipe your right index finger"), "\(run.stdout)")
    #expect(world.watch.claims > before, "a visible app did not claim the reader either: the watch does not work")
  }

  @Test("issue 27 (4): `setsid -f` la-app with its own dialog and no terminal never claims the reader; in a terminal it does")
  func setsidOwnDialogNeverClaims() throws {
    try withSandbox { s in
      let world = try World(s)
      defer { world.tearDown() }
      let feeder = try world.fprintd.feed(["SCAN print-A"])
      defer { feeder.stop() }
      // `setsid -f` forks the app into a new session with no terminal; the shell waits for it through a file.
      let out = s.root + "/setsid-app.out"
      _ = FileManager.default.createFile(atPath: out, contents: nil)
      chown(out, s.uid, world.helper.gid)
      let body = #"""
        setsid -f /bin/sh -c '"$0" dialog biometrics "unlock the vault" >"$1" 2>&1; echo "APP-EXIT $?" >>"$1"' "$LA_APP" "$1" </dev/null
        i=0
        while [ $i -lt 400 ] && ! grep -q APP-EXIT "$1"; do sleep 0.1; i=$((i+1)); done
        cat "$1"
        """#
      let run = try world.asUser("/bin/sh", ["-c", body, "sh", out], environment: ["LA_APP": AppDriver.app])
      let output = run.stdout + run.stderr
      #expect(output.contains("APP-EXIT"), "\(output)")
      #expect(!output.contains("evaluate success"), "\(output)")
      #expect(output.contains("evaluate error"), "\(output)")
      #expect(!output.contains("Swipe your"), "\(output)")
      #expect(world.watch.claims == 0, "fprintd's Claim was called for an app with no terminal")
      #expect(!feeder.events.contains { $0.hasPrefix("SENT") }, "\(feeder.transcript)")
      #expect(try s.record()?.lastBiometricSuccess == nil)
      feeder.stop()
      try expectVisibleClaims(world)
    }
  }

  @Test("issue 27 (4): a helper hello naming swaylock from a program that is not swaylock never claims the reader")
  func forgedScreenLockerNeverClaims() throws {
    try withSandbox { s in
      let world = try World(s)
      defer { world.tearDown() }
      let feeder = try world.fprintd.feed(["SCAN print-A"])
      defer { feeder.stop() }
      let driver = try HelperDriver(world.helper)
      let run = try world.asUser("/usr/bin/python3", [driver.scriptPath, world.helper.helper, "claim:\(s.user),swaylock,", "answer:1234"])
      let outcome = HelperDriver.Outcome(run: run)
      #expect(outcome.result == HelperDriver.Result.passcodeSuccess, "\(run.stdout)\n\(run.stderr)")
      #expect(world.watch.claims == 0, "fprintd's Claim was called for a forged screen locker")
      #expect(!feeder.events.contains { $0.hasPrefix("SENT") }, "\(feeder.transcript)")
      #expect(try s.record()?.lastBiometricSuccess == nil)
      feeder.stop()
      try expectVisibleClaims(world)
    }
  }
}
