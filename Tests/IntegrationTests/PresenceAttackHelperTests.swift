import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 37 through the setuid helper, on the simulated sensor: the user's own malware disguised as a screen locker
/// (Q), and a background job that borrows the console's foreground to reuse a session unlock (R). The attack's
/// programs are written and compiled at run time (Support/PresenceAttack.swift).
@Suite(
  .serialized,
  .enabled(if: AppDriver.available, "la-app or the helper is not built"),
  .enabled(if: getuid() == 0 && access("/usr/bin/cc", X_OK) == 0, "Needs root and cc."))
struct PresenceAttackHelperTests {
  @Test("Q: a `setsid -f` daemon disguised as /usr/bin/i3lock (its LD_PRELOAD hidden from /proc/PID/environ) in the helper's PAM mode: no finger, no success, no session unlock a later app's item read reuses",
    .enabled(if: access("/usr/bin/i3lock", X_OK) == 0, "Needs Debian's i3lock (make deps)."))
  func disguisedScreenLocker() throws {
    try withSandbox { s in
      try Setups.ready(s)
      let world = try HelperWorld(s, extraConfig: ["timeout=5", "gui_services=i3lock," + s.service, "reuse_duration=300"])
      let attack = try PresenceAttack(uid: s.uid, gid: world.gid)
      defer { attack.remove() }
      let library = try attack.library("fake-i3lock.so", PresenceAttack.fakeLockerSource)
      let driver = try attack.write("locker-driver.py", PresenceAttack.lockerDriver)
      let log = attack.scratch + "/q.log"
      let body = """
        setsid -f /usr/bin/env LD_PRELOAD=\(library) FAKE_HELPER=\(world.helper) FAKE_DRIVER=\(driver) FAKE_USER=\(s.user) \
        FAKE_LOG=\(log) /usr/bin/i3lock </dev/null >/dev/null 2>&1
        i=0; while [ $i -lt 300 ] && ! grep -q 'FAKE-LOCKER: helper exit' \(log) 2>/dev/null; do sleep 0.1; i=$((i+1)); done
        cat \(log)
        """
      let app = AppDriver(world: world)
      #expect(try app.inTerminal(["add", "mail", "alice", "hunter2", "userPresence"]).lines("status") == ["status 0"])
      try s.touch()
      let run = try world.asUser("/bin/sh", ["-c", body])
      let texts = RealPAM.HelperHostileTests.texts(run.stdout)
      #expect(run.stdout.contains("FAKE-LOCKER: /proc/self/environ clean"), "\(run.stdout)\n\(run.stderr)")
      #expect(run.stdout.contains("FAKE-LOCKER: helper exit"), "\(run.stdout)\n\(run.stderr)")
      #expect(!texts.contains { $0.contains("Place your finger") }, "\(texts)")
      #expect(try s.record()?.lastBiometricSuccess == nil, "the touch was accepted: \(texts)")
      // A later app in a terminal of its own, allowing a reuse of 300 s and no interaction, reads the userPresence
      // item: there is no session unlock to reuse, so nothing is released.
      let later = try app.inTerminal(["reuse-read", "mail", "alice", "300"])
      #expect(!later.output.contains("evaluate success"), "\(later.output)")
      #expect(later.lines("evaluate").first?.hasPrefix("evaluate error") == true, "\(later.output)")
      #expect(!later.output.contains("data hunter2"), "the item was released: \(later.output)")
    }
  }

