import Foundation
import LocalAuthCore
import LocalAuthentication
import Security
import Testing

/// Issue 27, finding 9: the login secret lives in the module's reserved access group, which no app call can read,
/// change, add to or delete (docs/KEYCHAIN.md, "Reserved access groups").
@Suite("The module's reserved access group", .serialized)
struct ReservedGroupTests {
  static let group = KeychainOptions.moduleAccessGroup

  func query(_ group: String?) -> [String: Any] {
    var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "pam_localauth", kSecAttrAccount as String: "login"]
    if let group { query[kSecAttrAccessGroup as String] = group }
    return query
  }

  func loginSecret(_ world: KeychainWorld) -> LoginSecret {
    LoginSecret(keychain: world.keychain, flags: .userPresence, hasher: world.settings.hasher)
  }

  /// What the module releases after a finger.
  func released(_ world: KeychainWorld) throws -> String? {
    let user = try world.userName
    let state = try world.store.load(user)?.domainState
    return try loginSecret(world).release(
      for: user, authorization: KeychainAuthorization(biometry: true, domainState: state, passcode: nil),
      currentDomainState: state, unlockedThisBoot: true
    ).map { String(decoding: $0.bytes, as: UTF8.self) }
  }

  @Test("an app's copy, update and delete of the login secret find nothing, with or without the group; it stays")
  func appsCannotTouchTheLoginSecret() throws {
    let world = try KeychainWorld.ready()
    let user = try world.userName
    try loginSecret(world).capture(SecretBytes("unix-password"), for: user, record: try world.store.load(user))
    world.run {
      for group in [nil, Self.group] {
        var copy = query(group)
        copy[kSecReturnData as String] = true
        copy[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUIFail
        world.touch()
        var result: AnyObject?
        #expect(SecItemCopyMatching(copy as CFDictionary, &result) == errSecItemNotFound)
        #expect(result == nil)
        let change: [String: Any] = [kSecValueData as String: Data("attacker".utf8)]
        #expect(SecItemUpdate(query(group) as CFDictionary, change as CFDictionary) == errSecItemNotFound)
        #expect(SecItemDelete(query(group) as CFDictionary) == errSecItemNotFound)
      }
      var add = query(Self.group)
      add[kSecValueData as String] = Data("attacker".utf8)
      #expect(SecItemAdd(add as CFDictionary, nil) == errSecMissingEntitlement)
    }
    #expect(world.itemFiles.count == 1, "nothing was added or removed")
    #expect(try released(world) == "unix-password", "the module still releases the secret it captured")
  }

  @Test("a login secret stored the old way (an ordinary group, writable by apps) is never released, and goes at capture")
  func legacyLoginSecretIsIgnored() throws {
    let world = try KeychainWorld.ready()
    let user = try world.userName
    world.run {
      var add = query(nil)
      add[kSecValueData as String] = Data("attacker-chosen".utf8)
      add[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlocked
      #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
    }
    #expect(try released(world) == nil, "an app-written secret is never handed out as PAM_AUTHTOK")
    try loginSecret(world).capture(SecretBytes("unix-password"), for: user, record: try world.store.load(user))
    #expect(world.itemFiles.count == 1, "capture replaced the old copy")
    #expect(try released(world) == "unix-password")
    world.run {
      var copy = query(nil)
      copy[kSecReturnData as String] = true
      var result: AnyObject?
      #expect(SecItemCopyMatching(copy as CFDictionary, &result) == errSecItemNotFound)
    }
  }
}
