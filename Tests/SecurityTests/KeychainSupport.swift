import Foundation
import LocalAuthentication
import Security

/// Adds a generic password `account` holding `secret` with `flags` (nil: no access control) in `protection`.
func addItem(
  _ account: String, _ secret: String = "s3cret", flags: SecAccessControlCreateFlags?,
  protection: CFString = kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, context: LAContext? = nil
) -> OSStatus {
  var query: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "tests", kSecAttrAccount as String: account,
    kSecValueData as String: Data(secret.utf8),
  ]
  if let flags {
    var error: Unmanaged<CFError>?
    guard let control = SecAccessControlCreateWithFlags(kCFAllocatorDefault, protection, flags, &error) else { return errSecParam }
    query[kSecAttrAccessControl as String] = control
  } else {
    query[kSecAttrAccessible as String] = protection
  }
  if let context { query[kSecUseAuthenticationContext as String] = context }
  return SecItemAdd(query as CFDictionary, nil)
}

/// Reads `account`'s data: the status and the text.
func readItem(_ account: String, context: LAContext? = nil, ui: CFString? = nil) -> (OSStatus, String?) {
  var query: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "tests", kSecAttrAccount as String: account, kSecReturnData as String: true,
    kSecUseOperationPrompt as String: "read \(account)",
  ]
  if let context { query[kSecUseAuthenticationContext as String] = context }
  if let ui { query[kSecUseAuthenticationUI as String] = ui }
  var result: AnyObject?
  let status = SecItemCopyMatching(query as CFDictionary, &result)
  return (status, (result as? Data).map { String(decoding: $0, as: UTF8.self) })
}

/// The error code SecAccessControlCreateWithFlags reports for `flags`, or nil when it creates the object.
func accessControlError(_ flags: SecAccessControlCreateFlags, protection: CFString = kSecAttrAccessibleWhenUnlocked) -> Int? {
  var error: Unmanaged<CFError>?
  guard SecAccessControlCreateWithFlags(kCFAllocatorDefault, protection, flags, &error) == nil else { return nil }
  return error?.takeRetainedValue().code
}
