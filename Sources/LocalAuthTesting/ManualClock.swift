import LocalAuthCore

/// A clock that moves only when told to: tests advance it instead of sleeping.
public final class ManualClock: AuthClock, @unchecked Sendable {
  private let lock = Mutex()
  private var current: WallTime
  private var boot: String

  /// Creates a clock at `start` with boot id `boot`.
  public init(start: WallTime = WallTime(seconds: 1_800_000_000), boot: String = "boot-1") {
    self.current = start
    self.boot = boot
  }

  public func now() -> WallTime { lock.withLock { current } }
  public func bootID() -> String { lock.withLock { boot } }
  public func sleep(_ seconds: Double) { advance(by: max(seconds, 0)) }

  /// Moves the clock forward by `seconds`.
  public func advance(by seconds: Double) { lock.withLock { current = current.adding(seconds) } }

  /// Simulates a reboot: a new boot id.
  public func reboot(to newBoot: String) { lock.withLock { boot = newBoot } }
}
