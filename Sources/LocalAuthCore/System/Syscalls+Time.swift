import CSyscalls

// Part of the C fence (Syscalls.swift): clocks, sleeps and waits on a descriptor.

extension Syscalls {
  /// Seconds on CLOCK_MONOTONIC, which never jumps with the wall clock.
  static func monotonicSeconds() -> Double { seconds(on: CLOCK_MONOTONIC) }

  /// Milliseconds on CLOCK_MONOTONIC, whole: bounds are about elapsed time, which a clock change must not stretch.
  static func monotonicMilliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
  }

  /// Seconds since 1970 on CLOCK_REALTIME.
  static func realtimeSeconds() -> Double { seconds(on: CLOCK_REALTIME) }

  private static func seconds(on clock: clockid_t) -> Double {
    var ts = timespec()
    clock_gettime(clock, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }

  /// Sleeps `seconds` (finite, positive, below 1e9), the rest of the time again after a signal.
  static func sleep(_ seconds: Double) {
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
    var remaining = timespec()
    _ = valueOrErrno {
      let result = nanosleep(&request, &remaining)
      if result == -1 { request = remaining }
      return result
    }
  }

  /// poll(2) for input on `fd` for at most `milliseconds`, once (a signal ends the wait early).
  static func waitReadable(_ fd: Int32, milliseconds: Int32) {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    _ = CSyscalls.poll(&entry, 1, milliseconds)
  }

  /// What poll(2) says of two descriptors (the second left out when negative) after at most `milliseconds`.
  /// Not retried on EINTR: the caller recomputes its deadline and calls again.
  static func poll(
    _ first: Int32, _ second: Int32, milliseconds: Int32
  ) -> Result<(first: PollEvents, second: PollEvents), Errno> {
    var entries = [pollfd(fd: first, events: Int16(POLLIN), revents: 0), pollfd(fd: second, events: Int16(POLLIN), revents: 0)]
    let result = valueOrErrno(retryOnInterrupt: false) {
      CSyscalls.poll(&entries, second >= 0 ? 2 : 1, milliseconds)
    }
    return result.map { _ in (PollEvents(entries[0].revents), PollEvents(entries[1].revents)) }
  }
}

/// What poll(2) reported of one descriptor.
struct PollEvents {
  let bits: Int16
  init(_ bits: Int16) { self.bits = bits }
  /// Anything at all (input, hang-up, error).
  var any: Bool { bits != 0 }
  /// Input to read (POLLIN).
  var readable: Bool { bits & Int16(POLLIN) != 0 }
}
