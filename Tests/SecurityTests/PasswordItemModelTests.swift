import Foundation
import LocalAuthCore
import LocalAuthentication
import Security
import Testing

/// Apple's generic- and internet-password item model: every attribute stored, returned and matched, Apple's
/// uniqueness, the classes this keychain does not hold (docs/KEYCHAIN.md, "Attributes").
@Suite("Password item model", .serialized)
struct PasswordItemModelTests {
  func copy(_ query: [String: Any]) -> (OSStatus, AnyObject?) {
    var result: AnyObject?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    return (status, result)
  }

  func internet(port: Int = 443, path: String = "/login", account: String = "alice", data: String = "pw") -> [String: Any] {
    [
      kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
      kSecAttrProtocol as String: kSecAttrProtocolHTTPS, kSecAttrPort as String: port, kSecAttrPath as String: path,
      kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeHTMLForm,
      kSecAttrSecurityDomain as String: "realm", kSecAttrAccount as String: account,
      kSecValueData as String: Data(data.utf8),
    ]
  }

  @Test("an internet password keeps every attribute; Apple's primary key decides duplicates; queries match on each")
  func internetPasswords() throws {
    let world = try KeychainWorld.ready()
    world.run {
      var first = internet()
      first[kSecAttrComment as String] = "work"
      #expect(SecItemAdd(first as CFDictionary, nil) == errSecSuccess)
      #expect(SecItemAdd(internet(data: "again") as CFDictionary, nil) == errSecDuplicateItem)
      #expect(SecItemAdd(internet(port: 8443, data: "other port") as CFDictionary, nil) == errSecSuccess)
      #expect(SecItemAdd(internet(path: "/admin", data: "other path") as CFDictionary, nil) == errSecSuccess)
      // A generic password with the same account is another class: no clash.
      let generic: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice",
        kSecValueData as String: Data("g".utf8),
      ]
      #expect(SecItemAdd(generic as CFDictionary, nil) == errSecSuccess)

      let (status, result) = copy([
        kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
        kSecAttrPort as String: 443, kSecAttrPath as String: "/login", kSecReturnAttributes as String: true,
        kSecReturnData as String: true,
      ])
      #expect(status == errSecSuccess)
      let item = result as? [String: Any] ?? [:]
      #expect(item[kSecClass as String] as? String == kSecClassInternetPassword as String)
      #expect(item[kSecAttrServer as String] as? String == "example.com")
      #expect(item[kSecAttrProtocol as String] as? String == kSecAttrProtocolHTTPS as String)
      #expect(item[kSecAttrAuthenticationType as String] as? String == kSecAttrAuthenticationTypeHTMLForm as String)
      #expect(item[kSecAttrPort as String] as? Int == 443)
      #expect(item[kSecAttrPath as String] as? String == "/login")
      #expect(item[kSecAttrSecurityDomain as String] as? String == "realm")
      #expect(item[kSecAttrComment as String] as? String == "work")
      #expect(item[kSecAttrSynchronizable as String] as? Bool == false)
      #expect(item[kSecValueData as String] as? Data == Data("pw".utf8))

      let (allStatus, all) = copy([
        kSecClass as String: kSecClassInternetPassword, kSecAttrAccount as String: "alice",
        kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
      ])
      #expect(allStatus == errSecSuccess)
      #expect((all as? [[String: Any]])?.count == 3)
      #expect(
        copy([kSecClass as String: kSecClassInternetPassword, kSecAttrProtocol as String: kSecAttrProtocolHTTP]).0
          == errSecItemNotFound)
      // An internet password's attribute on a generic password is refused.
      var wrong = generic
      wrong[kSecAttrServer as String] = "example.com"
      #expect(SecItemAdd(wrong as CFDictionary, nil) == errSecParam)
      #expect(SecItemDelete([kSecClass as String: kSecClassInternetPassword] as CFDictionary) == errSecSuccess)
      #expect(copy([kSecClass as String: kSecClassInternetPassword]).0 == errSecItemNotFound)
      #expect(copy([kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: true]).0 == errSecSuccess)
    }
  }

  @Test("a generic password keeps gena, icmt, desc, crtr, type, invi and nega; each matches; case-insensitive match")
  func genericAttributes() throws {
    let world = try KeychainWorld.ready()
    world.run {
      let attributes: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "Mail", kSecAttrAccount as String: "Alice",
        kSecAttrGeneric as String: Data([1, 2, 3]), kSecAttrComment as String: "a comment",
        kSecAttrDescription as String: "a description", kSecAttrCreator as String: 0x6C_6F_63_61,
        kSecAttrType as String: 0x7077_6420, kSecAttrIsInvisible as String: true, kSecAttrIsNegative as String: false,
        kSecAttrLabel as String: "label", kSecValueData as String: Data("secret".utf8),
        kSecUseDataProtectionKeychain as String: true,
      ]
      #expect(SecItemAdd(attributes as CFDictionary, nil) == errSecSuccess)
      let (status, result) = copy([
        kSecClass as String: kSecClassGenericPassword, kSecAttrGeneric as String: Data([1, 2, 3]),
        kSecReturnAttributes as String: true,
      ])
      #expect(status == errSecSuccess)
      let item = result as? [String: Any] ?? [:]
      #expect(item[kSecAttrGeneric as String] as? Data == Data([1, 2, 3]))
      #expect(item[kSecAttrComment as String] as? String == "a comment")
      #expect(item[kSecAttrDescription as String] as? String == "a description")
      #expect(item[kSecAttrCreator as String] as? Int == 0x6C_6F_63_61)
      #expect(item[kSecAttrType as String] as? Int == 0x7077_6420)
      #expect(item[kSecAttrIsInvisible as String] as? Bool == true)
      #expect(item[kSecAttrIsNegative as String] as? Bool == false)
      #expect(item[kSecValueData as String] == nil)
      for (key, value) in [(kSecAttrComment, "other" as Any), (kSecAttrGeneric, Data([9]) as Any), (kSecAttrIsInvisible, false as Any)] {
        #expect(copy([kSecClass as String: kSecClassGenericPassword, key as String: value]).0 == errSecItemNotFound, "\(key)")
      }
      let lower: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "mail", kSecAttrAccount as String: "ALICE",
        kSecReturnData as String: true,
      ]
      #expect(copy(lower).0 == errSecItemNotFound)
      var insensitive = lower
      insensitive[kSecMatchCaseInsensitive as String] = true
      let (found, data) = copy(insensitive)
      #expect(found == errSecSuccess)
      #expect(data as? Data == Data("secret".utf8))
      // A number where Apple wants data, or text where it wants a number: errSecParam.
      var bad = attributes
      bad[kSecAttrAccount as String] = "bob"
      bad[kSecAttrGeneric as String] = 5
      #expect(SecItemAdd(bad as CFDictionary, nil) == errSecParam)
      bad[kSecAttrGeneric as String] = nil
      bad[kSecAttrPort as String] = nil
      bad[kSecAttrCreator as String] = "loca"
      #expect(SecItemAdd(bad as CFDictionary, nil) == errSecParam)
    }
  }

  @Test("an item without the new attributes is written as before: no class or attribute lines in its file")
  func plainItemFile() throws {
    let world = try KeychainWorld.ready()
    try world.run {
      #expect(addItem("plain", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
      let file = try #require(world.itemFiles.first)
      let text = try String(contentsOfFile: world.root + "/keychain/" + world.user + "/" + file, encoding: .utf8)
      #expect(!text.contains("\nclass ") && !text.contains("\nattr-"))
      #expect(readItem("plain") == (errSecSuccess, "s3cret"))
    }
  }

  @Test("an edited attribute line breaks the item: its data no longer opens")
  func attributesAreBound() throws {
    let world = try KeychainWorld.ready()
    try world.run {
      let attributes: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "tests", kSecAttrAccount as String: "bound",
        kSecAttrComment as String: "abc", kSecValueData as String: Data("secret".utf8),
        kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
      ]
      #expect(SecItemAdd(attributes as CFDictionary, nil) == errSecSuccess)
      let path = world.root + "/keychain/" + world.user + "/" + (try #require(world.itemFiles.first))
      let text = try String(contentsOfFile: path, encoding: .utf8)
      #expect(text.contains("attr-icmt t 616263\n"))
      try text.replacingOccurrences(of: "attr-icmt t 616263", with: "attr-icmt t 616264").write(
        toFile: path, atomically: false, encoding: .utf8)
      #expect(readItem("bound").0 != errSecSuccess)
    }
  }

  @Test("keys, certificates and identities: found nowhere, deleted as none, added as errSecUnimplemented")
  func otherClasses() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(addItem("kept", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
      for itemClass in [kSecClassKey, kSecClassCertificate, kSecClassIdentity] {
        let query: [String: Any] = [kSecClass as String: itemClass, kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnRef as String: true]
        #expect(copy(query).0 == errSecItemNotFound)
        #expect(SecItemDelete([kSecClass as String: itemClass] as CFDictionary) == errSecItemNotFound)
        let add: [String: Any] = [kSecClass as String: itemClass, kSecValueData as String: Data([1])]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecUnimplemented)
      }
      #expect(readItem("kept") == (errSecSuccess, "s3cret"))
    }
  }

  @Test("kSecAttrAccessibleAlways(ThisDeviceOnly) are accepted and kept as AfterFirstUnlock(ThisDeviceOnly)")
  func accessibleAlways() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(addItem("always", flags: nil, protection: kSecAttrAccessibleAlways) == errSecSuccess)
      #expect(addItem("always-device", flags: nil, protection: kSecAttrAccessibleAlwaysThisDeviceOnly) == errSecSuccess)
      let query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "always", kSecReturnAttributes as String: true,
      ]
      #expect((copy(query).1 as? [String: Any])?[kSecAttrAccessible as String] as? String == kSecAttrAccessibleAfterFirstUnlock as String)
      var device = query
      device[kSecAttrAccount as String] = "always-device"
      #expect(
        (copy(device).1 as? [String: Any])?[kSecAttrAccessible as String] as? String
          == kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly as String)
      #expect(readItem("always") == (errSecSuccess, "s3cret"))
    }
  }
}
