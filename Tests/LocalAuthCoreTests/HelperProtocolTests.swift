#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// localauth-helper's protocol (docs/HELPER.md): every message survives the wire, and whatever the caller sends
/// that the protocol does not allow is refused before it reaches the engine.
@Suite("Helper protocol")
struct HelperProtocolTests {
  static func roundTrip(_ message: HelperMessage) throws -> HelperMessage {
    let bytes = message.encode()
    let length = try #require(HelperMessage.payloadLength(header: Array(bytes.prefix(3))))
    #expect(length == bytes.count - 3)
    return try HelperMessage.decode(tag: bytes[0], payload: Array(bytes.dropFirst(3)))
  }

  @Test("every message kind and every result decodes to itself")
  func roundTrips() throws {
    var messages: [HelperMessage] = [
      .hello(HelperHello(user: "alice", service: "vlock", tty: "/dev/pts/3", remoteHost: "")),
      .hello(HelperHello(
        user: "alice", service: "swaylock", tty: "", remoteHost: "10.0.0.1",
        remoteVariables: ["SSH_CONNECTION": "10.0.0.1 5 10.0.0.2 22", "SSH_TTY": "/dev/pts/9"])),
      .answer(Array("1234".utf8)), .answer([]), .cancel(again: true), .cancel(again: false),
      .info("Place your finger on the sensor."), .error("Wrong passcode."), .request("Touch"), .secret("Enter Passcode: "),
      .result(.otherUser), .result(.decided(.doesNotApply(featureNotEnabled: true))),
      .result(.decided(.doesNotApply(featureNotEnabled: false))),
    ]
    for method in [AuthMethod.biometry, .passcode, .reuse] { messages.append(.result(.decided(.evaluated(.success(method))))) }
    let details: [FailureDetail] = [
      .none, .passcodeDelayed(until: WallTime(seconds: 1_795_000_000)), .biometryLockedOut(failures: 5),
      .passcodeRequired(.reboot), .passcodeRequired(.enrollmentChange), .passcodeRequired(.lockout), .remoteSession,
      .fallbackChosen, .requestNotVisible,
    ]
    for code in AuthErrorCode.allCases {
      for detail in details { messages.append(.result(.decided(.evaluated(.failure(code, detail))))) }
    }
    for fault in HelperFault.allCases { messages.append(.result(.fault(fault))) }
    for message in messages { #expect(try Self.roundTrip(message) == message) }
  }

  @Test("a header announcing more than 1024 bytes is refused before anything is read")
  func oversizedHeader() {
    #expect(HelperMessage.payloadLength(header: [0x02, 0x04, 0x00]) == 1024)
    #expect(HelperMessage.payloadLength(header: [0x02, 0x04, 0x01]) == nil)
    #expect(HelperMessage.payloadLength(header: [0x02, 0xff, 0xff]) == nil)
  }

  /// Tag and payload pairs the protocol does not allow.
  static let malformedMessages: [(tag: UInt8, payload: [UInt8], why: String)] = [
    (0x7f, [], "unknown tag"),
    (0x01, [0, 1] + Array("alice\0s\0t\0".utf8), "another version"),
    (0x01, Array("localauth-helper 1\0alice\0s\0t\0".utf8), "version 1's text opening"),
    (0x01, [0], "a hello shorter than its version"),
    (0x01, HelperWire.versionBytes + Array("\0s\0t\0".utf8), "no user"),
    (0x01, HelperWire.versionBytes + Array("alice\0s\0t".utf8), "too few fields"),
    (0x01, HelperWire.versionBytes + Array("alice\0s\0t\0\0LD_PRELOAD=/tmp/x.so".utf8), "not an SSH_* variable"),
    (0x01, HelperWire.versionBytes + Array("alice\0s\0t\0\0SSH_TTY=a\0SSH_TTY=b".utf8), "a variable twice"),
    (0x01, HelperWire.versionBytes + Array("alice\0s\0t\0\0SSH_TTY".utf8), "a variable without '='"),
    (0x02, [UInt8](repeating: 0x31, count: 512), "an answer over the passcode limit"),
    (0x03, [], "cancel without its flag"), (0x03, [2], "cancel with a bad flag"), (0x03, [0, 0], "cancel too long"),
    (0x11, Array("\u{1b}[2J cleared".utf8), "a control character in a line"),
    (0x1f, [], "an empty result"), (0x1f, [0, 9], "an unknown method"), (0x1f, [1, 0, 0, 0, 200, 0], "an unknown code"),
    (0x1f, [1, 0xff, 0xff, 0xff, 0xff, 1, 0], "a short delay"), (0x1f, [1, 0, 0], "a code shorter than 4 bytes"), (0x1f, [4, 0], "an unknown fault"), (0x1f, [4, 9], "a fault after the last"), (0x1f, [3, 0], "a long refusal"),
  ]

  @Test("malformed messages are refused")
  func malformed() {
    for (tag, payload, why) in Self.malformedMessages {
      #expect(throws: HelperProtocolError.self, "\(why)") { try HelperMessage.decode(tag: tag, payload: payload) }
    }
  }

  @Test("a hello field over 256 bytes is refused; a long line is cut on a character boundary")
  func limits() throws {
    let long = String(repeating: "a", count: 257)
    let payload = HelperWire.versionBytes + Array((long + "\0s\0t\0").utf8)
    #expect(throws: HelperProtocolError.self) { try HelperMessage.decode(tag: 0x01, payload: payload) }
    let line = String(repeating: "é", count: 600)  // 1200 bytes
    guard case .info(let cut) = try Self.roundTrip(.info(line)) else { Issue.record("not an info line"); return }
    #expect(cut.utf8.count == 1024)
    #expect(cut == String(repeating: "é", count: 512))
  }
}

/// The helper's side in-process, over a socket pair: it authenticates its own user only, refuses a caller that
/// breaks the protocol, and runs the same engine as the module.
@Suite("Helper service")
struct HelperServiceTests {
  /// A store that records every access: "nothing was read" is then a fact, not a hope.
  final class WatchedStore: StateStore, @unchecked Sendable {
    let inner = InMemoryStateStore()
    private(set) var accesses = 0
    func load(_ user: UserName) throws(LocalAuthError) -> UserRecord? {
      accesses += 1
      return try inner.load(user)
    }
    func modify(_ user: UserName, _ body: (inout UserRecord) throws(LocalAuthError) -> Void) throws(LocalAuthError) {
      accesses += 1
      try inner.modify(user, body)
    }
    func remove(_ user: UserName) throws(LocalAuthError) { try inner.remove(user) }
    func users() throws(LocalAuthError) -> [UserName] { try inner.users() }
  }

