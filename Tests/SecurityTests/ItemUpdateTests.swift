import Foundation
import LocalAuthCore
import LocalAuthentication
import Security
import Testing

/// SecItemUpdate as Apple's: any attribute, the primary key, the accessibility and the access control may change;
/// a collision is errSecDuplicateItem (docs/KEYCHAIN.md, "Updates").
@Suite("Keychain updates", .serialized)
struct ItemUpdateTests {
  let base: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "tests"]

  func query(_ account: String) -> [String: Any] {
    var query = base
    query[kSecAttrAccount as String] = account
    return query
  }

  func attributes(_ account: String) -> [String: Any] {
    var query = query(account)
    query[kSecReturnAttributes as String] = true
    var result: AnyObject?
    _ = SecItemCopyMatching(query as CFDictionary, &result)
    return result as? [String: Any] ?? [:]
  }

  @Test("KeychainAccess's overwrite: new data with kSecAttrAccessible unchanged succeeds, and the data is new")
  func keychainAccessOverwrite() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(addItem("token", "one", flags: nil, protection: kSecAttrAccessibleAfterFirstUnlock) == errSecSuccess)
      let update: [String: Any] = [
        kSecValueData as String: Data("two".utf8), kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
      ]
      #expect(SecItemUpdate(query("token") as CFDictionary, update as CFDictionary) == errSecSuccess)
      #expect(readItem("token") == (errSecSuccess, "two"))
    }
  }

  @Test("attributes change without new data: label, comment, account; the data stays; a collision is a duplicate")
  func attributeChanges() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(addItem("a", "data-a", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
      #expect(addItem("b", "data-b", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
      let change: [String: Any] = [kSecAttrLabel as String: "new label", kSecAttrComment as String: "note"]
      #expect(SecItemUpdate(query("a") as CFDictionary, change as CFDictionary) == errSecSuccess)
      #expect(attributes("a")[kSecAttrLabel as String] as? String == "new label")
      #expect(attributes("a")[kSecAttrComment as String] as? String == "note")
      #expect(readItem("a") == (errSecSuccess, "data-a"))
      // Renaming onto another item's primary key: errSecDuplicateItem, nothing changed.
      let clash: [String: Any] = [kSecAttrAccount as String: "b"]
      #expect(SecItemUpdate(query("a") as CFDictionary, clash as CFDictionary) == errSecDuplicateItem)
      #expect(readItem("a") == (errSecSuccess, "data-a"))
      #expect(readItem("b") == (errSecSuccess, "data-b"))
      let rename: [String: Any] = [kSecAttrAccount as String: "c"]
      #expect(SecItemUpdate(query("a") as CFDictionary, rename as CFDictionary) == errSecSuccess)
      #expect(readItem("a").0 == errSecItemNotFound)
      #expect(readItem("c") == (errSecSuccess, "data-a"))
      // Two items cannot both take one new key.
      let both: [String: Any] = [kSecAttrAccount as String: "d"]
      #expect(SecItemUpdate(base as CFDictionary, both as CFDictionary) == errSecDuplicateItem)
      #expect(SecItemUpdate(query("none") as CFDictionary, both as CFDictionary) == errSecItemNotFound)
    }
  }

  @Test("the accessibility and the access control change: an item given a biometry constraint then needs a finger")
  func protectionChanges() throws {
    let world = try KeychainWorld.ready()
    try world.run {
      #expect(addItem("guarded", "secret", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
      let accessible: [String: Any] = [kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly]
      #expect(SecItemUpdate(query("guarded") as CFDictionary, accessible as CFDictionary) == errSecSuccess)
      #expect(attributes("guarded")[kSecAttrAccessible as String] as? String == kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String)
      var error: Unmanaged<CFError>?
      let control = try #require(
        SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, .biometryAny, &error))
      let protect: [String: Any] = [kSecAttrAccessControl as String: control]
      #expect(SecItemUpdate(query("guarded") as CFDictionary, protect as CFDictionary) == errSecSuccess)
      #expect(attributes("guarded")[kSecAttrAccessControl as String] != nil)
      #expect(readItem("guarded", ui: kSecUseAuthenticationUIFail).0 == errSecInteractionNotAllowed)
      world.touch()
      #expect(readItem("guarded") == (errSecSuccess, "secret"))
      // Changing a protected item's attributes re-seals its data: the finger is asked first, as for a read.
      let relabel: [String: Any] = [kSecAttrLabel as String: "relabelled"]
      world.cancel()
      #expect(SecItemUpdate(query("guarded") as CFDictionary, relabel as CFDictionary) == errSecUserCanceled)
      #expect(attributes("guarded")[kSecAttrLabel as String] as? String != "relabelled")
      world.touch()
      #expect(SecItemUpdate(query("guarded") as CFDictionary, relabel as CFDictionary) == errSecSuccess)
      #expect(attributes("guarded")[kSecAttrLabel as String] as? String == "relabelled")
      // New data needs no authentication, as on Apple's systems.
      let data: [String: Any] = [kSecValueData as String: Data("fresh".utf8)]
      #expect(SecItemUpdate(query("guarded") as CFDictionary, data as CFDictionary) == errSecSuccess)
      world.touch()
      #expect(readItem("guarded") == (errSecSuccess, "fresh"))
    }
  }

  @Test("the quota holds for updates: data that would pass keychain_max_bytes is errSecAllocate, and nothing changes")
  func updateQuota() throws {
    let world = try KeychainWorld.ready(limits: KeychainLimits(maxItems: 10, maxBytes: 6000))
    world.run {
      #expect(addItem("small", "one", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
      let big: [String: Any] = [kSecValueData as String: Data(repeating: 0x41, count: 4000)]
      #expect(SecItemUpdate(query("small") as CFDictionary, big as CFDictionary) == errSecAllocate)
      #expect(readItem("small") == (errSecSuccess, "one"))
      let fits: [String: Any] = [kSecValueData as String: Data(repeating: 0x41, count: 1000)]
      #expect(SecItemUpdate(query("small") as CFDictionary, fits as CFDictionary) == errSecSuccess)
      let huge: [String: Any] = [kSecAttrComment as String: String(repeating: "c", count: 3000)]
      #expect(SecItemUpdate(query("small") as CFDictionary, huge as CFDictionary) == errSecParam)
    }
  }

  @Test("persistent references: returned as data, stable across updates, and accepted by copy, update and delete")
  func persistentReferences() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(addItem("ref", "one", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
      #expect(addItem("other", "two", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
      var ask = query("ref")
      ask[kSecReturnPersistentRef as String] = true
      var result: AnyObject?
      #expect(SecItemCopyMatching(ask as CFDictionary, &result) == errSecSuccess)
      guard let reference = result as? Data else {
        Issue.record("no persistent reference")
        return
      }
      let byReference: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: reference,
        kSecReturnData as String: true,
      ]
      var data: AnyObject?
      #expect(SecItemCopyMatching(byReference as CFDictionary, &data) == errSecSuccess)
      #expect(data as? Data == Data("one".utf8))
      let change: [String: Any] = [kSecValueData as String: Data("changed".utf8), kSecAttrAccount as String: "renamed"]
      #expect(
        SecItemUpdate([kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: reference] as CFDictionary,
          change as CFDictionary) == errSecSuccess)
      #expect(SecItemCopyMatching(byReference as CFDictionary, &data) == errSecSuccess)
      #expect(data as? Data == Data("changed".utf8))
      // Data and attributes and the reference together: one dictionary per item.
      var everything = query("renamed")
      everything[kSecReturnPersistentRef as String] = true
      everything[kSecReturnAttributes as String] = true
      everything[kSecReturnData as String] = true
      var dictionary: AnyObject?
      #expect(SecItemCopyMatching(everything as CFDictionary, &dictionary) == errSecSuccess)
      #expect((dictionary as? [String: Any])?[kSecValuePersistentRef as String] as? Data == reference)
      #expect((dictionary as? [String: Any])?[kSecValueData as String] as? Data == Data("changed".utf8))
      // Not a reference, or a reference to another class: errSecParam, errSecItemNotFound.
      #expect(
        SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: Data([1, 2])] as CFDictionary)
          == errSecParam)
      #expect(
        SecItemDelete([kSecClass as String: kSecClassInternetPassword, kSecValuePersistentRef as String: reference] as CFDictionary)
          == errSecItemNotFound)
      #expect(
        SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: reference] as CFDictionary)
          == errSecSuccess)
      #expect(SecItemCopyMatching(byReference as CFDictionary, &data) == errSecItemNotFound)
      #expect(readItem("other") == (errSecSuccess, "two"))
    }
  }

  @Test("keychain-swift's allKeys query (no data, attributes, kSecReturnRef, all) returns every item's attributes")
  func allKeys() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(addItem("one", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
      #expect(addItem("two", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
      let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: false,
        kSecReturnAttributes as String: true, kSecReturnRef as String: true,
        kSecMatchLimit as String: kSecMatchLimitAll,
      ]
      var result: AnyObject?
      #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
      let accounts = (result as? [[String: Any]])?.compactMap { $0[kSecAttrAccount as String] as? String }
      #expect(accounts.map(Set.init) == ["one", "two"])
    }
  }

  @Test("kSecAttrSynchronizable is stored: a query without it sees the other items only, Any sees both; nothing syncs")
  func synchronizable() throws {
    let world = try KeychainWorld.ready()
    world.run {
      var add = query("shared")
      add[kSecValueData as String] = Data("cloud".utf8)
      add[kSecAttrSynchronizable as String] = true
      #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
      #expect(SecItemAdd(add as CFDictionary, nil) == errSecDuplicateItem)
      add[kSecAttrSynchronizable as String] = false
      add[kSecValueData as String] = Data("local".utf8)
      #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
      #expect(readItem("shared") == (errSecSuccess, "local"))
      var read = query("shared")
      read[kSecReturnData as String] = true
      read[kSecAttrSynchronizable as String] = true
      var result: AnyObject?
      #expect(SecItemCopyMatching(read as CFDictionary, &result) == errSecSuccess)
      #expect(result as? Data == Data("cloud".utf8))
      read[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
      read[kSecMatchLimit as String] = kSecMatchLimitAll
      read[kSecReturnAttributes as String] = true
      #expect(SecItemCopyMatching(read as CFDictionary, &result) == errSecSuccess)
      let flags = (result as? [[String: Any]])?.compactMap { $0[kSecAttrSynchronizable as String] as? Bool }
      #expect(flags?.sorted { !$0 && $1 } == [false, true])
      var delete = query("shared")
      delete[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
      #expect(SecItemDelete(delete as CFDictionary) == errSecSuccess)
      #expect(world.itemFiles.isEmpty)
    }
  }
}
