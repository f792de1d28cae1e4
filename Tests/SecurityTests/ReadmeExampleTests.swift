import Foundation
import LocalAuthentication
import Security
import Testing

// The README's "Use it from a Swift app" example, its statements unchanged (the evaluation's print becomes a
// returned answer, and the item is read back), so that the example a Swift developer copies compiles and does
// what the README says. Keep the two in step.

/// The README's evaluation: canEvaluatePolicy, then evaluatePolicy with a reason; the reply's outcome and code.
func readmeEvaluation() -> (ok: Bool, code: Int)? {
  let done = DispatchSemaphore(value: 0)
  nonisolated(unsafe) var answer: (Bool, Int)?
  let context = LAContext()
  var error: NSError?
  if context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error) {
    context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "open the notes vault") { ok, error in
      answer = (ok, (error as? LAError)?.code.rawValue ?? 0)
      done.signal()
    }
  } else {
    return nil
  }
  guard done.wait(timeout: .now() + 60) == .success else { return nil }
  return answer
}

/// The README's keychain add: an item under `.userPresence`, readable only while unlocked, on this device.
func readmeAdd() -> OSStatus {
  let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                               .userPresence, nil)!
  let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "vault",
                             kSecValueData as String: Data("s3cret".utf8), kSecAttrAccessControl as String: access]
  return SecItemAdd(item as CFDictionary, nil)
}

/// Reads the README's item back, as the README says: the finger (or the passcode) first.
func readmeRead() -> (OSStatus, String?) {
  let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "vault",
                              kSecReturnData as String: true]
  var result: AnyObject?
  let status = SecItemCopyMatching(query as CFDictionary, &result)
  return (status, (result as? Data).map { String(decoding: $0, as: UTF8.self) })
}

@Suite("The README's example", .serialized)
struct ReadmeExampleTests {
  @Test("a touch: the evaluation succeeds; Cancel: LAError -2, as the README's comment says")
  func evaluation() throws {
    let world = try KeychainWorld.ready()
    world.run {
      world.touch()
      let touched = readmeEvaluation()
      #expect(touched?.ok == true)
      #expect(touched?.code == 0)
      world.cancel()
      let cancelled = readmeEvaluation()
      #expect(cancelled?.ok == false)
      #expect(cancelled?.code == LAError.Code.userCancel.rawValue)
      #expect(cancelled?.code == -2)
    }
  }

  @Test("the item is added; reading it back asks for the finger first: a touch releases it, a cancel does not")
  func keychain() throws {
    let world = try KeychainWorld.ready()
    world.run {
      #expect(readmeAdd() == errSecSuccess)
      world.cancel()
      let refused = readmeRead()
      #expect(refused.0 == errSecUserCanceled)
      #expect(refused.1 == nil)
      let promptsBefore = world.prompter.prompts.count
      world.touch()
      let read = readmeRead()
      #expect(read.0 == errSecSuccess)
      #expect(read.1 == "s3cret")
      #expect(world.prompter.prompts.count == promptsBefore, "a touch needs no passcode prompt")
    }
  }
}
