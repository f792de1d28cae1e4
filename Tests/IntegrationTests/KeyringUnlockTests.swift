import Foundation
import Testing

extension RealPAM {
  /// The login secret: `capture_authtok` keeps the password pam_unix has just checked (or the new one set through
  /// pam_unix's password line), and `release_authtok` hands it on as PAM_AUTHTOK after a successful local
  /// evaluation, so that pam_gnome_keyring unlocks the login keyring after a finger (recipe C of
  /// ../shared/reference/TEST-RECIPES.md). The first two tests check the world itself, without the module.
  @Suite("Keyring unlock through PAM_AUTHTOK", .enabled(if: KeyringWorld.available, KeyringWorld.skipMessage))
  struct KeyringUnlockTests {
    static let password = "kr-Login-pw-7351"
    static let newPassword = "kr-Changed-pw-4826"
    static let earlierPassword = "kr-Earlier-pw-9157"
    static let passcode = "1234"
    static let fingerPrompt = "Place your finger on the sensor"
    static let keyringAuth = "auth optional pam_gnome_keyring.so"
    static let keyringSession = "session optional pam_gnome_keyring.so auto_start"
    static let accountPermit = "account required pam_permit.so"

    // MARK: Stacks

    /// "capture": pam_unix checks the password, the module keeps it; with `keyring`, pam_gnome_keyring creates or
    /// unlocks login.keyring with it as well.
    func writeCapture(_ s: Sandbox, keyring: Bool) throws {
      try s.writeService(
        ["auth requisite pam_unix.so", s.moduleLine(["capture_authtok"], control: "optional")]
          + (keyring ? [Self.keyringAuth] : []) + [Self.accountPermit] + (keyring ? [Self.keyringSession] : []),
        name: "capture")
    }

    /// "login": the module releases the login secret after a successful evaluation, for pam_gnome_keyring.
    func writeKeyringLogin(_ s: Sandbox) throws {
      try s.writeService(
        [
          s.moduleLine(["release_authtok"], control: "[success=ok default=die]"), Self.keyringAuth, Self.accountPermit,
          Self.keyringSession,
        ], name: "login")
    }

    /// "expose": the module releases the login secret, pam_exec writes PAM_AUTHTOK to the world's exposed file.
    func writeExposeLogin(_ s: Sandbox, _ world: KeyringWorld) throws {
      try s.writeService(
        [
          s.moduleLine(["release_authtok"], control: "[success=ok default=bad]"),
          "auth optional pam_exec.so expose_authtok quiet " + (try world.writeExposeScript()), "auth required pam_permit.so",
        ], name: "expose")
    }

    /// Logs in through "capture" with the Unix password, which must succeed without any prompt of the module's.
    func capture(_ world: KeyringWorld, _ password: String, _ operations: [String] = ["authenticate"]) throws {
      let run = try world.pamtester(service: "capture", operations, stdin: password + "\n")
      #expect(run.status == 0, "capture login: \(run.run.stderr)")
      #expect(!run.info.contains { $0.hasPrefix(Self.fingerPrompt) }, "capture_authtok asks for nothing: \(run.info)")
      #expect(!run.conversation.contains("Enter Passcode"), "capture_authtok asks for nothing: \(run.conversation)")
    }

    /// True when the exposed file is absent or empty (nothing was released, and pam_exec's own prompt got nothing).
    func nothingExposed(_ data: Data?) -> Bool { data?.isEmpty ?? true }

    // MARK: The world

