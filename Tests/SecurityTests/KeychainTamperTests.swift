import Foundation
import LocalAuthCore
import LocalAuthentication
import Security
import Testing

/// Rewrites one `key value` line of a keychain file.
private func rewrite(_ path: String, key: String, _ change: (String) -> String) throws {
  let text = try String(contentsOfFile: path, encoding: .utf8)
  let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
    line.hasPrefix(key + " ") ? key + " " + change(String(line.dropFirst(key.count + 1))) : String(line)
  }
  try lines.joined(separator: "\n").write(toFile: path, atomically: false, encoding: .utf8)
}

/// Flips the last hex digit of a value.
private func flipLast(_ hex: String) -> String { String(hex.dropLast()) + (hex.last == "0" ? "1" : "0") }

@Suite("Keychain files: a wrong key, a tampered file or a swapped item never decrypts", .serialized)
struct KeychainTamperTests {
  @Test("a flipped bit in the sealed data, or an edited attribute, gives errSecAuthFailed")
  func tampered() throws {
    let world = try KeychainWorld.ready()
    try world.run {
      #expect(addItem("t1", flags: .biometryAny) == errSecSuccess)
      #expect(addItem("t2", flags: .biometryAny) == errSecSuccess)
      let folder = world.root + "/keychain/alice/"
      let files = world.itemFiles
      try rewrite(folder + files[0], key: "sealed", flipLast)
      try rewrite(folder + files[1], key: "label", { _ in "6576696c" })
      world.touch()
      #expect(readItem("t1").0 == errSecAuthFailed)
      world.touch()
      #expect(readItem("t2").0 == errSecAuthFailed)
    }
  }

  @Test("an item's sealed data moved into another item of the same user gives errSecAuthFailed")
  func swappedWithinUser() throws {
    let world = try KeychainWorld.ready()
    try world.run {
      #expect(addItem("low", "low secret", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
      #expect(addItem("high", "high secret", flags: .biometryAny) == errSecSuccess)
      let items = try world.keychain.items(for: try world.userName)
      let high = try #require(items.first { $0.account == "high" })
      let low = try #require(items.first { $0.account == "low" })
      try rewrite(world.root + "/keychain/alice/item-" + low.id, key: "sealed", { _ in hexEncode(high.sealed) })
      #expect(readItem("low").0 == errSecAuthFailed)
    }
  }

  @Test("an item file copied into another user's keychain does not open there")
  func swappedAcrossUsers() throws {
    let world = try KeychainWorld.ready()
    world.run { #expect(addItem("mine", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess) }
    let bob = try KeychainWorld.ready(user: "bob")
    // Bob's own keychain, in the same state folder layout, with his own device key.
    let bobs = Keychain(root: world.root, tcti: nil, clock: world.clock)
    try bobs.add(Keychain.NewItem(account: "his", data: Array("x".utf8)), for: try UserName("bob"), record: nil, hasher: world.settings.hasher)
    let file = try #require(world.itemFiles.first)
    try FileManager.default.copyItem(atPath: world.root + "/keychain/alice/" + file, toPath: world.root + "/keychain/bob/" + file)
    let item = try #require(try bobs.items(for: try UserName("bob")).first { $0.account == "mine" })
    #expect(throws: KeychainError.authenticationFailed) {
      try bobs.open(item, for: try UserName("bob"), authorization: KeychainAuthorization(), lock: .unlocked, hasher: world.settings.hasher)
    }
    _ = bob
  }

  @Test("another device key (a replaced key file) gives errSecAuthFailed")
  func wrongKey() throws {
    let world = try KeychainWorld.ready()
    try world.run {
      #expect(addItem("k", flags: nil, protection: kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
      try rewrite(world.root + "/keychain/alice/device.key", key: "key", flipLast)
      #expect(readItem("k").0 == errSecAuthFailed)
    }
  }

  @Test("a passcode change that knows the old passcode keeps passcode-keyed items; one by the administrator drops them")
  func passcodeChange() throws {
    let world = try KeychainWorld.ready()
    try world.run {
      #expect(addItem("pk", flags: .devicePasscode) == errSecSuccess)
      try world.administration.setPasscode(SecretBytes("5678"), for: try world.userName, previous: SecretBytes("1234"))
      world.prompter.enqueue("5678")
      #expect(readItem("pk") == (errSecSuccess, "s3cret"))
      try world.administration.setPasscode(SecretBytes("9012"), for: try world.userName)
      #expect(world.itemFiles.isEmpty)
      #expect(readItem("pk").0 == errSecItemNotFound)
    }
  }
}
