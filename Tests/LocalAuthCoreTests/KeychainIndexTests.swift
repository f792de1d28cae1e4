import Foundation
import LocalAuthTestSupport
import Testing

@testable import LocalAuthCore

/// Issue 28, "Cost": the keychain's journaled index and cached attributes. A read, an update or a delete reads
/// only the matching item's file, an add none, whatever the item count; other processes' changes are seen; a torn
/// index is rebuilt from the files.
@Suite("Keychain index: calls read only the matching items", .serialized)
struct KeychainIndexTests {
  let alice = try! UserName("alice")
  let hasher = PasscodeHasher(cost: 1)

  func keychain(_ folder: TemporaryFolder) -> Keychain { Keychain(root: folder.path, tcti: nil) }

  func add(_ keychain: Keychain, _ account: String, _ secret: String = "s") throws(KeychainError) {
    try keychain.add(.init(service: "svc", account: account, data: Array(secret.utf8)), for: alice, record: nil, hasher: hasher)
  }

  func read(_ keychain: Keychain, _ account: String) throws(KeychainError) -> String? {
    guard let item = try keychain.matching(.init(service: "svc", account: account), for: alice).first else { return nil }
    let data = try keychain.open(item, for: alice, authorization: KeychainAuthorization(), lock: .unlocked, hasher: hasher)
    return String(decoding: data, as: UTF8.self)
  }

  @Test("with 300 items, a read, an update and a delete read one item file, an add none")
  func callsReadOnlyTheMatchingItem() throws {
    let folder = TemporaryFolder("keychain-index")
    let keychain = keychain(folder)
    for n in 0..<300 { try add(keychain, "item-\(n)", "secret \(n)") }
    #expect(keychain.itemReads.value == 0, "300 adds read no item file")
    #expect(try read(keychain, "item-7") == "secret 7")
    // The first query of a process reads every item's attributes once; the following ones do not.
    var before = keychain.itemReads.value
    #expect(try read(keychain, "item-8") == "secret 8")
    #expect(keychain.itemReads.value - before == 1)
    before = keychain.itemReads.value
    #expect(try keychain.update(.init(service: "svc", account: "item-8"), for: alice, data: Array("new".utf8), label: nil, hasher: hasher) == 1)
    #expect(keychain.itemReads.value - before == 1)
    #expect(try read(keychain, "item-8") == "new")
    before = keychain.itemReads.value
    try add(keychain, "item-300")
    #expect(throws: KeychainError.duplicateItem) { try add(keychain, "item-300") }
    #expect(keychain.itemReads.value - before == 0)
    before = keychain.itemReads.value
    #expect(try keychain.delete(.init(service: "svc", account: "item-9"), for: alice).count == 1)
    #expect(keychain.itemReads.value - before == 1)
    #expect(try read(keychain, "item-9") == nil)
    #expect(try keychain.items(for: alice).count == 300)
  }

  @Test("two keychains over one folder (two processes) see each other's adds, updates and deletes")
  func otherProcessesChangesAreSeen() throws {
    let folder = TemporaryFolder("keychain-index")
    let first = keychain(folder)
    let second = keychain(folder)
    try add(first, "a", "one")
    #expect(try read(second, "a") == "one")
    #expect(try first.update(.init(service: "svc", account: "a"), for: alice, data: Array("two".utf8), label: nil, hasher: hasher) == 1)
    #expect(try read(second, "a") == "two")
    try add(second, "b")
    #expect(throws: KeychainError.duplicateItem) { try add(first, "b") }
    #expect(try read(first, "b") == "s")
    _ = try second.delete(.init(service: "svc", account: "a"), for: alice)
    #expect(try read(first, "a") == nil)
    try add(first, "a", "three")
    #expect(try read(second, "a") == "three")
  }

  @Test("a torn last index line, or a line naming a missing file, is rebuilt from the item files")
  func tornIndexIsRebuilt() throws {
    let folder = TemporaryFolder("keychain-index")
    let keychain = keychain(folder)
    for n in 0..<5 { try add(keychain, "item-\(n)") }
    let index = folder.path + "/keychain/alice/.index"
    let handle = try #require(FileHandle(forWritingAtPath: index))
    handle.seekToEndOfFile()
    handle.write(Data("+ 0123".utf8))
    handle.closeFile()
    #expect(throws: KeychainError.duplicateItem) { try add(keychain, "item-3") }
    #expect(try read(keychain, "item-4") == "s")
    let rebuilt = try String(contentsOfFile: index, encoding: .utf8)
    #expect(rebuilt.hasPrefix(KeychainIndex.header + "\n"))
    #expect(KeychainIndex.decode(Array(rebuilt.utf8))?.count == 5)

    // A crash after the journal line and before the item file: the index names a file that is not there.
    let phantom = String(repeating: "ab", count: 16)
    try (rebuilt + KeychainIndex.setLine(phantom, size: 10, key: "ff/ff/")).write(toFile: index, atomically: false, encoding: .utf8)
    let fresh = Keychain(root: folder.path, tcti: nil, limits: KeychainLimits(maxItems: 7))
    try add(fresh, "item-5")
    try add(fresh, "item-6")
    #expect(try fresh.items(for: alice).count == 7)
    #expect(throws: KeychainError.self) { try add(fresh, "item-7") }
  }
}
