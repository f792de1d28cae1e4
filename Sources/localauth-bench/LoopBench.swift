/// Item 4: one process running pam_start/pam_authenticate/pam_end cycles, ours against pam_permit.so, in
/// alternating blocks; resident memory before and after.
///
/// 100,000 touches would measure the record's fsyncs, not the module, so the 100,000-cycle loop runs
/// the biometric path inside the reuse window (reuse_duration=300): every cycle parses the options, loads
/// and decodes the user's record, checks the boot, domain state and lockout, and honours the recent match
/// without waiting for the sensor, as a screen locker unlocking twice within five minutes does. A second,
/// smaller loop presents a real touch to every cycle's prompt from another thread once it waits (timed): the
/// full path with the announcement, the matcher and the durable state write.
struct LoopBench {
  let paths: BenchPaths
  let user: BenchUser
  let passcode: String
  let cost: UInt
  let counts: BenchCounts

  func run(into report: inout Report) throws {
    let startKiB = residentKiB()
    let state = try BenchState(
      root: paths.work + "/state-loop", runtime: paths.runtimeFolder("loop"), user: user.name, modality: .touchID, items: ["right-index"], passcode: passcode, cost: cost)
    let common = "\(paths.module) conf=\(paths.conf) \(state.folderArguments)"
    try paths.writeService("ip-permit", paths.securityDir + "/pam_permit.so")
    try paths.writeService("ip-reuse", common + " reuse_duration=300 timeout=1")
    try paths.writeService("ip-touch", common + " timeout=1")
    let driver = PAMDriver(confdir: paths.services.path, user: user.name, secret: passcode)

    // Setup: the passcode once (reboot rule), then one real match that opens the reuse window.
    let first = driver.cycle(service: "ip-touch")
    guard first == PAMDriver.success else { throw SetupError("The in-process passcode authentication failed: \(PAMDriver.describe(first)).") }
    var primedAt = 0.0
    func prime() throws {
      try state.enqueueTouch()
      let code = driver.cycle(service: "ip-reuse")
      guard code == PAMDriver.success else { throw SetupError("The in-process touch failed: \(PAMDriver.describe(code)).") }
      primedAt = monotonicSeconds()
    }
    try prime()
    report.figures.append(moduleMappingsFigure())

    // Reuse loop, in alternating blocks.
    let block = counts.loopBlock
    let blocks = max(1, counts.loopCycles / block)
    var failures = 0
    func timeBlock(_ service: String) -> Double {
      let start = monotonicSeconds()
      for _ in 0..<block {
        if driver.cycle(service: service) != PAMDriver.success { failures += 1 }
      }
      return monotonicSeconds() - start
    }
    _ = timeBlock("ip-permit")
    _ = timeBlock("ip-reuse")
    failures = 0
    let loadedKiB = residentKiB()
    var samples = PairedSamples()
    var trend: [JSON] = []
    for i in 0..<blocks {
      if monotonicSeconds() - primedAt > 240 { try prime() }
      let ours: Double
      let permit: Double
      if i % 2 == 0 {
        ours = timeBlock("ip-reuse")
        permit = timeBlock("ip-permit")
      } else {
        permit = timeBlock("ip-permit")
        ours = timeBlock("ip-reuse")
      }
      samples.add(subject: ours / Double(block), reference: permit / Double(block))
      if i % max(1, blocks / 10) == 0 || i == blocks - 1 { trend.append(.number(residentKiB())) }
    }
    let afterKiB = residentKiB()
    let ours = Summary(samples.subject.map { 1 / $0 })
    let permit = Summary(samples.reference.map { 1 / $0 })
    let ratio = Summary(samples.ratios)
    let total = blocks * block
    let growth = afterKiB - loadedKiB
    report.figures.append(
      Figure(
        id: "4a", name: "In one process, \(grouped(Int64(total))) cycles each: biometric path in the reuse window vs pam_permit",
        ours: describe(ours, unit: "cycles/s"), reference: describe(permit, unit: "cycles/s"),
        comparison: describeRatio(ratio) + " time/cycle", target: "—", verdict: "—",
        meaning: "A screen locker or display manager that authenticates over and over in one process spends "
          + "\(samples.subject.isEmpty ? "n/a" : fixed(Summary(samples.subject)!.median * 1e6, 0)) µs per unlock in the module; its memory went from "
          + "\(fixed(loadedKiB / 1024, 1)) to \(fixed(afterKiB / 1024, 1)) MiB over \(grouped(Int64(total))) cycles "
          + "(\(fixed(growth / Double(total) * 1024, 1)) bytes per cycle\(growth / Double(total) * 1024 < 1 ? ": no leak" : ", a leak to look at")).",
        json: .object([
          ("unit", .string("cycles/s")), ("cycles_per_side", .number(Double(total))), ("block", .number(Double(block))),
          ("subject", ours?.json() ?? .null), ("reference", permit?.json() ?? .null), ("ratio_time_per_cycle", ratio?.json() ?? .null),
          ("rss_kib_before_any_pam", .number(startKiB)), ("rss_kib_before", .number(loadedKiB)), ("rss_kib_after", .number(afterKiB)),
          ("rss_kib_trend", .array(trend)), ("failed_cycles", .number(Double(failures))),
        ])))

    report.figures.append(try trueTouches(driver: driver, state: state))
  }

