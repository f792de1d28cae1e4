// Seed 001 (MASTG, ../shared/seeds/001_f6a8820da2a1414c.txt): its Swift keychain snippet, run by an ordinary user.
// The two halves are the seed's, apart from the read's account (the seed reads "My Name", which it never stored);
// only the `return` lines are ours.
import Foundation
import LocalAuthentication
import Security

func seedAdd() -> OSStatus? {
  var error: Unmanaged<CFError>?

  guard let accessControl = SecAccessControlCreateWithFlags(kCFAllocatorDefault,
                                                            kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
                                                            SecAccessControlCreateFlags.biometryCurrentSet,
                                                            &error) else {
      return nil
  }

  var query: [String: Any] = [:]

  query[kSecClass as String] = kSecClassGenericPassword
  query[kSecAttrLabel as String] = "com.me.myapp.password" as CFString
  query[kSecAttrAccount as String] = "OWASP Account" as CFString
  query[kSecValueData as String] = "test_strong_password".data(using: .utf8)! as CFData
  query[kSecAttrAccessControl as String] = accessControl

  let status = SecItemAdd(query as CFDictionary, nil)

  if status == noErr {
      // successfully saved
  } else {
      // error while saving
  }
  return status
}

func seedRead() -> (OSStatus, String?) {
  var query = [String: Any]()
  query[kSecClass as String] = kSecClassGenericPassword
  query[kSecReturnData as String] = kCFBooleanTrue
  query[kSecAttrAccount as String] = "OWASP Account" as CFString
  query[kSecAttrLabel as String] = "com.me.myapp.password" as CFString
  query[kSecUseOperationPrompt as String] = "Please, pass authorisation to enter this area" as CFString

  var queryResult: AnyObject?
  let status = withUnsafeMutablePointer(to: &queryResult) {
      SecItemCopyMatching(query as CFDictionary, UnsafeMutablePointer($0))
  }

  if status == noErr {
      let password = String(data: queryResult as! Data, encoding: .utf8)!
      return (status, password)
  } else {
      return (status, nil)
  }
}