    @Test("world: the Unix password unlocks the login keyring through pam_gnome_keyring; a wrong one leaves it locked")
    func worldPasswordLogin() throws {
      try withKeyringWorld(password: Self.password) { s, world in
        try s.writeService(
          ["auth requisite pam_unix.so", Self.keyringAuth, Self.accountPermit, Self.keyringSession], name: "password-login")
        let first = try world.pamtester(service: "password-login", ["authenticate", "open_session"], stdin: Self.password + "\n")
        #expect(first.status == 0, "\(first.run.stderr)")
        #expect(first.verdict == "pamtester: successfully opened a session", "\(first.run.stderr)")
        #expect(try world.loginCollectionLocked() == false)
        #expect(FileManager.default.fileExists(atPath: world.loginKeyring), "the first login created login.keyring")
        try world.storeSecret("world-secret", attribute: "localauth-test", value: "world")
        #expect(try world.lookupSecret(attribute: "localauth-test", value: "world") == "world-secret")
        try world.stopKeyringDaemons()
        #expect(try world.loginCollectionLocked() == true, "a new daemon finds login.keyring locked")
        try world.stopKeyringDaemons()

        // pam_unix optional: pam_gnome_keyring still runs, with the wrong token pam_unix read.
        try s.writeService(
          [
            "auth optional pam_unix.so nodelay", Self.keyringAuth, "auth required pam_permit.so", Self.accountPermit,
            Self.keyringSession,
          ], name: "any-password-login")
        let wrong = try world.pamtester(service: "any-password-login", ["authenticate", "open_session"], stdin: "not-the-password\n")
        #expect(wrong.status == 0, "\(wrong.run.stderr)")
        #expect(wrong.syslog.contains { $0.contains("authentication failure") }, "pam_unix refused it: \(wrong.syslog)")
        #expect(try world.loginCollectionLocked() == true)
        try world.stopKeyringDaemons()

        // The same stack with the right password: the Locked check tells the two apart.
        let right = try world.pamtester(service: "any-password-login", ["authenticate", "open_session"], stdin: Self.password + "\n")
        #expect(right.status == 0, "\(right.run.stderr)")
        #expect(try world.loginCollectionLocked() == false)
        #expect(try world.lookupSecret(attribute: "localauth-test", value: "world") == "world-secret")

        // The world leaves nothing running: the bus, pam_gnome_keyring's daemons and the activated ones are gone.
        #expect(!world.keyringDaemons.isEmpty)
        world.close()
        #expect(KeyringWorld.processes(ofUID: world.uid).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: world.home))
        #expect(!FileManager.default.fileExists(atPath: world.runtimeDir))
      }
    }

    @Test("world: pam_exec exposes the token exactly; as root, chauthtok(PAM_CHANGE_EXPIRED_AUTHTOK) makes pam_unix check the old password")
    func worldExposeAndPasswordChange() throws {
      try withKeyringWorld(password: Self.password) { s, world in
        let script = try world.writeExposeScript()
        let expose = "auth optional pam_exec.so expose_authtok quiet " + script
        try s.writeService(["auth requisite pam_unix.so nodelay", expose, "auth required pam_permit.so"], name: "unix-expose")
        try s.writeService([expose, "auth required pam_permit.so"], name: "bare-expose")
        try s.writeService(["password requisite pam_unix.so nodelay"], name: "unix-passwd")

        let login = try world.pamtester(service: "unix-expose", stdin: Self.password + "\n")
        #expect(login.status == 0, "\(login.run.stderr)")
        #expect(world.takeExposed() == Data(Self.password.utf8), "no trailing NUL or newline")
        // Nobody set PAM_AUTHTOK: pam_exec prompts by itself and gets the empty rest of standard input.
        let bare = try world.pamtester(service: "bare-expose")
        #expect(bare.status == 0, "\(bare.run.stderr)")
        #expect(nothingExposed(world.takeExposed()))

        let wrongOld = try world.pamtester(
          service: "unix-passwd", ["chauthtok(PAM_CHANGE_EXPIRED_AUTHTOK)"],
          stdin: "not-the-password\n\(Self.newPassword)\n\(Self.newPassword)\n")
        #expect(wrongOld.status != 0, "pam_unix checked the old password: \(wrongOld.run.stderr)")
        let changed = try world.pamtester(
          service: "unix-passwd", ["chauthtok(PAM_CHANGE_EXPIRED_AUTHTOK)"],
          stdin: "\(Self.password)\n\(Self.newPassword)\n\(Self.newPassword)\n")
        #expect(changed.status == 0, "\(changed.run.stderr)")
        #expect(changed.verdict == "pamtester: authentication token altered successfully.", "\(changed.run.stderr)")
        let old = try world.pamtester(service: "unix-expose", stdin: Self.password + "\n")
        #expect(old.verdict == PAMText.verdict("PAM_AUTH_ERR"), "\(old.run.stderr)")
        #expect(world.takeExposed() == nil)
        let new = try world.pamtester(service: "unix-expose", stdin: Self.newPassword + "\n")
        #expect(new.status == 0, "\(new.run.stderr)")
        #expect(world.takeExposed() == Data(Self.newPassword.utf8))
      }
    }

