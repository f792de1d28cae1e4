import Foundation
import LocalAuthCore
import LocalAuthentication
import Security
import Testing

/// kSecAttrAccessGroup as a namespace (docs/KEYCHAIN.md, "Access groups").
@Suite("Keychain access groups", .serialized)
struct AccessGroupTests {
  func add(_ group: String?, _ data: String) -> OSStatus {
    var attributes: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "mail", kSecAttrAccount as String: "alice",
      kSecValueData as String: Data(data.utf8), kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
    ]
    if let group { attributes[kSecAttrAccessGroup as String] = group }
    return SecItemAdd(attributes as CFDictionary, nil)
  }

  func read(_ group: String?, all: Bool = false) -> (OSStatus, [String]) {
    var query: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "mail", kSecAttrAccount as String: "alice",
      kSecReturnAttributes as String: true, kSecReturnData as String: true,
      kSecMatchLimit as String: all ? kSecMatchLimitAll : kSecMatchLimitOne,
    ]
    if let group { query[kSecAttrAccessGroup as String] = group }
    var result: AnyObject?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    let items = (all ? result as? [[String: Any]] : (result as? [String: Any]).map { [$0] }) ?? []
    return (status, items.map { "\($0[kSecAttrAccessGroup as String] as? String ?? "?"):\(String(decoding: $0[kSecValueData as String] as? Data ?? Data(), as: UTF8.self))" })
  }

  @Test("one service and account per group; a query with a group sees that group only, one without sees all")
  func namespaces() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(add("com.example.mail", "one") == errSecSuccess)
      #expect(add("com.example.notes", "two") == errSecSuccess)
      #expect(add(nil, "three") == errSecSuccess)
      #expect(add("com.example.mail", "again") == errSecDuplicateItem)
      #expect(read("com.example.notes") == (errSecSuccess, ["com.example.notes:two"]))
      #expect(read("com.example.mail") == (errSecSuccess, ["com.example.mail:one"]))
      #expect(read("org.other").0 == errSecItemNotFound)
      #expect(Set(read(nil, all: true).1) == ["com.example.mail:one", "com.example.notes:two", ":three"])
      var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccessGroup as String: "com.example.mail"]
      #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
      query[kSecAttrAccessGroup as String] = nil
      query[kSecReturnAttributes as String] = true
      query[kSecMatchLimit as String] = kSecMatchLimitAll
      var left: AnyObject?
      #expect(SecItemCopyMatching(query as CFDictionary, &left) == errSecSuccess)
      #expect((left as? [[String: Any]])?.count == 2)
    }
  }
}
