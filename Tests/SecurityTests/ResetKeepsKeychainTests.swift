import Foundation
import LocalAuthCore
import LocalAuthentication
import Security
import Testing

/// `Administration.reset` (localauthctl reset) clears counters, lockout and delays only: the keychain, the
/// login secret and the passcode key stay (issue 20, finding 3). Deleting items is `deleteKeychainItems(of:)`.
@Suite("reset keeps the keychain", .serialized)
struct ResetKeepsKeychainTests {
  /// A ready world with a captured login secret and a passcode-keyed item, and failures on the record.
  func worldWithItems() throws -> KeychainWorld {
    let world = try KeychainWorld.ready()
    let user = try world.userName
    let loginSecret = LoginSecret(keychain: world.keychain, flags: .userPresence, hasher: world.settings.hasher)
    try loginSecret.capture(SecretBytes("unix-password"), for: user, record: try world.store.load(user))
    world.run { #expect(addItem("p", flags: .devicePasscode) == errSecSuccess) }
    let later = world.clock.now().adding(300)
    try world.store.update(user) { record in
      record.biometricFailures = 5
      record.passcodeFailures = 6
      record.passcodeNextAllowed = later
      record.noteFailure(FailureEntry(at: world.clock.now(), kind: .passcode, origin: RequestOrigin(service: "su", requesterUID: 1001)))
    }
    return world
  }

  @Test("reset clears counters, lockout and delays, and the login secret and passcode-keyed items still read back")
  func resetKeepsTheKeychain() throws {
    let world = try worldWithItems()
    let user = try world.userName
    let passcodeKey = world.root + "/keychain/" + world.user + "/passcode.key"
    #expect(world.itemFiles.count == 2)

    try world.administration.reset(user)

    let record = try #require(try world.store.load(user))
    #expect(record.biometricFailures == 0 && record.passcodeFailures == 0)
    #expect(record.passcodeNextAllowed == nil && record.recentFailures.isEmpty && record.reuse == nil)
    #expect(record.passcodeHash != nil, "the passcode stays")
    #expect(world.itemFiles.count == 2, "no keychain item was deleted")
    #expect(FileManager.default.fileExists(atPath: passcodeKey), "passcode.key stays")
    let loginSecret = LoginSecret(keychain: world.keychain, flags: .userPresence, hasher: world.settings.hasher)
    let released = try loginSecret.release(
      for: user, authorization: KeychainAuthorization(biometry: true, domainState: record.domainState, passcode: nil),
      currentDomainState: record.domainState, lock: .unlocked)
    #expect(released.map { String(decoding: $0.bytes, as: UTF8.self) } == "unix-password")
    world.run {
      world.prompter.enqueue("1234")
      #expect(readItem("p") == (errSecSuccess, "s3cret"), "the passcode-keyed item still opens with the passcode")
    }
  }

  @Test("deleteKeychainItems (reset --keychain) deletes every item, returns them, and keeps the passcode key")
  func deleteKeychainItemsNamesWhatItDeletes() throws {
    let world = try worldWithItems()
    let user = try world.userName
    let deleted = try world.administration.deleteKeychainItems(of: user)
    #expect(deleted.map(\.account).sorted() == ["login", "p"])
    #expect(world.itemFiles.isEmpty)
    #expect(FileManager.default.fileExists(atPath: world.root + "/keychain/" + world.user + "/passcode.key"))
    #expect(try world.administration.deleteKeychainItems(of: user).isEmpty, "nothing left: none, not an error")
    #expect(try world.store.load(user)?.passcodeFailures == 6, "deleting items alone leaves the counters")
  }
}
