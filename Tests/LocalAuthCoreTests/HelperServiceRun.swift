#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// `HelperService.serve` on one end of a new socket pair, on a thread of its own, with the test world's state and
/// doubles: what an app's opening meets before any session exists. `AppSessionRun` starts past the opening.
final class HelperServiceRun: @unchecked Sendable {
  /// The app's end.
  let app: HelperChannel
  private let helperEnd: Int32
  private let done = DispatchSemaphore(value: 0)
  private var served: HelperResult?? = .none
  private var finished = false
  private var hungUp = false
  private var closedHelperEnd = false

  /// Serves a caller named `realUserName` (nil: a uid without a passwd entry). With `engineAllowed` false, reading
  /// the configuration or building the engine is recorded as an issue: the opening must be refused before either.
  init(world: TestWorld, realUserName: String?, passCredentials: Bool = true, engineAllowed: Bool = true) throws {
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw HelperProtocolError.io(errno) }
    if passCredentials { AppSessionRun.passCredentials(fds[0]) }
    helperEnd = fds[0]
    app = HelperChannel(fd: fds[1])
    nonisolated(unsafe) let service = HelperService(
      channel: HelperChannel(fd: fds[0], sender: passCredentials ? getpid() : nil), realUserName: realUserName,
      callerPID: getppid(), log: world.log)
    nonisolated(unsafe) let world = world
    Thread.detachNewThread { [self] in
      served = .some(service.serve(
        options: { () throws(ConfigError) in
          if !engineAllowed { Issue.record("the configuration was read for a caller refused at its opening") }
          var options = Options()
          options.evaluation = world.settings
          return options
        }, userExists: { $0 == realUserName }, dependencies: { _, prompter, log in
          if !engineAllowed { Issue.record("the engine was built for a caller refused at its opening") }
          return Dependencies(clock: world.clock, store: world.store, sensor: world.sensor, prompter: prompter, log: log)
        }))
      done.signal()
    }
  }

  /// What `serve` returned by itself (`.some(nil)`: an app's session, which returns no module result), or
  /// `.none` when it had not returned within 10 s.
  func result() -> HelperResult?? {
    if !finished { finished = done.wait(timeout: .now() + 10) == .success }
    return finished ? served : .none
  }

  /// Hangs up the app's end, then, once `serve` returned, closes the helper's: what `serve` returned.
  @discardableResult
  func hangUp() -> HelperResult?? {
    if !hungUp {
      hungUp = true
      app.close()
    }
    let returned = result()
    if returned != nil, !closedHelperEnd {
      closedHelperEnd = true
      close(helperEnd)
    }
    return returned
  }
}
