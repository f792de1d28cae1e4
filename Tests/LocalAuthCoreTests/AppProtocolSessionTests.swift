#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// localauth-helper's side of an app's session, in this process over a socket pair with the test doubles: the
/// calls an LAContext makes, what a session holds and what a new one does not, and the app that breaks the
/// protocol or hands its socket to another process.
@Suite("App protocol: the session")
struct AppProtocolSessionTests {
  typealias Key = AppCall.Key

  /// canEvaluate's and domainState's values in a world without a sensor: biometry type 0 (none).
  static let noBiometry: AppFields = {
    var fields = AppFields()
    fields.set(AppReply.Key.biometryType, byte: 0)
    return fields
  }()

  /// An evaluate call: `policy`, a reason, and (with `ownInterface`) the app showing the request itself, so that
  /// the finger is asked without a terminal in the foreground (docs/RULES.md, "Intent").
  static func evaluate(_ policy: AuthPolicy, ownInterface: Bool = false) -> AppCall {
    var fields = AppFields()
    fields.set(Key.policy, byte: UInt8(policy.rawValue))
    fields.set(Key.reason, text: "open the test")
    fields.set(Key.ownInterface, flag: ownInterface)
    return AppCall(.evaluate, fields)
  }

  static func canEvaluate(_ policy: AuthPolicy) -> AppCall {
    var fields = AppFields()
    fields.set(Key.policy, byte: UInt8(policy.rawValue))
    return AppCall(.canEvaluate, fields)
  }

  /// A world whose keychain lives in a temporary root-only folder.
  static func keychainFolder() throws -> (TempFolder, Keychain, TestWorld) {
    let folder = try TempFolder()
    let world = try TestWorld()
    return (folder, Keychain(root: folder.path, tcti: nil, clock: world.clock), world)
  }

  @Test("the first message decides: an app hello on a socket without credentials is refused, with one")
  func helloNeedsCredentials() throws {
    let world = try TestWorld(sensorPresent: false)
    try world.setPasscode()
    for passCredentials in [false, true] {
      var fds: [Int32] = [-1, -1]
      #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
      if passCredentials { AppSessionRun.passCredentials(fds[0]) }
      nonisolated(unsafe) let service = HelperService(
        channel: HelperChannel(fd: fds[0], sender: passCredentials ? getpid() : nil), realUserName: "alice",
        callerPID: getppid(), log: world.log)
      nonisolated(unsafe) var result: HelperResult?? = .none
      let done = DispatchSemaphore(value: 0)
      nonisolated(unsafe) let world = world
      Thread.detachNewThread {
        result = .some(service.serve(
          options: { () throws(ConfigError) in
            var options = Options()
            options.evaluation = world.settings
            return options
          }, userExists: { $0 == "alice" }, dependencies: { _, prompter, log in
            Dependencies(clock: world.clock, store: world.store, sensor: world.sensor, prompter: prompter, log: log)
          }))
        done.signal()
      }
      let app = HelperChannel(fd: fds[1])
      try app.send(.appHello)
      try app.send(.call(Self.canEvaluate(.deviceOwnerAuthentication)))
      if passCredentials {
        #expect(try app.receive(within: 10) == .reply(.done(Self.noBiometry)))
        app.close()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(result == .some(nil), "an app's session returns no module result")
      } else {
        #expect(try app.receive(within: 10) == .reply(.fault(.protocolViolation)))
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(result == .some(.fault(.protocolViolation)))
        #expect(world.log.lines.contains { $0.contains("whose socket does not pass credentials") }, "\(world.log.lines)")
        app.close()
      }
      close(fds[0])
    }
  }