  /// Item 3c: what the module's own mappings hold in memory after it authenticated in this process.
  private func moduleMappingsFigure() -> Figure {
    let pages = mappedResidentKiB(of: paths.module)
    let mib = 1.0 / 1024
    let total = pages.code + pages.readOnly + pages.writable
    return Figure(
      id: "3c", name: "Resident pages of the module's own mappings after an authentication (in-process, /proc/self/smaps)",
      ours: fixed(total * mib, 2) + " MiB: code " + fixed(pages.code * mib, 2) + ", read-only " + fixed(pages.readOnly * mib, 2)
        + ", writable " + fixed(pages.writable * mib, 2) + " (dirty " + fixed(pages.dirty * mib, 2) + ")",
      reference: "—", comparison: "—", target: "—", verdict: "—",
      meaning: "Of figure 3, \(fixed(pages.code * mib, 1)) MiB is the module's code (Embedded Swift: our code and the "
        + "standard library code it uses, no runtime; the kernel maps code in 64 KiB fault-around windows); only \(fixed(pages.dirty * mib, 2)) MiB is private to the process.",
      json: .object([
        ("unit", .string("KiB")), ("code", .number(pages.code)), ("read_only", .number(pages.readOnly)),
        ("writable", .number(pages.writable)), ("private_dirty", .number(pages.dirty)),
      ]))
  }

  /// Item 4b: a real touch presented to each cycle's prompt from another thread, ours and pam_permit timed cycle by cycle.
  private func trueTouches(driver: PAMDriver, state: BenchState) throws -> Figure {
    var samples = PairedSamples()
    let before = residentKiB()
    for i in 0..<(counts.touchCycles + 10) {
      try state.enqueueTouch()
      var ours = 0.0
      var permit = 0.0
      var ok = true
      for side in (i % 2 == 0 ? [0, 1] : [1, 0]) {
        let start = monotonicSeconds()
        let code = driver.cycle(service: side == 0 ? "ip-touch" : "ip-permit")
        let elapsed = monotonicSeconds() - start
        if code != PAMDriver.success { ok = false }
        if side == 0 { ours = elapsed } else { permit = elapsed }
      }
      guard ok else {
        samples.failures += 1
        state.clearQueue()
        continue
      }
      if i >= 10 { samples.add(subject: ours, reference: permit) }
    }
    let after = residentKiB()
    let ours = Summary(samples.subject)
    let permit = Summary(samples.reference)
    let ratio = Summary(samples.ratios)
    return Figure(
      id: "4b", name: "In one process, \(grouped(Int64(counts.touchCycles))) cycles each: biometric path with a real touch per cycle vs pam_permit",
      ours: ours.map { fixed(1 / $0.median, 0) + " cycles/s (" + significant($0.median * 1e3) + " ms ±" + fixed($0.relativeSpread, 0) + "%)" } ?? "n/a",
      reference: permit.map { fixed(1 / $0.median, 0) + " cycles/s (" + significant($0.median * 1e3) + " ms ±" + fixed($0.relativeSpread, 0) + "%)" } ?? "n/a",
      comparison: describeRatio(ratio) + " time/cycle", target: "—", verdict: "—",
      meaning: "In one process, a touch that matches costs \(ours.map { significant($0.median * 1e3) } ?? "n/a") ms per authentication "
        + "(state on disk, the record's fsync included); memory \(fixed(before / 1024, 1)) → \(fixed(after / 1024, 1)) MiB over the loop.",
      json: .object([
        ("unit", .string("seconds per cycle")), ("cycles_per_side", .number(Double(samples.subject.count))),
        ("subject", ours?.json() ?? .null), ("reference", permit?.json() ?? .null), ("ratio_time_per_cycle", ratio?.json() ?? .null),
        ("rss_kib_before", .number(before)), ("rss_kib_after", .number(after)), ("failed_cycles", .number(Double(samples.failures))),
      ]))
  }
}
