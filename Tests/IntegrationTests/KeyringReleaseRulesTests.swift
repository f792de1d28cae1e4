import Foundation
import Testing

extension RealPAM.KeyringUnlockTests {
  /// "expose" with more module arguments on the releasing line.
  func writeExposeLogin(_ s: Sandbox, _ world: KeyringWorld, extra: [String]) throws {
    try s.writeService(
      [
        s.moduleLine(["release_authtok"] + extra, control: "[success=ok default=bad]"),
        "auth optional pam_exec.so expose_authtok quiet " + (try world.writeExposeScript()), "auth required pam_permit.so",
      ], name: "expose")
  }

  @Test("a success from the reuse window releases nothing, unless release_on_reuse says so")
  func reuseWindowReleasesOnlyWhenConfigured() throws {
    try withKeyringWorld(password: Self.password) { s, world in
      try Setups.ready(s)
      try writeCapture(s, keyring: false)
      try capture(world, Self.password)

      try writeExposeLogin(s, world, extra: ["reuse_duration=120"])
      try s.touch()
      let finger = try world.pamtester(service: "expose")
      #expect(finger.status == 0, "\(finger.run.stderr)")
      #expect(world.takeExposed() == Data(Self.password.utf8))
      let reused = try world.pamtester(service: "expose")
      #expect(reused.status == 0, "\(reused.run.stderr)")
      #expect(reused.syslog.contains { $0.hasPrefix("Reused a biometric match for user \(s.user)") }, "\(reused.syslog)")
      #expect(nothingExposed(world.takeExposed()), "the reuse window alone does not release the login secret")

      try writeExposeLogin(s, world, extra: ["reuse_duration=120", "release_on_reuse"])
      let configured = try world.pamtester(service: "expose")
      #expect(configured.status == 0, "\(configured.run.stderr)")
      #expect(configured.syslog.contains { $0.hasPrefix("Reused a biometric match for user \(s.user)") }, "\(configured.syslog)")
      #expect(world.takeExposed() == Data(Self.password.utf8))
    }
  }

  @Test("login_secret=biometryCurrentSet: an enrolment change drops the secret; the next password login captures it again")
  func biometryCurrentSetSecretFollowsEnrolment() throws {
    try withKeyringWorld(password: Self.password) { s, world in
      try Setups.ready(s)
      try s.writeService(
        ["auth requisite pam_unix.so", s.moduleLine(["capture_authtok", "login_secret=biometryCurrentSet"], control: "optional")],
        name: "capture")
      try capture(world, Self.password)
      let listed = try s.ctl("keychain", "list", s.user).stdout
      #expect(listed.contains("account \"login\""), "\(listed)")
      #expect(listed.contains("biometryCurrentSet"), "\(listed)")
      #expect(!listed.contains(Self.password), "the listing never shows the data")

      try writeExposeLogin(s, world, extra: [])
      try s.touch()
      #expect(try world.pamtester(service: "expose").status == 0)
      #expect(world.takeExposed() == Data(Self.password.utf8))

      // A finger added: the passcode is required once (rule 8), and the biometryCurrentSet secret is gone.
      try s.enroll("left-index")
      let afterChange = try world.pamtester(service: "expose", stdin: Self.passcode + "\n")
      #expect(afterChange.status == 0, "\(afterChange.run.stderr)")
      #expect(afterChange.syslog.contains { $0.hasPrefix("Passcode accepted for user \(s.user)") }, "\(afterChange.syslog)")
      #expect(nothingExposed(world.takeExposed()))
      #expect(!(try s.ctl("keychain", "list", s.user).stdout.contains("account \"login\"")), "the stale secret was deleted")

      try capture(world, Self.password)
      RecentPrompt.waitOut()
      try s.touch()
      #expect(try world.pamtester(service: "expose").status == 0)
      #expect(world.takeExposed() == Data(Self.password.utf8), "captured again at the next password login")
    }
  }

