import Foundation
import LocalAuthCore
import Testing

extension RealPAM {
  /// Issue 21, section 3: LARight and LARightStore in an app run by an ordinary user (la-app), through the setuid
  /// helper: the right's key pair is made, kept and used on the privileged side, and its secret, signature or shared
  /// secret reaches the app only after an authorization of that app's own context (docs/KEYCHAIN.md, "Persisted
  /// rights").
  @Suite("LARightStore in apps run by ordinary users", .enabled(if: AppDriver.available, "la-app or the helper is not built"))
  struct AppRightStoreTests {
    /// A sandbox with its setuid helper, ready (finger enrolled, passcode 1234, rules satisfied).
    func withApp(_ body: (Sandbox, AppDriver) throws -> Void) throws {
      try withSandbox { s in
        try Setups.ready(s)
        let world = try HelperWorld(s)
        try body(s, AppDriver(world: world))
      }
    }

    @Test("LARight: authorized after a touch, deauthorized after; three wrong fingers: authenticationFailed (-1)")
    func rightAuthorize() throws {
      try withApp { s, app in
        try s.touch()
        let run = try app.inTerminal(["right-authorize", "biometry"])
        #expect(run.lines("right") == ["right authorized state=2", "right state=3"], "\(run.output)")
        #expect(run.output.contains("Place your finger on the sensor"), "\(run.output)")
        RecentPrompt.waitOut()  // the next run is another program (docs/RULES.md, "One finger request at a time")
        for _ in 0..<3 { try s.touch(from: "intruder") }
        let wrong = try app.inTerminal(["right-authorize", "biometry"])
        #expect(wrong.lines("right") == ["right error -1", "right state=3"], "\(wrong.output)")
      }
    }

    @Test("a secret saved in one run is loaded in another after a touch; unauthorized: notInteractive (-1004), nothing asked")
    func secretSaveAndLoad() throws {
      try withApp { s, app in
        let saved = try app.inTerminal(["rightstore-save", "token", "s3cret-token"])
        #expect(saved.lines("right") == ["right saved"], "\(saved.output)")
        let unauthorized = try app.inTerminal(["rightstore-load", "token", "unauthorized"])
        #expect(unauthorized.lines("right") == ["right fetched", "right error -1004"], "\(unauthorized.output)")
        #expect(unauthorized.lines("data").isEmpty && !unauthorized.output.contains("Place your finger"), "\(unauthorized.output)")
        try s.touch()
        let loaded = try app.inTerminal(["rightstore-load", "token"])
        #expect(loaded.lines("right") == ["right fetched", "right authorized"], "\(loaded.output)")
        #expect(loaded.lines("data") == ["data s3cret-token"], "\(loaded.output)")
        // Removing needs an evaluation satisfying the right (issue 27, finding 10): a touch.
        try s.touch()
        #expect(try app.inTerminal(["rightstore-remove", "token"]).lines("right") == ["right removed"])
        let gone = try app.inTerminal(["rightstore-load", "token"])
        #expect(gone.lines("right") == ["right error -10"], "\(gone.output)")
      }
    }

    @Test("a signature made in the helper verifies with the exported public key, in the app and here")
    func signature() throws {
      try withApp { s, app in
        let saved = try app.inTerminal(["rightstore-save", "server-access", "unused"])
        let savedKey = saved.lines("public").first.map { String($0.dropFirst("public ".count)) }
        #expect(savedKey?.count == 130, "\(saved.output)")
        try s.touch()
        let run = try app.inTerminal(["rightstore-sign", "server-access", "challenge 42"])
        #expect(run.lines("verify") == ["verify ok"], "\(run.output)")
        let signature = run.lines("signature").first.flatMap { hexDecode($0.dropFirst("signature ".count)) }
        let publicKey = run.lines("public").first.flatMap { hexDecode($0.dropFirst("public ".count)) }
        #expect(publicKey.map(hexEncode) == savedKey, "the key signed with is the one saved")
        if let signature, let publicKey {
          #expect(try P256.verify(signature: signature, message: Array("challenge 42".utf8), publicKey: publicKey))
          #expect(try !P256.verify(signature: signature, message: Array("challenge 43".utf8), publicKey: publicKey))
        } else {
          Issue.record("no signature or public key in \(run.output)")
        }
        // Without a touch the sensor times out: no authorization, no signature.
        let refused = try app.inTerminal(["rightstore-sign", "server-access", "challenge 42"])
        #expect(refused.lines("signature").isEmpty && refused.lines("right").first?.hasPrefix("right error") == true, "\(refused.output)")
      }
    }

    @Test("the right's items are root's, in the reserved group; the app cannot name the group or read them (errSecParam)")
    func reservedItems() throws {
      try withApp { s, app in
        #expect(try app.inTerminal(["rightstore-save", "hidden", "h1dden"]).lines("right") == ["right saved"])
        let items = try Keychain(root: s.stateDir, tcti: nil).items(for: try UserName(s.user))
        #expect(items.filter { $0.accessGroup == RightStore.accessGroup }.map(\.account).sorted() == ["key", "right", "secret"])
        #expect(items.first { $0.account == "key" }?.flags == .userPresence)
        let named = try app.inTerminal(["read", "hidden", "key", RightStore.accessGroup])
        #expect(named.lines("status") == ["status -50"], "\(named.output)")
        let unnamed = try app.inTerminal(["read", "hidden", "key"])
        #expect(unnamed.lines("status") == ["status -25300"], "\(unnamed.output)")
        #expect(unnamed.lines("data").isEmpty && named.lines("data").isEmpty)
      }
    }

