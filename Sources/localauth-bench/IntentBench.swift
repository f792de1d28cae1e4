#if canImport(Glibc)
import Glibc
#endif
import LocalAuthCore

/// Item 9: what the intent check (docs/RULES.md, "Intent") adds to the fingerprint path: the /proc reads of
/// RequestVisibility (the caller's stat and status, its parent's stat; all made whatever the verdict) and of the
/// approved command (the caller's cmdline), timed in this process on itself, as the module makes them once per
/// authentication. Figure 1 runs with the check on (its services are named in gui_services=, which decides after
/// the reads), so figure 1's total already includes this cost.
struct IntentBench {
  let counts: BenchCounts

  func run(into report: inout Report) {
    let system = RequestVisibility.System.live
    let pid = getpid()
    let input = RequestVisibility.Input(service: "sudo", processID: pid, guiServices: [])
    let rounds = max(200, counts.wholeProcessPairs * 20)
    var samples: [Double] = []
    var visible = 0
    for _ in 0..<(rounds + 20) {
      let start = monotonicSeconds()
      let verdict = RequestVisibility.check(input, system: system)
      let cmdline = system.read("/proc/\(pid)/cmdline", 1 << 17) ?? []
      _ = ApprovedCommand.phrase(cmdline: cmdline, service: "sudo")
      samples.append(monotonicSeconds() - start)
      if verdict.isVisible { visible += 1 }
    }
    let measured = Summary(Array(samples.dropFirst(20)))
    let met = measured.map { $0.median <= 1e-4 }
    report.figures.append(
      Figure(
        id: "9", name: "The intent check: foreground test and approved command (/proc reads, in process)",
        ours: describe(measured, scale: 1e3, unit: "ms"), reference: "—", comparison: "—", target: "≤ 0.1 ms",
        verdict: verdict(met),
        meaning: "Deciding whether the request is visible and naming its command adds "
          + "\(measured.map { fixed($0.median * 1e3, 3) } ?? "n/a") ms to a fingerprint authentication.",
        json: .object([
          ("unit", .string("ms")), ("subject", measured?.json(scale: 1e3) ?? .null), ("target_ms", .number(0.1)),
          ("visible_rounds", .number(Double(visible))),
        ])))
  }
}