  @Test("canEvaluate: refused without a passcode or an enrolled finger, with the biometry type; done once set")
  func canEvaluate() throws {
    let world = try TestWorld()
    let run = try AppSessionRun(world: world)
    defer { run.finish() }
    var touchID = AppFields()
    touchID.set(AppReply.Key.biometryType, byte: UInt8(Modality.touchID.biometryTypeRawValue))
    #expect(try run.call(Self.canEvaluate(.deviceOwnerAuthentication)).reply == .refused(.passcodeNotSet, touchID))
    try world.setPasscode()
    #expect(try run.call(Self.canEvaluate(.deviceOwnerAuthentication)).reply == .done(touchID))
    #expect(try run.call(Self.canEvaluate(.deviceOwnerAuthenticationWithBiometrics)).reply == .refused(.biometryNotEnrolled, touchID))
    try world.enroll()
    var withState = touchID
    withState.set(AppReply.Key.domainState, text: try #require(try world.record().domainState))
    #expect(try run.call(Self.canEvaluate(.deviceOwnerAuthenticationWithBiometrics)).reply == .done(withState))
    // A call the decoder accepts but that names no known policy: a protocol fault, and the session goes on.
    #expect(try run.call(AppCall(.canEvaluate)).reply == .fault(.protocolViolation))
    var three = AppFields()
    three.set(Key.policy, byte: 3)
    #expect(try run.call(AppCall(.canEvaluate, three)).reply == .fault(.protocolViolation))
    #expect(try run.call(AppCall(.domainState)).reply == .done(withState))
  }

  @Test("evaluate by passcode: a wrong one fails and is counted, the right one succeeds and clears the count")
  func evaluatePasscode() throws {
    let world = try TestWorld(sensorPresent: false)
    try world.setPasscode()
    let run = try AppSessionRun(world: world)
    defer { run.finish() }
    let wrong = try run.call(Self.evaluate(.deviceOwnerAuthentication), answers: ["9999"])
    #expect(wrong.secrets == ["Enter Passcode: "], "\(wrong.messages)")
    #expect(wrong.reply == .evaluation(.failure(.authenticationFailed, .none), AppFields()))
    #expect(try world.record().passcodeFailures == 1)
    let right = try run.call(Self.evaluate(.deviceOwnerAuthentication), answers: [TestWorld.passcode])
    #expect(right.reply == .evaluation(.success(.passcode), AppFields()), "no domain state is captured by a passcode")
    #expect(try world.record().passcodeFailures == 0)
    // Cancelled at the prompt: a failure, nothing counted.
    let cancelled = try run.call(Self.evaluate(.deviceOwnerAuthentication), answers: [])
    #expect(cancelled.reply != .evaluation(.success(.passcode), AppFields()))
    #expect(try world.record().passcodeFailures == 0)
  }

  @Test("evaluate by finger: the request is sent, a match succeeds and captures the domain state; no finger fails")
  func evaluateFinger() throws {
    let world = try TestWorld()
    try world.prime()
    let run = try AppSessionRun(world: world)
    defer { run.finish() }
    world.present(world.genuine())
    let matched = try run.call(Self.evaluate(.deviceOwnerAuthenticationWithBiometrics, ownInterface: true))
    #expect(matched.requests.count == 1, "\(matched.messages)")
    var captured = AppFields()
    captured.set(AppReply.Key.captured, flag: true)
    captured.set(AppReply.Key.domainState, text: try #require(try world.record().domainState))
    #expect(matched.reply == .evaluation(.success(.biometry), captured))
    // Nothing presented: the sensor times out (systemCancel), never a success.
    let none = try run.call(Self.evaluate(.deviceOwnerAuthenticationWithBiometrics, ownInterface: true))
    guard case .evaluation(.failure(let code, _), _) = none.reply else {
      Issue.record("not a failed evaluation: \(String(describing: none.reply))")
      return
    }
    #expect(code == .systemCancel)
  }

  @Test("a reason with control characters, or none, is refused before anything is asked or counted")
  func badReasons() throws {
    let world = try TestWorld(sensorPresent: false)
    try world.setPasscode()
    let run = try AppSessionRun(world: world)
    defer { run.finish() }
    for reason in ["\u{1b}[2J\u{1b}[H Enter your password", "line\nbreak", "\u{7f}"] {
      var fields = AppFields()
      fields.set(Key.policy, byte: 2)
      fields.set(Key.reason, text: reason)
      let answer = try run.call(AppCall(.evaluate, fields), answers: ["9999"])
      #expect(answer.reply == .fault(.protocolViolation), "\(reason.debugDescription)")
      #expect(answer.secrets.isEmpty)
    }
    var noReason = AppFields()
    noReason.set(Key.policy, byte: 2)
    let answer = try run.call(AppCall(.evaluate, noReason), answers: ["9999"])
    #expect(answer.secrets.isEmpty)
    guard case .fault = answer.reply else {
      Issue.record("not a fault: \(String(describing: answer.reply))")
      return
    }
    #expect(try world.record().passcodeFailures == 0)
  }

  /// Streams that break the protocol at the wire: each gets one protocol-fault reply, ends the session, and
  /// nothing is evaluated.
  static let wireRefusals: [(bytes: [UInt8], why: String)] = [
    ([0x05, 0x00, 0x08] + AppProtocolTests.rawCall(2, [(Key.policy, [2]), (99, [])]), "a call with field 99"),
    ([0x05, 0x00, 0x0a] + AppProtocolTests.rawCall(2, [(Key.policy, [2]), (Key.service, [0x61, 0x62])]),
     "an evaluate with a keychain field"),
    ([0x05, 0xff, 0xff], "a call of 65535 bytes"),
    ([0x04, 0xff, 0xff], "an app hello of 65535 bytes"),
    ([0x7f, 0x00, 0x00], "an unknown tag"),
    (HelperMessage.appHello.encode(), "a second app hello"),
    (HelperMessage.answer(Array("1234".utf8)).encode(), "an answer nobody asked for"),
    (HelperMessage.hello(HelperHello(user: "root", service: "su", tty: "", remoteHost: "")).encode(), "a module hello"),
    (HelperMessage.reply(.evaluation(.success(.biometry), AppFields())).encode(), "a reply sent to the helper"),
    (HelperMessage.item(AppItem(fields: AppFields())).encode(), "an item sent to the helper"),
  ]

  @Test("a malformed or out-of-turn message ends the session with a protocol fault; nothing is evaluated")
  func wireRefusalsEndTheSession() throws {
    for (bytes, why) in Self.wireRefusals {
      let world = try TestWorld(sensorPresent: false)
      try world.setPasscode()
      let run = try AppSessionRun(world: world)
      defer { run.finish() }
      #expect(try run.call(Self.canEvaluate(.deviceOwnerAuthentication)).reply == .done(Self.noBiometry), "\(why)")
      try run.sendRaw(bytes)
      let left = run.drain()
      #expect(left == [.reply(.fault(.protocolViolation))], "\(why)")
      #expect(run.ended(within: 5), "\(why): the session goes on")
      #expect(try world.record().passcodeFailures == 0)
      #expect(!world.log.lines.contains { $0.contains("Wrong passcode") })
    }
  }

  @Test("at a secret prompt, a malformed or out-of-turn message ends the session: what follows it is never served")
  func wireRefusalsAtThePrompt() throws {
    let next = HelperMessage.call(Self.canEvaluate(.deviceOwnerAuthentication)).encode()
    let cases: [(bytes: [UInt8], why: String)] = [
      // The header is refused: the payload behind it would be read as frames of their own, out of step.
      ([0x7f, 0x00, 0x03] + Array("abc".utf8), "an unknown tag"),
      ([0x02, 0xff, 0xff], "an answer of 65535 bytes"),
      (next, "a call instead of the answer"),
      (HelperMessage.appHello.encode(), "a second app hello"),
    ]
    for (bytes, why) in cases {
      let world = try TestWorld(sensorPresent: false)
      try world.setPasscode()
      let run = try AppSessionRun(world: world)
      defer { run.finish() }
      try run.app.send(.call(Self.evaluate(.deviceOwnerAuthentication)))
      #expect(try run.app.receive(within: 10) == .secret("Enter Passcode: "), "\(why)")
      try run.sendRaw(bytes + next)
      #expect(run.drain() == [.reply(.fault(.protocolViolation))], "\(why): one fault, and the call after it not served")
      #expect(run.ended(within: 5), "\(why)")
      #expect(try world.record().passcodeFailures == 0, "\(why)")
    }
  }

  @Test("another process that answers the app's secret prompt ends the session; the app's next call is not served")
  func anotherProcessAtThePrompt() throws {
    let python = "/usr/bin/python3"
    guard FileManager.default.isExecutableFile(atPath: python) else { return }
    // A frame of a header only (an empty cancel): read whole as the answer's header, from the other process.
    for bytes: [[UInt8]] in [[[0x03, 0x00, 0x00]], [HelperMessage.answer(Array("1234".utf8)).encode()]] {
      let world = try TestWorld(sensorPresent: false)
      try world.setPasscode()
      let run = try AppSessionRun(world: world)
      defer { run.finish() }
      try run.app.send(.call(Self.evaluate(.deviceOwnerAuthentication)))
      #expect(try run.app.receive(within: 10) == .secret("Enter Passcode: "))
      let child = Process()
      child.executableURL = URL(fileURLWithPath: python)
      child.arguments = ["-c", "import os, sys; os.write(0, bytes.fromhex(sys.argv[1]))",
        bytes[0].map { String(format: "%02x", $0) }.joined()]
      child.standardInput = FileHandle(fileDescriptor: run.app.fd, closeOnDealloc: false)
      try child.run()
      child.waitUntilExit()
      try? run.app.send(.call(Self.canEvaluate(.deviceOwnerAuthentication)))
      #expect(run.drain() == [.reply(.fault(.protocolViolation))], "\(bytes[0])")
      #expect(run.ended(within: 5))
      let record = try world.record()
      #expect(record.passcodeFailures == 0 && record.lastPasscodeSuccess == nil, "\(bytes[0])")
    }
  }

  @Test("a truncated frame or an app that hangs up ends the session without a reply")
  func truncated() throws {
    for bytes: [UInt8] in [[0x05, 0x00, 0x10, 2, 1, 0], [0x05, 0x00], [0x05], []] {
      let world = try TestWorld(sensorPresent: false)
      let run = try AppSessionRun(world: world)
      defer { run.finish() }
      try run.sendRaw(bytes)
      shutdown(run.app.fd, Int32(SHUT_WR))
      #expect(run.drain() == [], "\(bytes)")
      #expect(run.ended(within: 5), "\(bytes)")
    }
  }

  @Test("bytes from another process, or without the sender's credentials, end the session; nothing is served")
  func anotherProcess() throws {
    let python = "/usr/bin/python3"
    let world = try TestWorld(sensorPresent: false)
    try world.setPasscode()
    if FileManager.default.isExecutableFile(atPath: python) {
      let run = try AppSessionRun(world: world)
      defer { run.finish() }
      #expect(try run.call(Self.canEvaluate(.deviceOwnerAuthentication)).reply == .done(Self.noBiometry))
      // A child that inherited the app's socket sends a well-formed call: the kernel names the child.
      let frame = HelperMessage.call(Self.evaluate(.deviceOwnerAuthentication)).encode()
      let child = Process()
      child.executableURL = URL(fileURLWithPath: python)
      child.arguments = ["-c", "import os, sys; os.write(0, bytes.fromhex(sys.argv[1])); print(os.getpid())",
        frame.map { String(format: "%02x", $0) }.joined()]
      child.standardInput = FileHandle(fileDescriptor: run.app.fd, closeOnDealloc: false)
      let output = Pipe()
      child.standardOutput = output
      try child.run()
      child.waitUntilExit()
      let pid = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
      let left = run.drain()
      #expect(left == [.reply(.fault(.protocolViolation))], "no secret prompt, no evaluation")
      #expect(run.ended(within: 5))
      #expect(world.log.lines.contains { $0.contains("bytes from another process (pid \(pid))") }, "\(world.log.lines)")
    }
    // SO_PASSCRED not set on the helper's end: the kernel attaches no credentials, and nothing is taken.
    let blind = try AppSessionRun(world: world, passCredentials: false)
    defer { blind.finish() }
    try blind.app.send(.call(Self.canEvaluate(.deviceOwnerAuthentication)))
    #expect(blind.drain() == [.reply(.fault(.protocolViolation))])
    #expect(blind.ended(within: 5))
    #expect(world.log.lines.contains { $0.contains("bytes without the sender's credentials") }, "\(world.log.lines)")
  }

  @Test("a channel that expects another sender refuses this process's bytes")
  func channelSender() throws {
    var fds: [Int32] = [-1, -1]
    #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
    defer { close(fds[0]); close(fds[1]) }
    AppSessionRun.passCredentials(fds[0])
    let writer = HelperChannel(fd: fds[1])
    try writer.send(.appHello)
    try writer.send(.appHello)
    #expect(try HelperChannel(fd: fds[0], sender: getpid()).receive(within: 5) == .appHello)
    #expect(throws: HelperProtocolError.malformed("bytes from another process (pid \(getpid()))")) {
      try HelperChannel(fd: fds[0], sender: getppid()).receive(within: 5)
    }
  }

  // MARK: Keychain

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
    add.set(Key.accessFlags, AppItem.bigEndian(UInt64(KeychainAccessFlags.biometryAny.rawValue)))
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

/// One app session in this process: `AppSession.run` on one end of a socket pair, on a thread of its own, and
/// the test as the app on the other end.
///
/// The session checks that its caller is still its parent (`getppid()`), as the helper's caller is; here that
/// is this process's parent, while the bytes come from this process, which the channel's `sender` names.
final class AppSessionRun: @unchecked Sendable {
  /// The app's end.
  let app: HelperChannel
  private let done = DispatchSemaphore(value: 0)
  private var hasEnded = false

  /// Asks the kernel to name the sender of what `fd` receives (SO_PASSCRED).
  static func passCredentials(_ fd: Int32) {
    var on: Int32 = 1
    #expect(setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, socklen_t(MemoryLayout<Int32>.size)) == 0)
  }

  init(world: TestWorld, keychain: Keychain? = nil, passCredentials: Bool = true) throws {
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
      throw HelperProtocolError.io(errno)
    }
    if passCredentials { Self.passCredentials(fds[0]) }
    app = HelperChannel(fd: fds[1])
    var options = Options()
    options.evaluation = world.settings
    nonisolated(unsafe) let world = world
    nonisolated(unsafe) let session = AppSession(
      channel: HelperChannel(fd: fds[0], sender: getpid()), user: world.user, callerPID: getppid(), options: options,
      log: world.log,
      build: { _, prompter, log in
        Dependencies(
          clock: world.clock, store: world.store, sensor: world.sensor, prompter: prompter, log: log,
          matcher: world.matcher, keychain: keychain)
      })
    let done = self.done
    let helperEnd = fds[0]
    Thread.detachNewThread {
      session.run()
      // As the helper's exit would: the app then reads the end of the stream.
      close(helperEnd)
      done.signal()
    }
  }

  /// What one call brought back.
  struct Answer {
    /// Every message before the reply (lines, prompts, items).
    var messages: [HelperMessage] = []
    /// The reply, or nil when the session ended without one.
    var reply: AppReply?
    var secrets: [String] { messages.compactMap { if case .secret(let text) = $0 { text } else { nil } } }
    var requests: [String] { messages.compactMap { if case .request(let text) = $0 { text } else { nil } } }
    var items: [AppItem] { messages.compactMap { if case .item(let item) = $0 { item } else { nil } } }
  }

  /// Sends `call` and reads until its reply, answering secret prompts from `answers` in order (cancelling once
  /// they run out).
  func call(_ call: AppCall, answers: [String] = []) throws -> Answer {
    try app.send(.call(call))
    var answers = answers
    var answer = Answer()
    while true {
      let message: HelperMessage
      do { message = try app.receive(within: 20) } catch {
        // The session ended without a reply (it closed its end); anything else fails the test.
        guard error == .closed else { throw error }
        return answer
      }
      if case .reply(let reply) = message {
        answer.reply = reply
        return answer
      }
      answer.messages.append(message)
      if case .secret = message {
        try app.send(answers.isEmpty ? .cancel(again: false) : .answer(Array(answers.removeFirst().utf8)))
      }
    }
  }

  /// Sends bytes as they are.
  func sendRaw(_ bytes: [UInt8]) throws {
    guard !bytes.isEmpty else { return }
    let sent = bytes.withUnsafeBytes { send(app.fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
    guard sent == bytes.count else { throw HelperProtocolError.io(errno) }
  }

  /// Every message the session sends until it closes its end or stays silent for 5 s.
  func drain() -> [HelperMessage] {
    var messages: [HelperMessage] = []
    while let message = try? app.receive(within: 5) { messages.append(message) }
    return messages
  }

  /// True when the session ended within `seconds`, without the app hanging up.
  func ended(within seconds: Int) -> Bool {
    if hasEnded { return true }
    hasEnded = done.wait(timeout: .now() + .seconds(seconds)) == .success
    return hasEnded
  }

  /// Hangs up and waits for the session to end.
  func finish() {
    shutdown(app.fd, Int32(SHUT_RDWR))
    if !hasEnded { #expect(done.wait(timeout: .now() + 20) == .success, "the session did not end after the app hung up") }
    hasEnded = true
    app.close()
  }
}
