import Foundation
import LocalAuthCore
import LocalAuthentication
import Security
import Testing

@Suite("Keychain access-control rules (docs/KEYCHAIN.md)", .serialized)
struct KeychainRulesTests {
  @Test("SecAccessControlCreateWithFlags refuses what Apple refuses, with errSecParam")
  func creationRules() {
    #expect(accessControlError([.biometryAny, .devicePasscode, .or, .and]) == Int(errSecParam))
    #expect(accessControlError([.biometryAny, .biometryCurrentSet]) == Int(errSecParam))
    #expect(accessControlError([.userPresence, .devicePasscode]) == Int(errSecParam))
    #expect(accessControlError(.userPresence, protection: "nonsense") == Int(errSecParam))
    #expect(accessControlError([.userPresence, .applicationPassword]) == nil)
    #expect(accessControlError([.biometryAny, .or, .devicePasscode]) == nil)
    #expect(accessControlError([.biometryCurrentSet, .devicePasscode]) == nil)
    #expect(SecAccessControlCreateFlags.biometryCurrentSet.rawValue == 8 && SecAccessControlCreateFlags.or.rawValue == 1 << 14)
  }

  @Test("add: privateKeyUsage, both accessibility keys, a duplicate, and no passcode are refused with Apple's codes")
  func addRules() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(addItem("a", flags: [.privateKeyUsage]) == errSecParam)
      var error: Unmanaged<CFError>?
      let control = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlocked, .userPresence, &error)!
      let both: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "b", kSecValueData as String: Data("x".utf8),
        kSecAttrAccessControl as String: control, kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
      ]
      #expect(SecItemAdd(both as CFDictionary, nil) == errSecParam)
      #expect(addItem("c", flags: .userPresence) == errSecSuccess)
      #expect(addItem("c", flags: .userPresence) == errSecDuplicateItem)
    }
    let bare = try KeychainWorld()
    bare.run { #expect(addItem("d", flags: .userPresence) == errSecNotAvailable) }
    bare.run { #expect(addItem("e", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess) }
  }

  @Test("userPresence: a finger opens it; after three wrong fingers the passcode does; a wrong passcode does not")
  func userPresence() throws {
    let world = try KeychainWorld.ready()
    try world.run {
      #expect(addItem("u", flags: .userPresence) == errSecSuccess)
      world.touch()
      #expect(readItem("u") == (errSecSuccess, "s3cret"))
      world.impostor(); world.impostor(); world.impostor()
      world.prompter.enqueue("1234")
      #expect(readItem("u") == (errSecSuccess, "s3cret"))
      world.impostor(); world.impostor(); world.impostor()
      world.prompter.enqueue("9999")
      #expect(readItem("u").0 == errSecAuthFailed)
      _ = try world.userName
    }
  }

  @Test("devicePasscode: only the passcode opens it (a finger is never asked); the item is keyed to the passcode")
  func devicePasscode() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(addItem("p", flags: .devicePasscode) == errSecSuccess)
      world.touch()
      world.prompter.enqueue("1234")
      #expect(readItem("p") == (errSecSuccess, "s3cret"))
      #expect(world.scripted.pending.count == 1, "the finger was not asked for")
      world.prompter.enqueue("0000")
      #expect(readItem("p").0 == errSecAuthFailed)
    }
  }

  @Test("several constraints without .or need all (a finger, then the passcode); with .or any one")
  func andOr() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(addItem("and", flags: [.biometryAny, .devicePasscode]) == errSecSuccess)
      #expect(addItem("or", flags: [.biometryAny, .or, .devicePasscode]) == errSecSuccess)
      world.touch()
      world.prompter.enqueue("1234")
      #expect(readItem("and") == (errSecSuccess, "s3cret"))
      world.touch()
      world.prompter.enqueue("0000")
      #expect(readItem("and").0 == errSecAuthFailed, "a finger and a wrong passcode are not enough")
      world.touch()
      #expect(readItem("or") == (errSecSuccess, "s3cret"))
    }
  }

  @Test("an evaluated context is reused: no second prompt; interactionNotAllowed gives errSecInteractionNotAllowed")
  func contextReuse() async throws {
    let world = try KeychainWorld.ready()
    #expect(world.run { addItem("ctx", flags: .biometryAny) } == errSecSuccess)
    let context = LAContext(configuration: world.configuration)
    world.touch()
    let evaluated = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "unlock")
    #expect(evaluated)
    #expect(world.scripted.pending.isEmpty)
    #expect(readItem("ctx", context: context) == (errSecSuccess, "s3cret"))
    #expect(readItem("ctx", context: context) == (errSecSuccess, "s3cret"))
    let quiet = LAContext(configuration: world.configuration)
    quiet.interactionNotAllowed = true
    #expect(readItem("ctx", context: quiet).0 == errSecInteractionNotAllowed)
    #expect(readItem("ctx", context: LAContext(configuration: world.configuration), ui: kSecUseAuthenticationUIFail).0 == errSecInteractionNotAllowed)
    #expect(readItem("ctx", context: LAContext(configuration: world.configuration), ui: kSecUseAuthenticationUISkip).0 == errSecItemNotFound)
  }

  @Test("evaluateAccessControl, then a read with that context asks nothing")
  func evaluateAccessControl() async throws {
    let world = try KeychainWorld.ready()
    #expect(world.run { addItem("eac", flags: .devicePasscode) } == errSecSuccess)
    var error: Unmanaged<CFError>?
    let control = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, .devicePasscode, &error)!
    let context = LAContext(configuration: world.configuration)
    world.prompter.enqueue("1234")
    #expect(try await context.evaluateAccessControl(control, operation: .useItem, localizedReason: "open the vault"))
    let prompts = world.prompter.prompts.count
    #expect(readItem("eac", context: context) == (errSecSuccess, "s3cret"))
    #expect(world.prompter.prompts.count == prompts)
  }

  @Test("applicationPassword: the credential set on the context opens it; another does not")
  func applicationPassword() throws {
    let world = try KeychainWorld.ready()
    let context = LAContext(configuration: world.configuration)
    context.setCredential(Data("app-pass".utf8), type: .applicationPassword)
    #expect(addItem("ap", flags: .applicationPassword, context: context) == errSecSuccess)
    #expect(readItem("ap", context: context) == (errSecSuccess, "s3cret"))
    let other = LAContext(configuration: world.configuration)
    other.setCredential(Data("wrong".utf8), type: .applicationPassword)
    #expect(readItem("ap", context: other).0 == errSecAuthFailed)
  }

  @Test("AfterFirstUnlock: unreadable after a reboot until the passcode is entered")
  func afterFirstUnlock() throws {
    let world = try KeychainWorld.ready()
    try world.run {
      #expect(addItem("afu", flags: nil, protection: kSecAttrAccessibleAfterFirstUnlock) == errSecSuccess)
      #expect(readItem("afu") == (errSecSuccess, "s3cret"))
      world.clock.reboot(to: "boot-2")
      #expect(readItem("afu").0 == errSecInteractionNotAllowed)
      world.prompter.enqueue("1234")
      let request = EvaluationRequest(user: try world.userName, policy: .deviceOwnerAuthentication, reason: "unlock")
      #expect(try PolicyEvaluator(dependencies: world.dependencies, settings: world.settings).evaluate(request) == .success(.passcode))
      #expect(readItem("afu") == (errSecSuccess, "s3cret"))
    }
  }

  @Test("update and delete need no authentication; a deleted item is errSecItemNotFound")
  func updateDelete() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(addItem("ud", flags: .biometryAny) == errSecSuccess)
      let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "tests", kSecAttrAccount as String: "ud"]
      #expect(SecItemUpdate(query as CFDictionary, [kSecValueData as String: Data("new".utf8)] as CFDictionary) == errSecSuccess)
      world.touch()
      #expect(readItem("ud") == (errSecSuccess, "new"))
      #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
      #expect(SecItemDelete(query as CFDictionary) == errSecItemNotFound)
      #expect(world.scripted.pending.isEmpty)
    }
  }
}
