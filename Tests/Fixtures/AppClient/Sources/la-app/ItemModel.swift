import Foundation
import Security

/// Issue 28's calls as the published libraries make them, in one run: internet passwords with their attributes,
/// KeychainAccess's overwrite, an attribute-only rename, persistent references, keychain-swift's allKeys, a
/// synchronizable item, and a wipe of every class. Prints "status N" per call and "attr NAME VALUE" lines.
func itemModelScenario() {
  let internet: [String: Any] = [
    kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
    kSecAttrProtocol as String: kSecAttrProtocolHTTPS, kSecAttrPort as String: 443,
    kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeHTMLForm, kSecAttrAccount as String: "alice",
  ]
  var add = internet
  add[kSecValueData as String] = Data("pw".utf8)
  add[kSecAttrComment as String] = "work"
  // KeychainAccess's existence check: a copy without a result pointer, before and after the add.
  report(SecItemCopyMatching(internet as CFDictionary, nil))
  report(SecItemAdd(add as CFDictionary, nil))
  report(SecItemCopyMatching(internet as CFDictionary, nil))
  report(SecItemAdd(add as CFDictionary, nil))
  var copy = internet
  copy[kSecReturnAttributes as String] = true
  copy[kSecReturnData as String] = true
  copy[kSecReturnPersistentRef as String] = true
  var result: AnyObject?
  report(SecItemCopyMatching(copy as CFDictionary, &result))
  let item = result as? [String: Any] ?? [:]
  print("attr srvr \(item[kSecAttrServer as String] as? String ?? "-")")
  print("attr port \(item[kSecAttrPort as String] as? Int ?? -1)")
  print("attr icmt \(item[kSecAttrComment as String] as? String ?? "-")")
  print("data \(String(decoding: item[kSecValueData as String] as? Data ?? Data(), as: UTF8.self))")
  let reference = item[kSecValuePersistentRef as String] as? Data ?? Data()
  // KeychainAccess's overwrite: the unchanged accessibility with the new data.
  let overwrite: [String: Any] = [
    kSecValueData as String: Data("pw2".utf8), kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
  ]
  report(SecItemUpdate(internet as CFDictionary, overwrite as CFDictionary))
  // An attribute-only change of the primary key, then a read by persistent reference.
  report(SecItemUpdate(internet as CFDictionary, [kSecAttrAccount as String: "bob"] as CFDictionary))
  let byReference: [String: Any] = [
    kSecClass as String: kSecClassInternetPassword, kSecValuePersistentRef as String: reference,
    kSecReturnAttributes as String: true, kSecReturnData as String: true,
  ]
  report(SecItemCopyMatching(byReference as CFDictionary, &result))
  let moved = result as? [String: Any] ?? [:]
  print("attr acct \(moved[kSecAttrAccount as String] as? String ?? "-")")
  print("data \(String(decoding: moved[kSecValueData as String] as? Data ?? Data(), as: UTF8.self))")
  // A synchronizable generic password, and keychain-swift's allKeys.
  let synced: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "app", kSecAttrAccount as String: "token",
    kSecAttrSynchronizable as String: true, kSecValueData as String: Data("t".utf8),
  ]
  report(SecItemAdd(synced as CFDictionary, nil))
  let allKeys: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword, kSecReturnData as String: false, kSecReturnAttributes as String: true,
    kSecReturnRef as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
    kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
  ]
  report(SecItemCopyMatching(allKeys as CFDictionary, &result))
  for entry in result as? [[String: Any]] ?? [] { print("attr key \(entry[kSecAttrAccount as String] as? String ?? "-")") }
  // A wipe of every class, as the libraries' "clear all" does.
  for itemClass in [kSecClassGenericPassword, kSecClassInternetPassword, kSecClassCertificate, kSecClassKey, kSecClassIdentity] {
    let wipe: [String: Any] = [kSecClass as String: itemClass, kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]
    print("status \(SecItemDelete(wipe as CFDictionary))")
  }
}
