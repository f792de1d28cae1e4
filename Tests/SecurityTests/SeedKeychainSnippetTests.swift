import Foundation
import LocalAuthCore
import LocalAuthentication
import Security
import Testing

// Seed 001 (MASTG, ../shared/seeds/001_f6a8820da2a1414c.txt), its Swift keychain snippet. The two halves are
// copied unchanged, apart from the read's account name: the seed stores "OWASP Account" but reads "My Name",
// which finds nothing on Apple's systems too (seedReadVerbatim shows that). Only the `return` lines after each
// half are ours, to hand the outcome to the test.

/// Steps 1–3 of the seed: the access control, the add query, SecItemAdd.
func seedAdd() -> OSStatus? {
  // 1. 認証設定を表す AccessControl オブジェクトを作成する

  var error: Unmanaged<CFError>?

  guard let accessControl = SecAccessControlCreateWithFlags(kCFAllocatorDefault,
                                                            kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
                                                            SecAccessControlCreateFlags.biometryCurrentSet,
                                                            &error) else {
      // failed to create AccessControl object

      return nil
  }

  // 2. キーチェーンサービスクエリを定義する。kSecAttrAccessControl は kSecAttrAccessible 属性と相互排他的であることに注意する

  var query: [String: Any] = [:]

  query[kSecClass as String] = kSecClassGenericPassword
  query[kSecAttrLabel as String] = "com.me.myapp.password" as CFString
  query[kSecAttrAccount as String] = "OWASP Account" as CFString
  query[kSecValueData as String] = "test_strong_password".data(using: .utf8)! as CFData
  query[kSecAttrAccessControl as String] = accessControl

  // 3. アイテムを保存する

  let status = SecItemAdd(query as CFDictionary, nil)

  if status == noErr {
      // successfully saved
  } else {
      // error while saving
  }
  return status
}

/// Steps 5–6 of the seed, with the account the add used.
func seedRead() -> (OSStatus, String?) {
  // 5. クエリを定義する
  var query = [String: Any]()
  query[kSecClass as String] = kSecClassGenericPassword
  query[kSecReturnData as String] = kCFBooleanTrue
  query[kSecAttrAccount as String] = "OWASP Account" as CFString
  query[kSecAttrLabel as String] = "com.me.myapp.password" as CFString
  query[kSecUseOperationPrompt as String] = "Please, pass authorisation to enter this area" as CFString

  // 6. アイテムを取得する
  var queryResult: AnyObject?
  let status = withUnsafeMutablePointer(to: &queryResult) {
      SecItemCopyMatching(query as CFDictionary, UnsafeMutablePointer($0))
  }

  if status == noErr {
      let password = String(data: queryResult as! Data, encoding: .utf8)!
      // パスワードの取得に成功
      return (status, password)
  } else {
      // 認証がパスしなかった
  }
  return (status, nil)
}

/// Steps 5–6 verbatim, account "My Name" included.
func seedReadVerbatim() -> OSStatus {
  var query = [String: Any]()
  query[kSecClass as String] = kSecClassGenericPassword
  query[kSecReturnData as String] = kCFBooleanTrue
  query[kSecAttrAccount as String] = "My Name" as CFString
  query[kSecAttrLabel as String] = "com.me.myapp.password" as CFString
  query[kSecUseOperationPrompt as String] = "Please, pass authorisation to enter this area" as CFString
  var queryResult: AnyObject?
  return withUnsafeMutablePointer(to: &queryResult) {
      SecItemCopyMatching(query as CFDictionary, UnsafeMutablePointer($0))
  }
}

@Suite("The seed's keychain snippet", .serialized)
struct SeedKeychainSnippetTests {
  @Test("add, then read with the enrolled finger: the data, after one biometric prompt with the seed's reason")
  func touchReleases() throws {
    let world = try KeychainWorld.ready()
    try world.run {
      #expect(seedAdd() == errSecSuccess)
      #expect(world.itemFiles.count == 1)
      // The secret is not on disk in clear.
      let file = try String(contentsOfFile: world.root + "/keychain/alice/" + world.itemFiles[0], encoding: .utf8)
      #expect(!file.contains("test_strong_password"))
      #expect(!file.contains(String("test_strong_password".utf8.map { String($0, radix: 16) }.joined())))
      world.touch()
      let promptsBefore = world.prompter.prompts.count
      let (status, password) = seedRead()
      #expect(status == errSecSuccess)
      #expect(password == "test_strong_password")
      #expect(world.prompter.transcript.contains { $0.contains("Please, pass authorisation to enter this area") })
      #expect(world.prompter.prompts.count == promptsBefore, "biometryCurrentSet never asks for the passcode")
    }
  }

  @Test("a wrong finger three times: errSecAuthFailed, no data")
  func wrongFinger() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(seedAdd() == errSecSuccess)
      world.impostor(); world.impostor(); world.impostor()
      let (status, password) = seedRead()
      #expect(status == errSecAuthFailed)
      #expect(password == nil)
    }
  }

  @Test("Cancel: errSecUserCanceled")
  func cancel() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(seedAdd() == errSecSuccess)
      world.cancel()
      #expect(seedRead().0 == errSecUserCanceled)
    }
  }

  @Test("a finger enrolled after the add: errSecItemNotFound without a prompt, and the item is gone")
  func enrolmentChange() throws {
    let world = try KeychainWorld.ready()
    try world.run {
      #expect(seedAdd() == errSecSuccess)
      try world.enroll("left-index")
      world.touch()
      #expect(seedRead().0 == errSecItemNotFound)
      #expect(world.scripted.pending.count == 1, "no prompt ran: the touch is still queued")
      #expect(world.itemFiles.isEmpty)
    }
  }

  @Test("the passcode removed: every WhenPasscodeSetThisDeviceOnly item is deleted")
  func passcodeRemoved() throws {
    let world = try KeychainWorld.ready()
    try world.run {
      #expect(seedAdd() == errSecSuccess)
      try world.administration.removePasscode(for: try world.userName)
      #expect(world.itemFiles.isEmpty)
      world.touch()
      #expect(seedRead().0 == errSecItemNotFound)
    }
  }

  @Test("no passcode: the add is refused with errSecNotAvailable")
  func noPasscode() throws {
    let world = try KeychainWorld()
    try world.enroll("right-index")
    world.run { #expect(seedAdd() == errSecNotAvailable) }
  }

  @Test("nothing enrolled: a biometryCurrentSet add is refused with errSecNotAvailable")
  func nothingEnrolled() throws {
    let world = try KeychainWorld()
    try world.administration.setPasscode(SecretBytes("1234"), for: try world.userName)
    world.run { #expect(seedAdd() == errSecNotAvailable) }
  }

  @Test("the snippet verbatim reads account \"My Name\", which it never stored: errSecItemNotFound")
  func verbatimMismatch() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(seedAdd() == errSecSuccess)
      world.touch()
      #expect(seedReadVerbatim() == errSecItemNotFound)
    }
  }
}
