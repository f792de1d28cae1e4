import Foundation
import LocalAuthCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Linux-only: an unprivileged app's line to the privileged side. One `LAContext` has one session: a
/// localauth-helper process (setuid root) that holds what the context's evaluations established and evaluates,
/// counts and opens keychain items on the system's state (docs/HELPER.md, "Apps").
///
/// The helper starts on the first call and ends when the context is invalidated or deallocated, when the app
/// exits, or after `AppSession.idleBound` seconds without a call; the next call then starts a fresh session,
/// without what the last one established. Calls on one context run one at a time.
package final class HelperSession: @unchecked Sendable {
  /// The helper: `LOCALAUTH_HELPER` when set (tests, a helper installed elsewhere), else the installed one. It
  /// must be root's and set-user-ID either way (`HelperProcess.installationProblem`).
  static var helperPath: String {
    ProcessInfo.processInfo.environment["LOCALAUTH_HELPER"].flatMap { $0.isEmpty ? nil : $0 }
      ?? "/usr/sbin/localauth-helper"
  }

  /// True when this process cannot read the state itself and contexts go through the helper.
  static var isNeeded: Bool { geteuid() != 0 }

  private let callLock = NSLock()
  private let processLock = NSLock()
  private var process: HelperProcess?
  private var closed = false

  init() {}

  deinit {
    // No call can be running on a session that is being freed: end the helper here.
    closed = true
    if let process {
      _ = shutdown(process.channel.fd, Int32(SHUT_RDWR))
      process.finish()
    }
  }

  /// What one call returned: the helper's reply and the items it sent before it.
  package struct Answer {
    package var reply: AppReply
    package var items: [AppItem]
  }

  /// Runs `call`, relaying prompts to `prompter`; a call after `close()` fails with `invalidContext`.
  func call(_ call: AppCall, prompter: AuthPrompter) throws(LocalAuthError) -> Answer {
    callLock.lock()
    defer { callLock.unlock() }
    if let running = try runningChannel() {
      if (try? running.send(.call(call))) != nil { return try answer(on: running, prompter: prompter) }
      // An idle helper that ended its session: start another once (what the old one established is gone).
      drop()
    }
    return try firstCall(call, prompter: prompter)
  }

  /// The version the sessions of this process open with: `HelperWire.version`, until a helper refused it.
  private static let openingVersion = Atomic<UInt16>(HelperWire.version)

  /// `call` on a helper started for it. An installed helper older than this client refuses the opening before it
  /// reads anything else, with `result(fault(protocolViolation))`, and exits (`HelperWire`); a helper that speaks
  /// this version never sends an app a `result`. The call is then made again, on a helper opened with the next
  /// older version this client speaks (down to the oldest of `HelperWire.accepted`), and the later sessions of
  /// this process open with the version that was accepted. Nothing of the refused call was read, so nothing is
  /// done twice.
  private func firstCall(_ call: AppCall, prompter: AuthPrompter) throws(LocalAuthError) -> Answer {
    while true {
      let version = Self.openingVersion.load(ordering: .relaxed)
      let channel = try startedChannel(opening: version)
      var sendFailure: HelperProtocolError?
      do { try channel.send(.call(call)) } catch { sendFailure = error }
      // A helper that refused the opening may have exited before the call was written; what it sent is still
      // there to read.
      let first: HelperMessage
      do { first = try HelperClient.relayDialog(on: channel, prompter: prompter) } catch {
        // As on a running helper's call, a dialog that failed leaves the helper to the next call, which finds
        // it gone or starts another.
        guard let sendFailure else { throw error }
        drop()
        throw .helper(.broken(sendFailure))
      }
      if case .result(.fault(.protocolViolation)) = first {
        drop()
        guard version > HelperWire.accepted.lowerBound else {
          // "the other side sent a refusal of every wire version this app speaks (2–3): …"
          let versions = "\(HelperWire.accepted.lowerBound)–\(HelperWire.version)"
          let refusal = "a refusal of every wire version this app speaks (\(versions)): the installed helper is older"
          throw .helper(.broken(.malformed(refusal)))
        }
        _ = Self.openingVersion.compareExchange(expected: version, desired: version - 1, ordering: .relaxed)
        continue
      }
      if let sendFailure {
        drop()
        throw .helper(.broken(sendFailure))
      }
      return try answer(on: channel, prompter: prompter, first: first)
    }
  }

  private func answer(
    on channel: HelperChannel, prompter: AuthPrompter, first: HelperMessage? = nil
  ) throws(LocalAuthError) -> Answer {
    var items: [AppItem] = []
    var pending = first
    while true {
      let message: HelperMessage
      if let received = pending {
        message = received
        pending = nil
      } else {
        message = try HelperClient.relayDialog(on: channel, prompter: prompter)
      }
      switch message {
      case .item(let item): items.append(item)
      case .reply(let reply): return Answer(reply: reply, items: items)
      default:
        drop()
        throw .helper(.broken(.malformed("a message out of turn")))
      }
    }
  }

  /// The running helper's channel, or nil when none runs.
  private func runningChannel() throws(LocalAuthError) -> HelperChannel? {
    processLock.lock()
    defer { processLock.unlock() }
    if closed { throw .helper(.broken(.closed)) }
    return process?.channel
  }

  /// Starts a helper and opens the app's session with `version`.
  private func startedChannel(opening version: UInt16) throws(LocalAuthError) -> HelperChannel {
    processLock.lock()
    defer { processLock.unlock() }
    if closed { throw .helper(.broken(.closed)) }
    let started: HelperProcess
    do { started = try HelperProcess.start(Self.helperPath, passCredentials: true) } catch { throw .helper(error) }
    do { try started.channel.send(.appHello(version: version)) } catch {
      started.finish(grace: 0)
      throw .helper(.broken(error))
    }
    process = started
    return started.channel
  }

  /// Ends the running helper (if any) so that the next call starts a fresh one.
  private func drop() {
    processLock.lock()
    let running = process
    process = nil
    processLock.unlock()
    running?.finish()
  }

  /// Ends the session for good: a running call ends at once (the helper sees the socket shut down and withdraws
  /// its prompt), and what the session established is gone with the helper.
  func close() {
    processLock.lock()
    closed = true
    let running = process
    process = nil
    processLock.unlock()
    guard let running else { return }
    _ = shutdown(running.channel.fd, Int32(SHUT_RDWR))
    // The call that may be running holds the socket; reap the helper once it is over.
    let lock = callLock
    DispatchQueue.global(qos: .utility).async {
      lock.lock()
      running.finish()
      lock.unlock()
    }
  }
}
