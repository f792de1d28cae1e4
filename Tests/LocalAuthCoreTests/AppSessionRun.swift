#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import LocalAuthCore
import LocalAuthTesting
import Testing

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

  /// The running system, except that the caller (`pid`, this process's parent) runs a system program named in
  /// `gui_services=` (/usr/bin/NAME, root's, started cleanly): an app whose own dialog counts (`ownInterface`).
  static func systemProgramCaller(_ pid: Int32) -> (system: RequestVisibility.System, name: String) {
    let name = AppSession.executableName(pid)
    let path = "/usr/bin/" + name
    let file = SystemProgram.FileStatus(owner: 0, mode: 0o100755, device: 1, inode: 77)
    let live = ProcessFacts.live
    let maps = Array("00400000-00500000 r-xp 00000000 00:01 77    \(path)\n".utf8)
    var system = RequestVisibility.System(read: { asked, limit in
      asked == "/proc/\(pid)/maps" ? maps : live.read(asked, limit)
    })
    system.readLink = { $0 == "/proc/\(pid)/exe" ? path : live.readLink($0) }
    system.list = live.list
    system.status = { asked, follow in
      asked == "/proc/\(pid)/exe" || asked == path ? file : live.status(asked, follow)
    }
    return (system, name)
  }

  /// A session whose caller's own dialog counts (`systemProgramCaller`) unless `system` is given.
  init(
    world: TestWorld, keychain: Keychain? = nil, passCredentials: Bool = true, system: RequestVisibility.System? = nil
  ) throws {
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
      throw HelperProtocolError.io(errno)
    }
    if passCredentials { Self.passCredentials(fds[0]) }
    app = HelperChannel(fd: fds[1])
    var options = Options()
    options.evaluation = world.settings
    let caller = Self.systemProgramCaller(getppid())
    options.guiServices = [caller.name]
    nonisolated(unsafe) let world = world
    nonisolated(unsafe) let session = AppSession(
      channel: HelperChannel(fd: fds[0], sender: getpid()), user: world.user, callerPID: getppid(), options: options,
      log: world.log, system: system ?? caller.system, showsPrompts: true,
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
