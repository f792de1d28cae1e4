import Foundation
import LocalAuthCore
import LocalAuthentication
import Security
import Testing

/// The calls published keychain libraries make, made the same way (written from reading what each library sends,
/// not from their code; docs/LocalAuthentication.md, "Published libraries"). Covered elsewhere, not repeated here:
/// KeychainAccess's data-only overwrite and persistent references by `kSecValuePersistentRef` in copy, update and
/// delete (ItemUpdateTests), internet-password uniqueness and attributes (PasswordItemModelTests), Apple's
/// GenericKeychain `[NSObject: AnyObject]` queries and `kCFBooleanTrue!` (CoreFoundationModelTests).
@Suite("Published library calls", .serialized)
struct PublishedLibraryCallTests {
  let service = "lalibs"

  /// KeychainAccess's query: class, service, kSecAttrSynchronizableAny (its `ignoringAttributeSynchronizable`).
  func keychainAccessQuery(_ account: String) -> [String: Any] {
    [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
      kSecAttrSynchronizable as String: kSecAttrSynchronizableAny, kSecAttrAccount as String: account,
    ]
  }

  /// KeychainAccess's `set(_:key:)`: a copy without a result pointer decides between update and add; the update
  /// sends the whole query again with kSecAttrAccessible, kSecAttrSynchronizable false and the new data.
  func keychainAccessSet(_ value: String, key: String) -> OSStatus {
    let exists = SecItemCopyMatching(keychainAccessQuery(key) as CFDictionary, nil)
    var attributes: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
      kSecAttrAccount as String: key, kSecValueData as String: Data(value.utf8),
      kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
      kSecAttrSynchronizable as String: kCFBooleanFalse!,
    ]
    switch exists {
    case errSecSuccess: return SecItemUpdate(keychainAccessQuery(key) as CFDictionary, attributes as CFDictionary)
    case errSecItemNotFound: return SecItemAdd(attributes as CFDictionary, nil)
    default: return exists
    }
  }

  func copyData(_ query: [String: Any]) -> (OSStatus, String?) {
    var ask = query
    ask[kSecReturnData as String] = kCFBooleanTrue!
    ask[kSecMatchLimit as String] = kSecMatchLimitOne
    var result: AnyObject?
    let status = SecItemCopyMatching(ask as CFDictionary, &result)
    return (status, (result as? Data).map { String(decoding: $0, as: UTF8.self) })
  }

  @Test("KeychainAccess's set: a copy without a result pointer says whether the key exists; the overwrite is an update")
  func keychainAccessSetAndOverwrite() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(SecItemCopyMatching(keychainAccessQuery("a") as CFDictionary, nil) == errSecItemNotFound)
      #expect(keychainAccessSet("v1", key: "a") == errSecSuccess)
      #expect(SecItemCopyMatching(keychainAccessQuery("a") as CFDictionary, nil) == errSecSuccess)
      #expect(copyData(keychainAccessQuery("a")) == (errSecSuccess, "v1"))
      #expect(keychainAccessSet("v2", key: "a") == errSecSuccess)
      #expect(copyData(keychainAccessQuery("a")) == (errSecSuccess, "v2"))
      #expect(SecItemDelete(keychainAccessQuery("a") as CFDictionary) == errSecSuccess)
      #expect(SecItemCopyMatching(keychainAccessQuery("a") as CFDictionary, nil) == errSecItemNotFound)
    }
  }

  @Test("keychain-swift's allKeys: data false, attributes and ref true, match all, sync any → every account")
  func keychainSwiftAllKeys() throws {
    let world = try KeychainWorld.ready()
    world.run {
      for account in ["lalibs_a", "lalibs_b"] {
        let add: [String: Any] = [
          kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
          kSecValueData as String: Data("x".utf8), kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
        ]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
      }
      let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: false,
        kSecReturnAttributes as String: true, kSecReturnRef as String: true,
        kSecMatchLimit as String: kSecMatchLimitAll, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
      ]
      var result: AnyObject?
      #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
      let accounts = (result as? [[String: Any]] ?? []).compactMap { $0[kSecAttrAccount as String] as? String }
      #expect(accounts.sorted() == ["lalibs_a", "lalibs_b"])
    }
  }

  @Test("keychain-swift's getData(asReference: true): kSecReturnPersistentRef alone gives Data that finds the item")
  func keychainSwiftReference() throws {
    let world = try KeychainWorld.ready()
    world.run {
      let add: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "ref",
        kSecValueData as String: Data("by reference".utf8),
      ]
      #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
      let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "ref",
        kSecMatchLimit as String: kSecMatchLimitOne, kSecReturnPersistentRef as String: kCFBooleanTrue!,
      ]
      var result: AnyObject?
      #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
      guard let reference = result as? Data, !reference.isEmpty else {
        Issue.record("no persistent reference")
        return
      }
      // Valet's and keychain-swift's next step: the reference as the whole query.
      let byReference: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: reference]
      #expect(copyData(byReference) == (errSecSuccess, "by reference"))
    }
  }

  /// SimpleKeychain's mapping of a status to its error cases (its own enum, here a string).
  func simpleKeychainCase(_ status: OSStatus) -> String {
    switch status {
    case errSecSuccess: "success"
    case errSecDecode: "decode"
    case errSecAllocate: "allocate"
    case errSecMissingEntitlement: "missingEntitlement"
    case errSecItemNotFound: "itemNotFound"
    case errSecDuplicateItem: "duplicateItem"
    case errSecInteractionNotAllowed: "interactionNotAllowed"
    case errSecAuthFailed: "authFailed"
    case errSecUserCanceled: "userCanceled"
    case errSecParam: "param"
    default: "other"
    }
  }

  @Test("SimpleKeychain's status mapping: Apple's codes and messages for decode, allocate, missing entitlement")
  func simpleKeychainStatuses() throws {
    #expect(errSecDecode == -26275 && errSecAllocate == -108 && errSecMissingEntitlement == -34018)
    #expect(simpleKeychainCase(-26275) == "decode")
    #expect(simpleKeychainCase(-108) == "allocate")
    #expect(simpleKeychainCase(-34018) == "missingEntitlement")
    #expect(SecCopyErrorMessageString(errSecDecode, nil).map { String(describing: $0) }?.isEmpty == false)
    let world = try KeychainWorld.ready()
    world.run {
      let missing: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "none"]
      #expect(simpleKeychainCase(SecItemCopyMatching(missing as CFDictionary, nil)) == "itemNotFound")
      #expect(simpleKeychainCase(SecItemDelete(missing as CFDictionary)) == "itemNotFound")
    }
  }

  @Test("KeychainAccess's Keychain(server:protocolType:): an internet password written, read, overwritten, removed")
  func keychainAccessInternetPassword() throws {
    let world = try KeychainWorld.ready()
    world.run {
      let query: [String: Any] = [
        kSecClass as String: kSecClassInternetPassword, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
        kSecAttrServer as String: "example.com", kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
        kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeDefault, kSecAttrAccount as String: "alice",
      ]
      #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecItemNotFound)
      var add = query
      add[kSecAttrSynchronizable as String] = kCFBooleanFalse!
      add[kSecValueData as String] = Data("pw1".utf8)
      add[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlocked
      #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
      #expect(copyData(query) == (errSecSuccess, "pw1"))
      var update = add
      update[kSecValueData as String] = Data("pw2".utf8)
      #expect(SecItemUpdate(query as CFDictionary, update as CFDictionary) == errSecSuccess)
      #expect(copyData(query) == (errSecSuccess, "pw2"))
      #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
      #expect(copyData(query).0 == errSecItemNotFound)
    }
  }
}
