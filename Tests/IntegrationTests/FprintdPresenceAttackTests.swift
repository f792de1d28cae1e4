import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 37's T, P, W and Q with a real reader: the real sudo (and the setuid helper) on `sensor=fprintd`, libfprint's
/// virtual device behind a private fprintd (FprintdHiddenRequestTests' and FprintdAppIntentTests' worlds). A request
/// the user's malware arranged never claims the reader (no Claim on the bus while it waits), and a swipe never gives
/// the hidden process root; the user's own visible sudo claims the reader and takes the swipe, which shows that the
/// watch would see a claim. The attack's programs come from Support/PresenceAttack.swift.
@Suite(
  .serialized,
  .builtModuleAndTool,
  .enabled(if: FprintdWorld.available, "needs fprintd and python3-dbusmock (make deps)"),
  .enabled(if: access("/usr/bin/dbus-monitor", X_OK) == 0, "dbus-monitor missing"),
  .enabled(if: SudoEnvironment.capable, "Needs root, a setuid /usr/bin/sudo, /etc/sudoers.d and python3."),
  .enabled(if: LoginSuEnvironment.namespaces, "Needs a private mount namespace (unshare --mount)."),
  .enabled(if: access("/usr/bin/cc", X_OK) == 0 && access("/usr/bin/tmux", X_OK) == 0, "Needs cc and tmux."))
struct FprintdPresenceAttackTests {
  typealias World = FprintdHiddenRequestTests.World

  /// A driver step that waits `after` seconds, then prints how many Claim calls the bus has seen as CLAIMS-HIDDEN=N.
  static func claimsStep(_ world: World, after seconds: Int) -> String {
    "run:sleep \(seconds); echo CLAIMS-HIDDEN=$(grep -c member=Claim \(world.watch.output))"
  }