  @Test("R: after a session unlock (vlock, reuse 300), a background job that borrows the console's foreground reads a userPresence item: nothing is released silently",
    .enabled(if: access(ScreenLockerEnvironment.vlockMain, X_OK) == 0, "Needs Debian's vlock."))
  func borrowedForegroundReusesUnlock() throws {
    try withSandbox { s in
      try Setups.ready(s)
      let world = try HelperWorld(s, extraConfig: ["timeout=10", "reuse_duration=300"])
      let app = AppDriver(world: world)
      #expect(try app.inTerminal(["add", "mail", "alice", "hunter2", "userPresence"]).lines("status") == ["status 0"])
      let attack = try PresenceAttack(uid: s.uid, gid: world.gid)
      defer { attack.remove() }
      // The session unlock: Debian's setuid vlock-main, run by the user on the console, asks through the module in
      // its own process (service vlock, a session unlock by default) and takes one touch. vlock ignores the signals
      // a hang-up sends, so `timeout` kills it should it never unlock (a survivor would hold the test's pipe open).
      let pamDir = attack.folder + "/pam.d"
      try Run.checked("/bin/cp", ["-a", "/etc/pam.d", pamDir])
      try attack.write(
        "pam.d/vlock", s.moduleLine(["timeout=10", "reuse_duration=300"]) + "\naccount required pam_permit.so\n")
      let touch = "run:\(Artifacts.ctl) touch \(s.user) right-index --quality 1 --wait 15 --state-dir \(s.stateDir)"
      let job = try attack.write("r-borrow.py", PresenceAttack.borrowedForegroundRun)
      // The user's interactive shell on the console: vlock, then a job that borrows the foreground for la-app's
      // `reuse-read` (an evaluation that may reuse the unlock and may not ask, then a read with that context), then
      // (the control) the user runs the same in the foreground.
      let run = try drive(
        s, world,
        [
          "expect:\\$ $", touch,
          "send:VLOCK_CURRENT_MESSAGE=LOCKED timeout --foreground -s KILL 40 \(ScreenLockerEnvironment.vlockMain); echo VLOCK_EXIT=$?",
          "expect:^LOCKED", "send:", "expect:VLOCK_EXIT=[0-9]", "expect:\\$ $",
          "send:/usr/bin/python3 \(job) \(AppDriver.app) reuse-read mail alice 300 &", "expect:BORROWED-END",
          "send:wait; echo JOB-DONE-$((6*7))", "expect:^JOB-DONE-42",
          "send:\(AppDriver.app) reuse-read mail alice 300; echo FOREGROUND-DONE-$((6*7))", "expect:^FOREGROUND-DONE-42",
          "send:exit", "eof",
        ], binds: [pamDir + ":/etc/pam.d"])
      let borrowed = PresenceAttackTests.section(run.transcript, "BORROWED-BEGIN", "BORROWED-END")
      let foreground = PresenceAttackTests.section(run.transcript, "JOB-DONE-42", "FOREGROUND-DONE-42")
      #expect(run.stepsCompleted, "\(run.transcript)")
      try #require(run.transcript.contains("VLOCK_EXIT=0"), "vlock did not unlock: \(run.transcript)")
      #expect(!borrowed.contains("data hunter2"), "the item was released to the job: \(run.transcript)")
      #expect(!borrowed.contains("evaluate success"), "\(run.transcript)")
      #expect(borrowed.contains("evaluate error"), "\(run.transcript)")
      // The control: the session unlock is there, and a request in the foreground reuses it (rule 7).
      #expect(foreground.contains("data hunter2"), "\(run.transcript)")
    }
  }

  /// Runs the user's interactive bash on a pseudo-terminal root holds (the console), leading its session as a login
  /// shell does, with the helper's configuration bound over /etc/security, `binds` (SOURCE:TARGET) in place and
  /// la-app pointed at the setuid helper.
  func drive(_ s: Sandbox, _ world: HelperWorld, _ steps: [String], binds: [String] = []) throws -> LoginSuTests.DriveResult {
    let driver = LoginSuEnvironment.repositoryRoot.appendingPathComponent("Tests/scripts/e2e-ptydrive.py").path
    var arguments = ["--mount", "--propagation", "private", LoginSuEnvironment.python, driver, "--timeout", "40", "--exec"]
    arguments += ["--bind", world.etcSecurity + ":/etc/security"] + binds.flatMap { ["--bind", $0] }
    arguments += ["--as", "\(s.uid):\(world.gid)"] + steps
    arguments += ["--", "/usr/bin/env", "-u", "SSH_CONNECTION", "-u", "SSH_CLIENT", "-u", "SSH_TTY"]
    arguments += ["LOCALAUTH_HELPER=" + world.helper, "PS1=$ ", "/bin/bash", "--norc", "--noprofile", "-i"]
    return LoginSuTests.DriveResult(try LoginSuTests.Command.run("/usr/bin/unshare", arguments).output)
  }
}