  /// Runs the service on one end of a socket pair on its own thread; `caller` talks on the other end.
  static func serve(
    world: TestWorld, store: WatchedStore, realUser: String? = "alice", caller: (HelperChannel) throws -> Void
  ) throws -> HelperResult {
    var fds: [Int32] = [-1, -1]
    #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
    nonisolated(unsafe) let service = HelperService(
      channel: HelperChannel(fd: fds[0]), realUserName: realUser, callerPID: getpid(), log: world.log)
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: HelperResult?
    let settings = world.settings
    nonisolated(unsafe) let world = world
    Thread.detachNewThread {
      result = service.serve(
        options: { () throws(ConfigError) in
          var options = Options()
          options.evaluation = settings
          return options
        },
        userExists: { $0 == "alice" || $0 == "bob" },
        dependencies: { _, prompter, log in
          Dependencies(clock: world.clock, store: store, sensor: world.sensor, prompter: prompter, log: log)
        })
      done.signal()
    }
    let channel = HelperChannel(fd: fds[1])
    defer { channel.close() }
    try caller(channel)
    #expect(done.wait(timeout: .now() + 20) == .success)
    close(fds[0])
    return try #require(result)
  }

  static func prime(_ world: TestWorld, _ store: WatchedStore) throws {
    try Administration(store: store, clock: world.clock, settings: world.settings)
      .setPasscode(SecretBytes(TestWorld.passcode), for: try UserName("alice"))
  }

  @Test("a request for another user is refused without touching the state")
  func otherUser() throws {
    let world = try TestWorld(sensorPresent: false)
    let store = WatchedStore()
    try Self.prime(world, store)
    let before = store.accesses
    let result = try Self.serve(world: world, store: store) { channel in
      try channel.send(.hello(HelperHello(user: "bob", service: "vlock", tty: "", remoteHost: "")))
      #expect(try channel.receive(within: 5) == .result(.otherUser))
    }
    #expect(result == .otherUser)
    #expect(store.accesses == before)
  }