  @Test("capture_authtok keeps only the real Unix password: a wrong PAM_AUTHTOK on an optional pam_unix line is not stored")
  func captureVerifiesAgainstShadow() throws {
    try withKeyringWorld(password: Self.password) { s, world in
      try Setups.ready(s)
      try s.writeService(
        ["auth optional pam_unix.so", s.moduleLine(["capture_authtok"], control: "optional"), "auth required pam_permit.so"],
        name: "capture")
      let wrong = try world.pamtester(service: "capture", ["authenticate"], stdin: "not-the-password\n")
      #expect(wrong.syslog.contains { $0.contains("was not captured: PAM_AUTHTOK is not the user's password") }, "\(wrong.syslog)")
      #expect(!(try s.ctl("keychain", "list", s.user).stdout.contains("account \"login\"")))
      try capture(world, Self.password)
      #expect(try s.ctl("keychain", "list", s.user).stdout.contains("account \"login\""))
    }
  }
}

extension RealPAM.KeyringUnlockTests {
  /// The auth lines of the shipped pam.d/login, with the module's sandbox arguments, and common-auth as a
  /// substack of Debian's own three lines; pam_gnome_keyring's session line for the unlock.
  func writeShippedLogin(_ s: Sandbox) throws {
    let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("pam.d/login")
    let arguments = s.moduleLine([], type: "", control: "").trimmingCharacters(in: .whitespaces)
    let auth = try String(contentsOf: shipped, encoding: .utf8).split(separator: "\n").map(String.init)
      .filter { $0.hasPrefix("auth") || $0.hasPrefix("-auth") }
      .map { $0.replacingOccurrences(of: "pam_localauth.so", with: arguments) }
      .map { $0.replacingOccurrences(of: "substack   common-auth", with: "substack   " + s.serviceDir + "/debian-common-auth") }
    #expect(auth.contains { $0.contains("release_authtok") } && auth.contains { $0.contains("capture_authtok") })
    #expect(auth.last == "-auth      optional   pam_gnome_keyring.so")
    try s.writeService(
      ["auth [success=1 default=ignore] pam_unix.so nullok", "auth requisite pam_deny.so", "auth required pam_permit.so"],
      name: "debian-common-auth")
    try s.writeService(auth + [Self.accountPermit, Self.keyringSession], name: "shipped-login")
  }

  @Test("the shipped pam.d/login: a password login captures the secret, and a finger later unlocks the keyring through it")
  func shippedLoginUnlocksKeyring() throws {
    try withKeyringWorld(password: Self.password) { s, world in
      try Setups.ready(s)
      try writeShippedLogin(s)
      // No touch: the finger prompt times out (systemCancel, ignored), and pam_unix asks for the password.
      let password = try world.pamtester(service: "shipped-login", ["authenticate", "open_session"], stdin: Self.password + "\n")
      #expect(password.status == 0, "\(password.run.stderr)")
      #expect(password.syslog.contains { $0.contains("login secret of user \(s.user) was captured") }, "\(password.syslog)")
      #expect(try world.loginCollectionLocked() == false, "the password login created and unlocked login.keyring")
      try world.stopKeyringDaemons()
      #expect(try world.loginCollectionLocked() == true)
      try world.stopKeyringDaemons()

      RecentPrompt.waitOut()
      try s.touch()
      let finger = try world.pamtester(service: "shipped-login", ["authenticate", "open_session"])
      #expect(finger.status == 0, "\(finger.run.stderr)")
      #expect(!finger.conversation.contains("Password:"), "success=1 skipped common-auth: \(finger.conversation)")
      #expect(finger.syslog.contains { $0.contains("login secret of user \(s.user) was released") }, "\(finger.syslog)")
      #expect(!finger.syslog.contains { $0.contains("was captured") }, "the released token is not captured back")
      #expect(try world.loginCollectionLocked() == false, "pam_gnome_keyring's auth line ran after the finger")
    }
  }
}
