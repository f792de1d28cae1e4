/// The source of time and boot identity for every rule that depends on them.
public protocol AuthClock: AnyObject, Sendable {
  /// The current wall-clock time.
  func now() -> WallTime
  /// An identifier that changes on every boot (Linux: /proc/sys/kernel/random/boot_id).
  func bootID() -> String
  /// Waits for `seconds` of this clock's time (the real clock sleeps; a manual clock advances).
  func sleep(_ seconds: Double)
  /// Seconds on a clock that never jumps (CLOCK_MONOTONIC): every sensor and lock deadline is measured on it.
  func uptime() -> Double
  /// Like `sleep(_:)`, but returns early once `descriptor` is readable (a prompt's folder watch).
  func sleep(_ seconds: Double, wakingOn descriptor: Int32)
}

extension AuthClock {
  /// A clock without a separate monotonic source measures deadlines on its own time (manual clocks do).
  public func uptime() -> Double { now().seconds }
  /// A clock that cannot wait on a descriptor just sleeps.
  public func sleep(_ seconds: Double, wakingOn descriptor: Int32) { sleep(seconds) }
}

/// The real clock: CLOCK_REALTIME and the kernel's boot id.
public final class SystemClock: AuthClock {
  /// Creates the system clock.
  public init() {}

  public func now() -> WallTime { WallTime(seconds: Syscalls.realtimeSeconds()) }

  public func bootID() -> String { kernelBootID ?? Self.unreadableBootID() }

  public func uptime() -> Double { Syscalls.monotonicSeconds() }

  /// poll(2) on the descriptor for at most `seconds`; a plain sleep when there is none.
  public func sleep(_ seconds: Double, wakingOn descriptor: Int32) {
    guard descriptor >= 0 else { return sleep(seconds) }
    guard seconds > 0, seconds.isFinite else { return }
    Syscalls.waitReadable(descriptor, milliseconds: Int32(min(seconds, 3600) * 1000) + 1)
  }

  public func sleep(_ seconds: Double) {
    guard seconds > 0, seconds.isFinite else { return }
    let seconds = min(seconds, 1e9)  // Int(_:) traps beyond Int; no caller waits anywhere near 31 years
    Syscalls.sleep(seconds)
  }
}

extension SystemClock {
  /// The file the kernel's boot id is read from.
  static let bootIDPath = "/proc/sys/kernel/random/boot_id"

  /// The boot id in `path`, or nil when it cannot be read or is not a boot id (empty, or more than hexadecimal
  /// digits and dashes).
  static func readBootID(at path: String) -> String? {
    guard let bytes = try? readSmallFile(path, limit: 128) else { return nil }
    let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
    guard !text.isEmpty, text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || isHexDigit($0) }) else { return nil }
    return text
  }

  /// The boot id of `path`, or when it cannot be read a new random one at every call: every authentication is
  /// then the first of a new boot (the passcode is required, no reuse window holds), never one constant boot
  /// that would let a stamp recorded under it be honoured for ever.
  static func bootID(readingFrom path: String) -> String { readBootID(at: path) ?? unreadableBootID() }

  /// "unreadable-" and 128 random bits: a value no record holds and no later call repeats.
  static func unreadableBootID() -> String {
    var generator = SystemRandomNumberGenerator()
    let high: UInt64 = generator.next()
    let low: UInt64 = generator.next()
    return "unreadable-" + String(high, radix: 16) + "-" + String(low, radix: 16)
  }

  private static func isHexDigit(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
      || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
  }
}

/// The kernel's boot id, read once per process: no process outlives a boot, and an evaluation asks for it
/// several times (biometry status, reuse window, the success it records). nil when unreadable: `bootID()` then
/// draws a new random id at every call.
private let kernelBootID: String? = SystemClock.readBootID(at: SystemClock.bootIDPath)
