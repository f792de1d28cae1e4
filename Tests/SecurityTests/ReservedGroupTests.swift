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
      currentDomainState: state, lock: .unlocked
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

  /// The login secret exactly as versions before the reserved group stored it (no group, the module's label).
  func addLegacySecret(_ world: KeychainWorld, flags: KeychainAccessFlags = .userPresence) throws {
    let user = try world.userName
    try world.keychain.add(
      Keychain.NewItem(
        service: "pam_localauth", account: "login", label: "Login password (pam_localauth)",
        accessibility: .whenPasscodeSetThisDeviceOnly, flags: flags, data: Array("old-unix-password".utf8)),
      for: user, record: try world.store.load(user), hasher: world.settings.hasher)
  }

  /// What an app reads back as its own `pam_localauth`/`login` item (of `group`, or any group).
  func appRead(_ world: KeychainWorld, group: String?) -> String? {
    world.run {
      var copy = query(group)
      copy[kSecReturnData as String] = true
      var result: AnyObject?
      guard SecItemCopyMatching(copy as CFDictionary, &result) == errSecSuccess, let data = result as? Data else { return nil }
      return String(decoding: data, as: UTF8.self)
    }
  }

  @Test("an app's pam_localauth/login item is never released as the login secret, and capture leaves it: it is the app's")
  func appItemNamedLikeTheLoginSecretStays() throws {
    let world = try KeychainWorld.ready()
    let user = try world.userName
    world.run {
      var add = query(nil)
      add[kSecValueData as String] = Data("app-data".utf8)
      add[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlocked
      #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
    }
    #expect(try released(world) == nil, "an app-written item is never handed out as PAM_AUTHTOK")
    try loginSecret(world).capture(SecretBytes("unix-password"), for: user, record: try world.store.load(user))
    #expect(world.itemFiles.count == 2, "capture added the module's secret and left the app's item")
    #expect(try released(world) == "unix-password")
    #expect(appRead(world, group: nil) == "app-data", "the app still reads its own item")
    #expect(try loginSecret(world).passwordChanged(
      for: user, from: SecretBytes("unix-password"), to: SecretBytes("new-password"), currentDomainState: nil) == .resealed)
    #expect(appRead(world, group: nil) == "app-data", "a password change leaves the app's item too")
  }

  @Test("capture and a password change delete the login secret stored the old way, and not an app's items named like it")
  func legacyCleanUpRemovesOnlyTheModulesItem() throws {
    let world = try KeychainWorld.ready()
    let user = try world.userName
    try addLegacySecret(world)
    world.run {
      // The same service and account in the app's own group, and in no group but with fields of its own.
      var grouped = query("com.example.notes")
      grouped[kSecValueData as String] = Data("notes-data".utf8)
      #expect(SecItemAdd(grouped as CFDictionary, nil) == errSecSuccess)
      var internet = query(nil)
      internet[kSecClass as String] = kSecClassInternetPassword
      internet.removeValue(forKey: kSecAttrService as String)
      internet[kSecAttrServer as String] = "pam_localauth"
      internet[kSecValueData as String] = Data("web-data".utf8)
      #expect(SecItemAdd(internet as CFDictionary, nil) == errSecSuccess)
    }
    #expect(world.itemFiles.count == 3)
    #expect(try released(world) == nil, "the old copy is never released")
    try loginSecret(world).capture(SecretBytes("unix-password"), for: user, record: try world.store.load(user))
    let items = try world.keychain.items(for: user)
    #expect(items.count == 3, "the old copy went, the module's new one came, the app's two stayed")
    #expect(!items.contains { LoginSecret.isLegacy($0) })
    #expect(items.contains { $0.accessGroup == "com.example.notes" })
    #expect(items.contains { $0.itemClass == .internetPassword })
    #expect(try released(world) == "unix-password")
    #expect(appRead(world, group: "com.example.notes") == "notes-data")

    // The password line cleans up the same way (an old copy left by a version that ran in between).
    try world.keychain.delete(Keychain.Query(service: "pam_localauth", account: "login", accessGroup: Self.group), for: user)
    try addLegacySecret(world, flags: .biometryCurrentSet)
    #expect(try loginSecret(world).passwordChanged(
      for: user, from: SecretBytes("unix-password"), to: SecretBytes("new-password"), currentDomainState: nil) == .none)
    let after = try world.keychain.items(for: user)
    #expect(after.count == 2, "the old copy went; the app's two stayed")
    #expect(!after.contains { LoginSecret.isLegacy($0) })
  }

  @Test("only an item with every field the earlier module wrote counts as its old login secret")
  func legacyIsRecognisedByEveryField() throws {
    var module = KeychainItem.probe(accessibility: .whenPasscodeSetThisDeviceOnly, flags: .userPresence, domainState: nil)
    module.service = "pam_localauth"
    module.account = "login"
    module.label = "Login password (pam_localauth)"
    #expect(LoginSecret.isLegacy(module))
    var biometry = module
    biometry.flags = .biometryCurrentSet
    #expect(LoginSecret.isLegacy(biometry))
    let changes: [(String, (inout KeychainItem) -> Void)] = [
      ("a group", { $0.accessGroup = "com.example.notes" }),
      ("the reserved group", { $0.accessGroup = Self.group }),
      ("another label", { $0.label = "" }),
      ("another class", { $0.itemClass = .internetPassword }),
      ("another accessibility", { $0.accessibility = .whenUnlocked }),
      ("no access control", { $0.flags = nil }),
      ("another access control", { $0.flags = [.userPresence, .applicationPassword] }),
      ("a passcode key", { $0.keySource = .passcode }),
      ("another account", { $0.account = "Login" }),
      ("an attribute", { $0.attributes["desc"] = .text("notes") }),
    ]
    for (what, change) in changes {
      var item = module
      change(&item)
      #expect(!LoginSecret.isLegacy(item), "\(what)")
    }
  }
}