  @Test("a version 1 peer, module or app, gets the fault result every version decodes")
  func otherVersionPeers() throws {
    let world = try TestWorld(sensorPresent: false)
    let store = WatchedStore()
    try Self.prime(world, store)
    let before = store.accesses
    let frames: [(bytes: [UInt8], answer: [UInt8])] = [
      ([0x01, 0, 29] + Array("localauth-helper 1\0alice\0s\0t\0".utf8), [0x1f, 0, 2, 4, 7]),
      ([0x04, 0, 15] + Array("localauth-app 1".utf8), [0x1f, 0, 2, 4, 7]),
    ]
    for (bytes, answer) in frames {
      let result = try Self.serve(world: world, store: store) { channel in
        #expect(bytes.withUnsafeBytes { send(channel.fd, $0.baseAddress!, $0.count, 0) } == bytes.count)
        var received = [UInt8](repeating: 0, count: answer.count)
        #expect(recv(channel.fd, &received, received.count, Int32(MSG_WAITALL)) == answer.count)
        #expect(received == answer)
      }
      #expect(result == .fault(.protocolViolation))
    }
    #expect(store.accesses == before)
  }

  @Test("a uid without a passwd entry is refused: a version 3 module is told why, a version 2 one 'another user'")
  func noPasswdEntry() throws {
    let world = try TestWorld(sensorPresent: false)
    let store = WatchedStore()
    for (version, expected) in [(UInt16(3), HelperResult.fault(.unknownUser)), (2, .otherUser)] {
      var hello = HelperHello(user: "alice", service: "vlock", tty: "", remoteHost: "")
      hello.version = version
      let result = try Self.serve(world: world, store: store, realUser: nil) { channel in
        try channel.send(.hello(hello))
        #expect(try channel.receive(within: 5) == .result(expected), "version \(version)")
      }
      #expect(result == expected, "version \(version)")
    }
    #expect(store.accesses == 0)
    let refusals = world.log.lines.filter { $0.contains("refused to authenticate user alice for uid \(getuid()) (service vlock), which has no usable passwd entry.") }
    #expect(refusals.count == 2, "\(world.log.lines)")
  }

  @Test("the right passcode through the channel succeeds; a wrong one fails and is counted")
  func passcode() throws {
    let world = try TestWorld(sensorPresent: false)
    let store = WatchedStore()
    try Self.prime(world, store)
    for (typed, expected) in [("9999", HelperResult.decided(.evaluated(.failure(.authenticationFailed, .none)))),
      (TestWorld.passcode, .decided(.evaluated(.success(.passcode))))]
    {
      let result = try Self.serve(world: world, store: store) { channel in
        try channel.send(.hello(HelperHello(user: "alice", service: "vlock", tty: "/dev/pts/1", remoteHost: "")))
        while true {
          let message = try channel.receive(within: 5)
          if case .secret = message { try channel.send(.answer(Array(typed.utf8))) }
          if case .result(let result) = message {
            #expect(result == expected)
            break
          }
        }
      }
      #expect(result == expected)
      let failures = try store.inner.load(try UserName("alice"))?.passcodeFailures
      #expect(failures == (typed == TestWorld.passcode ? 0 : 1))
    }
  }

  @Test("a caller that answers before being asked, or hangs up at the prompt, gets no success")
  func brokenCallers() throws {
    let world = try TestWorld(sensorPresent: false)
    let store = WatchedStore()
    try Self.prime(world, store)
    let early = try Self.serve(world: world, store: store) { channel in
      try channel.send(.answer(Array(TestWorld.passcode.utf8)))
    }
    #expect(early == .fault(.protocolViolation))
    let hungUp = try Self.serve(world: world, store: store) { channel in
      try channel.send(.hello(HelperHello(user: "alice", service: "vlock", tty: "", remoteHost: "")))
      while case let message = try channel.receive(within: 5), message != .secret("Enter Passcode: ") {
        if case .result = message { break }
      }
      shutdown(channel.fd, Int32(SHUT_RDWR))
    }
    #expect(!(hungUp == .decided(.evaluated(.success(.passcode)))))
    #expect(hungUp == .fault(.conversationFailed) || hungUp == .decided(.evaluated(.failure(.userCancel, .none))))
  }
}