    // MARK: The feature

    @Test("a finger unlocks the login keyring: capture_authtok kept the password, release_authtok hands it to pam_gnome_keyring")
    func fingerUnlocksKeyring() throws {
      try withKeyringWorld(password: Self.password) { s, world in
        try Setups.ready(s)
        try writeCapture(s, keyring: true)
        try capture(world, Self.password, ["authenticate", "open_session"])
        #expect(try world.loginCollectionLocked() == false, "the password login created and unlocked login.keyring")
        try world.storeSecret("stored-before-logout", attribute: "localauth-test", value: s.user)
        try world.stopKeyringDaemons()
        #expect(try world.loginCollectionLocked() == true, "after the logout login.keyring is locked")
        try world.stopKeyringDaemons()

        try writeKeyringLogin(s)
        try s.touch()
        let login = try world.pamtester(service: "login", ["authenticate", "open_session"])
        #expect(login.status == 0, "\(login.run.stderr)")
        #expect(login.verdict == "pamtester: successfully opened a session", "\(login.run.stderr)")
        #expect(login.info.contains { $0.hasPrefix(Self.fingerPrompt) }, "\(login.info)")
        #expect(login.syslog.contains { $0.hasPrefix("Biometric match succeeded for user \(s.user)") }, "\(login.syslog)")
        #expect(!login.conversation.contains("Password:"), "nobody asks for the Unix password: \(login.conversation)")
        let locked = try world.loginCollectionLocked()
        #expect(locked == false)
        // secret-tool waits for an unlock prompt when the item is locked: look it up only when unlocked.
        if !locked { #expect(try world.lookupSecret(attribute: "localauth-test", value: s.user) == "stored-before-logout") }
      }
    }

    @Test("three wrong fingers and a wrong passcode: authentication fails and the login keyring stays locked")
    func failedEvaluationLeavesKeyringLocked() throws {
      try withKeyringWorld(password: Self.password) { s, world in
        try Setups.ready(s)
        try writeCapture(s, keyring: true)
        try capture(world, Self.password, ["authenticate", "open_session"])
        #expect(try world.loginCollectionLocked() == false, "the password login created and unlocked login.keyring")
        try world.stopKeyringDaemons()
        try writeKeyringLogin(s)

        for _ in 0..<3 { try s.touch(from: "intruder") }
        let failed = try world.pamtester(service: "login", ["authenticate", "open_session"], stdin: "9999\n")
        #expect(failed.status == 1, "\(failed.run.stderr)")
        #expect(failed.verdict == PAMText.verdict("PAM_AUTH_ERR"), "\(failed.run.stderr)")
        #expect(failed.conversation.contains("Try again."), "\(failed.conversation)")
        #expect(failed.conversation.contains("Wrong passcode."), "\(failed.conversation)")
        #expect(try world.loginCollectionLocked() == true)
        try world.stopKeyringDaemons()

        // The control: the same stack with the right finger unlocks it, so the failure above is what kept it locked.
        RecentPrompt.waitOut()
        try s.touch()
        let login = try world.pamtester(service: "login", ["authenticate", "open_session"])
        #expect(login.status == 0, "\(login.run.stderr)")
        #expect(try world.loginCollectionLocked() == false)
      }
    }

    @Test("pam_exec expose_authtok sees the captured password after a finger, and nothing for a remote session or a failure")
    func releaseOnlyLocallyAfterSuccess() throws {
      try withKeyringWorld(password: Self.password) { s, world in
        try Setups.ready(s)
        try writeCapture(s, keyring: false)
        try capture(world, Self.password)
        try writeExposeLogin(s, world)

        try s.touch()
        let finger = try world.pamtester(service: "expose")
        #expect(finger.status == 0, "\(finger.run.stderr)")
        #expect(finger.syslog.contains { $0.hasPrefix("Biometric match succeeded for user \(s.user)") }, "\(finger.syslog)")
        #expect(world.takeExposed() == Data(Self.password.utf8), "exactly the password: no trailing NUL or newline")

        // PAM_RHOST set: the passcode is asked (never the finger) and nothing is released; pam_exec's own prompt
        // gets the empty rest of standard input.
        let remote = try world.pamtester(service: "expose", stdin: Self.passcode + "\n", options: ["-I", "rhost=192.0.2.1"])
        #expect(remote.status == 0, "\(remote.run.stderr)")
        #expect(!remote.info.contains { $0.hasPrefix(Self.fingerPrompt) }, "\(remote.info)")
        #expect(remote.syslog.contains { $0.hasPrefix("Passcode accepted for user \(s.user)") }, "\(remote.syslog)")
        #expect(nothingExposed(world.takeExposed()), "nothing released to a remote session")

        for _ in 0..<3 { try s.touch(from: "intruder") }
        let failed = try world.pamtester(service: "expose", stdin: "9999\n")
        #expect(failed.status == 1, "\(failed.run.stderr)")
        #expect(failed.verdict == PAMText.verdict("PAM_AUTH_ERR"), "\(failed.run.stderr)")
        #expect(failed.conversation.contains("Wrong passcode."), "\(failed.conversation)")
        #expect(nothingExposed(world.takeExposed()), "nothing released after a failed evaluation")
      }
    }

    @Test("a password change through pam_unix from the captured password: the next finger login exposes the new password")
    func passwordChangeFollowsCapture() throws {
      try withKeyringWorld(password: Self.password) { s, world in
        try Setups.ready(s)
        try writeCapture(s, keyring: false)
        try capture(world, Self.password)
        try s.writeService(
          ["password requisite pam_unix.so", s.moduleLine(["capture_authtok"], type: "password", control: "optional")], name: "passwd")
        // As root, pam_unix asks the old password only under PAM_CHANGE_EXPIRED_AUTHTOK: old, new, new again.
        let changed = try world.pamtester(
          service: "passwd", ["chauthtok(PAM_CHANGE_EXPIRED_AUTHTOK)"],
          stdin: "\(Self.password)\n\(Self.newPassword)\n\(Self.newPassword)\n")
        #expect(changed.status == 0, "\(changed.run.stderr)")
        #expect(changed.verdict == "pamtester: authentication token altered successfully.", "\(changed.run.stderr)")
        #expect(!changed.conversation.contains("passcode: "), "capture_authtok asks for nothing: \(changed.conversation)")

        try writeExposeLogin(s, world)
        try s.touch()
        let finger = try world.pamtester(service: "expose")
        #expect(finger.status == 0, "\(finger.run.stderr)")
        #expect(world.takeExposed() == Data(Self.newPassword.utf8))
      }
    }

    @Test("a password change from another password than the captured one drops the login secret: nothing is exposed")
    func passwordChangeFromAnotherPasswordDropsSecret() throws {
      try withKeyringWorld(password: Self.earlierPassword) { s, world in
        try Setups.ready(s)
        try writeCapture(s, keyring: false)
        try capture(world, Self.earlierPassword)
        // The control: the captured secret is released after a finger, so the empty file below means it was dropped.
        try writeExposeLogin(s, world)
        try s.touch()
        let before = try world.pamtester(service: "expose")
        #expect(before.status == 0, "\(before.run.stderr)")
        #expect(world.takeExposed() == Data(Self.earlierPassword.utf8))

        // An administrator resets the password outside PAM: the login secret is now stale.
        try world.setPassword(Self.password)
        try s.writeService(
          ["password requisite pam_unix.so", s.moduleLine(["capture_authtok"], type: "password", control: "optional")], name: "passwd")
        let changed = try world.pamtester(
          service: "passwd", ["chauthtok(PAM_CHANGE_EXPIRED_AUTHTOK)"],
          stdin: "\(Self.password)\n\(Self.newPassword)\n\(Self.newPassword)\n")
        #expect(changed.status == 0, "\(changed.run.stderr)")
        #expect(changed.verdict == "pamtester: authentication token altered successfully.", "\(changed.run.stderr)")

        RecentPrompt.waitOut()
        try s.touch()
        let finger = try world.pamtester(service: "expose")
        #expect(finger.status == 0, "the finger still authenticates: \(finger.run.stderr)")
        #expect(finger.syslog.contains { $0.hasPrefix("Biometric match succeeded for user \(s.user)") }, "\(finger.syslog)")
        #expect(nothingExposed(world.takeExposed()), "neither the stale secret nor the new password is released")
      }
    }
  }
}
