#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LocalAuthCore
import LocalAuthTesting

/// The `helper` fuzz target: localauth-helper's protocol, as a hostile caller would use it.
///
/// The input is the caller's whole byte stream. Every frame in it that decodes must survive encode → decode
/// unchanged; then the stream is played to a HelperService in this process (user "alice", passcode "1234",
/// no sensor) over a socket pair, and the service may end in a success only if the stream held a well-formed
/// hello for alice and an answer of exactly "1234".
enum HelperFuzz {
  static func run(_ bytes: [UInt8]) {
    let messages = frames(bytes)
    for message in messages {
      let encoded = message.encode()
      let again = try? HelperMessage.decode(tag: encoded[0], payload: Array(encoded.dropFirst(3)))
      precondition(again == message, "a decoded message does not survive encode → decode")
    }
    let result = serve(bytes)
    if case .decided(.evaluated(.success)) = result {
      let saidHello = messages.contains { if case .hello(let hello) = $0 { hello.user == "alice" } else { false } }
      precondition(saidHello && messages.contains(.answer(Array("1234".utf8))), "a success without the passcode")
    }
  }

  /// The frames at the start of the stream that decode, up to the first that does not.
  static func frames(_ bytes: [UInt8]) -> [HelperMessage] {
    var messages: [HelperMessage] = []
    var rest = bytes[...]
    while rest.count >= 3, let length = HelperMessage.payloadLength(header: Array(rest.prefix(3))),
      rest.count >= 3 + length
    {
      guard let message = try? HelperMessage.decode(tag: rest[rest.startIndex], payload: Array(rest.dropFirst(3).prefix(length)))
      else { break }
      messages.append(message)
      rest = rest.dropFirst(3 + length)
    }
    return messages
  }

  static let world: (store: InMemoryStateStore, clock: ManualClock, settings: EvaluationSettings) = {
    let store = InMemoryStateStore()
    let clock = ManualClock()
    var settings = EvaluationSettings()
    settings.hasher = PasscodeHasher(cost: 1)
    try! Administration(store: store, clock: clock, settings: settings)
      .setPasscode(SecretBytes("1234"), for: try! UserName("alice"))
    return (store, clock, settings)
  }()

  /// Plays the stream to a service and returns its result; the service's answers are read and dropped.
  static func serve(_ bytes: [UInt8]) -> HelperResult {
    var pair: [Int32] = [-1, -1]
    precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
    let fds = pair
    // The stream is written whole, then our side is shut: the service sees an end instead of waiting.
    let writer = Thread {
      FuzzStream.writeAll(bytes, to: fds[1])
      var sink = [UInt8](repeating: 0, count: 4096)
      while recv(fds[1], &sink, sink.count, 0) > 0 {}
    }
    writer.start()
    let (store, clock, settings) = world
    let service = HelperService(channel: HelperChannel(fd: fds[0]), realUserName: "alice", callerPID: getpid(), log: NullLog())
    let result = service.serve(
      options: { () throws(ConfigError) in
        var options = Options()
        options.evaluation = settings
        return options
      },
      userExists: { $0 == "alice" },
      dependencies: { _, prompter, log in
        Dependencies(clock: clock, store: store, sensor: AbsentSensor(), prompter: prompter, log: log)
      })
    shutdown(fds[0], Int32(SHUT_RDWR))
    while !writer.isFinished { usleep(100) }
    close(fds[0])
    close(fds[1])
    return result ?? .fault(.protocolViolation)
  }
}
