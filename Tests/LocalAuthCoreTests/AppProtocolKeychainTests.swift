#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// The keychain calls of an app's session: what its evaluations establish opens its own reads only.
extension AppProtocolSessionTests {
  /// A world whose keychain lives in a temporary root-only folder.
  static func keychainFolder() throws -> (TempFolder, Keychain, TestWorld) {
    let folder = try TempFolder()
    let world = try TestWorld()
    return (folder, Keychain(root: folder.path, tcti: nil, clock: world.clock), world)
  }

  @Test("without a keychain, a keychain call is answered notAvailable")
  func noKeychain() throws {
    let world = try TestWorld()
    let run = try AppSessionRun(world: world)
    defer { run.finish() }
    var query = AppFields()
    query.set(Key.service, text: "notes")
    query.set(Key.returnData, flag: true)
    #expect(try run.call(AppCall(.keychainCopy, query)).reply == .keychain(.notAvailable("this system has no keychain")))
  }

  /// Adds a biometry-protected item "notes" holding "s3cret" in a session of its own.
  static func addProtectedItem(_ world: TestWorld, _ keychain: Keychain) throws {
    let run = try AppSessionRun(world: world, keychain: keychain)
    defer { run.finish() }
    var add = AppFields()
    add.set(Key.service, text: "notes")
    add.set(Key.account, text: "alice")
    add.set(Key.accessFlags, WireIntegers.bytes(UInt64(KeychainAccessFlags.biometryAny.rawValue)))
    add.set(Key.data, Array("s3cret".utf8))
    let added = try run.call(AppCall(.keychainAdd, add))
    #expect(added.reply == .done(AppFields()), "\(added.messages)")
    #expect(added.items.count == 1)
    #expect(added.items.first?.fields.bytes(Key.data) == nil, "an add returns no data")
    #expect(added.requests.isEmpty && added.secrets.isEmpty, "an add asks nothing")
  }

  static func read(ownInterface: Bool = true, interface: AppInterfaceMode? = nil) -> AppCall {
    var fields = AppFields()
    fields.set(Key.service, text: "notes")
    fields.set(Key.returnData, flag: true)
    fields.set(Key.ownInterface, flag: ownInterface)
    if let interface { fields.set(Key.interface, byte: interface.rawValue) }
    return AppCall(.keychainCopy, fields)
  }

  @Test("a biometry item is read after a finger in the session; the session keeps it, a new session asks again")
  func keychainReadAndReplay() throws {
    let (folder, keychain, world) = try Self.keychainFolder()
    defer { folder.remove() }
    try world.prime()
    try Self.addProtectedItem(world, keychain)

    let first = try AppSessionRun(world: world, keychain: keychain)
    world.present(world.genuine())
    let read = try first.call(Self.read())
    #expect(read.requests.count == 1, "the read asked for the finger: \(read.messages)")
    #expect(read.items.map { $0.fields.bytes(Key.data) } == [Array("s3cret".utf8)])
    #expect(read.reply == .done(AppFields()))
    let again = try first.call(Self.read())
    #expect(again.requests.isEmpty, "the session holds its match: \(again.messages)")
    #expect(again.items.map { $0.fields.bytes(Key.data) } == [Array("s3cret".utf8)])
    first.finish()

    // A new session (a new helper: another context, or the same app after a restart) holds nothing.
    let second = try AppSessionRun(world: world, keychain: keychain)
    defer { second.finish() }
    let replayed = try second.call(Self.read())
    #expect(replayed.requests.count == 1, "the new session asks for the finger again: \(replayed.messages)")
    #expect(replayed.items.isEmpty, "no data without a finger")
    guard case .keychain = replayed.reply else {
      Issue.record("not a keychain error: \(String(describing: replayed.reply))")
      return
    }
    // kSecUseAuthenticationUIFail: no prompt, interactionNotAllowed; Skip: the item is left out.
    #expect(try second.call(Self.read(interface: .fail)).reply == .keychain(.interactionNotAllowed))
    let skipped = try second.call(Self.read(interface: .skip))
    #expect(skipped.reply == .keychain(.itemNotFound) && skipped.requests.isEmpty)
  }

