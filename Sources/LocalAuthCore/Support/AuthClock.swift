#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The source of time and boot identity for every rule that depends on them.
public protocol AuthClock: AnyObject, Sendable {
  /// The current wall-clock time.
  func now() -> WallTime
  /// An identifier that changes on every boot (Linux: /proc/sys/kernel/random/boot_id).
  func bootID() -> String
  /// Waits for `seconds` of this clock's time (the real clock sleeps; a manual clock advances).
  func sleep(_ seconds: Double)
}

/// The real clock: CLOCK_REALTIME and the kernel's boot id.
public final class SystemClock: AuthClock {
  /// Creates the system clock.
  public init() {}

  public func now() -> WallTime {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return WallTime(seconds: Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9)
  }

  public func bootID() -> String { kernelBootID }

  public func sleep(_ seconds: Double) {
    guard seconds > 0, seconds.isFinite else { return }
    let seconds = min(seconds, 1e9)  // Int(_:) traps beyond Int; no caller waits anywhere near 31 years
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
    var remaining = timespec()
    while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
  }
}

/// The kernel's boot id, read once per process: no process outlives a boot, and an evaluation asks for it
/// several times (biometry status, reuse window, the success it records).
private let kernelBootID: String =
  (try? readSmallFile("/proc/sys/kernel/random/boot_id", limit: 128))
  .map { String(decoding: $0, as: UTF8.self).trimmingWhitespace() } ?? "unknown-boot"

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
