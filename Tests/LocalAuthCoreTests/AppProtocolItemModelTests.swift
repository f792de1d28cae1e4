#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// Issue 28 through the helper: the item class, the other attributes (one encoded list), persistent references and
/// updates of any attribute reach the privileged side and come back (docs/HELPER.md, "Apps").
extension AppProtocolSessionTests {
  static func internetFields(port: Int64, account: String = "alice") -> AppFields {
    var fields = AppFields()
    fields.set(Key.account, text: account)
    fields.set(Key.itemClass, text: "inet")
    var attributes = KeychainAttributes()
    attributes["srvr"] = .text("example.com")
    attributes["ptcl"] = .text("htps")
    attributes["port"] = .number(port)
    attributes["icmt"] = .text("note")
    fields.set(Key.attributes, attributes.encode())
    return fields
  }

  @Test("an internet password's attributes, class and reference survive the helper; uniqueness and updates hold")
  func itemModelThroughHelper() throws {
    let (folder, keychain, world) = try Self.keychainFolder()
    defer { folder.remove() }
    try world.prime()
    let run = try AppSessionRun(world: world, keychain: keychain)
    defer { run.finish() }
    var add = Self.internetFields(port: 443)
    add.set(Key.data, Array("pw".utf8))
    let added = try run.call(AppCall(.keychainAdd, add))
    #expect(added.reply == .done(AppFields()), "\(added.messages)")
    #expect(try run.call(AppCall(.keychainAdd, add)).reply == .keychain(.duplicateItem))
    var other = Self.internetFields(port: 8443)
    other.set(Key.data, Array("other".utf8))
    #expect(try run.call(AppCall(.keychainAdd, other)).reply == .done(AppFields()))

    var copy = Self.internetFields(port: 443)
    copy.set(Key.returnData, flag: true)
    copy.set(Key.returnAttributes, flag: true)
    let found = try run.call(AppCall(.keychainCopy, copy))
    #expect(found.reply == .done(AppFields()))
    let item = try #require(found.items.first)
    #expect(found.items.count == 1)
    #expect(try item.fields.text(Key.itemClass) == "inet")
    let attributes = try #require(item.fields.bytes(Key.attributes).flatMap { KeychainAttributes.decode($0) })
    #expect(attributes["srvr"] == .text("example.com") && attributes["port"] == .number(443) && attributes["icmt"] == .text("note"))
    #expect(item.fields.bytes(Key.data) == Array("pw".utf8))
    let reference = try #require(item.fields.bytes(Key.reference))

    // An update of the primary key that collides is a duplicate; one that does not moves the item.
    var update = AppFields()
    update.set(Key.reference, reference)
    var collide = KeychainAttributes()
    collide["port"] = .number(8443)
    var clash = update
    clash.set(Key.newAttributes, collide.encode())
    #expect(try run.call(AppCall(.keychainUpdate, clash)).reply == .keychain(.duplicateItem))
    var move = update
    collide["port"] = .number(9443)
    move.set(Key.newAttributes, collide.encode())
    move.set(Key.newAccount, text: "bob")
    #expect(try run.call(AppCall(.keychainUpdate, move)).reply == .done(AppFields()))
    var byReference = update
    byReference.set(Key.returnData, flag: true)
    byReference.set(Key.returnAttributes, flag: true)
    let moved = try run.call(AppCall(.keychainCopy, byReference))
    #expect(try moved.items.first?.fields.text(Key.account) == "bob")
    #expect(moved.items.first?.fields.bytes(Key.data) == Array("pw".utf8))
    #expect(try run.call(AppCall(.keychainDelete, update)).reply == .done(AppFields()))
    #expect(try run.call(AppCall(.keychainCopy, byReference)).reply == .keychain(.itemNotFound))
  }

  @Test("an attribute list with an unknown name, a wrong kind or a truncated entry is a protocol fault")
  func malformedAttributeLists() throws {
    #expect(KeychainAttributes.decode([4] + Array("zzzz".utf8) + [0x74, 0, 0]) == nil)
    #expect(KeychainAttributes.decode([4] + Array("port".utf8) + [0x74, 0, 1, 0x31]) == nil)
    #expect(KeychainAttributes.decode([4] + Array("srvr".utf8) + [0x74, 0, 5, 0x31]) == nil)
    var twice = KeychainAttributes()
    twice["srvr"] = .text("a")
    #expect(KeychainAttributes.decode(twice.encode() + twice.encode()) == nil)
    #expect(KeychainAttributes.decode(twice.encode()) == twice)
    var fields = AppFields()
    fields.set(Key.attributes, [4] + Array("zzzz".utf8) + [0x74, 0, 0])
    #expect(throws: HelperProtocolError.self) { try Keychain.Query(decoding: fields) }
    var reference = AppFields()
    reference.set(Key.reference, [1, 2, 3])
    #expect(throws: HelperProtocolError.self) { try Keychain.Query(decoding: reference) }
  }
}
