import Foundation
import LocalAuthCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealPAM {
  /// `passcode=account` through real PAM: the login password in /etc/shadow is the passcode, with every rule of
  /// the separate passcode on top (docs/INSTALL.md, "The login password as the passcode"). No test sets a
  /// passcode: the user has an enrolled finger and a Unix password, nothing else.
  @Suite("passcode=account: the login password as the passcode")
  struct AccountPasscodeTests {
    static let password = "Acct-pass-1"
    static let newPassword = "Acct-pass-2"

    /// Gives the sandbox's user `password` with chpasswd (retried while another suite holds the shadow lock).
    static func setPassword(_ s: Sandbox, _ password: String) throws {
      var last: ProcessRun?
      for _ in 0..<50 {
        let run = try Run.program("/usr/sbin/chpasswd", [], stdin: "\(s.user):\(password)\n")
        if run.status == 0 { return }
        last = run
        usleep(100_000)
      }
      throw SandboxError.setup("chpasswd failed: \(last?.stderr ?? "")")
    }

    /// The module's line with passcode=account and a sensor wait long enough for the toucher.
    static func accountLine(_ s: Sandbox) -> String { s.moduleLine(["passcode=account", "timeout=10"]) }

    @Test("the password first (rule 6 after a reboot), then finger; after three wrong fingers, the password")
    func fingerThenPassword() throws {
      try withSandbox { s in
        try Self.setPassword(s, Self.password)
        try s.enroll()
        try s.writeService([Self.accountLine(s)])
        // No passcode entered in this boot: the finger is not offered, the password is asked for directly.
        let first = try s.pamtester(stdin: Self.password + "\n")
        #expect(first.verdict == PAMText.verdict("PAM_SUCCESS"), "\(first.run.stderr)")
        #expect(first.conversation.contains("Enter Password: "), "\(first.conversation)")
        #expect(!first.conversation.contains("Enter Passcode"), "\(first.conversation)")
        #expect(!first.info.contains { $0.hasPrefix("Place your finger") }, "\(first.info)")
        let record = try #require(try s.record())
        #expect(record.passcodeHash == nil, "no separate passcode was ever set")
        #expect(record.lastPasscodeBootID == SystemClock().bootID())

        for _ in 0..<3 { try s.touch(from: "intruder") }
        let second = try s.pamtester(stdin: Self.password + "\n")
        #expect(second.verdict == PAMText.verdict("PAM_SUCCESS"), "\(second.run.stderr)")
        #expect(second.info.contains { $0.hasPrefix("Place your finger on the sensor") }, "\(second.info)")
        #expect(second.conversation.contains("Enter Password: "), "\(second.conversation)")
        #expect(try s.record()?.biometricFailures == 0)

        RecentPrompt.waitOut()
        try s.touch()
        let finger = try s.pamtester(stdin: "")
        #expect(finger.verdict == PAMText.verdict("PAM_SUCCESS"), "\(finger.run.stderr)")
        #expect(!finger.conversation.contains("Enter Password"), "\(finger.conversation)")

        // localauthctl status names the secret, read from the same configuration file.
        try "passcode=account\n".write(toFile: s.configFile, atomically: true, encoding: .utf8)
        let status = try s.ctl("status", s.user, "--conf", s.configFile).stdout
        #expect(status.contains("the login password (passcode=account), usable"), "\(status)")
        let json = try s.ctl("status", s.user, "--json", "--conf", s.configFile).stdout
        #expect(json.replacingOccurrences(of: " ", with: "").contains("\"passcodeSecret\":\"account\""), "\(json)")
        try Run.checked("/usr/sbin/usermod", ["-L", s.user])
        let locked = try s.ctl("status", s.user, "--conf", s.configFile).stdout
        #expect(locked.contains("the login password (passcode=account), not usable: the password is locked"), "\(locked)")
      }
    }

    @Test("five wrong passwords: each counted with its origin, and the sixth attempt waits 1 minute")
    func fiveWrongPasswords() throws {
      try withSandbox { s in
        try Self.setPassword(s, Self.password)
        try s.writeService([Self.accountLine(s)])
        for attempt in 1...5 {
          let run = try s.pamtester(stdin: "wrong-\(attempt)\n")
          #expect(run.verdict == PAMText.verdict("PAM_AUTH_ERR"), "attempt \(attempt): \(run.run.stderr)")
          #expect(run.conversation.contains("Wrong password."), "\(run.conversation)")
        }
        let sixth = try s.pamtester(stdin: Self.password + "\n")
        #expect(sixth.verdict == PAMText.verdict("PAM_MAXTRIES"), "\(sixth.run.stderr)")
        #expect(
          sixth.conversation.contains("Password entry is disabled after repeated failures. Try again in 1 minute."),
          "\(sixth.conversation)")
        #expect(!sixth.conversation.contains("Enter Password"))
        let record = try #require(try s.record())
        #expect(record.passcodeFailures == 5)
        #expect(record.passcodeNextAllowed != nil)
        #expect(record.recentFailures.filter { $0.kind == .passcode && $0.service == s.service }.count == 5)
      }
    }

    @Test("a password change through pam_unix: the new password is the passcode, the old one is wrong")
    func passwordChange() throws {
      try withSandbox { s in
        try Self.setPassword(s, Self.password)
        try s.writeService([
          Self.accountLine(s), "password requisite pam_unix.so",
          s.moduleLine(["capture_authtok", "passcode=account"], type: "password", control: "optional"),
        ])
        let before = try s.pamtester(stdin: Self.password + "\n")
        #expect(before.verdict == PAMText.verdict("PAM_SUCCESS"), "\(before.run.stderr)")
        // As root, pam_unix asks the old password only under PAM_CHANGE_EXPIRED_AUTHTOK: old, new, new again.
        let changed = try s.pamtester(
          ["chauthtok(PAM_CHANGE_EXPIRED_AUTHTOK)"], stdin: "\(Self.password)\n\(Self.newPassword)\n\(Self.newPassword)\n")
        #expect(changed.verdict == "pamtester: authentication token altered successfully.", "\(changed.run.stderr)")
        // The passcode key (of passcode-keyed keychain items) follows the password.
        #expect(
          changed.syslog.contains("The passcode key of user \(s.user) now opens with the new password (passcode=account)."),
          "\(changed.syslog)")
        #expect(FileManager.default.fileExists(atPath: s.stateDir + "/keychain/" + s.user + "/passcode.key"))
        let old = try s.pamtester(stdin: Self.password + "\n")
        #expect(old.verdict == PAMText.verdict("PAM_AUTH_ERR"), "\(old.run.stderr)")
        #expect(old.conversation.contains("Wrong password."), "\(old.conversation)")
        let new = try s.pamtester(stdin: Self.newPassword + "\n")
        #expect(new.verdict == PAMText.verdict("PAM_SUCCESS"), "\(new.run.stderr)")
        #expect(try s.record()?.passcodeFailures == 0)
      }
    }

    @Test("a locked account (usermod -L) is refused the passcode with one log line; pam_unix then refuses it too")
    func lockedAccount() throws {
      try withSandbox { s in
        try Self.setPassword(s, Self.password)
        try s.enroll()
        try s.satisfyPasscodeRules()
        try Run.checked("/usr/sbin/usermod", ["-L", s.user])
        try s.writeService([Self.accountLine(s)])
        try s.touch()
        let alone = try s.pamtester(stdin: Self.password + "\n")
        #expect(alone.verdict == PAMText.verdict("PAM_AUTHINFO_UNAVAIL"), "\(alone.run.stderr)")
        #expect(!alone.conversation.contains("Enter Password"), "\(alone.conversation)")
        #expect(!alone.info.contains { $0.hasPrefix("Place your finger") }, "no finger for a locked account: \(alone.info)")
        #expect(
          alone.syslog.filter { $0.contains("refused as the passcode") }
            == ["The login password of user \(s.user) is refused as the passcode: the password is locked."],
          "\(alone.syslog)")
        // In a stack, the next line (pam_unix) decides, and refuses the locked password as well.
        try s.writeService([s.moduleLine(["passcode=account"], control: "[success=done default=ignore]"), "auth required pam_unix.so"])
        let stacked = try s.pamtester(stdin: Self.password + "\n")
        #expect(stacked.verdict == PAMText.verdict("PAM_AUTH_ERR"), "\(stacked.run.stderr)")
        #expect(try s.record()?.passcodeFailures == 0, "nothing was checked, so nothing was counted")
      }
    }

    @Test("the helper path: the user's own pamtester, then vlock, take the account password")
    func helperPath() throws {
      try withSandbox { s in
        try #require(Artifacts.helperAvailable, "needs build/localauth-helper (make helper) and mount namespaces")
        try Self.setPassword(s, Self.password)
        let world = try HelperWorld(s, extraConfig: ["passcode=account"])
        try s.writeService([world.moduleLine()])
        let wrong = try world.pamtester(stdin: "not-it\n")
        #expect(wrong.verdict == PAMText.verdict("PAM_AUTH_ERR"), "\(wrong.run.stderr)")
        #expect(wrong.conversation.contains("Enter Password: "), "\(wrong.conversation)")
        #expect(wrong.conversation.contains("Wrong password."), "\(wrong.conversation)")
        #expect(try s.record()?.passcodeFailures == 1)
        let right = try world.pamtester(stdin: Self.password + "\n")
        #expect(right.verdict == PAMText.verdict("PAM_SUCCESS"), "\(right.run.stderr)")
        #expect(try s.record()?.passcodeFailures == 0)
        guard ScreenLockerEnvironment.capable else { return }

        try s.enroll()
        try s.satisfyPasscodeRules()
        let locker = try VlockInTmux(s, extraConfig: ["passcode=account"])
        defer { locker.stop() }
        for _ in 0..<3 { try s.touch(from: "intruder") }
        try locker.start()
        let asked = try s.presentingTouches {
          try locker.pressEnter()
          return try locker.waitForPane("the password prompt after the wrong fingers") {
            $0.contains("Enter Password:") || $0.contains("VLOCK_EXIT=") || $0.contains("vlock: ")
          }
        }
        try #require(asked.contains("Enter Password:"), "\(asked)")
        try locker.type(Self.password)
        let pane = try locker.waitForPane("vlock to exit") { $0.contains("VLOCK_EXIT=") }
        #expect(pane.contains("VLOCK_EXIT=0"), "\(pane)")
        #expect(!pane.contains(Self.password), "the password was echoed: \(pane)")
      }
    }
  }
}