    @Test("biometryCurrentSet: after a new enrolment the right is gone (invalidContext, -10), without a prompt")
    func enrolmentChange() throws {
      try withApp { s, app in
        let saved = try app.inTerminal(["rightstore-save", "bound", "b0und", "biometryCurrentSet"])
        #expect(saved.lines("right") == ["right saved"], "\(saved.output)")
        try s.enroll("left-thumb")
        try s.satisfyPasscodeRules()
        let gone = try app.inTerminal(["rightstore-load", "bound"])
        #expect(gone.lines("right") == ["right error -10"], "\(gone.output)")
        #expect(!gone.output.contains("Place your finger"), "\(gone.output)")
        let items = try Keychain(root: s.stateDir, tcti: nil).items(for: try UserName(s.user))
        #expect(!items.contains { $0.accessGroup == RightStore.accessGroup })
      }
    }

    /// Issue 27, finding 10: through the helper, replacing a right (rightSave over its identifier) or removing it
    /// without an evaluation satisfying it fails and leaves it as it was; with a touch it works.
    @Test("replacing or removing a right without a touch fails and changes nothing; with a touch it works")
    func replaceAndRemoveNeedATouch() throws {
      try withApp { s, app in
        let saved = try app.inTerminal(["rightstore-save", "vault", "old-secret", "biometry"])
        #expect(saved.lines("right") == ["right saved"], "\(saved.output)")
        let key = saved.lines("public")
        let keychain = Keychain(root: s.stateDir, tcti: nil)
        let before = try keychain.items(for: try UserName(s.user)).filter { $0.accessGroup == RightStore.accessGroup }.map(\.id).sorted()
        // No touch: the store's evaluation times out (biometry only: the passcode does not satisfy it either).
        let replaced = try app.inTerminal(["rightstore-save", "vault", "attacker", "userPresence"])
        #expect(replaced.lines("right").first?.hasPrefix("right error") == true, "\(replaced.output)")
        let removed = try app.inTerminal(["rightstore-remove", "vault"])
        #expect(removed.lines("right").first?.hasPrefix("right error") == true, "\(removed.output)")
        let after = try keychain.items(for: try UserName(s.user)).filter { $0.accessGroup == RightStore.accessGroup }.map(\.id).sorted()
        #expect(after == before, "the right's items are untouched")
        try s.touch()
        let loaded = try app.inTerminal(["rightstore-load", "vault"])
        #expect(loaded.lines("data") == ["data old-secret"], "\(loaded.output)")
        try s.touch()
        let again = try app.inTerminal(["rightstore-save", "vault", "new-secret", "biometry"])
        #expect(again.lines("right") == ["right saved"] && again.lines("public") != key, "\(again.output)")
        try s.touch()
        #expect(try app.inTerminal(["rightstore-remove", "vault"]).lines("right") == ["right removed"])
        #expect(try keychain.items(for: try UserName(s.user)).filter { $0.accessGroup == RightStore.accessGroup }.isEmpty)
      }
    }

    /// Issue 27, finding 9: the login secret is in the module's reserved group; an app run by the user cannot read,
    /// overwrite, delete or plant it, and the module still releases what it captured.
    @Test("an app's read, update and delete of the login secret are errSecItemNotFound, an add into its group -34018")
    func loginSecretIsOutOfReach() throws {
      try withApp { s, app in
        let user = try UserName(s.user)
        let keychain = Keychain(root: s.stateDir, tcti: nil)
        let secret = LoginSecret(keychain: keychain, flags: .userPresence, hasher: PasscodeHasher(cost: 1))
        try secret.capture(SecretBytes("unix-password"), for: user, record: try FileStateStore(root: s.stateDir).load(user))
        let group = KeychainOptions.moduleAccessGroup
        #expect(try app.inTerminal(["read", "pam_localauth", "login"]).lines("status") == ["status -25300"])
        #expect(try app.inTerminal(["read", "pam_localauth", "login", group]).lines("status") == ["status -25300"])
        #expect(try app.inTerminal(["update", "pam_localauth", "login", "attacker"]).lines("status") == ["status -25300"])
        #expect(try app.inTerminal(["delete", "pam_localauth", "login"]).lines("status") == ["status -25300"])
        #expect(try app.inTerminal(["add", "pam_localauth", "login", "attacker", "none", group]).lines("status") == ["status -34018"])
        let stored = try keychain.items(for: user)
        #expect(stored.count == 1 && stored.first?.accessGroup == group)
        let released = try secret.release(
          for: user, authorization: KeychainAuthorization(biometry: true, domainState: nil, passcode: nil),
          currentDomainState: nil, lock: .unlocked)
        #expect(released.map { String(decoding: $0.bytes, as: UTF8.self) } == "unix-password")
      }
    }
  }
}
