#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LocalAuthCore
import LocalAuthTesting

/// The `app` fuzz target: an app's session in localauth-helper (docs/HELPER.md, "Apps"), as a hostile app would
/// use it.
///
/// The input is everything the app sends after its hello. Every frame in it that decodes must survive encode →
/// decode unchanged; then the hello and the input are played to a HelperService in this process over a socket pair
/// whose helper end passes credentials (SO_PASSCRED): the writer is a thread of this process, so the kernel names
/// this process as the sender, as it names the app. The world is user "alice" with passcode "1234", no sensor and no
/// keychain, fresh for every input. Everything the helper sends back must decode, it never sends an item, it sends
/// at most one reply per call (and one protocol fault), and a reply may report a successful evaluation only if the
/// input answered a prompt with exactly "1234".
enum AppFuzz {
  static func run(_ bytes: [UInt8]) {
    let messages = HelperFuzz.frames(bytes)
    for message in messages {
      let encoded = message.encode()
      let again = try? HelperMessage.decode(tag: encoded[0], payload: Array(encoded.dropFirst(3)))
      precondition(again == message, "a decoded message does not survive encode → decode")
    }
    let answeredPasscode = messages.contains(.answer(Array("1234".utf8)))
    let calls = messages.filter { if case .call = $0 { true } else { false } }.count
    var replies = 0
    for sent in sent(serve(bytes)) {
      guard let message = sent else { preconditionFailure("the helper sent a message it may not send") }
      switch message {
      case .reply(let reply):
        replies += 1
        if case .evaluation(.success, _) = reply {
          precondition(answeredPasscode, "an evaluation succeeded without the passcode")
        }
      case .info, .error, .request, .secret: break
      case .item: preconditionFailure("an item from a world without a keychain")
      case .hello, .appHello, .call, .answer, .cancel, .result: preconditionFailure("the helper sent \(message)")
      }
    }
    precondition(replies <= calls + 1, "\(replies) replies to \(calls) calls")
  }

  /// Every frame in what the helper sent, decoded as an app decodes it: nil for one that does not decode, and a
  /// last nil for bytes that are not a whole frame.
  static func sent(_ bytes: [UInt8]) -> [HelperMessage?] {
    var messages: [HelperMessage?] = []
    var rest = bytes[...]
    while !rest.isEmpty {
      guard rest.count >= 3, let length = HelperMessage.payloadLength(header: Array(rest.prefix(3))),
        rest.count >= 3 + length
      else { return messages + [nil] }
      messages.append(try? HelperMessage.decode(tag: rest[rest.startIndex], payload: Array(rest.dropFirst(3).prefix(length))))
      rest = rest.dropFirst(3 + length)
    }
    return messages
  }

  /// The record every input starts from: alice's passcode "1234", nothing else.
  static let primed: UserRecord = {
    let store = InMemoryStateStore()
    try! Administration(store: store, clock: ManualClock(), settings: HelperFuzz.world.settings)
      .setPasscode(SecretBytes("1234"), for: try! UserName("alice"))
    return try! store.load(try! UserName("alice"))!
  }()

  /// What the writer thread read back.
  final class Received: @unchecked Sendable {
    var bytes: [UInt8] = []
  }

  /// Plays the app hello and `bytes` to a service, then returns every byte the service sent.
  static func serve(_ bytes: [UInt8]) -> [UInt8] {
    var pair: [Int32] = [-1, -1]
    precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
    let fds = pair
    var on: Int32 = 1
    precondition(setsockopt(fds[0], SOL_SOCKET, SO_PASSCRED, &on, socklen_t(MemoryLayout<Int32>.size)) == 0)
    let stream = HelperMessage.appHello(version: HelperWire.version).encode() + bytes
    let received = Received()
    let done = DispatchSemaphore(value: 0)
    // The stream is written whole, then our side is shut: the session sees an end instead of waiting.
    Thread.detachNewThread {
      FuzzStream.writeAll(stream, to: fds[1])
      var chunk = [UInt8](repeating: 0, count: 4096)
      while true {
        let n = recv(fds[1], &chunk, chunk.count, 0)
        if n <= 0 { break }
        received.bytes += chunk[0..<n]
      }
      done.signal()
    }
    let store = InMemoryStateStore()
    let alice = try! UserName("alice")
    try! store.modify(alice) { $0 = primed }
    let clock = ManualClock()
    let settings = HelperFuzz.world.settings
    // The session checks that its caller is still its parent, as the helper's is; here that is this process's.
    let service = HelperService(
      channel: HelperChannel(fd: fds[0], sender: getpid()), realUserName: "alice", callerPID: getppid(), log: NullLog())
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
    precondition(result == nil, "an app hello did not open an app's session: \(String(describing: result))")
    shutdown(fds[0], Int32(SHUT_RDWR))
    done.wait()
    close(fds[0])
    close(fds[1])
    return received.bytes
  }
}
