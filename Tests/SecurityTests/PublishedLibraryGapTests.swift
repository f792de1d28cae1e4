import Foundation
import LocalAuthCore
import LocalAuthentication
import Security
import Testing

// Three calls published libraries make that Apple's systems answer and this one did not (issue 40, items 6–8),
// written in our own words from what each library sends, not from its code.

/// Valet's migration step: list the items with their persistent references, then fetch each by the reference
/// alone (no kSecClass).
func valetFetchByReferenceAlone() -> [(OSStatus, String?)] {
  let list: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "valet", kSecMatchLimit as String: kSecMatchLimitAll,
    kSecReturnPersistentRef as String: true, kSecReturnAttributes as String: true,
  ]
  var listed: AnyObject?
  guard SecItemCopyMatching(list as CFDictionary, &listed) == errSecSuccess, let items = listed as? [[String: Any]] else {
    return []
  }
  return items.compactMap { $0[kSecValuePersistentRef as String] as? Data }.map { reference in
    let fetch: [String: Any] = [kSecValuePersistentRef as String: reference, kSecReturnData as String: true]
    var data: AnyObject?
    let status = SecItemCopyMatching(fetch as CFDictionary, &data)
    return (status, (data as? Data).map { String(decoding: $0, as: UTF8.self) })
  }
}

/// A wrapper's boolean attribute, as libraries write it: a `CFBoolean` chosen from the two constants.
func cfBoolean(_ value: Bool) -> CFBoolean { value ? kCFBooleanTrue : kCFBooleanFalse }

/// Locksmith's default service: the bundle identifier from the main bundle's information dictionary, read with
/// `String(kCFBundleIdentifierKey)`.
func locksmithDefaultService() -> (key: String, service: String) {
  let key = String(kCFBundleIdentifierKey)
  return (key, Bundle.main.infoDictionary?[key] as? String ?? "LocksmithDefaultService")
}

@Suite("Published library gaps", .serialized)
struct PublishedLibraryGapTests {
  @Test("Valet: an item fetched, updated and deleted by its persistent reference alone, without kSecClass")
  func persistentReferenceAlone() throws {
    let world = try KeychainWorld.ready()
    world.run {
      for (account, secret) in [("a", "one"), ("b", "two")] {
        let add: [String: Any] = [
          kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "valet", kSecAttrAccount as String: account,
          kSecValueData as String: Data(secret.utf8), kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
        ]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
      }
      let fetched = valetFetchByReferenceAlone()
      #expect(fetched.count == 2)
      #expect(fetched.allSatisfy { $0.0 == errSecSuccess })
      #expect(Set(fetched.compactMap { $0.1 }) == ["one", "two"])
      // Update and delete by the reference alone, too.
      let list: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "valet", kSecAttrAccount as String: "a",
        kSecReturnPersistentRef as String: true,
      ]
      var reference: AnyObject?
      #expect(SecItemCopyMatching(list as CFDictionary, &reference) == errSecSuccess)
      let byReference: [String: Any] = [kSecValuePersistentRef as String: reference as Any]
      #expect(SecItemUpdate(byReference as CFDictionary, [kSecValueData as String: Data("uno".utf8)] as CFDictionary) == errSecSuccess)
      #expect(SecItemDelete(byReference as CFDictionary) == errSecSuccess)
      #expect(SecItemDelete(byReference as CFDictionary) == errSecItemNotFound)
      // A reference that is not one is still errSecParam, and an add still needs kSecClass.
      let bogus: [String: Any] = [kSecValuePersistentRef as String: Data("nonsense".utf8), kSecReturnData as String: true]
      #expect(SecItemCopyMatching(bogus as CFDictionary, nil) == errSecParam)
      let classless: [String: Any] = [kSecAttrAccount as String: "c", kSecValueData as String: Data("x".utf8)]
      #expect(SecItemAdd(classless as CFDictionary, nil) == errSecParam)
    }
  }

  @Test("kCFBooleanTrue and kCFBooleanFalse are CFBoolean!: a ternary returned as CFBoolean compiles and reads back")
  func booleanConstants() throws {
    #expect(cfBoolean(true).boolValue)
    #expect(!cfBoolean(false).boolValue)
    let world = try KeychainWorld.ready()
    world.run {
      let add: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bools", kSecAttrAccount as String: "x",
        kSecValueData as String: Data("v".utf8), kSecAttrSynchronizable as String: cfBoolean(false),
      ]
      #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
      let read: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "bools", kSecReturnData as String: cfBoolean(true),
      ]
      var data: AnyObject?
      #expect(SecItemCopyMatching(read as CFDictionary, &data) == errSecSuccess)
      #expect((data as? Data).map { String(decoding: $0, as: UTF8.self) } == "v")
    }
  }

  @Test("Locksmith: String(kCFBundleIdentifierKey) is \"CFBundleIdentifier\", and the other bundle keys are Apple's")
  func bundleKeys() {
    let (key, service) = locksmithDefaultService()
    #expect(key == "CFBundleIdentifier")
    #expect(!service.isEmpty)
    #expect(String(kCFBundleNameKey) == "CFBundleName")
    #expect(String(kCFBundleVersionKey) == "CFBundleVersion")
    #expect(String(kCFBundleExecutableKey) == "CFBundleExecutable")
    #expect(String(kCFBundleInfoDictionaryVersionKey) == "CFBundleInfoDictionaryVersion")
    #expect(String(kCFBundleDevelopmentRegionKey) == "CFBundleDevelopmentRegion")
    #expect(String(kCFBundleLocalizationsKey) == "CFBundleLocalizations")
  }
}
