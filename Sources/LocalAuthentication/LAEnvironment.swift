import Dispatch
import Foundation

/// Receives the changes of an `LAEnvironment` (Apple's `LAEnvironmentObserver`, `LAEnvironment.Observer` in Swift).
public protocol LAEnvironmentObserver: AnyObject {
  /// Called once for each change noticed; `environment.state` already holds the new state.
  ///
  /// Called on the thread that noticed the change: the environment's polling queue, or the caller of
  /// `state` / `refresh()`. Optional, as in Apple's protocol: the default does nothing.
  func environment(_ environment: LAEnvironment, stateDidChangeFromOldState oldState: LAEnvironmentState)
}

extension LAEnvironmentObserver {
  public func environment(_ environment: LAEnvironment, stateDidChangeFromOldState oldState: LAEnvironmentState) {}
}

/// The user's authentication environment and its changes (Apple's `LAEnvironment`, iOS 18 / macOS 15).
///
/// The state is read through `LAContext`'s public API (two `canEvaluatePolicy` preflights and `domainState`),
/// so it works wherever a context does. Changes are noticed by polling: every `pollInterval` seconds while at
/// least one observer is alive, and on every read of `state` (docs/RULES.md, "LAEnvironment").
///
/// ```swift
/// let state = LAEnvironment.currentUser.state
/// if state.biometry?.isEnrolled == false { … offer the passcode … }
/// LAEnvironment.currentUser.addObserver(self)   // environment(_:stateDidChangeFromOldState:) on each change
/// ```
public final class LAEnvironment: @unchecked Sendable {
  /// Apple's Swift name of `LAEnvironmentState`.
  public typealias State = LAEnvironmentState
  /// Apple's Swift name of `LAEnvironmentObserver`.
  public typealias Observer = LAEnvironmentObserver
  /// Apple's Swift name of `LAEnvironmentMechanism`.
  public typealias Mechanism = LAEnvironmentMechanism
  /// Apple's Swift name of `LAEnvironmentMechanismBiometry`.
  public typealias MechanismBiometry = LAEnvironmentMechanismBiometry
  /// Apple's Swift name of `LAEnvironmentMechanismUserPassword`.
  public typealias MechanismUserPassword = LAEnvironmentMechanismUserPassword

  /// The system environment of the calling user, shared.
  private static let system = LAEnvironment(configuration: nil, pollInterval: 1)

  /// The calling user's environment: shared for the system; in a task with `LAContext.defaultConfiguration`, a new
  /// environment over that configuration on each access (keep it to observe it).
  public static var currentUser: LAEnvironment {
    LAContext.defaultConfiguration.map { LAEnvironment(configuration: $0) } ?? system
  }

  /// A weakly held observer.
  private struct WeakObserver {
    weak var value: (any LAEnvironmentObserver)?
  }

  /// Where the state is read; nil means the system (a plain `LAContext()`).
  let configuration: LAContextConfiguration?
  /// Seconds between two polls while observers exist.
  let pollInterval: TimeInterval
  private let queue = DispatchQueue(label: "LocalAuthentication.LAEnvironment")
  private let lock = NSLock()
  /// Serializes reading and swapping the state, so that each change is seen exactly once.
  private let pollLock = NSLock()
  private var current: LAEnvironmentState?
  private var observers: [WeakObserver] = []
  private var timer: (any DispatchSourceTimer)?

  /// Linux-only: the environment of `configuration`'s user, polled every `pollInterval` seconds while observed.
  public convenience init(configuration: LAContextConfiguration, pollInterval: TimeInterval = 1) {
    self.init(configuration: Optional(configuration), pollInterval: pollInterval)
  }

  init(configuration: LAContextConfiguration?, pollInterval: TimeInterval) {
    self.configuration = configuration
    self.pollInterval = pollInterval.isFinite ? max(pollInterval, 0.01) : 1
  }

  deinit { timer?.cancel() }

  /// The state now (read afresh; a change since the last read is reported to the observers first).
  public var state: LAEnvironmentState { refresh() }

  /// Linux-only: reads the state now, reports a change since the last read to every observer on this thread, and
  /// returns the new state.
  @discardableResult
  public func refresh() -> LAEnvironmentState {
    let (state, old, notify) = poll()
    if let old { for observer in notify { observer.environment(self, stateDidChangeFromOldState: old) } }
    return state
  }

  /// Adds an observer, held weakly: keep it alive. Polling runs while at least one observer is.
  public func addObserver(_ observer: any LAEnvironmentObserver) {
    let baseline = lock.withLock { current == nil }
    if baseline { _ = poll() }
    lock.withLock {
      observers.removeAll { $0.value == nil || $0.value === observer }
      observers.append(WeakObserver(value: observer))
      startTimerIfNeeded()
    }
  }

  /// Removes an observer; polling stops with the last one.
  public func removeObserver(_ observer: any LAEnvironmentObserver) {
    lock.withLock {
      observers.removeAll { $0.value == nil || $0.value === observer }
      if observers.isEmpty { stopTimer() }
    }
  }

  /// True while the polling timer runs (for tests).
  var isPolling: Bool { lock.withLock { timer != nil } }

  // MARK: Polling

  /// Reads the state, swaps it in, and returns it with the old state and the live observers when it changed.
  private func poll() -> (LAEnvironmentState, LAEnvironmentState?, [any LAEnvironmentObserver]) {
    pollLock.lock()
    defer { pollLock.unlock() }
    let fresh = LAEnvironmentState.read(LAContext.fresh(in: configuration))
    return lock.withLock {
      let old = current
      current = fresh
      guard let old, old.facts != fresh.facts else { return (fresh, nil, []) }
      return (fresh, old, observers.compactMap(\.value))
    }
  }

  /// The timer's tick: stops polling when every observer is gone, polls otherwise.
  private func tick() {
    let alive = lock.withLock {
      observers.removeAll { $0.value == nil }
      if observers.isEmpty { stopTimer() }
      return !observers.isEmpty
    }
    if alive { refresh() }
  }

  /// Starts the timer when observers exist and it is not running; call with `lock` held.
  private func startTimerIfNeeded() {
    guard timer == nil, !observers.isEmpty else { return }
    let source = DispatchSource.makeTimerSource(queue: queue)
    source.schedule(deadline: .now() + pollInterval, repeating: pollInterval, leeway: .milliseconds(100))
    source.setEventHandler { [weak self] in self?.tick() }
    source.resume()
    timer = source
  }

  /// Stops the timer; call with `lock` held.
  private func stopTimer() {
    timer?.cancel()
    timer = nil
  }
}
