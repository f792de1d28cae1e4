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

  @Test("the first message decides: an app hello on a socket without credentials is refused, with one")
  func helloNeedsCredentials() throws {
    let world = try TestWorld(sensorPresent: false)
    try world.setPasscode()
    for passCredentials in [false, true] {
      let run = try HelperServiceRun(world: world, realUserName: "alice", passCredentials: passCredentials)
      defer { run.hangUp() }
      try run.app.send(.appHello(version: HelperWire.version))
      try run.app.send(.call(Self.canEvaluate(.deviceOwnerAuthentication)))
      if passCredentials {
        #expect(try run.app.receive(within: 10) == .reply(.done(Self.noBiometry)))
        #expect(run.hangUp() == .some(nil), "an app's session returns no module result")
      } else {
        #expect(try run.app.receive(within: 10) == .reply(.fault(.protocolViolation)))
        #expect(run.result() == .some(.fault(.protocolViolation)))
        #expect(world.log.lines.contains { $0.contains("whose socket does not pass credentials") }, "\(world.log.lines)")
      }
    }
  }

  @Test("an app whose uid has no passwd entry: a version 3 app is told unknownUser, a version 2 app stateUnreadable")
  func noPasswdEntry() throws {
    let world = try TestWorld(sensorPresent: false)
    try world.setPasscode()
    for (version, fault) in [(UInt16(3), HelperFault.unknownUser), (2, .stateUnreadable)] {
      let run = try HelperServiceRun(world: world, realUserName: nil, engineAllowed: false)
      defer { run.hangUp() }
      try run.app.send(.appHello(version: version))
      #expect(try run.app.receive(within: 10) == .reply(.fault(fault)), "version \(version)")
      #expect(run.result() == .some(.fault(fault)), "version \(version)")
    }
    let refusals = world.log.lines.filter { $0.contains("of uid \(getuid()), which has no usable passwd entry.") }
    #expect(refusals.count == 2, "\(world.log.lines)")
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
    #expect(answer.reply == .fault(.protocolViolation), "the caller's mistake, not a damaged state")
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
    (HelperMessage.appHello(version: HelperWire.version).encode(), "a second app hello"),
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
      (HelperMessage.appHello(version: HelperWire.version).encode(), "a second app hello"),
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
    try writer.send(.appHello(version: HelperWire.version))
    try writer.send(.appHello(version: HelperWire.version))
    #expect(try HelperChannel(fd: fds[0], sender: getpid()).receive(within: 5) == .appHello(version: HelperWire.version))
    #expect(throws: HelperProtocolError.malformed("bytes from another process (pid \(getpid()))")) {
      try HelperChannel(fd: fds[0], sender: getppid()).receive(within: 5)
    }
  }
}
