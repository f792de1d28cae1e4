import Foundation
import LocalAuthentication
import Security
import Testing

/// Apple's CF object model: the constants are objects, queries are written as any Swift dictionary Apple code
/// uses and passed `as CFDictionary`, and what comes back casts to Swift types (issue 28).
@Suite("Apple's CoreFoundation object model", .serialized)
struct CoreFoundationModelTests {
  /// A GenericKeychain-style query: `[NSObject: AnyObject]` keyed by the constants themselves.
  func genericKeychainQuery(account: String) -> [NSObject: AnyObject] {
    var query: [NSObject: AnyObject] = [:]
    query[kSecClass] = kSecClassGenericPassword
    query[kSecAttrService] = "com.example.generic" as AnyObject
    query[kSecAttrAccount] = account as AnyObject
    return query
  }

  @Test("a GenericKeychain-style [NSObject: AnyObject] add, copy (data and attributes) and delete round trip")
  func nsObjectRoundTrip() throws {
    let world = try KeychainWorld.ready()
    world.run {
      var add = genericKeychainQuery(account: "alice")
      add[kSecValueData] = "hunter2".data(using: .utf8)! as AnyObject
      add[kSecAttrAccessible] = kSecAttrAccessibleWhenUnlocked
      #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
      #expect(SecItemAdd(add as CFDictionary, nil) == errSecDuplicateItem)

      var copy = genericKeychainQuery(account: "alice")
      copy[kSecMatchLimit] = kSecMatchLimitOne
      copy[kSecReturnData] = kCFBooleanTrue
      var result: AnyObject?
      #expect(SecItemCopyMatching(copy as CFDictionary, &result) == errSecSuccess)
      #expect((result as? Data).map { String(decoding: $0, as: UTF8.self) } == "hunter2")

      copy[kSecReturnData] = kCFBooleanFalse
      copy[kSecReturnAttributes] = kCFBooleanTrue!
      result = nil
      #expect(SecItemCopyMatching(copy as CFDictionary, &result) == errSecSuccess)
      let attributes = result as? [String: Any]
      #expect(attributes?[kSecAttrAccount as String] as? String == "alice")
      #expect(attributes?[kSecAttrService as String] as? String == "com.example.generic")
      #expect(attributes?[kSecValueData as String] == nil)

      #expect(SecItemDelete(genericKeychainQuery(account: "alice") as CFDictionary) == errSecSuccess)
      #expect(SecItemCopyMatching(copy as CFDictionary, &result) == errSecItemNotFound)
    }
  }

  @Test("[String: AnyObject], [String?: AnyObject] and [String: Any] queries with `kSec… as String` keys")
  func stringKeyedDictionaries() throws {
    let world = try KeychainWorld.ready()
    world.run {
      let add: [String: AnyObject] = [
        kSecClass as String: kSecClassGenericPassword as AnyObject, kSecAttrService as String: "svc" as AnyObject,
        kSecAttrAccount as String: "bob" as AnyObject, kSecValueData as String: Data("pw".utf8) as AnyObject,
        kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
      ]
      #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)

      // Valet and older wrappers key their queries with optional strings.
      let copy: [String?: AnyObject] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc" as AnyObject,
        kSecAttrAccount as String: "bob" as AnyObject, kSecReturnData as String: kCFBooleanTrue!,
      ]
      var result: CFTypeRef?
      #expect(SecItemCopyMatching(copy as CFDictionary, &result) == errSecSuccess)
      #expect(result as? Data == Data("pw".utf8))

      let all: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
        kSecReturnAttributes as String: true,
      ]
      result = nil
      #expect(SecItemCopyMatching(all as CFDictionary, &result) == errSecSuccess)
      let items = result as? [[String: Any]]
      #expect(items?.count == 1)
      #expect(items?.first?[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlock as String)
    }
  }

  @Test("the constants are objects: `as AnyObject`, NSObject and AnyHashable keys, and back `as String`")
  func constantsAreObjects() {
    let object = kSecClassGenericPassword as AnyObject
    #expect(object as? String == "genp")
    #expect(kSecClass as String == "class")
    let key: NSObject = kSecAttrService
    #expect(key.isEqual(kSecAttrService))
    let hashable: [AnyHashable: Any] = [kSecAttrAccount: "a"]
    #expect(hashable[AnyHashable(kSecAttrAccount)] as? String == "a")
    #expect((kCFBooleanTrue!).boolValue && !(kCFBooleanFalse!).boolValue)
  }

  @Test("[] as CFArray, data as CFData, and a CFDictionary cast back to a Swift dictionary")
  func bridges() {
    let empty = [] as CFArray
    #expect(empty.count == 0)
    let data = Data("x".utf8) as CFData
    #expect(data.length == 1)
    let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, "port": 443]
    let back = (query as CFDictionary) as? [String: Any]
    #expect(back?[kSecClass as String] as? String == "genp")
    #expect(back?["port"] as? Int == 443)
  }

  @Test("SecAccessControlCreateWithFlags takes the protection as CFTypeRef; its error reads through CFError*")
  func accessControlAndCFError() {
    var error: Unmanaged<CFError>?
    let protection: CFTypeRef = kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
    #expect(SecAccessControlCreateWithFlags(nil, protection, .userPresence, &error) != nil)
    #expect(error == nil)

    #expect(SecAccessControlCreateWithFlags(nil, "nonsense" as CFString, .userPresence, &error) == nil)
    let failure = error!.takeRetainedValue()
    #expect(CFErrorGetCode(failure) == CFIndex(errSecParam))
    #expect(CFErrorGetDomain(failure) as String == NSOSStatusErrorDomain)
    #expect((CFErrorCopyUserInfo(failure) as? [String: Any])?[NSLocalizedDescriptionKey] as? String == "invalid protection")
    #expect(CFErrorCopyDescription(failure) as String == "invalid protection")
    let flags: CFOptionFlags = SecAccessControlCreateFlags.biometryAny.rawValue
    #expect(flags == 2)
  }

  @Test("SecAccessControl and LAContext are hashable by identity and live in [String: AnyHashable], as Valet keeps them")
  func hashableObjects() {
    var error: Unmanaged<CFError>?
    let control = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, &error)!
    let twin = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, &error)!
    let context = LAContext()
    var options: [String: AnyHashable] = [:]
    options[kSecAttrAccessControl as String] = control
    options[kSecUseAuthenticationContext as String] = context
    #expect(options[kSecAttrAccessControl as String] == AnyHashable(control))
    #expect(options[kSecAttrAccessControl as String] != AnyHashable(twin))
    #expect(options[kSecUseAuthenticationContext as String] as? LAContext === context)
    #expect(Set([control, twin, control]).count == 2)
    #expect(Set([context, LAContext(), context]).count == 2)
  }
}
