import CPAM

#if canImport(Glibc)
import Glibc
#endif

/// Runs many pam_start/pam_authenticate/pam_end cycles in one process and reports resident memory,
/// the way a screen locker or display manager loops: the module must neither leak nor be unloaded between cycles.
struct CycleRun {
  let options: HarnessOptions
  let conversation: Conversation
  let flags: CInt

  /// Cycles run before the first memory reading, so that one-time allocations are not counted as growth.
  static func warmUp(for cycles: Int) -> Int { min(1000, max(1, cycles / 10)) }

  func run(_ cycles: Int) -> CInt {
    conversation.echo = false
    var counts: [CInt: Int] = [:]
    let warmUp = Self.warmUp(for: cycles)
    var warmResident = 0
    let start = monotonicSeconds()
    for cycle in 1...cycles {
      var conv = conversation.makeConv()
      var handle: OpaquePointer?
      let started = pam_start_confdir(options.service, options.user, &conv, options.confdir, &handle)
      guard started == PAM_SUCCESS, let pamh = handle else {
        print("result: \(ResultNames.name(started)) (\(started)) pam_start_confdir failed at cycle \(cycle)")
        return 1
      }
      let code = pam_authenticate(pamh, flags)
      counts[code, default: 0] += 1
      pam_end(pamh, code)
      if cycle == warmUp {
        warmResident = residentKiB()
        print("rss-after-warmup: \(warmResident) KiB (cycle \(cycle))")
      } else if cycle == cycles / 2 && cycle > warmUp {
        print("rss-midway: \(residentKiB()) KiB (cycle \(cycle))")
      }
    }
    let elapsed = monotonicSeconds() - start
    let endResident = residentKiB()
    print("rss-end: \(endResident) KiB (cycle \(cycles))")
    print("rss-growth: \(endResident - warmResident) KiB")
    print("cycles: \(cycles) in \(Int(elapsed * 1000)) ms (\(Int(elapsed * 1_000_000) / cycles) us per cycle)")
    print("messages: \(conversation.messageCount)")
    for (code, count) in counts.sorted(by: { $0.key < $1.key }) {
      print("results: \(ResultNames.name(code)) (\(code)) x \(count)")
    }
    return 0
  }

  /// Resident memory from /proc/self/statm (second field, in pages).
  func residentKiB() -> Int {
    guard let file = fopen("/proc/self/statm", "r") else { return -1 }
    defer { fclose(file) }
    var size = 0
    var resident = 0
    guard fscanf_two(file, &size, &resident) else { return -1 }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
  }

  private func fscanf_two(_ file: UnsafeMutablePointer<FILE>, _ a: inout Int, _ b: inout Int) -> Bool {
    var buffer = [CChar](repeating: 0, count: 256)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return false }
    let text = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let fields = text.split(separator: " ")
    guard fields.count >= 2, let first = Int(fields[0]), let second = Int(fields[1]) else { return false }
    a = first
    b = second
    return true
  }

  func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }
}
