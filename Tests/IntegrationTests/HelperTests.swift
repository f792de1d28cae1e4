import Foundation
import LocalAuthCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealPAM {
  /// An application that does not run as root (pamtester run by the test user) authenticates through the
  /// setuid localauth-helper: the same engine, state, counters and delays as for root, and only for the user
  /// who runs it.
  @Suite("Unprivileged callers through localauth-helper", .enabled(if: Artifacts.helperAvailable, "needs build/localauth-helper (make helper) and mount namespaces"))
  struct HelperTests {
    func prepare(_ s: Sandbox, extraConfig: [String] = []) throws -> HelperWorld {
      let world = try HelperWorld(s, extraConfig: extraConfig)
      try s.writeService([world.moduleLine()])
      return world
    }

    @Test("pamtester as the user: the user's own finger succeeds, prompted as for root")
    func finger() throws {
      try withSandbox { s in
        try s.setPasscode()
        try s.enroll()
        try s.satisfyPasscodeRules()
        let world = try prepare(s, extraConfig: ["timeout=10"])
        try s.touch()
        // A request the user sees: pamtester in the foreground of its terminal (the helper believes the kernel only).
        let run = try world.pamtesterInTerminal()
        #expect(run.verdict == PAMText.verdict("PAM_SUCCESS"), "\(run.run.stdout)")
        #expect(run.run.stdout.contains("Place your finger on the sensor"), "\(run.run.stdout)")
        #expect(!run.run.stdout.contains("Enter Passcode"), "\(run.run.stdout)")
        #expect(try s.record()?.lastBiometricSuccess != nil)
      }
    }

    @Test("the helper's prompt names the caller's executable, its terminal from the kernel and its pid, and a touch reaches it only by its id")
    func announcedPrompt() throws {
      try withSandbox { s in
        try s.setPasscode()
        try s.enroll()
        try s.satisfyPasscodeRules()
        nonisolated(unsafe) let world = try prepare(s, extraConfig: ["timeout=20"])
        nonisolated(unsafe) var run: PamtesterRun?
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
          run = try? world.pamtesterInTerminal(options: ["-I", "tty=/dev/pts/77"])
          done.signal()
        }
        let prompt = try #require(try s.announcedPrompt(), "no prompt was announced")
        // pamtester runs with LD_PRELOAD (pam_wrapper): not a system program, so it goes by its full path; the
        // PAM_TTY it claims is not its terminal.
        let pamtester = URL(fileURLWithPath: Artifacts.pamtester).resolvingSymlinksInPath().path
        #expect(prompt["service"] as? String == pamtester, "\(prompt)")
        let tty = prompt["tty"] as? String ?? ""
        #expect(tty.hasPrefix("/dev/pts/") && tty != "/dev/pts/77", "\(prompt)")
        #expect(prompt["requesterUid"] as? Int == Int(s.uid))
        let pid = try #require(prompt["pid"] as? Int)
        let command = try String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)
        #expect(command == "pamtester\n", "the announced pid is the caller, not the helper")
        // A wrong id is refused; the right one is delivered.
        let wrong = try Run.program(
          Artifacts.ctl, ["touch", s.user, "right-index", "--quality", "1", "--prompt", "00000000", "--state-dir", s.stateDir])
        #expect(wrong.status != 0)
        try s.ctl("touch", s.user, "right-index", "--quality", "1", "--prompt", try #require(prompt["id"] as? String))
        #expect(done.wait(timeout: .now() + 30) == .success)
        let result = try #require(run)
        #expect(result.verdict == PAMText.verdict("PAM_SUCCESS"), "\(result.run.stdout)")
      }
    }

    @Test("pamtester as the user: the passcode succeeds; a wrong one fails with the module's message and is counted")
    func passcode() throws {
      try withSandbox { s in
        try s.setPasscode()
        let world = try prepare(s)
        let wrong = try world.pamtester(stdin: "9999\n")
        #expect(wrong.verdict == PAMText.verdict("PAM_AUTH_ERR"), "\(wrong.run.stderr)")
        #expect(wrong.conversation.contains("Enter Passcode: "))
        #expect(wrong.conversation.contains("Wrong passcode."))
        #expect(try s.record()?.passcodeFailures == 1)
        let right = try world.pamtester(stdin: "1234\n")
        #expect(right.verdict == PAMText.verdict("PAM_SUCCESS"), "\(right.run.stderr)")
        #expect(try s.record()?.passcodeFailures == 0)
      }
    }

    @Test("five wrong passcodes from the user delay the sixth, as for root")
    func delay() throws {
      try withSandbox { s in
        try s.setPasscode()
        let world = try prepare(s)
        for attempt in 1...5 {
          let run = try world.pamtester(stdin: "999\(attempt)\n")
          #expect(run.verdict == PAMText.verdict("PAM_AUTH_ERR"), "attempt \(attempt): \(run.run.stderr)")
        }
        let sixth = try world.pamtester(stdin: "1234\n")
        #expect(sixth.verdict == PAMText.verdict("PAM_MAXTRIES"), "\(sixth.run.stderr)")
        #expect(sixth.conversation.contains("Passcode entry is disabled after repeated failures. Try again in 1 minute."))
        #expect(!sixth.conversation.contains("Enter Passcode"))
        let record = try #require(try s.record())
        #expect(record.passcodeFailures == 5)
        #expect(record.passcodeNextAllowed != nil)
      }
    }

    @Test("another user's name is refused without reading that user's state (as unix_chkpwd does)")
    func otherUser() throws {
      try withSandbox { s in
        try s.setPasscode()
        let world = try prepare(s)
        // root's record here is garbage: read, it would end the call with PAM_SYSTEM_ERR (and be quarantined).
        let rootRecord = s.stateDir + "/users/root"
        try Data("not a record\n".utf8).write(to: URL(fileURLWithPath: rootRecord))
        chmod(rootRecord, 0o600)
        let run = try world.pamtester(user: "root", stdin: "1234\n")
        #expect(run.verdict == PAMText.verdict("PAM_AUTH_ERR"), "\(run.run.stderr)")
        #expect(!run.conversation.contains("Enter Passcode"))
        #expect(
          run.syslog.contains("localauth-helper refused user root for uid \(s.uid): it authenticates only the user who runs it."),
          "\(run.syslog)")
        #expect(try String(contentsOfFile: rootRecord, encoding: .utf8) == "not a record\n")
      }
    }

    @Test("a missing helper, or one that is not setuid root: one log line and PAM_AUTHINFO_UNAVAIL")
    func unusableHelper() throws {
      try withSandbox { s in
        try s.setPasscode()
        let world = try HelperWorld(s, setuid: false)
        for (path, reason) in [
          (s.root + "/bin/no-such-helper", "it does not exist"),
          (world.helper, "it is not set-user-ID (install it with mode 4755)"),
        ] {
          try s.writeService([s.moduleLine(["helper=" + path])])
          let run = try world.pamtester(stdin: "1234\n")
          #expect(run.verdict == PAMText.verdict("PAM_AUTHINFO_UNAVAIL"), "\(run.run.stderr)")
          #expect(!run.conversation.contains("Enter Passcode"))
          let line = "pam_sm_authenticate runs as uid \(s.uid) and cannot read the state itself; the helper \(path) "
            + "cannot be used: \(reason), so pam_localauth does not apply (PAM_AUTHINFO_UNAVAIL)."
          #expect(run.syslog.filter { $0.hasPrefix("pam_sm_authenticate") } == [line], "\(run.syslog)")
        }
      }
    }
  }
}
