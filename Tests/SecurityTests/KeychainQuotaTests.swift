import Foundation
import LocalAuthCore
import LocalAuthentication
import Security
import Testing

/// Issue 27, findings 11 and 14: application-password guesses are counted and delayed as passcode guesses are
/// (rule 5), and each user's keychain has a quota; an add reads no existing item (docs/KEYCHAIN.md).
@Suite("Keychain quota and application-password guesses", .serialized)
struct KeychainQuotaTests {
  func context(_ world: KeychainWorld, _ password: String) -> LAContext {
    let context = LAContext(configuration: world.configuration)
    context.setCredential(Data(password.utf8), type: .applicationPassword)
    return context
  }

  @Test("five wrong application passwords: the sixth guess, even the right one, waits the schedule's minute")
  func applicationPasswordGuessesAreDelayed() throws {
    let world = try KeychainWorld.ready()
    let user = try world.userName
    #expect(addItem("ap", flags: .applicationPassword, context: context(world, "app-pass")) == errSecSuccess)
    for guess in 1...5 {
      #expect(readItem("ap", context: context(world, "wrong-\(guess)")).0 == errSecAuthFailed)
    }
    #expect(try world.store.load(user)?.applicationPasswordFailures == 5)
    #expect(readItem("ap", context: context(world, "app-pass")).0 == errSecAuthFailed, "refused unchecked during the delay")
    #expect(world.log.lines.contains { $0.contains("refused unchecked: guesses are delayed for 60 more seconds") })
    world.clock.advance(by: 59)
    #expect(readItem("ap", context: context(world, "app-pass")).0 == errSecAuthFailed)
    world.clock.advance(by: 1)
    #expect(readItem("ap", context: context(world, "app-pass")) == (errSecSuccess, "s3cret"))
    #expect(try world.store.load(user)?.applicationPasswordFailures == 0)
    #expect(try world.store.load(user)?.applicationPasswordNextAllowed == nil)

    // The sixth wrong guess (after the minute) brings five minutes, as the passcode's schedule does.
    for guess in 1...5 { _ = readItem("ap", context: context(world, "wrong-\(guess)")) }
    world.clock.advance(by: 60)
    #expect(readItem("ap", context: context(world, "wrong-6")).0 == errSecAuthFailed)
    #expect(try world.store.load(user)?.applicationPasswordNextAllowed == world.clock.now().adding(300))
  }

  func add(_ account: String, bytes: Int = 8) -> OSStatus {
    let attributes: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "quota", kSecAttrAccount as String: account,
      kSecValueData as String: Data(repeating: 0x61, count: bytes), kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked,
    ]
    return SecItemAdd(attributes as CFDictionary, nil)
  }

  @Test("beyond keychain_max_items an add is errSecAllocate and writes nothing; a deletion makes room")
  func itemLimit() throws {
    let world = try KeychainWorld.ready(limits: KeychainLimits(maxItems: 3, maxBytes: 1 << 20))
    world.run {
      for n in 1...3 { #expect(add("item-\(n)") == errSecSuccess) }
      #expect(add("item-4") == errSecAllocate)
      #expect(world.itemFiles.count == 3, "nothing was written")
      let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "quota", kSecAttrAccount as String: "item-1"]
      #expect(SecItemDelete(query as CFDictionary) == errSecSuccess)
      #expect(add("item-4") == errSecSuccess)
      #expect(add("item-1") == errSecAllocate)
    }
  }

  @Test("beyond keychain_max_bytes an add is errSecAllocate and writes nothing")
  func byteLimit() throws {
    let world = try KeychainWorld.ready(limits: KeychainLimits(maxItems: 1000, maxBytes: 90_000))
    world.run {
      // An item of 16 KiB takes over 32 KiB sealed and hex-encoded: two fit, a third does not.
      #expect(add("big-1", bytes: 16 * 1024) == errSecSuccess)
      #expect(add("big-2", bytes: 16 * 1024) == errSecSuccess)
      #expect(add("big-3", bytes: 16 * 1024) == errSecAllocate)
      #expect(world.itemFiles.count == 2)
      #expect(add("small", bytes: 8) == errSecSuccess)
    }
  }

  @Test("an add reads none of the existing items: the cost of n adds is linear, not quadratic")
  func addDoesNotReadEveryItem() throws {
    let world = try KeychainWorld.ready()
    let before = world.keychain.itemReads.value
    world.run {
      for n in 1...50 { #expect(add("item-\(n)") == errSecSuccess) }
      #expect(add("item-7") == errSecDuplicateItem, "uniqueness still holds, from the index")
    }
    #expect(world.keychain.itemReads.value - before == 0, "no item file was read by 51 adds")
    // An index that no longer names the folder's items is rebuilt once, from the items.
    try FileManager.default.removeItem(atPath: world.root + "/keychain/" + world.user + "/.index")
    world.run { #expect(add("item-51") == errSecSuccess) }
    #expect(world.keychain.itemReads.value - before == 50)
    world.run { #expect(add("item-52") == errSecSuccess) }
    #expect(world.keychain.itemReads.value - before == 50)
  }
}