  @Test("an evaluation in the session authorizes its keychain reads; a failed one does not")
  func evaluationAuthorizesReads() throws {
    let (folder, keychain, world) = try Self.keychainFolder()
    defer { folder.remove() }
    try world.prime()
    try Self.addProtectedItem(world, keychain)
    let run = try AppSessionRun(world: world, keychain: keychain)
    defer { run.finish() }
    world.present(world.impostor(), world.impostor(), world.impostor())
    let failed = try run.call(Self.evaluate(.deviceOwnerAuthenticationWithBiometrics, ownInterface: true))
    #expect(failed.reply == .evaluation(.failure(.authenticationFailed, .none), AppFields()), "\(failed.messages)")
    let denied = try run.call(Self.read(interface: .fail))
    #expect(denied.reply == .keychain(.interactionNotAllowed) && denied.items.isEmpty)
    world.present(world.genuine())
    let matched = try run.call(Self.evaluate(.deviceOwnerAuthenticationWithBiometrics, ownInterface: true))
    guard case .evaluation(.success(.biometry), _) = matched.reply else {
      Issue.record("no match: \(String(describing: matched.reply))")
      return
    }
    let read = try run.call(Self.read(interface: .fail))
    #expect(read.items.map { $0.fields.bytes(Key.data) } == [Array("s3cret".utf8)])
  }

  @Test("a feature is enabled without authentication, and disabled only after an evaluation of the session")
  func features() throws {
    let world = try TestWorld(sensorPresent: false)
    try world.setPasscode()
    let run = try AppSessionRun(world: world)
    defer { run.finish() }
    func feature(_ enable: UInt8?) -> AppCall {
      var fields = AppFields()
      fields.set(Key.feature, text: "notes")
      if let enable { fields.set(Key.enable, byte: enable) }
      return AppCall(.feature, fields)
    }
    var on = AppFields()
    on.set(AppReply.Key.enabled, flag: true)
    #expect(try run.call(feature(nil)).reply == .done(AppFields()))
    #expect(try run.call(feature(1)).reply == .done(on))
    #expect(try run.call(feature(0)).reply == .keychain(.authenticationFailed))
    #expect(try world.record().features == ["notes"])
    #expect(try run.call(Self.evaluate(.deviceOwnerAuthentication), answers: [TestWorld.passcode]).reply
      == .evaluation(.success(.passcode), AppFields()))
    #expect(try run.call(feature(0)).reply == .done(AppFields()))
    #expect(try world.record().features.isEmpty)
    var bad = AppFields()
    bad.set(Key.feature, text: "../etc")
    #expect(try run.call(AppCall(.feature, bad)).reply == .fault(.protocolViolation))
    #expect(try run.call(AppCall(.endReuseWindow)).reply == .done(AppFields()))
    var password = AppFields()
    password.set(Key.password, text: "hunter2")
    #expect(try run.call(AppCall(.setApplicationPassword, password)).reply == .done(AppFields()))
  }
}

/// Issue 27, finding 11: an app's setApplicationPassword + keychainCopy pairs are guesses, counted and delayed on
/// rule 5's schedule per user; the clock is advanced, never slept.
extension AppProtocolSessionTests {
  static func setPassword(_ password: String) -> AppCall {
    var fields = AppFields()
    fields.set(Key.password, Array(password.utf8))
    return AppCall(.setApplicationPassword, fields)
  }

  @Test("five wrong application passwords through the helper: the sixth guess waits a minute, even the right one")
  func applicationPasswordGuessesAreDelayed() throws {
    let (folder, keychain, world) = try Self.keychainFolder()
    defer { folder.remove() }
    try world.prime()
    let run = try AppSessionRun(world: world, keychain: keychain)
    defer { run.finish() }
    #expect(try run.call(Self.setPassword("app-pass")).reply == .done(AppFields()))
    var add = AppFields()
    add.set(Key.service, text: "notes")
    add.set(Key.accessFlags, WireIntegers.bytes(UInt64(KeychainAccessFlags.applicationPassword.rawValue)))
    add.set(Key.data, Array("s3cret".utf8))
    #expect(try run.call(AppCall(.keychainAdd, add)).reply == .done(AppFields()))
    func guess(_ password: String) throws -> AppReply? {
      _ = try run.call(Self.setPassword(password))
      return try run.call(Self.read(interface: .fail)).reply
    }
    for n in 1...5 { #expect(try guess("wrong-\(n)") == .keychain(.authenticationFailed)) }
    #expect(try guess("app-pass") == .keychain(.authenticationFailed), "refused unchecked while the delay runs")
    #expect(try world.store.load(world.user)?.applicationPasswordFailures == 5)
    world.clock.advance(by: 60)
    let opened = try run.call(Self.read(interface: .fail))
    #expect(opened.reply == .done(AppFields()))
    #expect(opened.items.map { $0.fields.bytes(Key.data) } == [Array("s3cret".utf8)])
    #expect(try world.store.load(world.user)?.applicationPasswordFailures == 0)
  }
}