  static func attack() throws -> PresenceAttack {
    guard let entry = getpwnam(SudoTests.userName) else { throw LoginSuTests.SetupError.snippet("the test user") }
    return try PresenceAttack(uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
  }

  @Test("T on fprintd: the fake tmux server's hidden sudo never claims the reader; the user's own sudo claims it and the swipe is its")
  func fakeMultiplexerNeverClaims() throws {
    let world = try World()
    defer { world.tearDown() }
    let attack = try Self.attack()
    defer { attack.remove() }
    let console = try attack.prepareFakeTmux(hiddenCommand: PresenceAttackTests.hiddenCommand)
    // Two swipes: each goes to whichever request claims the reader next.
    let feeder = try world.fprintd.feed(["SCAN print-A", "SCAN print-A"])
    defer { feeder.stop() }
    let run = try world.drive(
      ["expect:HIDDEN-ASKED", Self.claimsStep(world, after: 3), "expect:TMUX-DONE", "expect:HIDDEN-LOG-END", "eof"],
      command: ["/bin/sh", console, attack.folder, SudoEnvironment.sudo, "-k", "/bin/sh", "-c", SudoTests.command])
    let hidden = PresenceAttackTests.section(run.transcript, "HIDDEN-LOG-BEGIN", "HIDDEN-LOG-END")
    let visible = PresenceAttackTests.section(run.transcript, "TMUX-DONE", "VISIBLE-EXIT=")
    #expect(run.stepsCompleted, "\(run.transcript)\nfeeder:\n\(feeder.transcript)")
    #expect(hidden.contains("FAKE: holds one master"), "the fake server did not start: \(hidden)")
    #expect(run.transcript.contains("CLAIMS-HIDDEN=0"), "the hidden sudo claimed the reader: \(run.transcript)")
    #expect(!hidden.contains("Swipe"), "\(hidden)")
    #expect(!run.transcript.contains(PresenceAttackTests.hiddenRan), "\(run.transcript)")
    // The user's sudo: one claim (its own), its own command named, no passcode, and root.
    #expect(world.watch.claims == 1, "Claim calls: \(world.watch.claims)")
    let swipeLines = visible.split(separator: "\n").filter { $0.contains("Swipe your") }
    #expect(swipeLines.count == 1 && swipeLines.allSatisfy { $0.contains("printf") && !$0.contains("HIDDEN") }, "\(visible)")
    #expect(!visible.contains("Enter Passcode"), "\(visible)")
    #expect(visible.contains(SudoTests.rootMarker), "\(run.transcript)\nfeeder:\n\(feeder.transcript)")
  }

  @Test("P on fprintd: a daemon's sudo on the pty whose master the user's shell holds never claims the reader")
  func inheritedMasterNeverClaims() throws {
    let world = try World()
    defer { world.tearDown() }
    let attack = try Self.attack()
    defer { attack.remove() }
    let rc = try attack.write("p.rc", "exec 9<>/dev/ptmx\nPS1='$ '\n")
    let daemon = try attack.write("p-daemon.py", PresenceAttack.inheritedMasterDaemon)
    let feeder = try world.fprintd.feed(["SCAN print-A"])
    defer { feeder.stop() }
    let hiddenCommand = PresenceAttackTests.hiddenCommand.replacingOccurrences(of: "$", with: "\\$")
    let run = try world.drive(
      [
        "expect:\\$ $", "send:setsid -f /usr/bin/python3 \(daemon) \"\(hiddenCommand)\" \(attack.scratch)/p.note; echo LAUNCHED-$((6*7))",
        "expect:^LAUNCHED-42", Self.claimsStep(world, after: 4), "sleep:6",
        "send:echo HIDDEN-PTY-BEGIN; dd bs=65536 count=1 iflag=nonblock <&9 2>/dev/null; echo; echo HIDDEN-PTY-END-$((6*7))", "expect:^HIDDEN-PTY-END-42",
        "send:exec 9>&-; i=0; while [ $i -lt 100 ] && pgrep -U $(id -u) -x sudo >/dev/null; do sleep 0.1; i=$((i+1)); done; echo CLOSED-$((6*7))",
        "expect:^CLOSED-42", "send:exit", "eof",
      ],
      command: PresenceAttackTests.interactiveShell(rc: rc), leader: true)
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(attack.scratchFile("p.note").hasPrefix("pts/"), "the daemon did not take the terminal: \(run.transcript)")
    #expect(run.transcript.contains("CLAIMS-HIDDEN=0"), "the hidden sudo claimed the reader: \(run.transcript)")
    #expect(world.watch.claims == 0, "Claim calls: \(world.watch.claims)")
    #expect(!feeder.events.contains { $0.hasPrefix("SENT") }, "\(feeder.transcript)")
    #expect(!run.transcript.contains(PresenceAttackTests.hiddenRan), "\(run.transcript)")
    feeder.stop()
    try world.expectVisibleClaims()
  }

  @Test("W on fprintd: `script -qfc \"sudo -k …\"` started while a background job borrowed the foreground never claims the reader")
  func borrowedForegroundNeverClaims() throws {
    let world = try World()
    defer { world.tearDown() }
    let attack = try Self.attack()
    defer { attack.remove() }
    let job = try attack.write("w-borrow.py", PresenceAttack.borrowedForeground)
    let ran = attack.folder + "/w.ran"
    let feeder = try world.fprintd.feed(["SCAN print-A"])
    defer { feeder.stop() }
    let run = try world.drive(
      [
        "expect:\\$ $", "send:/usr/bin/python3 \(job) \"sudo -k /bin/sh -c 'id -u >\(ran)'; true\" 6 &", "expect:FG-RETURNED",
        "expect:W-DONE",
        "send:wait; i=0; while [ $i -lt 100 ] && pgrep -U $(id -u) -x sudo >/dev/null; do sleep 0.1; i=$((i+1)); done; echo DONE-$((6*7))",
        "expect:^DONE-42", "send:exit", "eof",
      ],
      command: PresenceAttackTests.interactiveShell(), leader: true)
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(world.watch.claims == 0, "Claim calls: \(world.watch.claims)")
    #expect(!feeder.events.contains { $0.hasPrefix("SENT") }, "\(feeder.transcript)")
    #expect(!PresenceAttack.exists(ran), "the hidden sudo ran its command as root: \(run.transcript)")
    feeder.stop()
    try world.expectVisibleClaims()
  }

  @Test("Q on fprintd: a daemon disguised as /usr/bin/i3lock talking to the helper never claims the reader",
    .enabled(if: AppDriver.available, "la-app or the helper is not built"),
    .enabled(if: access("/usr/bin/i3lock", X_OK) == 0, "Needs Debian's i3lock (make deps)."))
  func disguisedScreenLockerNeverClaims() throws {
    try withSandbox { s in
      let world = try FprintdAppIntentTests.World(s)
      defer { world.tearDown() }
      // i3lock among the services that show their own prompt, and a reuse window a later app could use.
      let conf = world.helper.etcSecurity + "/localauth.conf"
      let text = try String(contentsOfFile: conf, encoding: .utf8) + "gui_services=i3lock,\(s.service)\nreuse_duration=300\n"
      try text.write(toFile: conf, atomically: true, encoding: .utf8)
      chmod(conf, 0o644)
      let attack = try PresenceAttack(uid: s.uid, gid: world.helper.gid)
      defer { attack.remove() }
      let library = try attack.library("fake-i3lock.so", PresenceAttack.fakeLockerSource)
      let driver = try attack.write("locker-driver.py", PresenceAttack.lockerDriver)
      let log = attack.scratch + "/q.log"
      let feeder = try world.fprintd.feed(["SCAN print-A"])
      defer { feeder.stop() }
      let body = """
        setsid -f /usr/bin/env LD_PRELOAD=\(library) FAKE_HELPER=\(world.helper.helper) FAKE_DRIVER=\(driver) FAKE_USER=\(s.user) \
        FAKE_LOG=\(log) /usr/bin/i3lock </dev/null >/dev/null 2>&1
        i=0; while [ $i -lt 300 ] && ! grep -q 'FAKE-LOCKER: helper exit' \(log) 2>/dev/null; do sleep 0.1; i=$((i+1)); done
        cat \(log)
        """
      let run = try world.asUser("/bin/sh", ["-c", body])
      let texts = RealPAM.HelperHostileTests.texts(run.stdout)
      #expect(run.stdout.contains("FAKE-LOCKER: /proc/self/environ clean"), "\(run.stdout)\n\(run.stderr)")
      #expect(run.stdout.contains("FAKE-LOCKER: helper exit"), "\(run.stdout)\n\(run.stderr)")
      #expect(world.watch.claims == 0, "fprintd's Claim was called for the disguised locker: \(texts)")
      #expect(!feeder.events.contains { $0.hasPrefix("SENT") }, "\(feeder.transcript)")
      #expect(!texts.contains { $0.contains("Swipe your") }, "\(texts)")
      #expect(try s.record()?.lastBiometricSuccess == nil, "the swipe was accepted: \(texts)")
      feeder.stop()
      try FprintdAppIntentTests().expectVisibleClaims(world)
    }
  }
}
